// The shared C dialect in CUDA C++. A body in kernels/c/ is written in these
// words and compiles for CUDA and OpenCL alike; kernels/opencl/dialect.clh
// defines the same words for OpenCL. The backend puts this file in front of
// every CUDA source, after the description's defines (REAL, GROUP, ...).

// OpenCL C's type names (macros, not typedefs: nvcc's host headers typedef
// some of these names to other types).
#define uchar unsigned char
#define uint unsigned int
#define ulong unsigned long long

// OpenCL C's limits that kernels use.
#ifndef INT_MAX
#define INT_MAX 2147483647
#define INT_MIN (-INT_MAX - 1)
#endif

// Qualifiers: an entry point, a helper function, pointers to global, to
// read-only (constant) and to work-group memory, and a work-group array
// declared in a kernel.
#define KERNEL extern "C" __global__
#define DEVICE __device__ inline
#define GLOBAL
#define CONSTANT const
#define LOCAL
#define SHARED __shared__
// Work-group memory whose size is given at launch, for a kernel that needs
// more than it may declare (48 KiB): the backend then defines
// DYNAMIC_SHARED_BYTES and gives that many bytes to each launch. One array a
// kernel, 16-byte aligned; a body carves several out of it.
#define DYNAMIC_SHARED(T, name) extern __shared__ __align__(16) T name[]

// Ids and sizes along axis d, as size_t.
#define HARNESS_AXIS(v, d) ((size_t)((d) == 0 ? (v).x : (d) == 1 ? (v).y : (v).z))
#define LOCAL_ID(d) HARNESS_AXIS(threadIdx, d)
#define GROUP_ID(d) HARNESS_AXIS(blockIdx, d)
#define NUM_GROUPS(d) HARNESS_AXIS(gridDim, d)
#define GLOBAL_ID(d) (GROUP_ID(d) * HARNESS_AXIS(blockDim, d) + LOCAL_ID(d))
#define GLOBAL_SIZE(d) (NUM_GROUPS(d) * HARNESS_AXIS(blockDim, d))

// Every thread of the block waits here; shared memory is then consistent.
#define BARRIER() __syncthreads()
// The same, for threads that share global memory across it (__syncthreads
// orders global memory within the block too).
#define GLOBAL_BARRIER() __syncthreads()

// Before a loop whose bounds are constant: unroll it fully, so that private
// arrays indexed by its counter stay in registers.
#define UNROLL _Pragma("unroll")

// The walk over [0, n) (harness/model/partition.py): a launch may have fewer
// work-items than items. With PARTITION_CHUNK each work-item takes a contiguous
// run of ceil(n / GLOBAL_SIZE(0)) items, which CPU devices vectorise and
// prefetch; otherwise the grid-stride loop, each taking every
// GLOBAL_SIZE(0)-th item, which GPUs read coalesced. FOR_EACH_BLOCK(b, m, n, T)
// is the same walk a block at a time: the items [b, b + m), m <= T, for a body
// that works on several neighbours at once; outside PARTITION_CHUNK every block
// is one item. FOR_EACH_2D(j, i, nx, ny) walks the nx x ny items (j along a
// row, i the row) of a two-axis launch: with PARTITION_CHUNK, on the one-axis
// launch the backend makes of it, each work-item takes a contiguous run of
// whole rows, a loop along each that CPU devices vectorise; otherwise the
// launch covers the items and a work-item takes the one at its ids (a guard,
// not a loop, which CPU devices vectorise across work-items: the body may not
// `continue`).
#if PARTITION_CHUNK
#define FOR_EACH(i, n)                                                               \
    for (size_t i##_per = ((size_t)(n) + GLOBAL_SIZE(0) - 1) / GLOBAL_SIZE(0),       \
                i = GLOBAL_ID(0) * i##_per,                                          \
                i##_end = i + i##_per < (size_t)(n) ? i + i##_per : (size_t)(n);     \
         i < i##_end; ++i)
#define FOR_EACH_BLOCK(b, m, n, T)                                                   \
    for (size_t b##_per = ((size_t)(n) + GLOBAL_SIZE(0) - 1) / GLOBAL_SIZE(0),       \
                b = GLOBAL_ID(0) * b##_per,                                          \
                b##_end = b + b##_per < (size_t)(n) ? b + b##_per : (size_t)(n),     \
                m = b##_end - b < (size_t)(T) ? b##_end - b : (size_t)(T);           \
         b < b##_end;                                                                \
         b += (T), m = b##_end - b < (size_t)(T) ? b##_end - b : (size_t)(T))
#define FOR_EACH_2D(j, i, nx, ny)                                                    \
    for (size_t i##_per = ((size_t)(ny) + GLOBAL_SIZE(0) - 1) / GLOBAL_SIZE(0),      \
                i = GLOBAL_ID(0) * i##_per,                                          \
                i##_end = i + i##_per < (size_t)(ny) ? i + i##_per : (size_t)(ny);   \
         i < i##_end; ++i)                                                           \
        for (size_t j = 0; j < (size_t)(nx); ++j)
#else
#define FOR_EACH(i, n) for (size_t i = GLOBAL_ID(0); i < (n); i += GLOBAL_SIZE(0))
#define FOR_EACH_BLOCK(b, m, n, T) \
    for (size_t b = GLOBAL_ID(0), m = 1; b < (n); b += GLOBAL_SIZE(0))
#define FOR_EACH_2D(j, i, nx, ny)                  \
    const size_t j = GLOBAL_ID(0), i = GLOBAL_ID(1); \
    if (i < (size_t)(ny) && j < (size_t)(nx))
#endif

// Integer atomics on global or shared memory.
#define ATOMIC_ADD(p, v) atomicAdd(p, v)
#define ATOMIC_INC(p) atomicAdd(p, 1)

// Floating-point atomic add: native for float, and for double from sm_60.
// Bodies test NATIVE_ATOMIC_ADD_REAL where contention on one address matters:
// OpenCL's stand-in, a compare-and-swap loop, serialises a GPU's work-items.
#define NATIVE_ATOMIC_ADD_REAL 1
DEVICE void atomic_add_real(REAL* p, const REAL v)
{
    atomicAdd(p, v);
}

// OpenCL C's reinterpreting casts.
DEVICE uint as_uint(const float x)
{
    return __float_as_uint(x);
}
DEVICE float as_float(const uint x)
{
    return __uint_as_float(x);
}
DEVICE ulong as_ulong(const double x)
{
    return (ulong)__double_as_longlong(x);
}
DEVICE double as_double(const ulong x)
{
    return __longlong_as_double((long long)x);
}
