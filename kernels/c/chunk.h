// FOR_CHUNK(i, begin, end): the items of a work-group's chunk [begin, end)
// that this work-item visits, for reductions, whose order does not matter.
// On GPUs neighbouring work-items take neighbouring items, so loads coalesce;
// on CPU devices each work-item walks its own contiguous slice, which a CPU
// streams, where the strided walk costs several times more (see Stream_DOT.c).
#ifdef HARNESS_CPU_DEVICE
#define FOR_CHUNK(i, begin, end)                                                                   \
    const ulong i##_slice = ((end) - (begin) + GROUP - 1) / GROUP;                                 \
    const ulong i##_first = min((ulong)(begin) + LOCAL_ID(0) * i##_slice, (ulong)(end));           \
    const ulong i##_last = min(i##_first + i##_slice, (ulong)(end));                               \
    for (ulong i = i##_first; i < i##_last; i++)
#else
#define FOR_CHUNK(i, begin, end) for (ulong i = (begin) + LOCAL_ID(0); i < (end); i += GROUP)
#endif
