// Apps_ENERGY: the six loops of a hydro energy update, one entry point each.
// SSC_FLOOR and SSC_MIN come from the description.
#include "cutoff.h"

// sqrt(ssc), or a small constant where ssc is at or below the floor.
DEVICE REAL sound_speed(const REAL ssc)
{
    return ssc <= SSC_FLOOR ? SSC_MIN : sqrt(ssc);
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
    FOR_EACH(i, n) {
        if (delvc[i] > (REAL)0.0) {
            q_new[i] = (REAL)0.0;
        } else {
            const REAL vhalf = (REAL)1.0 / ((REAL)1.0 + compHalfStep[i]);
            const REAL ssc =
                sound_speed((pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * pHalfStep[i]) / rho0);
            q_new[i] = ssc * ql_old[i] + qq_old[i];
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
        REAL e = e_new[i] + (REAL)0.5 * work[i];
        if (below_cut(e, e_cut)) {
            e = (REAL)0.0;
        }
        if (e < emin) {
            e = emin;
        }
        e_new[i] = e;
    }
}

KERNEL void energy5(GLOBAL REAL* e_new, GLOBAL const REAL* delvc, GLOBAL const REAL* p_new,
                    GLOBAL const REAL* p_old, GLOBAL const REAL* q_new, GLOBAL const REAL* q_old,
                    GLOBAL const REAL* pHalfStep, GLOBAL const REAL* bvc, GLOBAL const REAL* pbvc,
                    GLOBAL const REAL* ql_old, GLOBAL const REAL* qq_old, GLOBAL const REAL* vnewc,
                    const REAL rho0, const REAL e_cut, const REAL emin, const uint n)
{
    FOR_EACH(i, n) {
        REAL q_tilde;
        if (delvc[i] > (REAL)0.0) {
            q_tilde = (REAL)0.0;
        } else {
            const REAL ssc =
                sound_speed((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
            q_tilde = ssc * ql_old[i] + qq_old[i];
        }
        REAL e = e_new[i] - ((REAL)7.0 * (p_old[i] + q_old[i]) -
                             (REAL)8.0 * (pHalfStep[i] + q_new[i]) + (p_new[i] + q_tilde)) *
                                delvc[i] / (REAL)6.0;
        if (below_cut(e, e_cut)) {
            e = (REAL)0.0;
        }
        if (e < emin) {
            e = emin;
        }
        e_new[i] = e;
    }
}

KERNEL void energy6(GLOBAL const REAL* e_new, GLOBAL const REAL* delvc, GLOBAL const REAL* p_new,
                    GLOBAL REAL* q_new, GLOBAL const REAL* bvc, GLOBAL const REAL* pbvc,
                    GLOBAL const REAL* ql_old, GLOBAL const REAL* qq_old, GLOBAL const REAL* vnewc,
                    const REAL rho0, const REAL q_cut, const uint n)
{
    FOR_EACH(i, n) {
        if (delvc[i] <= (REAL)0.0) {
            const REAL ssc =
                sound_speed((pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i]) / rho0);
            REAL q = ssc * ql_old[i] + qq_old[i];
            if (below_cut(q, q_cut)) {
                q = (REAL)0.0;
            }
            q_new[i] = q;
        }
    }
}
