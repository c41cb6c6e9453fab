"""RAJAPerf's Apps group (src/apps/*.cpp), one module per kernel.

Math, loop bounds, default sizes and reps, setUp order (which fixes each
array's init factor) and bytes/FLOPs follow RAJAPerf. The mesh kernels use the
``ADomain`` of `harness.suite.apps.mesh`; their problem size is RAJAPerf's
target size, from which the mesh (and the actual number of zones) follows.
Index arrays are 32-bit (see `mesh.INDEX`), so index bytes count 4 each. A
reference runs the kernel's numpy loops (RAJAPerf's Base_Seq) in float64.
Pieces several kernels share live in `harness.suite.apps.shared`.
"""

from __future__ import annotations

from harness.model.spec import KernelSpec
from harness.suite.apps import (
    del_dot_vec_2d,
    energy,
    fir,
    ltimes,
    matvec_3d_stencil,
    nodal_accumulation_3d,
    pressure,
    vol3d,
)

#: The kernels' modules, in RAJAPerf's order; each holds one kernel as ``KERNEL``.
MODULES = (
    del_dot_vec_2d,
    energy,
    fir,
    ltimes,
    matvec_3d_stencil,
    pressure,
    vol3d,
    nodal_accumulation_3d,
)
KERNELS: tuple[KernelSpec, ...] = tuple(module.KERNEL for module in MODULES)
