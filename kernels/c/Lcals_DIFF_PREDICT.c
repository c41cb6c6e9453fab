// Lcals_DIFF_PREDICT: running differences of cx through px's planes 4 to 13.
// RAJAPerf shifts px and cx by -4 planes (a plane is n elements), so its planes
// 4 to 13 are planes 0 to 9 of the stored px, and cx[i + 4n] is cx[i].
KERNEL void diff_predict(GLOBAL REAL* px, GLOBAL const REAL* cx, const uint n)
{
    FOR_EACH(i, n) {
        REAL ar, br, cr;
        ar = cx[i];
        br = ar - px[i];
        px[i] = ar;
        cr = br - px[i + n];
        px[i + n] = br;
        ar = cr - px[i + 2 * n];
        px[i + 2 * n] = cr;
        br = ar - px[i + 3 * n];
        px[i + 3 * n] = ar;
        cr = br - px[i + 4 * n];
        px[i + 4 * n] = br;
        ar = cr - px[i + 5 * n];
        px[i + 5 * n] = cr;
        br = ar - px[i + 6 * n];
        px[i + 6 * n] = ar;
        cr = br - px[i + 7 * n];
        px[i + 7 * n] = br;
        px[i + 9 * n] = cr - px[i + 8 * n];
        px[i + 8 * n] = cr;
    }
}
