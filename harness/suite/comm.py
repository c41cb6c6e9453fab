"""RAJAPerf's Comm group (src/comm/HALO_PACKING*.cpp): packing and unpacking halos.

HALO_base's grid is a cube of ``n`` cells per side (``n = cbrt(size) +
cbrt(3) - 1``) inside a halo ``HALO_WIDTH`` deep; each of ``NUM_VARS``
variables holds ``i + v`` at cell ``i`` (halo included). Each of the 26
neighbours (faces, edges, corners) has a pack list, the cells along that side
of the grid, and an unpack list, the halo cells beyond it, both i fastest. A
repetition packs every variable's values at every pack list into that
neighbour's part of one buffer, then writes the unpack buffer's values into the
halo cells (RAJAPerf's single rank sends nothing: the unpack buffer holds its
initial values). Buffers hold a neighbour's variables one after another, each
neighbour's part padded to RAJAPerf's 64-byte data alignment (counted in
doubles whatever the precision, so the initial values are RAJAPerf's).
Index lists are 32-bit, as RAJAPerf's ``Int_type``.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from harness.model.rajaperf import DataInit, checksum
from harness.model.spec import EXACT, Array, Grid, KernelSpec, Launch, Scalar, Traffic
from harness.suite.forall import GROUP

GROUP_NAME = "Comm"
#: RAJAPerf's defaults for --halo_width and --halo_num_vars.
HALO_WIDTH = 1
NUM_VARS = 3
INT_BYTES = 4
#: RAJAPerf's data alignment (RAJA::DATA_ALIGN) in doubles: buffer parts start on it.
ALIGN = 64 // 8
#: Fields of a part of the fused kernel's tables: list start, buffer start, variable
#: start, length.
PART_FIELDS = 4
#: RAJAPerf's fused GPU blocks: 256 work-items along a list, one list per row.
FUSED_GROUP = (GROUP, 1)

#: HALO_base's s_boundary_offsets: faces, then edges, then corners.
NEIGHBOURS = (
    *((-1, 0, 0), (1, 0, 0), (0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1)),
    *((-1, -1, 0), (-1, 1, 0), (1, -1, 0), (1, 1, 0), (-1, 0, -1), (-1, 0, 1)),
    *((1, 0, -1), (1, 0, 1), (0, -1, -1), (0, -1, 1), (0, 1, -1), (0, 1, 1)),
    *itertools.product((-1, 1), repeat=3),
)


def grid_edge(size: int) -> int:
    """HALO_base's grid cells per side for a target size."""
    return int(float(np.cbrt(size)) + float(np.cbrt(3)) - 1)


def _bounds(offset: int, edge: int, send: bool) -> range:
    """make_boundary_extent along one axis: the side's cells (send) or the halo's (recv)."""
    h = HALO_WIDTH
    if offset == 0:
        return range(h, h + edge)
    if offset < 0:
        return range(h, 2 * h) if send else range(0, h)
    return range(edge, h + edge) if send else range(h + edge, 2 * h + edge)


