/*
 * A stand-in for the NVIDIA driver library (libcuda.so.1), for testing the
 * CUDA backend's host side on machines without a GPU. It executes no kernel
 * but two trivial ones (below), so that rows can pass end to end.
 *
 * It keeps device memory in host memory, parses each loaded module's kernel
 * signatures (cubin: the .nv.info parameter records; PTX: the .entry lists)
 * and records every call that matters to a JSON-lines log, each launch with
 * the bytes of every parameter as the signature sizes them, so that a test
 * can compare what the backend passed with what the compiled kernel expects.
 *
 * Environment:
 *   STANDIN_LOG            file the records are appended to (none: no log)
 *   STANDIN_CUDA_VERSION   the CUDA version the "driver" supports (13000)
 *   STANDIN_CC             the device's compute capability, "9.0"
 *   STANDIN_MEMORY         bytes of device memory the device reports (1 GiB)
 *   STANDIN_FREE           bytes allocations may take before they are out of
 *                          memory (STANDIN_MEMORY)
 *   STANDIN_FAULT          "entry:code": a launch of that entry point faults with
 *                          that CUresult, which then sticks to every later call
 *   STANDIN_FAULT_ONCE     a file: the fault happens only while it does not exist,
 *                          and makes it (once across processes)
 *   STANDIN_COPY_BYTES     element width for one of the two kernels it does
 *                          execute, so that rows can pass verification end to
 *                          end: Stream_COPY's "copy" (c[i] = a[i], i < n; 8, and
 *                          a copy that would not fit the arrays is not made);
 *                          the other is Stream_MUL's "mul", in double precision
 */
#include <cuda.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARAMS 64
#define MAX_ENTRIES 64
#define MAX_ALLOCS 4096
#define MAX_GRAPH_LAUNCHES 4096

typedef struct {
    char name[128];
    int count;
    int sizes[MAX_PARAMS];
    int offsets[MAX_PARAMS];
} Entry;

typedef struct CUmod_st {
    int id;
    int count;
    Entry entries[MAX_ENTRIES];
} Module;

typedef struct CUfunc_st {
    Module *module;
    Entry *entry;
    int max_dynamic_shared; /* as cuFuncSetAttribute opted in, else 0 */
} Function;

typedef struct {
    Function *function;
    unsigned grid[3], block[3], shared;
    int count;
    unsigned char bytes[MAX_PARAMS][8];
} Launch;

typedef struct CUgraph_st {
    int id;
    int count;
    Launch launches[MAX_GRAPH_LAUNCHES];
} Graph;

typedef struct CUgraphExec_st {
    Graph graph;
} GraphExec;

typedef struct CUstream_st {
    int id;
    Graph *capturing;
} Stream;

typedef struct CUevent_st {
    long long tick;
    int recorded;
} Event;

typedef struct CUctx_st {
    int retained;
} Context;

static Context primary;
static Context *current;
static int next_id = 1;
static CUresult sticky = CUDA_SUCCESS;
static long long ticks;
static size_t used;
static struct {
    void *pointer;
    size_t bytes;
} allocs[MAX_ALLOCS];

static void record(const char *format, ...)
{
    const char *path = getenv("STANDIN_LOG");
    if (!path)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    va_list args;
    va_start(args, format);
    vfprintf(f, format, args);
    va_end(args);
    fputc('\n', f);
    fclose(f);
}

static long long setting(const char *name, long long fallback)
{
    const char *value = getenv(name);
    return value ? atoll(value) : fallback;
}

static int capability(int part)
{
    const char *value = getenv("STANDIN_CC");
    int major = 9, minor = 0;
    if (value)
        sscanf(value, "%d.%d", &major, &minor);
    return part ? minor : major;
}

/* ------------------------------------------------------------- signatures */

static Entry *add_entry(Module *m, const char *name, size_t length)
{
    if (m->count == MAX_ENTRIES || length >= sizeof m->entries[0].name)
        return NULL;
    Entry *e = &m->entries[m->count++];
    memcpy(e->name, name, length);
    e->name[length] = 0;
    return e;
}

