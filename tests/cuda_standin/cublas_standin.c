/*
 * A stand-in for NVIDIA's cuBLAS (libcublas.so.13), beside the stand-in driver
 * (standin.c), whose device memory is host memory: it computes the routines
 * the CUDA backend calls at once, on the host, by the reference BLAS's
 * column-major definitions, so that a test can check how the backend maps the
 * harness's row-major routines onto them. Handles and streams are only kept.
 */
#include <stdint.h>
#include <stdlib.h>

typedef int Status;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7 };
enum { OP_N = 0, OP_T = 1 };

typedef struct {
    void *stream;
} Handle;

Status cublasCreate_v2(Handle **handle)
{
    *handle = calloc(1, sizeof **handle);
    return *handle ? SUCCESS : NOT_INITIALIZED;
}

Status cublasDestroy_v2(Handle *handle)
{
    free(handle);
    return SUCCESS;
}

Status cublasSetStream_v2(Handle *handle, void *stream)
{
    if (!handle)
        return NOT_INITIALIZED;
    handle->stream = stream;
    return SUCCESS;
}

/* op(X)[i][j] of a column-major X with leading dimension ld. */
#define AT(X, op, i, j, ld) ((op) == OP_N ? (X)[(i) + (size_t)(j) * (ld)] : (X)[(j) + (size_t)(i) * (ld)])

/* C = alpha op(A) op(B) + beta C; C is m x n, op(A) m x k, op(B) k x n. */
#define GEMM(NAME, T)                                                                       \
    Status NAME(Handle *h, int ta, int tb, int m, int n, int k, const T *alpha, const T *A,  \
                int lda, const T *B, int ldb, const T *beta, T *C, int ldc)                  \
    {                                                                                        \
        if (!h)                                                                              \
            return NOT_INITIALIZED;                                                          \
        if (m < 0 || n < 0 || k < 0 || ldc < (m > 1 ? m : 1))                                \
            return INVALID_VALUE;                                                            \
        for (int j = 0; j < n; ++j)                                                          \
            for (int i = 0; i < m; ++i) {                                                    \
                T sum = 0;                                                                   \
                for (int p = 0; p < k; ++p)                                                  \
                    sum += AT(A, ta, i, p, lda) * AT(B, tb, p, j, ldb);                      \
                T *c = &C[i + (size_t)j * ldc];                                              \
                *c = *alpha * sum + (*beta == 0 ? 0 : *beta * *c);                           \
            }                                                                                \
        return SUCCESS;                                                                      \
    }

/* y = alpha op(A) x + beta y; A is m x n column-major. */
#define GEMV(NAME, T)                                                                        \
    Status NAME(Handle *h, int trans, int m, int n, const T *alpha, const T *A, int lda,      \
                const T *x, int incx, const T *beta, T *y, int incy)                          \
    {                                                                                        \
        if (!h)                                                                              \
            return NOT_INITIALIZED;                                                          \
        if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || incx == 0 || incy == 0)               \
            return INVALID_VALUE;                                                            \
        int rows = trans == OP_N ? m : n, cols = trans == OP_N ? n : m;                      \
        for (int i = 0; i < rows; ++i) {                                                     \
            T sum = 0;                                                                       \
            for (int j = 0; j < cols; ++j)                                                   \
                sum += AT(A, trans, i, j, lda) * x[(size_t)j * incx];                        \
            T *out = &y[(size_t)i * incy];                                                   \
            *out = *alpha * sum + (*beta == 0 ? 0 : *beta * *out);                           \
        }                                                                                    \
        return SUCCESS;                                                                      \
    }

GEMM(cublasDgemm_v2, double)
GEMM(cublasSgemm_v2, float)
GEMV(cublasDgemv_v2, double)
GEMV(cublasSgemv_v2, float)
