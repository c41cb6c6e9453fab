// Basic_IF_QUAD: roots x1, x2 of a*x^2 + b*x + c where the discriminant is >= 0, else 0.
KERNEL void if_quad(GLOBAL REAL* x1, GLOBAL REAL* x2, GLOBAL const REAL* a, GLOBAL const REAL* b,
                    GLOBAL const REAL* c, const uint n)
{
    FOR_EACH(i, n) {
        REAL s = b[i] * b[i] - (REAL)4.0 * a[i] * c[i];
        if (s >= (REAL)0.0) {
            s = sqrt(s);
            x2[i] = (-b[i] + s) / ((REAL)2.0 * a[i]);
            x1[i] = (-b[i] - s) / ((REAL)2.0 * a[i]);
        } else {
            x2[i] = (REAL)0.0;
            x1[i] = (REAL)0.0;
        }
    }
}