/* cubin: an ELF file whose section ".nv.info.<entry>" holds one
 * EIATTR_KPARAM_INFO record (attribute 0x17) per parameter: ordinal, offset,
 * and the size in the top 14 bits of its last word. */
static void parse_cubin(Module *m, const unsigned char *image)
{
    uint64_t shoff;
    uint16_t shentsize, shnum, shstrndx;
    memcpy(&shoff, image + 0x28, 8);
    memcpy(&shentsize, image + 0x3a, 2);
    memcpy(&shnum, image + 0x3c, 2);
    memcpy(&shstrndx, image + 0x3e, 2);
    const unsigned char *names = image + *(const uint64_t *)(image + shoff + shstrndx * shentsize + 0x18);
    for (int s = 0; s < shnum; ++s) {
        const unsigned char *header = image + shoff + s * shentsize;
        const char *name = (const char *)names + *(const uint32_t *)header;
        if (strncmp(name, ".nv.info.", 9) != 0)
            continue;
        Entry *e = add_entry(m, name + 9, strlen(name + 9));
        if (!e)
            continue;
        const unsigned char *p = image + *(const uint64_t *)(header + 0x18);
        const unsigned char *end = p + *(const uint64_t *)(header + 0x20);
        while (p + 4 <= end) {
            unsigned format = p[0], attribute = p[1];
            uint16_t size;
            memcpy(&size, p + 2, 2);
            if (format == 4 && attribute == 0x17 && size == 12) {
                uint16_t ordinal, offset;
                uint32_t flags;
                memcpy(&ordinal, p + 8, 2);
                memcpy(&offset, p + 10, 2);
                memcpy(&flags, p + 12, 4);
                if (ordinal < MAX_PARAMS) {
                    e->sizes[ordinal] = (int)(flags >> 18);
                    e->offsets[ordinal] = offset;
                    if (ordinal + 1 > e->count)
                        e->count = ordinal + 1;
                }
            }
            p += format == 4 ? 4 + size : 4;
        }
    }
}

static int ptx_size(const char *type)
{
    if (!strncmp(type, ".u64", 4) || !strncmp(type, ".s64", 4) || !strncmp(type, ".b64", 4) ||
        !strncmp(type, ".f64", 4))
        return 8;
    if (!strncmp(type, ".u32", 4) || !strncmp(type, ".s32", 4) || !strncmp(type, ".b32", 4) ||
        !strncmp(type, ".f32", 4))
        return 4;
    if (!strncmp(type, ".u16", 4) || !strncmp(type, ".s16", 4) || !strncmp(type, ".b16", 4))
        return 2;
    return 1;
}

/* PTX: ".entry name(\n .param .u64 .ptr ... name_param_0,\n ... )". */
static void parse_ptx(Module *m, const char *text)
{
    for (const char *p = strstr(text, ".entry "); p; p = strstr(p, ".entry ")) {
        p += 7;
        const char *open = strchr(p, '(');
        const char *close = open ? strchr(open, ')') : NULL;
        if (!close)
            return;
        const char *start = p, *stop = open;
        while (stop > start && (stop[-1] == ' ' || stop[-1] == '\n'))
            --stop;
        Entry *e = add_entry(m, start, (size_t)(stop - start));
        if (!e)
            return;
        for (const char *q = strstr(open, ".param"); q && q < close && e->count < MAX_PARAMS;
             q = strstr(q + 6, ".param")) {
            const char *type = q + 7;
            int size;
            if (!strncmp(type, ".align", 6)) {
                const char *bracket = strchr(type, '[');
                size = bracket ? atoi(bracket + 1) : 0;
            } else {
                size = ptx_size(type);
            }
            e->offsets[e->count] = e->count ? e->offsets[e->count - 1] + e->sizes[e->count - 1] : 0;
            e->sizes[e->count++] = size;
        }
        p = close;
    }
}

