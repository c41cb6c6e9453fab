// Apps_FEMSWEEP: a discrete-ordinates FEM transport sweep, an 8 x 8 solve per element.
// One workgroup per (group g, angle a): g = wid.x, a = wid.y, as RAJAPerf's grid of ng x na
// blocks (the grid is exactly that, so no group is idle). The group walks the angle's hyperplanes
// in order, its invocations sharing each one's elements, a storage barrier between them. An
// element subtracts from b the coupling Ffactor * F * X over its upwind interior faces (X of the
// neighbour across, written in an earlier hyperplane), then solves (A + s M0) x = b by RAJAPerf's
// LU without pivoting (Crout, factored in place) into X. SPIR-V's sin takes 32-bit floats only,
// so Ffactor's sine is taken in f32: RAJAPerf's Ffactor is max(sin(A0) - 2, 0) = 0 whatever the
// sine, and the check case's A0 are 0, whose sine is exact.

@compute @workgroup_size(GROUP_X, GROUP_Y, GROUP_Z)
fn femsweep(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let g = i32(wid.x);
    let a = i32(wid.y);
    let ne = s.ne;
    let nhp = nhpaa_r[a];
    let ohp = ohpaa_r[a];
    let a_ne = a * ne;
    let a0 = Adat[(order_r[a_ne] + a_ne) * ND * ND];
    let Ffactor = max(REAL(sin(f32(a0))) - s.fshift, REAL(0.0));
    let xa = (a * s.ng + g) * ND * ne;
    let fa = a * s.sharedinteriorfaces * 2 * FDS * FDS;
    var done = 0;
    for (var hp = 0; hp < nhp; hp++) {
        let nehp = phpaa_r[ohp + hp];
        for (var k = i32(lid.x); k < nehp; k += i32(GROUP_X)) {
            let e = order_r[a_ne + done + k];
            let ae = a_ne + e;
            var b: array<REAL, ND>;
            for (var j = 0; j < ND; j++) {
                b[j] = Bdat[ae * ND + j];
            }
            for (var face = 0; face < NLF; face++) {
                let f = F_g2l[elem_to_faces[NLF * e + face]];
                if (AngleElem2FaceType[ae * NLF + face] == 0 || f < 0) {
                    continue;
                }
                let s0 = e == idx1[f * FDS] / ND;
                let ff = fa + (f * 2 + select(0, 1, s0)) * FDS * FDS;
                for (var j = 0; j < FDS; j++) {
                    var F = REAL(0.0);
                    for (var i = 0; i < FDS; i++) {
                        let dis = select(idx1[f * FDS + i], idx2[f * FDS + i], s0);
                        F += Ffactor * Fdat[ff + i + j * FDS] * Xdat[xa + dis];
                    }
                    let djs = select(idx2[f * FDS + j], idx1[f * FDS + j], s0);
                    b[djs % ND] -= F;
                }
            }
            let sg = Sgdat[e + g * ne];
            var T: array<array<REAL, ND>, ND>;
            for (var i = 0; i < ND; i++) {
                for (var j = 0; j < ND; j++) {
                    T[i][j] = Adat[ae * ND * ND + i * ND + j] + sg * M0dat[e * ND * ND + i * ND + j];
                }
            }
            for (var j = 1; j < ND; j++) {
                T[0][j] = T[0][j] / T[0][0];
            }
            for (var p = 1; p < ND; p++) {
                // Column p of L, then row p of U.
                for (var j = p; j < ND; j++) {
                    var sum = REAL(0.0);
                    for (var kk = 0; kk < p; kk++) {
                        sum += T[j][kk] * T[kk][p];
                    }
                    T[j][p] = T[j][p] - sum;
                }
                for (var j = p + 1; j < ND; j++) {
                    var sum = REAL(0.0);
                    for (var kk = 0; kk < p; kk++) {
                        sum += T[p][kk] * T[kk][j];
                    }
                    T[p][j] = (T[p][j] - sum) / T[p][p];
                }
            }
            b[0] = b[0] / T[0][0];
            for (var i = 1; i < ND; i++) {
                var sum = REAL(0.0);
                for (var j = 0; j < i; j++) {
                    sum += T[i][j] * b[j];
                }
                b[i] = (b[i] - sum) / T[i][i];
            }
            let x = xa + e * ND;
            Xdat[x + ND - 1] = b[ND - 1];
            for (var i = ND - 2; i >= 0; i--) {
                var sum = REAL(0.0);
                for (var j = i + 1; j < ND; j++) {
                    sum += T[i][j] * b[j];
                }
                b[i] = b[i] - sum;
                Xdat[x + i] = b[i];
            }
        }
        storageBarrier();
        done += nehp;
    }
}
