"""Apps_LTIMES (RAJAPerf's LTIMES.cpp): a discrete-ordinates moment sum over a 4-D nest."""

from __future__ import annotations

from harness.model.rajaperf import DataInit
from harness.model.spec import NORMAL, Grid, KernelSpec, Launch, Scalar, Traffic
from harness.suite.apps.shared import GROUP_NAME, real, wide
from harness.suite.forall import GROUP, N

#: RAJAPerf's defaults for --ltimes_num_d, --ltimes_num_g and --ltimes_num_m.
LTIMES_D, LTIMES_G, LTIMES_M = 6, 32, 25


def ltimes_z(size: int) -> int:
    """RAJAPerf's number of zones for a target size (at least one)."""
    per_z = LTIMES_D * LTIMES_G
    return max((size + per_z // 2) // per_z, 1)


def ltimes_init(size: int, seed: int, precision: str) -> dict:
    """RAJAPerf's phi (zero), ell and psi, in its setUp order."""
    z = ltimes_z(size)
    d = DataInit()
    return {
        "phi": d.const(LTIMES_M * LTIMES_G * z, 0.0),
        "ell": d.data(LTIMES_D * LTIMES_M),
        "psi": d.data(LTIMES_D * LTIMES_G * z),
    }


def _ltimes_plan(size: int) -> list[Launch]:
    items = LTIMES_M * LTIMES_G * ltimes_z(size)
    values = {"num_d": LTIMES_D, "num_g": LTIMES_G, "num_m": LTIMES_M, "n": items}
    args = ("phi", "ell", "psi", "num_d", "num_g", "num_m", "n")
    return [Launch("ltimes", items, GROUP, args, values)]


def ltimes_cpu(grid: Grid, phi, ell, psi, num_d, num_g, num_m, n) -> None:
    """phi(z, g, m) += ell(m, d) * psi(z, g, d), one d after another."""
    view = phi[:n].reshape(-1, num_g, num_m)
    zgd = psi[: view.shape[0] * num_g * num_d].reshape(-1, num_g, num_d)
    md = ell[: num_m * num_d].reshape(num_m, num_d)
    for d in range(num_d):
        view += md[None, None, :, d] * zgd[:, :, d, None]


def ltimes_traffic(size: int, real_bytes: int) -> Traffic:
    """RAJAPerf's bytes: ell and psi read, phi read and written."""
    z = ltimes_z(size)
    return Traffic(
        read=real_bytes * (LTIMES_D * LTIMES_M + LTIMES_D * LTIMES_G * z),
        modify_write=real_bytes * LTIMES_M * LTIMES_G * z,
    )


def ltimes_reference(inputs: dict) -> dict:
    """phi after one repetition, in float64."""
    a = wide(inputs)
    ltimes_cpu(None, a["phi"], a["ell"], a["psi"], LTIMES_D, LTIMES_G, LTIMES_M, a["phi"].size)
    return {"phi": a["phi"]}


KERNEL = KernelSpec(
    name="Apps_LTIMES",
    group=GROUP_NAME,
    summary="phi(z, g, m) += ell(m, d) * psi(z, g, d) over a 4-D nest",
    arrays=(
        real("phi", lambda n: LTIMES_M * LTIMES_G * ltimes_z(n), "inout"),
        real("ell", lambda n: LTIMES_D * LTIMES_M),
        real("psi", lambda n: LTIMES_D * LTIMES_G * ltimes_z(n)),
    ),
    scalars=(Scalar("num_d", "u32"), Scalar("num_g", "u32"), Scalar("num_m", "u32"), N),
    plan=_ltimes_plan,
    init=ltimes_init,
    reference=ltimes_reference,
    cpu={"ltimes": ltimes_cpu},
    traffic=ltimes_traffic,
    flops=lambda size: 2 * LTIMES_D * LTIMES_G * LTIMES_M * ltimes_z(size),
    default_size=LTIMES_D * LTIMES_G * ltimes_z(1_000_000),
    default_reps=50,
    check_size=4_000,
    # 1_536 makes 8 zones: 6_400 items, exactly 25 work-groups.
    check_sizes=(4_000, 1_536),
    tolerance=NORMAL,
    rajaperf_features=("Kernel", "Launch", "View"),
)
