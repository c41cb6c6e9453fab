// Apps_ENERGY: the six loops of a hydro energy update, one entry point each.
// SSC_FLOOR, SSC_MIN and ENERGY_BLOCK come from the description.
//
// Where RAJAPerf branches per zone the bodies here select, and the loops with
// a sound speed branch once per block of ENERGY_BLOCK zones instead (a block
// is one zone unless the walk is in contiguous runs): PoCL vectorises a run's
// loop only with no branch and no call under a condition in it, and a block
// with no compressed zone still skips their loads, as RAJAPerf's branch does.
// At 10^6 zones in runs, energy2 took 1.4 ms with the per-zone branch and
// 0.15 ms by blocks.
#include "cutoff.h"

// sqrt(ssc), or a small constant where ssc is at or below the floor; the root
// is taken whatever ssc is.
DEVICE REAL sound_speed(const REAL ssc)
{
    const REAL root = sqrt(ssc);
    return ssc <= SSC_FLOOR ? SSC_MIN : root;
}

// e with magnitudes below cut zeroed, then raised to at least lowest.
DEVICE REAL cut_and_floor(const REAL e, const REAL cut, const REAL lowest)
{
    const REAL kept = below_cut(e, cut) ? (REAL)0.0 : e;
    return kept < lowest ? lowest : kept;
}

// Whether a zone of [b, b + m) is compressed (delvc <= 0): only those take q
// from the sound speed.
DEVICE int any_compressed(GLOBAL const REAL* delvc, const size_t b, const size_t m)
{
    int any = 0;
    for (size_t j = b; j < b + m; ++j) {
        any |= delvc[j] <= (REAL)0.0;
    }
    return any;
}

// energy5's new energy of one zone from its q_tilde, cut and floored.
DEVICE REAL energy5_update(const REAL e, const REAL delvc, const REAL p_old, const REAL q_old,
                           const REAL p_half, const REAL q_new, const REAL p_new,
                           const REAL q_tilde, const REAL e_cut, const REAL emin)
{
    const REAL updated =
        e - ((REAL)7.0 * (p_old + q_old) - (REAL)8.0 * (p_half + q_new) + (p_new + q_tilde)) *
                delvc / (REAL)6.0;
    return cut_and_floor(updated, e_cut, emin);
}

KERNEL void energy1(GLOBAL REAL* e_new, GLOBAL const REAL* e_old, GLOBAL const REAL* delvc,
                    GLOBAL const REAL* p_old, GLOBAL const REAL* q_old, GLOBAL const REAL* work,
                    const uint n)
{
    FOR_EACH(i, n) {
        e_new[i] = e_old[i] - (REAL)0.5 * delvc[i] * (p_old[i] + q_old[i]) + (REAL)0.5 * work[i];
    }
}

KERNEL void energy2(GLOBAL const REAL* e_new, GLOBAL const REAL* delvc, GLOBAL REAL* q_new,
                    GLOBAL const REAL* compHalfStep, GLOBAL const REAL* pHalfStep,
                    GLOBAL const REAL* bvc, GLOBAL const REAL* pbvc, GLOBAL const REAL* ql_old,
                    GLOBAL const REAL* qq_old, const REAL rho0, const uint n)
{
    FOR_EACH_BLOCK(b, m, n, ENERGY_BLOCK) {
        if (any_compressed(delvc, b, m)) {
            for (size_t i = b; i < b + m; ++i) {
                const REAL vhalf = (REAL)1.0 / ((REAL)1.0 + compHalfStep[i]);
                const REAL ssc = sound_speed(
                    (pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * pHalfStep[i]) / rho0);
                q_new[i] = delvc[i] > (REAL)0.0 ? (REAL)0.0 : ssc * ql_old[i] + qq_old[i];
            }
        } else {
            for (size_t i = b; i < b + m; ++i) {
                q_new[i] = (REAL)0.0;
            }
        }
    }
}

KERNEL void energy3(GLOBAL REAL* e_new, GLOBAL const REAL* delvc, GLOBAL const REAL* p_old,
                    GLOBAL const REAL* q_new, GLOBAL const REAL* q_old,
                    GLOBAL const REAL* pHalfStep, const uint n)
{
    FOR_EACH(i, n) {
        e_new[i] = e_new[i] +
                   (REAL)0.5 * delvc[i] *
                       ((REAL)3.0 * (p_old[i] + q_old[i]) - (REAL)4.0 * (pHalfStep[i] + q_new[i]));
    }
}

KERNEL void energy4(GLOBAL REAL* e_new, GLOBAL const REAL* work, const REAL e_cut, const REAL emin,
                    const uint n)
{
    FOR_EACH(i, n) {
        e_new[i] = cut_and_floor(e_new[i] + (REAL)0.5 * work[i], e_cut, emin);
    }
}

KERNEL void energy5(GLOBAL REAL* e_new, GLOBAL const REAL* delvc, GLOBAL const REAL* p_new,
                    GLOBAL const REAL* p_old, GLOBAL const REAL* q_new, GLOBAL const REAL* q_old,
                    GLOBAL const REAL* pHalfStep, GLOBAL const REAL* bvc, GLOBAL const REAL* pbvc,
                    GLOBAL const REAL* ql_old, GLOBAL const REAL* qq_old, GLOBAL const REAL* vnewc,
                    const REAL rho0, const REAL e_cut, const REAL emin, const uint n)
{
    FOR_EACH_BLOCK(b, m, n, ENERGY_BLOCK) {
        if (any_compressed(delvc, b, m)) {
            for (size_t i = b; i < b + m; ++i) {
                const REAL ssc = sound_speed(
                    (pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
                const REAL q_tilde = delvc[i] > (REAL)0.0 ? (REAL)0.0 : ssc * ql_old[i] + qq_old[i];
                e_new[i] = energy5_update(e_new[i], delvc[i], p_old[i], q_old[i], pHalfStep[i],
                                          q_new[i], p_new[i], q_tilde, e_cut, emin);
            }
        } else {
            for (size_t i = b; i < b + m; ++i) {
                e_new[i] = energy5_update(e_new[i], delvc[i], p_old[i], q_old[i], pHalfStep[i],
                                          q_new[i], p_new[i], (REAL)0.0, e_cut, emin);
            }
        }
    }
}

KERNEL void energy6(GLOBAL const REAL* e_new, GLOBAL const REAL* delvc, GLOBAL const REAL* p_new,
                    GLOBAL REAL* q_new, GLOBAL const REAL* bvc, GLOBAL const REAL* pbvc,
                    GLOBAL const REAL* ql_old, GLOBAL const REAL* qq_old, GLOBAL const REAL* vnewc,
                    const REAL rho0, const REAL q_cut, const uint n)
{
    FOR_EACH_BLOCK(b, m, n, ENERGY_BLOCK) {
        if (any_compressed(delvc, b, m)) {
            for (size_t i = b; i < b + m; ++i) {
                const REAL ssc = sound_speed(
                    (pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
                const REAL q = ssc * ql_old[i] + qq_old[i];
                if (delvc[i] <= (REAL)0.0) {
                    q_new[i] = below_cut(q, q_cut) ? (REAL)0.0 : q;
                }
            }
        }
    }
}
