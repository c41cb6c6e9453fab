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
    convection3dpa,
    del_dot_vec_2d,
    diffusion3dpa,
    edge3d,
    energy,
    femsweep,
    fir,
    intsc_hexhex,
    intsc_hexrect,
    ltimes,
    ltimes_noview,
    mass3dea,
    mass3dpa,
    mass3dpa_atomic,
    massvec3dpa,
    matvec_3d_stencil,
    nodal_accumulation_3d,
    pressure,
    vol3d,
    zonal_accumulation_3d,
)

#: The kernels' modules, in RAJAPerf's order; each holds one kernel as ``KERNEL``.
MODULES = (
    convection3dpa,
    del_dot_vec_2d,
    diffusion3dpa,
    edge3d,
    energy,
    femsweep,
    fir,
    intsc_hexhex,
    intsc_hexrect,
    ltimes,
    ltimes_noview,
    mass3dea,
    mass3dpa,
    mass3dpa_atomic,
    massvec3dpa,
    matvec_3d_stencil,
    nodal_accumulation_3d,
    pressure,
    vol3d,
    zonal_accumulation_3d,
)
KERNELS: tuple[KernelSpec, ...] = tuple(module.KERNEL for module in MODULES)
