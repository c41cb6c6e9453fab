// Lcals_EOS: x[i] = u[i] + r*(z[i] + r*y[i])
//                  + t*(u[i+3] + r*(u[i+2] + r*u[i+1]) + t*(u[i+6] + q*(u[i+5] + q*u[i+4]))).
// u has n+6 elements.
KERNEL void eos(GLOBAL REAL* x, GLOBAL const REAL* y, GLOBAL const REAL* z, GLOBAL const REAL* u,
                const REAL q, const REAL r, const REAL t, const uint n)
{
    FOR_EACH(i, n) {
        x[i] = u[i] + r * (z[i] + r * y[i]) +
               t * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) +
                    t * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
    }
}
