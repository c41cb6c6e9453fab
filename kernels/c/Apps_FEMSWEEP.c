// Apps_FEMSWEEP: a discrete-ordinates FEM transport sweep, an 8 x 8 solve per element.
// One work-group per (group g, angle a): g = GROUP_ID(0), a = GROUP_ID(1), as RAJAPerf's grid of
// ng x na blocks (the grid is exactly that, so no group is idle). The group walks the angle's
// hyperplanes in order, its work-items sharing each one's elements, a barrier between them. An
// element subtracts from b the coupling Ffactor * F * X over its upwind interior faces (X of the
// neighbour across, written in an earlier hyperplane), then solves (A + s M0) x = b by RAJAPerf's
// LU without pivoting (Crout, factored in place) into X.

KERNEL void femsweep(GLOBAL const REAL* Bdat, GLOBAL const REAL* Adat, GLOBAL const REAL* Fdat,
                     GLOBAL REAL* Xdat, GLOBAL const REAL* Sgdat, GLOBAL const REAL* M0dat,
                     GLOBAL const int* nhpaa_r, GLOBAL const int* ohpaa_r,
                     GLOBAL const int* phpaa_r, GLOBAL const int* order_r,
                     GLOBAL const int* AngleElem2FaceType, GLOBAL const int* elem_to_faces,
                     GLOBAL const int* F_g2l, GLOBAL const int* idx1, GLOBAL const int* idx2,
                     const int ne, const int ng, const int sharedinteriorfaces, const REAL fshift)
{
    const int g = GROUP_ID(0);
    const int a = GROUP_ID(1);
    const int nhp = nhpaa_r[a];
    const int ohp = ohpaa_r[a];
    const size_t a_ne = (size_t)a * ne;
    const REAL Ffactor = fmax(sin(Adat[(order_r[a_ne] + a_ne) * ND * ND]) - fshift, (REAL)0);
    GLOBAL REAL* X = Xdat + ((size_t)a * ng + g) * ND * ne;
    GLOBAL const REAL* Fa = Fdat + a * (size_t)sharedinteriorfaces * 2 * FDS * FDS;
    int done = 0;
    for (int hp = 0; hp < nhp; ++hp) {
        const int nehp = phpaa_r[ohp + hp];
        for (int k = LOCAL_ID(0); k < nehp; k += GROUP_X) {
            const int e = order_r[a_ne + done + k];
            const size_t ae = a_ne + e;
            REAL b[ND];
            for (int j = 0; j < ND; ++j) {
                b[j] = Bdat[ae * ND + j];
            }
            for (int face = 0; face < NLF; ++face) {
                const int f = F_g2l[elem_to_faces[NLF * e + face]];
                if (AngleElem2FaceType[ae * NLF + face] == 0 || f < 0) {
                    continue;
                }
                const int s = e == idx1[f * FDS] / ND ? 0 : 1;
                GLOBAL const int* mine = s == 0 ? idx1 : idx2;
                GLOBAL const int* across = s == 0 ? idx2 : idx1;
                GLOBAL const REAL* Ff = Fa + ((size_t)f * 2 + (s ^ 1)) * FDS * FDS;
                for (int j = 0; j < FDS; ++j) {
                    REAL F = 0;
                    for (int i = 0; i < FDS; ++i) {
                        F += Ffactor * Ff[i + j * FDS] * X[across[f * FDS + i]];
                    }
                    b[mine[f * FDS + j] % ND] -= F;
                }
            }
            const REAL sg = Sgdat[e + g * ne];
            GLOBAL const REAL* A = Adat + ae * ND * ND;
            GLOBAL const REAL* M = M0dat + (size_t)e * ND * ND;
            REAL T[ND][ND];
            for (int i = 0; i < ND; ++i) {
                for (int j = 0; j < ND; ++j) {
                    T[i][j] = A[i * ND + j] + sg * M[i * ND + j];
                }
            }
            for (int j = 1; j < ND; ++j) {
                T[0][j] = T[0][j] / T[0][0];
            }
            for (int p = 1; p < ND; ++p) {
                // Column p of L, then row p of U.
                for (int j = p; j < ND; ++j) {
                    REAL sum = 0;
                    for (int kk = 0; kk < p; ++kk) {
                        sum += T[j][kk] * T[kk][p];
                    }
                    T[j][p] = T[j][p] - sum;
                }
                for (int j = p + 1; j < ND; ++j) {
                    REAL sum = 0;
                    for (int kk = 0; kk < p; ++kk) {
                        sum += T[p][kk] * T[kk][j];
                    }
                    T[p][j] = (T[p][j] - sum) / T[p][p];
                }
            }
            b[0] = b[0] / T[0][0];
            for (int i = 1; i < ND; ++i) {
                REAL sum = 0;
                for (int j = 0; j < i; ++j) {
                    sum += T[i][j] * b[j];
                }
                b[i] = (b[i] - sum) / T[i][i];
            }
            GLOBAL REAL* x = X + (size_t)e * ND;
            x[ND - 1] = b[ND - 1];
            for (int i = ND - 2; i >= 0; --i) {
                REAL sum = 0;
                for (int j = i + 1; j < ND; ++j) {
                    sum += T[i][j] * b[j];
                }
                b[i] = b[i] - sum;
                x[i] = b[i];
            }
        }
        // X is read across it: the barrier orders global memory.
        GLOBAL_BARRIER();
        done += nehp;
    }
}