/* ------------------------------------------------------------ the calls */

#define STICKY()                                                                                   \
    do {                                                                                           \
        if (sticky != CUDA_SUCCESS)                                                                \
            return sticky;                                                                         \
    } while (0)

CUresult CUDAAPI cuInit(unsigned int flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *version)
{
    *version = (int)setting("STANDIN_CUDA_VERSION", 13000);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    *count = 1;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int length, CUdevice device)
{
    (void)device;
    snprintf(name, (size_t)length, "Stand-in CUDA device");
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice device)
{
    (void)device;
    *bytes = (size_t)setting("STANDIN_MEMORY", 1LL << 30);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device)
{
    (void)device;
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = capability(0); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = capability(1); break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        *value = (int)setting("STANDIN_SHARED_OPTIN", 232448);
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    default: *value = 0;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device)
{
    (void)device;
    primary.retained++;
    *context = &primary;
    record("{\"call\": \"retain\"}");
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice device)
{
    (void)device;
    if (primary.retained == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    primary.retained--;
    record("{\"call\": \"release\"}");
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice device)
{
    (void)device;
    sticky = CUDA_SUCCESS;
    record("{\"call\": \"reset\"}");
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext context)
{
    current = context;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *context)
{
    *context = current;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent(CUcontext context)
{
    current = context;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPopCurrent(CUcontext *context)
{
    if (context)
        *context = current;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    *device = 0;
    return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    STICKY();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreate(CUstream *stream, unsigned int flags)
{
    (void)flags;
    STICKY();
    Stream *s = calloc(1, sizeof *s);
    s->id = next_id++;
    *stream = s;
    record("{\"call\": \"stream\", \"stream\": %d}", s->id);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream stream)
{
    free(stream);
    return CUDA_SUCCESS;
}

static int stream_id(CUstream stream) { return stream ? ((Stream *)stream)->id : 0; }

CUresult CUDAAPI cuStreamSynchronize(CUstream stream)
{
    STICKY();
    record("{\"call\": \"synchronize\", \"stream\": %d}", stream_id(stream));
    return CUDA_SUCCESS;
}

static int alloc_index(const void *pointer)
{
    for (int i = 0; i < MAX_ALLOCS; ++i)
        if (allocs[i].pointer == pointer)
            return i;
    return -1;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *pointer, size_t bytes)
{
    STICKY();
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (used + bytes > (size_t)setting("STANDIN_FREE", setting("STANDIN_MEMORY", 1LL << 30)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    int i = alloc_index(NULL);
    if (i < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    allocs[i].pointer = calloc(1, bytes);
    allocs[i].bytes = bytes;
    used += bytes;
    *pointer = (CUdeviceptr)(uintptr_t)allocs[i].pointer;
    record("{\"call\": \"alloc\", \"pointer\": %llu, \"bytes\": %zu}", (unsigned long long)*pointer, bytes);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr pointer)
{
    STICKY();
    int i = alloc_index((void *)(uintptr_t)pointer);
    if (i < 0)
        return CUDA_ERROR_INVALID_VALUE;
    free(allocs[i].pointer);
    used -= allocs[i].bytes;
    allocs[i].pointer = NULL;
    record("{\"call\": \"free\", \"pointer\": %llu}", (unsigned long long)pointer);
    return CUDA_SUCCESS;
}

static CUresult copy(const char *kind, void *to, const void *from, size_t bytes, int async,
                     CUstream stream)
{
    STICKY();
    memcpy(to, from, bytes);
    record("{\"call\": \"copy\", \"kind\": \"%s\", \"bytes\": %zu, \"async\": %d, \"stream\": %d}",
           kind, bytes, async, stream_id(stream));
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr to, const void *from, size_t bytes)
{
    return copy("htod", (void *)(uintptr_t)to, from, bytes, 0, NULL);
}

CUresult CUDAAPI cuMemcpyDtoH(void *to, CUdeviceptr from, size_t bytes)
{
    return copy("dtoh", to, (const void *)(uintptr_t)from, bytes, 0, NULL);
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr to, const void *from, size_t bytes, CUstream stream)
{
    return copy("htod", (void *)(uintptr_t)to, from, bytes, 1, stream);
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *to, CUdeviceptr from, size_t bytes, CUstream stream)
{
    return copy("dtoh", to, (const void *)(uintptr_t)from, bytes, 1, stream);
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    STICKY();
    Module *m = calloc(1, sizeof *m);
    m->id = next_id++;
    const unsigned char *bytes = image;
    int elf = !memcmp(bytes, "\x7f" "ELF", 4);
    if (elf)
        parse_cubin(m, bytes);
    else
        parse_ptx(m, image);
    if (m->count == 0) {
        free(m);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    *module = m;
    record("{\"call\": \"load\", \"module\": %d, \"kind\": \"%s\", \"entries\": %d}", m->id,
           elf ? "cubin" : "ptx", m->count);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module)
{
    free(module);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name)
{
    STICKY();
    Module *m = module;
    for (int i = 0; i < m->count; ++i) {
        if (!strcmp(m->entries[i].name, name)) {
            Function *f = calloc(1, sizeof *f);
            f->module = m;
            f->entry = &m->entries[i];
            *function = f;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

/* Stream_MUL's entry point "mul" (b[i] = scalar * c[i]) in double precision. */
static void execute_mul(const Launch *l)
{
    double *b, scalar;
    const double *c;
    unsigned n;
    memcpy(&b, l->bytes[0], 8);
    memcpy(&c, l->bytes[1], 8);
    memcpy(&scalar, l->bytes[2], 8);
    memcpy(&n, l->bytes[3], 4);
    int from = alloc_index(c), to = alloc_index(b);
    if (from < 0 || to < 0 || n * 8ULL > allocs[from].bytes || n * 8ULL > allocs[to].bytes)
        return;
    for (unsigned i = 0; i < n; ++i)
        b[i] = scalar * c[i];
}

/* The kernels executed: Stream_COPY's entry point "copy", and "mul". */
static void execute(const Launch *l)
{
    if (!strcmp(l->function->entry->name, "mul") && l->count == 4 &&
        l->function->entry->sizes[2] == 8)
        execute_mul(l);
    if (strcmp(l->function->entry->name, "copy") != 0 || l->count != 3)
        return;
    const char *a, *c;
    unsigned n;
    memcpy(&a, l->bytes[0], 8);
    memcpy(&c, l->bytes[1], 8);
    memcpy(&n, l->bytes[2], 4);
    int from = alloc_index(a), to = alloc_index(c);
    if (from < 0 || to < 0)
        return;
    size_t bytes = (size_t)n * (size_t)setting("STANDIN_COPY_BYTES", 8);
    if (bytes > allocs[from].bytes || bytes > allocs[to].bytes)
        return; /* not the width this run's arrays have */
    memcpy((char *)c, a, bytes);
}

static void fault_check(const Launch *l)
{
    const char *fault = getenv("STANDIN_FAULT");
    const char *colon = fault ? strchr(fault, ':') : NULL;
    const char *name = l->function->entry->name;
    if (!colon || strlen(name) != (size_t)(colon - fault) || strncmp(fault, name, strlen(name)))
        return;
    const char *once = getenv("STANDIN_FAULT_ONCE");
    if (once) {
        FILE *marker = fopen(once, "r");
        if (marker) {
            fclose(marker);
            return;
        }
        marker = fopen(once, "w");
        if (marker)
            fclose(marker);
    }
    sticky = (CUresult)atoi(colon + 1);
}

static void run_launch(const Launch *l)
{
    if (sticky != CUDA_SUCCESS)
        return;
    ticks++;
    fault_check(l);
    if (sticky == CUDA_SUCCESS)
        execute(l);
}

static void log_launch(const Launch *l, int stream, int captured)
{
    char params[MAX_PARAMS * 20 + 4], *p = params;
    *p++ = '[';
    for (int i = 0; i < l->count; ++i) {
        p += sprintf(p, "%s\"", i ? ", " : "");
        for (int b = 0; b < l->function->entry->sizes[i] && b < 8; ++b)
            p += sprintf(p, "%02x", l->bytes[i][b]);
        *p++ = '"';
    }
    *p++ = ']';
    *p = 0;
    record("{\"call\": \"launch\", \"name\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u, "
           "%u], \"shared\": %u, \"stream\": %d, \"captured\": %d, \"params\": %s}",
           l->function->entry->name, l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1],
           l->block[2], l->shared, stream, captured, params);
}

/* Dynamic shared memory over 48 KiB needs the function's opt-in, up to the
 * device's limit, as on a GPU. */
CUresult CUDAAPI cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value)
{
    STICKY();
    Function *f = function;
    if (attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (value < 0 || value > setting("STANDIN_SHARED_OPTIN", 232448))
        return CUDA_ERROR_INVALID_VALUE;
    f->max_dynamic_shared = value;
    record("{\"call\": \"opt_in\", \"name\": \"%s\", \"shared\": %d}", f->entry->name, value);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy, unsigned gz,
                                unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                CUstream stream, void **params, void **extra)
{
    STICKY();
    if (extra || !params)
        return CUDA_ERROR_INVALID_VALUE;
    const Function *f = function;
    if (shared > 49152 && shared > (unsigned)f->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;
    if (bx * by * bz > 1024 || bx * by * bz == 0 || gx * gy * gz == 0)
        return CUDA_ERROR_INVALID_VALUE;
    Launch l = {.function = function, .grid = {gx, gy, gz}, .block = {bx, by, bz}, .shared = shared};
    const Entry *e = l.function->entry;
    l.count = e->count;
    for (int i = 0; i < e->count; ++i)
        memcpy(l.bytes[i], params[i], e->sizes[i] < 8 ? (size_t)e->sizes[i] : 8);
    Stream *s = stream;
    if (s && s->capturing) {
        if (s->capturing->count == MAX_GRAPH_LAUNCHES)
            return CUDA_ERROR_OUT_OF_MEMORY;
        s->capturing->launches[s->capturing->count++] = l;
        log_launch(&l, s->id, 1);
        return CUDA_SUCCESS;
    }
    log_launch(&l, stream_id(stream), 0);
    run_launch(&l);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode)
{
    (void)mode;
    STICKY();
    Stream *s = stream;
    if (!s || s->capturing)
        return CUDA_ERROR_INVALID_VALUE;
    s->capturing = calloc(1, sizeof(Graph));
    s->capturing->id = next_id++;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamEndCapture(CUstream stream, CUgraph *graph)
{
    STICKY();
    Stream *s = stream;
    if (!s || !s->capturing)
        return CUDA_ERROR_ILLEGAL_STATE;
    *graph = s->capturing;
    record("{\"call\": \"capture\", \"graph\": %d, \"launches\": %d}", s->capturing->id,
           s->capturing->count);
    s->capturing = NULL;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    (void)flags;
    STICKY();
    GraphExec *g = malloc(sizeof *g);
    g->graph = *(Graph *)graph;
    *exec = g;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream stream)
{
    STICKY();
    Graph *g = &((GraphExec *)exec)->graph;
    record("{\"call\": \"graph\", \"graph\": %d, \"launches\": %d, \"stream\": %d}", g->id, g->count,
           stream_id(stream));
    for (int i = 0; i < g->count; ++i)
        run_launch(&g->launches[i]);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec exec)
{
    free(exec);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphDestroy(CUgraph graph)
{
    free(graph);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent *event, unsigned int flags)
{
    (void)flags;
    STICKY();
    *event = calloc(1, sizeof(Event));
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent event)
{
    free(event);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent event, CUstream stream)
{
    STICKY();
    Stream *s = stream;
    if (s && s->capturing)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    ((Event *)event)->tick = ticks;
    ((Event *)event)->recorded = 1;
    record("{\"call\": \"event\", \"stream\": %d}", stream_id(stream));
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventSynchronize(CUevent event)
{
    (void)event;
    STICKY();
    return CUDA_SUCCESS;
}

/* Each launch executed takes one simulated microsecond. */
CUresult CUDAAPI cuEventElapsedTime(float *milliseconds, CUevent start, CUevent end)
{
    STICKY();
    const Event *a = start, *b = end;
    if (!a->recorded || !b->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    *milliseconds = (float)(b->tick - a->tick) * 1e-3f;
    return CUDA_SUCCESS;
}

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
};

static int error_index(CUresult code)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; ++i)
        if (errors[i].code == code)
            return (int)i;
    return -1;
}

CUresult CUDAAPI cuGetErrorName(CUresult code, const char **name)
{
    int i = error_index(code);
    if (i < 0)
        return CUDA_ERROR_INVALID_VALUE;
    *name = errors[i].name;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult code, const char **text)
{
    int i = error_index(code);
    if (i < 0)
        return CUDA_ERROR_INVALID_VALUE;
    *text = errors[i].text;
    return CUDA_SUCCESS;
}

/* NVRTC asks for the driver's private tables when a driver is present; it
 * compiles without them. */
CUresult CUDAAPI cuGetExportTable(const void **table, const CUuuid *id)
{
    (void)id;
    *table = NULL;
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* The bindings ask for every function by its base name; the ABI returned is
 * the newest, which is what cuda.h's version macros name here. */
#define ENTRY(name) {#name, (void *)name}
static const struct {
    const char *name;
    void *function;
} table[] = {
    ENTRY(cuInit), ENTRY(cuDriverGetVersion), ENTRY(cuDeviceGetCount), ENTRY(cuDeviceGet),
    ENTRY(cuDeviceGetName), ENTRY(cuDeviceTotalMem), ENTRY(cuDeviceGetAttribute),
    ENTRY(cuDevicePrimaryCtxRetain), ENTRY(cuDevicePrimaryCtxRelease),
    ENTRY(cuDevicePrimaryCtxReset), ENTRY(cuCtxSetCurrent), ENTRY(cuCtxGetCurrent),
    ENTRY(cuCtxPushCurrent), ENTRY(cuCtxPopCurrent), ENTRY(cuCtxGetDevice),
    ENTRY(cuCtxSynchronize), ENTRY(cuStreamCreate), ENTRY(cuStreamDestroy),
    ENTRY(cuStreamSynchronize), ENTRY(cuMemAlloc), ENTRY(cuMemFree), ENTRY(cuMemcpyHtoD),
    ENTRY(cuMemcpyDtoH), ENTRY(cuMemcpyHtoDAsync), ENTRY(cuMemcpyDtoHAsync),
    ENTRY(cuModuleLoadData), ENTRY(cuModuleUnload), ENTRY(cuModuleGetFunction),
    ENTRY(cuLaunchKernel), ENTRY(cuFuncSetAttribute), ENTRY(cuStreamBeginCapture), ENTRY(cuStreamEndCapture),
    ENTRY(cuGraphInstantiate), {"cuGraphInstantiateWithFlags", (void *)cuGraphInstantiate},
    ENTRY(cuGraphLaunch), ENTRY(cuGraphExecDestroy),
    ENTRY(cuGraphDestroy), ENTRY(cuEventCreate), ENTRY(cuEventDestroy), ENTRY(cuEventRecord),
    ENTRY(cuEventSynchronize), ENTRY(cuEventElapsedTime), ENTRY(cuGetErrorName),
    ENTRY(cuGetErrorString),
};

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **function, int version,
                                  cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    (void)version;
    (void)flags;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        if (!strcmp(table[i].name, symbol)) {
            *function = table[i].function;
            if (status)
                *status = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    }
    *function = NULL;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}
