"""Apps_LTIMES_NOVIEW (RAJAPerf's LTIMES_NOVIEW.cpp): LTIMES with raw index arithmetic.

The computation, inputs and checksum are Apps_LTIMES's; RAJAPerf's GPU variant
launches it over three axes, one work-item per (m, g, z) in blocks of
32 x 4 x 2, each summing over d, and so does this one.
"""

from __future__ import annotations

from harness.model.spec import NORMAL, Grid, KernelSpec, Launch, Scalar
from harness.suite.apps.ltimes import (
    LTIMES_D,
    LTIMES_G,
    LTIMES_M,
    ltimes_cpu,
    ltimes_init,
    ltimes_reference,
    ltimes_traffic,
    ltimes_z,
)
from harness.suite.apps.shared import GROUP_NAME, real

#: RAJAPerf's CUDA block for 256 threads: 32 along m, the rest split as
#: squarely as it goes between g (the larger) and z.
NOVIEW_GROUP = (32, 4, 2)


def _noview_plan(size: int) -> list[Launch]:
    z = ltimes_z(size)
    values = {"num_d": LTIMES_D, "num_g": LTIMES_G, "num_m": LTIMES_M, "num_z": z}
    args = ("phi", "ell", "psi", "num_d", "num_g", "num_m", "num_z")
    return [Launch("ltimes_noview", (LTIMES_M, LTIMES_G, z), NOVIEW_GROUP, args, values)]


def _noview_cpu(grid: Grid, phi, ell, psi, num_d, num_g, num_m, num_z) -> None:
    """phi(z, g, m) += ell(m, d) * psi(z, g, d), as Apps_LTIMES."""
    ltimes_cpu(grid, phi, ell, psi, num_d, num_g, num_m, num_m * num_g * num_z)


KERNEL = KernelSpec(
    name="Apps_LTIMES_NOVIEW",
    group=GROUP_NAME,
    summary="phi(z, g, m) += ell(m, d) * psi(z, g, d), one work-item per (m, g, z)",
    arrays=(
        real("phi", lambda n: LTIMES_M * LTIMES_G * ltimes_z(n), "inout"),
        real("ell", lambda n: LTIMES_D * LTIMES_M),
        real("psi", lambda n: LTIMES_D * LTIMES_G * ltimes_z(n)),
    ),
    scalars=tuple(Scalar(name, "u32") for name in ("num_d", "num_g", "num_m", "num_z")),
    plan=_noview_plan,
    init=ltimes_init,
    reference=ltimes_reference,
    cpu={"ltimes_noview": _noview_cpu},
    traffic=ltimes_traffic,
    flops=lambda size: 2 * LTIMES_D * LTIMES_G * LTIMES_M * ltimes_z(size),
    default_size=LTIMES_D * LTIMES_G * ltimes_z(1_000_000),
    default_reps=50,
    check_size=4_000,
    # 4_000 makes 21 zones, the last work-group half empty along z; 1_536 makes 8.
    check_sizes=(4_000, 1_536),
    tolerance=NORMAL,
    rajaperf_features=("Kernel", "Launch"),
    group_size=NOVIEW_GROUP,
)
