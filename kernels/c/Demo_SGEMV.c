// Demo_SGEMV: y = A x in single precision, A of rows x cols stored by rows: work-item
// i takes row i, summing its products in order.
KERNEL void sgemv(GLOBAL const float* A, GLOBAL const float* x, GLOBAL float* y, const uint rows,
                  const uint cols)
{
    FOR_EACH(i, rows) {
        GLOBAL const float* row = A + (size_t)i * cols;
        float sum = 0.0f;
        for (uint j = 0; j < cols; ++j) {
            sum += row[j] * x[j];
        }
        y[i] = sum;
    }
}