@lru_cache(maxsize=16)
def halo_sizes(size: int) -> dict:
    """The layout's sizes without its index lists (cheap at any size): each
    list's ``lengths``, ``buffer_at``, ``buffer`` and ``var`` as `halo_layout`'s."""
    edge = grid_edge(size)
    span = edge + 2 * HALO_WIDTH
    lengths = np.array(
        [
            len(_bounds(i, edge, True)) * len(_bounds(j, edge, True)) * len(_bounds(k, edge, True))
            for i, j, k in NEIGHBOURS
        ],
        dtype=np.int64,
    )
    padded = -(-lengths * NUM_VARS // ALIGN) * ALIGN
    return {
        "lengths": lengths,
        "buffer_at": np.concatenate(([0], np.cumsum(padded)[:-1])),
        "buffer": int(padded.sum()),
        "var": span**3,
    }


@lru_cache(maxsize=16)
def halo_layout(size: int) -> dict:
    """Index lists, their starts, and each neighbour's padded buffer part.

    ``pack``/``unpack``: every neighbour's list, concatenated; ``lengths``:
    each list's length (pack and unpack lists have the same); ``list_at``:
    where each starts; ``buffer_at``: where each neighbour's buffer part
    starts; ``buffer``: the buffers' length; ``var``: cells of one variable.
    """
    edge = grid_edge(size)
    span = edge + 2 * HALO_WIDTH
    lists: dict[bool, list[np.ndarray]] = {True: [], False: []}
    for offset in NEIGHBOURS:
        for send in (True, False):
            i, j, k = (np.array(_bounds(o, edge, send)) for o in offset)
            cells = i[None, None, :] + span * (j[None, :, None] + span * k[:, None, None])
            lists[send].append(cells.ravel().astype(np.int32))
    sizes = halo_sizes(size)
    out = {
        "pack": np.concatenate(lists[True]),
        "unpack": np.concatenate(lists[False]),
        "list_at": np.concatenate(([0], np.cumsum(sizes["lengths"])[:-1])),
        **sizes,
    }
    for a in out.values():
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return out


def _halo_cells(size: int) -> int:
    """Cells of every list: RAJAPerf's halo size."""
    return int(halo_sizes(size)["lengths"].sum())


def _parts(lay: dict) -> list[tuple[int, int, int, int]]:
    """Each (neighbour, variable) of a layout in RAJAPerf's order: list start,
    buffer start, variable start, length."""
    return [
        (int(at), int(buf + v * n), v * lay["var"], int(n))
        for at, buf, n in zip(lay["list_at"], lay["buffer_at"], lay["lengths"], strict=True)
        for v in range(NUM_VARS)
    ]


def _halo_init(size: int, seed: int, precision: str) -> dict:
    lay = halo_layout(size)
    d = DataInit()
    for _ in range(2 * len(NEIGHBOURS)):
        d.const(0, 0.0)  # each pack and unpack list's initData, then overwritten
    out = {"pack_buffer": d.data(lay["buffer"]), "unpack_buffer": d.data(lay["buffer"])}
    cells = np.arange(lay["var"], dtype=np.float64)
    out["vars"] = np.concatenate([cells + v for v in range(NUM_VARS)])
    out.update(pack_lists=lay["pack"].copy(), unpack_lists=lay["unpack"].copy())
    return out


def _fused_init(size: int, seed: int, precision: str) -> dict:
    out = _halo_init(size, seed, precision)
    parts = np.array(_parts(halo_layout(size)), dtype=np.int32).ravel()
    return {**out, "pack_parts": parts, "unpack_parts": parts.copy()}


def _pack_cpu(grid: Grid, pack_buffer, vars, pack_lists, list_at, buffer_at, var_at, n) -> None:
    pack_buffer[buffer_at : buffer_at + n] = vars[var_at + pack_lists[list_at : list_at + n]]


def _unpack_cpu(
    grid: Grid, vars, unpack_buffer, unpack_lists, list_at, buffer_at, var_at, n
) -> None:
    vars[var_at + unpack_lists[list_at : list_at + n]] = unpack_buffer[buffer_at : buffer_at + n]


def _pack_fused_cpu(grid: Grid, pack_buffer, vars, pack_lists, pack_parts) -> None:
    for list_at, buffer_at, var_at, n in pack_parts.reshape(-1, PART_FIELDS)[: grid.grid[1]]:
        _pack_cpu(grid, pack_buffer, vars, pack_lists, list_at, buffer_at, var_at, n)


def _unpack_fused_cpu(grid: Grid, vars, unpack_buffer, unpack_lists, unpack_parts) -> None:
    for list_at, buffer_at, var_at, n in unpack_parts.reshape(-1, PART_FIELDS)[: grid.grid[1]]:
        _unpack_cpu(grid, vars, unpack_buffer, unpack_lists, list_at, buffer_at, var_at, n)


def _halo_reference(inputs: dict) -> dict:
    lay = halo_layout(_size_of(inputs))
    vars = np.array(inputs["vars"], dtype=np.float64)
    pack = np.array(inputs["pack_buffer"], dtype=np.float64)
    unpack = np.asarray(inputs["unpack_buffer"], dtype=np.float64)
    for list_at, buffer_at, var_at, n in _parts(lay):
        _pack_cpu(None, pack, vars, inputs["pack_lists"], list_at, buffer_at, var_at, n)
    for list_at, buffer_at, var_at, n in _parts(lay):
        _unpack_cpu(None, vars, unpack, inputs["unpack_lists"], list_at, buffer_at, var_at, n)
    return {"vars": vars, "pack_buffer": pack}


def _size_of(inputs: dict) -> int:
    """A target size with the inputs' grid (the layout depends on the edge alone)."""
    span = round(float(np.cbrt(inputs["vars"].size // NUM_VARS)))
    return (span - 2 * HALO_WIDTH) ** 3


def _halo_plan(size: int) -> list[Launch]:
    """RAJAPerf's GPU shape: one launch per neighbour and variable to pack, then
    one per neighbour and variable to unpack."""
    parts = _parts(halo_layout(size))
    names = ("list_at", "buffer_at", "var_at", "n")
    pack = ("pack_buffer", "vars", "pack_lists", *names)
    unpack = ("vars", "unpack_buffer", "unpack_lists", *names)
    return [
        Launch(entry, p[3], GROUP, args, dict(zip(names, p, strict=True)))
        for entry, args in (("pack", pack), ("unpack", unpack))
        for p in parts
    ]


def _fused_plan(size: int) -> list[Launch]:
    """RAJAPerf's fused GPU shape: one launch packs every (neighbour, variable),
    one row of work-groups each, as many work-items along a row as the average
    list has; another unpacks."""
    parts = len(NEIGHBOURS) * NUM_VARS
    items = (-(-NUM_VARS * _halo_cells(size) // parts), parts)
    return [
        Launch(
            "pack_fused", items, FUSED_GROUP, ("pack_buffer", "vars", "pack_lists", "pack_parts")
        ),
        Launch(
            "unpack_fused",
            items,
            FUSED_GROUP,
            ("vars", "unpack_buffer", "unpack_lists", "unpack_parts"),
        ),
    ]


def _halo_checksum(out: dict[str, np.ndarray]) -> np.longdouble:
    """updateChecksum: each variable, then each neighbour's packed part."""
    lay = halo_layout(_size_of(out))
    var = lay["var"]
    sums = [checksum(out["vars"][v * var : (v + 1) * var]) for v in range(NUM_VARS)]
    sums += [
        checksum(out["pack_buffer"][at : at + NUM_VARS * n])
        for at, n in zip(lay["buffer_at"], lay["lengths"], strict=True)
    ]
    return sum(sums, np.longdouble(0))


def _halo_traffic(size: int, real_bytes: int) -> Traffic:
    moved = NUM_VARS * _halo_cells(size)
    return Traffic(read=2 * (INT_BYTES + real_bytes) * moved, write=2 * real_bytes * moved)


_ARRAYS = (
    Array("vars", "real", lambda s: NUM_VARS * halo_sizes(s)["var"], "inout"),
    Array("pack_buffer", "real", lambda s: halo_sizes(s)["buffer"], "out"),
    Array("unpack_buffer", "real", lambda s: halo_sizes(s)["buffer"]),
    Array("pack_lists", "i32", _halo_cells),
    Array("unpack_lists", "i32", _halo_cells),
)

_COMMON = dict(
    group=GROUP_NAME,
    reference=_halo_reference,
    traffic=_halo_traffic,
    flops=lambda size: 0,
    default_size=1_000_000,
    default_reps=200,
    tolerance=EXACT,
    complexity="N^(2/3)",
    checksum=_halo_checksum,
    check_size=10_007,
    # 10_007 has 21 cells per side; 4_096 has 16, where only the corners'
    # parts are padded; 1 has a single cell, every list one long.
    check_sizes=(10_007, 4_096, 1),
)

HALO_PACKING = KernelSpec(
    name="Comm_HALO_PACKING",
    summary="pack 26 neighbours' boundary cells of 3 variables into buffers, unpack the halo",
    arrays=_ARRAYS,
    scalars=tuple(Scalar(name, "u32") for name in ("list_at", "buffer_at", "var_at", "n")),
    plan=_halo_plan,
    init=_halo_init,
    cpu={"pack": _pack_cpu, "unpack": _unpack_cpu},
    **_COMMON,
)

HALO_PACKING_FUSED = KernelSpec(
    name="Comm_HALO_PACKING_FUSED",
    summary="HALO_PACKING with every neighbour and variable packed in one launch, unpacked in one",
    arrays=(
        *_ARRAYS,
        Array("pack_parts", "i32", lambda s: PART_FIELDS * len(NEIGHBOURS) * NUM_VARS),
        Array("unpack_parts", "i32", lambda s: PART_FIELDS * len(NEIGHBOURS) * NUM_VARS),
    ),
    scalars=(),
    plan=_fused_plan,
    init=_fused_init,
    cpu={"pack_fused": _pack_fused_cpu, "unpack_fused": _unpack_fused_cpu},
    group_size=FUSED_GROUP,
    constants={"PART_FIELDS": PART_FIELDS},
    rajaperf_features=("Workgroup",),
    **_COMMON,
)

KERNELS: tuple[KernelSpec, ...] = (HALO_PACKING, HALO_PACKING_FUSED)
