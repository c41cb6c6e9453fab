"""Sorting kernels: bitonic sorts of any length, and RAJAPerf's SORT and SORTPAIRS.

One bitonic network serves every sort; only the key type, the order, and
whether values travel with the keys change. The host orchestration -- the list
of compare-exchange launches -- is written once, here, and every backend runs
that list.

Any length n, without padding: the network is that of the next power of two
P, with the positions n..P-1 taken as +infinity and never stored. Every
compare-exchange puts the smaller key at the lower index (a stage's first step
compares mirror positions instead of sorting blocks in alternating
directions), so a pair whose upper index is n or more is a no-op and is
skipped, and a step launches only the pairs whose lower index is below n. For
n = 2^k + 1 a step launches at most n/2 + d work-items over n keys, instead
of sorting a 2^(k+1) array.

Order: keys are compared as unsigned words after a monotone map (the sign bit
flipped for signed integers; for floats, negative values complemented,
others given the sign bit, NaNs above +inf), complemented again for
descending. That is np.sort's order, NaNs last (first when descending), with
-0 before +0.

Strategies: ``global`` is one launch per compare-exchange step; ``local``
sorts tiles of TILE keys in work-group memory, then for each later stage runs
global launches for the distances of a tile or more and one local launch for
the rest: 1 + m(m+3)/2 launches for n = 2^k and TILE = 2^t, m = k - t.
``fused`` does ``steps`` (s) steps per launch in registers: each work-item
holds 2^s keys; one launch sorts every block of 2^s keys, then each later
stage of k steps takes ceil(k / s) launches of s steps each. They are aligned
from the stage's last step up, so where s does not divide k the first launch
repeats steps the next one also does: a step done again after the smaller
steps that follow it finds every pair in order, so it changes nothing. A
stage's last launch, whose work-items each hold consecutive keys, is
``bitonic_merge``; launches whose smallest distance is LANES or more run on
a two-axis grid of LANES work-items across, so that neighbouring work-items
hold neighbouring keys (`bitonic_pass_rows`, `bitonic_flip_rows`): a CPU
device vectorises across them with plain vector loads where the one-axis
form's bit-spliced addresses made it gather. On CPU devices OpenCL's merge,
presort and short passes hold 16 keys as one vector and pair its lanes by
swizzles; WGSL holds 16 registers as four vec4s, which lavapipe keeps in
registers where it kept the loops' array in memory. Between the presort,
which reads keys, and the sort's last launch (``last``), which writes them,
the keys array holds the fused strategy's pass words, so the key map runs
once each way rather than at every launch (float keys sorted three times
slower than u32 on PoCL with it at every launch); the numpy entry points keep
keys throughout, which ends the same. ``tiled`` is ``fused`` with the steps
below TILE done in work-group memory: one launch (`bitonic_tile_sort`) sorts
each tile, as register passes over it between barriers, and each later stage
takes fused passes down to distance TILE and one launch for the rest
(`bitonic_tile_merge`): 33 launches at 2^22 u32 keys against fused's 69, the
layout of published GPU bitonic sorts. On CPU devices work-group memory is
plain memory and each barrier a loop over the work-items, so it loses there.
``wide`` is ``tiled`` with a stage's steps of a tile's distance or more done
in work-group memory too: a work-group gathers 2^r rows of LANES consecutive
keys, at the strides those steps pair (r = `row_steps`, 9 for u32 keys in 32
KiB), takes them through r steps, and writes them back, so a stage of up to r
steps past the tile costs one pass over memory and its tile merge: 31 launches
at 2^26 u32 keys in 32 KiB tiles, 19 at 2^22, where tiled makes 35 and 22 at
6 steps.
A tile's positions are permuted in work-group memory (``TILE_SLOT``) so that a
warp's accesses in any pass fall on different banks: in position order, a pass
holding 16 keys per work-item at distance 1 put a warp's 32 accesses on two
banks (tests/test_tile_layout.py).

Verification compares the keys bit for bit with a stable sort of the words.
Besides the timed keys, a sort verifies with every other distribution and with
the special and uniform keys in the other order (`check_cases`), at lengths
from 1 to a few tiles, odd ones and those around a tile (`_check_sizes`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from harness.model.rajaperf import DataInit
from harness.model.spec import (
    EXACT,
    LIBRARY,
    Array,
    CheckCase,
    Grid,
    KernelSpec,
    Launch,
    Param,
    Scalar,
    Traffic,
    numpy_dtype,
)
from harness.model.verify import Verdict
from harness.suite.forall import GROUP

#: Work-group memory one tile of keys (and values) may take, by default: every
#: backend has 8 KiB. Every API's GPUs allow 32 KiB (WebGPU's own floor is 16).
TILE_BYTES = 8192
#: Work-items along x of a fused pass's two-axis launch: a CPU device's vector
#: of u32 words (it vectorises along x), a GPU's half warp.
LANES = 16
#: Work-groups along y that every API launches (CUDA's and WebGPU's limit).
MAX_ROW_GROUPS = 65535
#: The work-group of a pass in rows: LANES across, GROUP work-items in all.
ROW_GROUP = (LANES, GROUP // LANES)
#: How the kernels read a key word: the KEY_KIND constant of the sources.
UNSIGNED, SIGNED, FLOAT = 0, 1, 2
_KINDS = {"u32": UNSIGNED, "i32": SIGNED, "f32": FLOAT, "f64": FLOAT}
_WORDS = {4: "u32", 8: "u64"}

#: The bitonic strategies, which every backend runs (the numpy backend as numpy code).
NETWORKS = ("global", "local", "fused", "tiled", "wide")

STRATEGY = Param(
    "strategy",
    (*NETWORKS, "library"),
    ("fused",),
    "global: one launch per compare-exchange step; local: tiles sorted and merged "
    "in work-group memory; fused: --steps steps per launch, in registers; tiled: "
    "fused, with each stage's steps below a tile done in work-group memory in one "
    "launch; wide: tiled, with each stage's steps at distances of a tile or more done in "
    "work-group memory too, as many per launch as the tile holds rows of 16 keys (7 for "
    "u32 in 8 KiB, 9 in 32 KiB); library: the host's own sort (np.sort), on the numpy "
    "backend only "
    "(default: the fastest measured on the device's kind: tiled on a GPU, local "
    "on a GPU through wgpu, fused on PoCL and lavapipe, library on the numpy backend, "
    "whose bitonic network is a port of GPU code and no measure of the CPU; --check "
    "full and mutants cover every one)",
    role="variant",
    checked=NETWORKS,
    checked_by_device=(("host", ("library", *NETWORKS)),),
    same_data=True,
    # Measured at 2^22 and 2^26 u32 keys on an H200: tiled 2.3 to 2.6 times as
    # fast as global on CUDA; through wgpu (Vulkan) local is the fastest at 2^22
    # and within 7% of the fastest at 2^26, where tiled trails (README).
    by_device=(("host", ("library",)), ("wgpu gpu", ("local",)), ("gpu", ("tiled",))),
)
STEPS = Param(
    "steps",
    ("2", "3", "4", "5", "6"),
    ("4",),
    "fused, tiled and wide strategies: compare-exchange steps per launch (per barrier in "
    "work-group memory), done in registers on 2^steps keys per work-item (default 4; --check "
    "and mutants cover every count)",
    role="variant",
    checked=("2", "3", "4", "5", "6"),
    same_data=True,
    only_with=("strategy", ("fused", "tiled", "wide")),
)
TILE_SIZE = Param(
    "tile_bytes",
    ("8192", "16384", "32768", "65536", "131072"),
    (str(TILE_BYTES),),
    "local, tiled and wide strategies: work-group memory a tile of keys (and values) takes, in "
    "bytes; a larger tile leaves fewer steps of each stage to global passes, and needs a "
    "device that allows it (default 8192, which every device does, and 32768 on CUDA; "
    "32768 every API's GPUs allow; "
    "65536 and 131072 PoCL and CUDA, which gives a tile over 48 KiB as dynamic shared "
    "memory up to the device's opt-in limit, 227 KiB on Hopper; a device with less skips "
    "the row, naming both; the kernels are the same at any size, so --check covers the "
    "default unless this names others)",
    role="variant",
    same_data=True,
    only_with=("strategy", ("local", "tiled", "wide")),
    # Measured on an H200 through CUDA (tiled, 4 steps): 32 KiB tiles sort 2^26 u32
    # keys in 7.5 ms against 13.2 in 8 KiB, and 2^22 in 0.29 ms against 0.60; 128
    # KiB tiles are slower at both (results/reference/h200-2026-11-30). Through
    # WebGPU its 32 KiB rows were slower than the 8 KiB rows of 2026-11-28 (not
    # side by side, at clocks not recorded), so its default stays until they are.
    by_device=(("cuda", ("32768",)),),
)
ORDER = Param("order", ("asc", "desc"), ("asc",), "sort order (default asc)")
DIST = Param(
    "dist",
    ("uniform", "sorted", "reversed", "equal", "few", "special"),
    ("uniform",),
    "input keys: uniform random (default), already sorted, reversed, all equal, few "
    "distinct values, or special values (NaN, +-inf, +-0, subnormals; integer extremes)",
)


def order_words(keys: np.ndarray, kind: int, descending: bool) -> np.ndarray:
    """The unsigned words whose ascending order is the keys' sort order."""
    bits = keys.dtype.itemsize * 8
    word = np.dtype(f"u{bits // 8}")
    words = keys.view(word)
    sign = word.type(1 << (bits - 1))
    if kind == UNSIGNED:
        out = words.copy()
    elif kind == SIGNED:
        out = words ^ sign
    else:
        out = np.where(words & sign, ~words, words | sign)
        exponent = word.type((1 << (bits - 1)) - (1 << (np.finfo(keys.dtype).nmant)))
        nan = (words & ~sign) > exponent
        out[nan] = words[nan] | sign
    return ~out if descending else out


def _tile(element_bytes: int, tile_bytes: int) -> int:
    """Keys in a tile of ``tile_bytes`` of elements of ``element_bytes`` each."""
    return tile_bytes // element_bytes


def pass_items(n: int, d: int, steps: int) -> int:
    """Work-items of a fused pass of ``steps`` steps from distance ``d`` down: one per
    block of 2^steps positions (spaced by the smallest distance) that starts below n."""
    low = d >> (steps - 1)
    block = low << steps
    return (n // block) * low + min(n % block, low)


def _split(
    main: Launch | None, tail: str, items: int, done: int, args: tuple[str, ...], values: dict
) -> list[Launch]:
    """A fused launch of ``items`` work-items: ``main`` runs the first ``done``
    unguarded (whole work-groups whose positions all lie below n: the guards'
    branches keep a CPU device from vectorising), the guarded entry ``tail``
    the rest, from work-item ``first``."""
    launches = [main] if main else []
    if items > done:
        tail_args = (*args[:-1], "first", args[-1])
        launches.append(Launch(tail, items - done, GROUP, tail_args, {**values, "first": done}))
    return launches


def _pass(
    n: int, d: int, flip: bool, steps: int, arrays: tuple[str, ...], last: bool
) -> list[Launch]:
    """One fused pass from distance ``d`` down; the sort's ``last`` writes keys
    (the passes before it leave pass words). A stage's last pass, which pairs
    each work-item's consecutive keys, is ``bitonic_merge``; a pass whose
    smallest distance is LANES or more runs on a two-axis launch of LANES
    work-items across (`bitonic_pass_rows`, or `bitonic_flip_rows` for a
    stage's first), where the grid allows."""
    low = d >> (steps - 1)
    main = n // (low << steps) * low // GROUP * GROUP
    values = {"n": n, "d": d, "flip": int(flip), "last": int(last)}
    args = (*arrays, "n", "d", "flip", "descending")
    launch = None
    if main and low == 1 and not flip:
        merge = (*arrays, "n", "last", "descending")
        launch = Launch("bitonic_merge", main, GROUP, merge, values)
    elif main and low >= LANES and main // GROUP <= MAX_ROW_GROUPS:
        entry = "bitonic_flip_rows" if flip else "bitonic_pass_rows"
        rows = (*arrays, "n", "d", "descending")
        launch = Launch(entry, (LANES, main // LANES), ROW_GROUP, rows, values)
    elif main:
        launch = Launch("bitonic_pass", main, GROUP, args, values)
    tail = (*arrays, "n", "d", "flip", "last", "descending")
    return _split(launch, "bitonic_pass_tail", pass_items(n, d, steps), main, tail, values)


def _pass_distances(top: int, steps: int, floor: int) -> list[int]:
    """The first distances of a stage's passes down to distance ``floor``,
    largest first: one from the stage's ``top``, then those whose smallest
    distance is ``floor`` times a power of 2^steps, so that only the first may
    repeat steps of the next (a no-op)."""
    aligned = []
    d = floor << (steps - 1)
    while d < top:
        aligned.append(d)
        d <<= steps
    return [top, *reversed(aligned)]


def _fused_plan(n: int, steps: int, arrays: tuple[str, ...]) -> list[Launch]:
    keys = 1 << steps
    stages = (n - 1).bit_length()
    main = n // keys // GROUP * GROUP
    # A presort launch of whole work-groups has more keys than one pass holds,
    # so more launches follow it: only its guarded tail may be the last.
    values = {"n": n, "last": int(stages <= steps)}
    args = (*arrays, "n", "descending")
    presort = Launch("bitonic_presort", main, GROUP, args, values) if main else None
    tail = (*arrays, "n", "last", "descending")
    launches = _split(presort, "bitonic_presort_tail", -(-n // keys), main, tail, values)
    for stage in range(steps + 1, stages + 1):
        top = 1 << (stage - 1)
        passes = _pass_distances(top, steps, 1)
        for d in passes:
            last = stage == stages and d == passes[-1]
            launches += _pass(n, d, d == top, steps, arrays, last)
    return launches


def _tiled_plan(n: int, steps: int, tile: int, arrays: tuple[str, ...]) -> list[Launch]:
    """One launch sorts each tile; each later stage then takes fused passes
    down to distance ``tile`` and one launch for its steps below it."""
    stages = (n - 1).bit_length()
    in_tile = tile.bit_length() - 1
    args = (*arrays, "n", "last", "descending")

    def tiles(entry: str, last: bool) -> Launch:
        return Launch(entry, -(-n // tile) * GROUP, GROUP, args, {"n": n, "last": int(last)})

    launches = [tiles("bitonic_tile_sort", stages <= in_tile)]
    for stage in range(in_tile + 1, stages + 1):
        top = 1 << (stage - 1)
        for d in _pass_distances(top, steps, tile):
            launches += _pass(n, d, d == top, steps, arrays, last=False)
        launches.append(tiles("bitonic_tile_merge", stage == stages))
    return launches


def row_width(tile: int, steps: int) -> int:
    """Keys in a row of a wide pass: LANES, or fewer where a tile of 16-byte
    pairs holds fewer than 2^steps rows of LANES, so that the rows are at least
    as many as a register pass over them holds."""
    return min(LANES, tile >> steps)


def row_steps(tile: int, steps: int) -> int:
    """Steps of the network a wide pass does: one per doubling of its rows."""
    return (tile // row_width(tile, steps)).bit_length() - 1


def wide_groups(n: int, d: int, tile: int, steps: int) -> int:
    """Work-groups of a wide pass from distance ``d``: one per row's width of
    neighbouring columns of positions, those whose first row starts below n."""
    return -(-pass_items(n, d, row_steps(tile, steps)) // row_width(tile, steps))


def _wide_plan(n: int, steps: int, tile: int, arrays: tuple[str, ...]) -> list[Launch]:
    """The tiled plan with each stage's steps of a tile's distance or more done
    row_steps at a time in work-group memory (`bitonic_wide_pass`). A stage's
    passes follow one another from its top distance, so that each pass's first
    step is one no pass before it did (aligned from the tile up, as the fused
    passes are, a pass that is no stage's flip would start with steps already
    done, and a bug in its pairing across rows would show only past 2^13 tiles).
    The last may reach below the tile: its tile merge's steps there then find
    every pair in order."""
    stages = (n - 1).bit_length()
    in_tile = tile.bit_length() - 1
    ends = (*arrays, "n", "last", "descending")
    step = (*arrays, "n", "d", "flip", "descending")

    def tiles(entry: str, last: bool) -> Launch:
        return Launch(entry, -(-n // tile) * GROUP, GROUP, ends, {"n": n, "last": int(last)})

    launches = [tiles("bitonic_tile_sort", stages <= in_tile)]
    for stage in range(in_tile + 1, stages + 1):
        rows = row_steps(tile, steps)
        for first in range(0, stage - in_tile, rows):
            d = 1 << (stage - 1 - first)
            values = {"n": n, "d": d, "flip": int(first == 0)}
            groups = wide_groups(n, d, tile, steps)
            launches.append(Launch("bitonic_wide_pass", groups * GROUP, GROUP, step, values))
        launches.append(tiles("bitonic_tile_merge", stage == stages))
    return launches


def bitonic_plan(
    n: int, strategy: str, tile: int, arrays: tuple[str, ...], steps: int = 4
) -> list[Launch]:
    """The compare-exchange launches that sort ``n`` keys (none for n < 2), or the
    library's sort (called at every n: a backend without one then says so at
    every size, rather than passing where a network would launch nothing).

    The order is the input scalar ``descending``, not part of the plan, so that
    a check case can sort the same network the other way.
    """
    if strategy == "library":
        return [Launch(f"{LIBRARY}sort", 1, 1, (*arrays, "n", "descending"), {"n": n})]
    if n < 2:
        return []
    if strategy == "fused":
        return _fused_plan(n, steps, arrays)
    if strategy == "tiled":
        return _tiled_plan(n, steps, tile, arrays)
    if strategy == "wide":
        return _wide_plan(n, steps, tile, arrays)
    stages = (n - 1).bit_length()
    common = {"n": n}
    launches: list[Launch] = []

    def step(d: int, flip: bool) -> None:
        items = (n // (2 * d)) * d + min(n % (2 * d), d)
        args = (*arrays, "n", "d", "flip", "descending")
        launches.append(
            Launch("bitonic_step", items, GROUP, args, {**common, "d": d, "flip": int(flip)})
        )

    def local(entry: str) -> None:
        groups = math.ceil(n / tile)
        launches.append(Launch(entry, groups * GROUP, GROUP, (*arrays, "n", "descending"), common))

    first = 1
    if strategy == "local":
        local("bitonic_local_sort")
        first = tile.bit_length()
    for stage in range(first, stages + 1):
        step(1 << (stage - 1), True)
        d = 1 << (stage - 2) if stage > 1 else 0
        while d >= (tile if strategy == "local" else 1):
            step(d, False)
            d >>= 1
        if strategy == "local":
            local("bitonic_local_merge")
    return launches


def _exchange(arrays: list[np.ndarray], lower: np.ndarray, upper: np.ndarray) -> None:
    for a in arrays:
        low = a[lower].copy()
        a[lower] = a[upper]
        a[upper] = low


def _step(kind: int, arrays: list[np.ndarray], n: int, d: int, flip: bool, descending: bool):
    """One compare-exchange step of the network over every pair below n."""
    t = np.arange((n // (2 * d)) * d + min(n % (2 * d), d), dtype=np.int64)
    base = (t // d) * 2 * d
    lower = base + t % d
    upper = base + 2 * d - 1 - t % d if flip else lower + d
    live = upper < n
    lower, upper = lower[live], upper[live]
    words = order_words(arrays[0], kind, descending)
    swap = words[lower] > words[upper]
    _exchange(arrays, lower[swap], upper[swap])


def _cpu_step(kind: int):
    def bitonic_step(grid: Grid, keys, *rest) -> None:
        *values, n, d, flip, descending = rest
        _step(kind, [keys, *values], int(n), int(d), bool(flip), bool(descending))

    return bitonic_step


def _register_steps(
    kind: int, arrays: list[np.ndarray], positions: np.ndarray, n: int, pairs, descending: bool
) -> None:
    """What fused work-items do: each row of ``positions`` is one work-item's
    registers; ``pairs`` lists each step's (lower, upper) register indices.
    Positions at or past n take no part (they hold the largest word)."""
    live = positions < n
    at = np.where(live, positions, 0)
    regs = [a[at] for a in arrays]
    ordered = order_words(regs[0], kind, descending)
    words = np.where(live, ordered, np.iinfo(ordered.dtype).max).astype(ordered.dtype)
    for lower, upper in pairs:
        swap = words[:, lower] > words[:, upper]
        for r in (words, *regs):
            low, high = r[:, lower].copy(), r[:, upper].copy()
            r[:, lower] = np.where(swap, high, low)
            r[:, upper] = np.where(swap, low, high)
    for a, r in zip(arrays, regs, strict=True):
        a[positions[live]] = r[live]


def _exchange_pairs(count: int, dist: int) -> tuple[np.ndarray, np.ndarray]:
    """Register pairs (i, i | dist) of a step of distance ``dist`` among ``count``."""
    i = np.arange(count)
    lower = i[(i & dist) == 0]
    return lower, lower | dist


def _cpu_presort(kind: int, steps: int, tail: bool):
    """Each work-item's 2^steps consecutive keys through the network's first stages."""
    count = 1 << steps
    pairs = []
    for stage in range(1, steps + 1):
        lower, _ = _exchange_pairs(count, 1 << (stage - 1))
        pairs.append((lower, lower ^ ((2 << (stage - 1)) - 1)))
        pairs += [_exchange_pairs(count, 1 << k) for k in range(stage - 2, -1, -1)]

    def bitonic_presort(grid: Grid, keys, *rest) -> None:
        first = 0
        if tail:
            *values, n, _, first, descending = rest
        else:
            *values, n, descending = rest
        t = np.arange(int(first), int(first) + grid.items)
        t = t[t * count < int(n)]
        positions = t[:, None] * count + np.arange(count)
        _register_steps(kind, [keys, *values], positions, int(n), pairs, bool(descending))

    return bitonic_presort


def pass_positions(t: np.ndarray, d: int, steps: int, flip: bool) -> np.ndarray:
    """The positions work-items ``t`` hold in a pass of ``steps`` steps from
    distance ``d`` down, one row each (the layout of the sources' pass_base and
    REG_POSITION): 2^steps positions spaced by the smallest distance, the upper
    half mirrored in the block of 2d where the pass starts with a stage's flip."""
    low = d >> (steps - 1)
    base = ((t & ~(low - 1)) << steps) | (t & (low - 1))
    mirror = base ^ (low - 1) if flip else base
    i = np.arange(1 << steps)
    return np.where(i < len(i) // 2, base[:, None], mirror[:, None]) + i * low


def _cpu_pass(kind: int, steps: int, form: str, width: int = LANES):
    """A fused pass: each work-item's registers through ``steps`` steps. The
    ``form`` is the entry point's: a plain pass, its guarded ``tail``, the
    two-axis ``rows`` and ``flip_rows`` (work-item y * LANES + x), a stage's
    last pass, the ``merge`` of each work-item's consecutive keys, or a
    ``wide`` pass, whose work-groups each hold ``width`` work-items' registers."""
    count = 1 << steps

    def bitonic_pass(grid: Grid, keys, *rest) -> None:
        first = 0
        if form == "merge":
            *values, n, _, descending = rest
            d, flip = count // 2, 0
        elif form == "tail":
            *values, n, d, flip, _, first, descending = rest
        elif form in ("rows", "flip_rows"):
            *values, n, d, descending = rest
            flip = form == "flip_rows"
        else:
            *values, n, d, flip, descending = rest
        n, d, flip = int(n), int(d), bool(flip)
        items = grid.items if grid.dims == 1 else math.prod(grid.items)  # type: ignore[arg-type]
        if form == "wide":
            items = items // GROUP * width
        t = np.arange(int(first), int(first) + items)
        positions = pass_positions(t, d, steps, flip)
        positions = positions[positions[:, 0] < n]
        lower, upper = _exchange_pairs(count, count // 2)
        pairs = [(lower, lower ^ (count - 1) if flip else upper)]
        pairs += [_exchange_pairs(count, count >> k) for k in range(2, steps + 1)]
        _register_steps(kind, [keys, *values], positions, n, pairs, bool(descending))

    return bitonic_pass


#: Why the sorts keep their work-group size under --group.
SORT_GROUP_FIXED = (
    "its tiles (in work-group memory) and register blocks are laid out for its own work-group size"
)


def _cpu_entries(kind: int, tile: int, steps: int) -> dict:
    """The numpy entry points of every strategy's launches."""
    return {
        "bitonic_step": _cpu_step(kind),
        "bitonic_local_sort": _cpu_tiles(kind, tile),
        "bitonic_local_merge": _cpu_tiles(kind, tile),
        "bitonic_tile_sort": _cpu_tiles(kind, tile, ends=True),
        "bitonic_tile_merge": _cpu_tiles(kind, tile, ends=True),
        "bitonic_presort": _cpu_presort(kind, steps, tail=False),
        "bitonic_presort_tail": _cpu_presort(kind, steps, tail=True),
        "bitonic_pass": _cpu_pass(kind, steps, "pass"),
        "bitonic_pass_rows": _cpu_pass(kind, steps, "rows"),
        "bitonic_flip_rows": _cpu_pass(kind, steps, "flip_rows"),
        "bitonic_pass_tail": _cpu_pass(kind, steps, "tail"),
        "bitonic_merge": _cpu_pass(kind, steps, "merge"),
        "bitonic_wide_pass": _cpu_pass(
            kind, row_steps(tile, steps), "wide", row_width(tile, steps)
        ),
        f"{LIBRARY}sort": _cpu_library_sort(kind),
    }


def _cpu_library_sort(kind: int):
    """numpy's own sort of the keys' order words (a stable argsort where values
    follow the keys, or NaNs, whose words drop the sign bit, are among them)."""

    def sort(grid: Grid, keys: np.ndarray, *rest: Any) -> None:
        *values, n, descending = rest
        head = keys[:n]
        words = order_words(head, kind, bool(descending))
        if not values and not (kind == FLOAT and np.isnan(head).any()):
            head[:] = keys_of_words(np.sort(words), kind, bool(descending), keys.dtype)
            return
        order = np.argsort(words, kind="stable")
        head[:] = head[order]
        for array in values:
            array[:n] = array[:n][order]

    return sort


def _cpu_tiles(kind: int, tile: int, ends: bool = False):
    """Each tile sorted: what a tile launch of either strategy leaves (the
    tiled strategy's take ``last``, which the numpy keys need not)."""

    def sort_tiles(grid: Grid, keys, *rest) -> None:
        if ends:
            *values, n, _, descending = rest
        else:
            *values, n, descending = rest
        n = int(n)
        words = order_words(keys[:n], kind, bool(descending))
        for start in range(0, n, tile * 256):
            stop = min(n, start + tile * 256)
            full = start + (stop - start) // tile * tile
            for lo, hi, shape in ((start, full, (-1, tile)), (full, stop, (1, -1))):
                if hi <= lo:
                    continue
                idx = np.argsort(words[lo:hi].reshape(shape), axis=1, kind="stable")
                for a in (keys, *values):
                    block = a[lo:hi].reshape(shape)
                    a[lo:hi] = np.take_along_axis(block, idx, axis=1).ravel()

    return sort_tiles


def keys_of_words(words: np.ndarray, kind: int, descending: bool, dtype: np.dtype) -> np.ndarray:
    """The keys whose `order_words` these are, where that map is one-to-one
    (every key but NaN, whose words drop the sign bit)."""
    word = words.dtype
    sign = word.type(1 << (word.itemsize * 8 - 1))
    w = ~words if descending else words
    if kind == UNSIGNED:
        bits = w
    elif kind == SIGNED:
        bits = w ^ sign
    else:
        bits = np.where(w & sign, w ^ sign, ~w)
    return bits.astype(word, copy=False).view(dtype)


def _reference(kind: int, pairs: bool):
    def reference(inputs: dict) -> dict[str, np.ndarray]:
        keys = inputs["keys"]
        descending = bool(inputs["descending"])
        words = order_words(keys, kind, descending)
        if not pairs and not (kind == FLOAT and np.isnan(keys).any()):
            # Equal words are equal keys here, so sorting the words themselves
            # (several times faster than a stable argsort) gives the same keys.
            return {"keys": keys_of_words(np.sort(words), kind, descending, keys.dtype)}
        order = np.argsort(words, kind="stable")
        expected = {"keys": keys[order]}
        if pairs:
            expected["values"] = inputs["values"][order]
        return expected

    return reference


def _pair_order(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    kw = keys.view(f"u{keys.dtype.itemsize}")
    vw = values.view(f"u{values.dtype.itemsize}")
    order = np.lexsort((vw, kw))
    return np.stack([kw[order].astype(np.uint64), vw[order].astype(np.uint64)])


def _verify(pairs: bool):
    def verify(inputs: dict, outputs: dict, reference: dict) -> Verdict:
        got, want = outputs["keys"], reference["keys"]
        word = f"u{want.dtype.itemsize}"
        differ = np.flatnonzero(got.view(word) != want.view(word))
        if differ.size:
            at = int(differ[0])
            return Verdict(
                float("inf"),
                f"keys: {differ.size} of {want.size} differ from the sorted input; first at "
                f"index {at}: got {got[at].item()!r}, expected {want[at].item()!r}",
            )
        if pairs:
            have = _pair_order(outputs["keys"], outputs["values"])
            given = _pair_order(inputs["keys"], inputs["values"])
            if not np.array_equal(have, given):
                return Verdict(
                    float("inf"), "values: the (key, value) pairs are not those of the input"
                )
        return Verdict(0.0, None)

    return verify


def _nans(dtype: np.dtype) -> np.ndarray:
    """NaNs of both signs, quiet and signalling, the smallest payload among them.

    The key map orders NaNs by their bits less the sign, so +NaN and -NaN of one
    payload would tie and sort either way: these payloads all differ. Only a
    negative NaN tells the map's NaN test from its sign test.
    """
    word = np.dtype(f"u{dtype.itemsize}")
    sign = 1 << (dtype.itemsize * 8 - 1)
    inf = int(np.array(np.inf, dtype).view(word))
    quiet = inf | 1 << (np.finfo(dtype).nmant - 1)
    everything = sign - 1
    bits = [quiet, inf | 2, everything, sign | quiet | 1, sign | inf | 1, sign | (everything - 1)]
    return np.array(bits, dtype=word).view(dtype)


def _special(dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "f":
        info = np.finfo(dtype)
        tiny = info.smallest_subnormal
        largest_subnormal = info.tiny - tiny
        values = [np.inf, -np.inf, 0.0, -0.0, tiny, -tiny, largest_subnormal, -largest_subnormal]
        values += [info.tiny, -info.tiny, info.max, -info.max, 1.0, -1.0]
        return np.concatenate([np.array(values, dtype=dtype), _nans(dtype)])
    info = np.iinfo(dtype)
    values = [info.min, info.max, 0, 1, info.min + 1, info.max - 1]
    if info.min < 0:
        values.append(-1)
    return np.array(values, dtype=dtype)


def bitonic_keys(dist: str, n: int, dtype: np.dtype, seed: int) -> np.ndarray:
    """Keys for one input distribution; the same seed gives the same keys anywhere."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "f":
        uniform = rng.uniform(-1000.0, 1000.0, n).astype(dtype)
    else:
        info = np.iinfo(dtype)
        uniform = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    if dist == "uniform":
        return uniform
    if dist in ("sorted", "reversed"):
        ordered = np.sort(uniform)
        return ordered if dist == "sorted" else ordered[::-1].copy()
    if dist == "equal":
        return np.full(n, uniform[0] if n else 0, dtype=dtype)
    if dist == "few":
        return rng.choice(uniform[:8], n) if n else uniform
    special = _special(dtype)
    where = rng.random(n) < 0.25
    uniform[where] = rng.choice(special, int(where.sum()))
    return uniform


#: What each input distribution exercises that the others may not.
_REACHES = {
    "uniform": "random keys of both signs",
    "sorted": "keys already in order, so every compare-exchange keeps its pair",
    "reversed": "keys in reverse, so the first stage swaps every pair",
    "equal": "all keys equal: ties throughout",
    "few": "eight distinct keys: long runs of ties",
    "special": "NaNs of both signs and several payloads, infinities, signed zeros, "
    "subnormals or integer extremes: every branch of the key map",
}
#: Distributions worth sorting in the other order as well: the others turn
#: into one another (sorted and reversed) or do not change (equal, few).
_BOTH_ORDERS = ("special", "uniform")


def check_cases(
    key_type: np.dtype, value: str | None, timed: tuple[str, str] | None
) -> tuple[CheckCase, ...]:
    """Inputs a sort also verifies with: every distribution but the timed one,
    in the timed order, and the special and uniform keys in the other order.

    ``timed`` is the (dist, order) of the timed keys, or None when they are
    none of the distributions (RAJAPerf's, sorted ascending). The network is
    the same for any keys, but the key map's branches and the descending path
    only show with keys that reach them and in the order that takes them.
    """
    order = timed[1] if timed else "asc"
    other = "desc" if order == "asc" else "asc"
    wanted = [("special", order), *((d, other) for d in _BOTH_ORDERS)]
    wanted += [(d, order) for d in DIST.choices if d != "special"]
    return tuple(
        CheckCase(
            f"{dist} {sort_order}",
            _case_init(dist, sort_order == "desc", key_type, value),
            f"{_REACHES[dist]}, sorted {'descending' if sort_order == 'desc' else 'ascending'}",
        )
        for dist, sort_order in wanted
        if (dist, sort_order) != timed
    )


def _case_init(dist: str, descending: bool, key_type: np.dtype, value: str | None):
    def init(size: int, seed: int, precision: str) -> dict:
        data = {"keys": bitonic_keys(dist, size, key_type, seed), "descending": int(descending)}
        if value:
            data["values"] = np.arange(size, dtype=numpy_dtype(value, "f64"))
        return data

    return init


_SCALARS = (
    Scalar("n", "u32"),
    Scalar("d", "u32"),
    Scalar("flip", "u32"),
    Scalar("first", "u32"),
    Scalar("last", "u32"),
    Scalar("descending", "u32"),
)


#: Tiles the longest check size with every check case holds (and three keys).
_CASES_UP_TO = 16


def _check_sizes(tile: int, strategy: str, steps: int) -> tuple[int, ...]:
    """Lengths that reach the network's edges: none or one pair, a partial
    pair, a tile less one, one, and one more (the last tile partial or just
    full), and lengths of several tiles that are no power of two (six tiles less
    one: its local launches fold into a 3 x 2 grid in wgpu's verification).
    And one past 16 tiles: below it, a tiled sort's global passes of 4 or 5
    steps each reach below a tile, so its tile merges' first steps find every
    pair in order and a bug in them goes unseen. A wide sort's passes start
    with a stage's flip up to 2^row_steps tiles: one past that is its first
    length with a pass that does not, where the timed keys alone verify (the
    check cases' keys and orders reach nothing there that they do not reach at
    the shorter lengths, and on lavapipe they took minutes)."""
    sizes = {1, 2, 3, 5, tile - 1, tile, tile + 1, 2 * tile + 3, 3001, 6 * tile - 1}
    if strategy == "wide":
        sizes.add((tile << row_steps(tile, steps)) + 3)
    return tuple(sorted(sizes | {_CASES_UP_TO * tile + 3}))


def _features(strategy: str, word_bytes: int) -> frozenset[str]:
    features = {"local_memory"} if strategy in ("local", "tiled", "wide") else set()
    if word_bytes == 8:
        features.add("int64")
    return frozenset(features)


def _work_group_bytes(strategy: str, tile_bytes: int) -> int:
    """Work-group memory a strategy's tile takes: none for the strategies without one."""
    return tile_bytes if strategy in ("local", "tiled", "wide") else 0


def _pass_constants(steps: int, tile: int) -> dict[str, int]:
    """What the sources see of the register passes' steps, and of a wide pass's rows."""
    return {
        "STEPS": steps,
        "PASS_KEYS": 1 << steps,
        "LANES": LANES,
        "TILE": tile,
        "ROW_STEPS": row_steps(tile, steps),
        "ROW_WIDTH": row_width(tile, steps),
    }


# --- Bitonic_*: any key type, order and distribution --------------------------


def _bitonic(
    name: str, key: str, value: str | None, values: Mapping[str, str], summary: str
) -> KernelSpec:
    key_type = np.dtype(
        {"u32": np.uint32, "i32": np.int32, "f32": np.float32, "f64": np.float64}[key]
    )
    kind = _KINDS[key]
    element = key_type.itemsize + (numpy_dtype(value, "f64").itemsize if value else 0)
    tile = _tile(element, int(values["tile_bytes"]))
    strategy, order, dist = values["strategy"], values["order"], values["dist"]
    steps = int(values["steps"])
    names = ("keys", "values") if value else ("keys",)
    value_array = (Array("values", value, lambda n: n, "inout"),) if value else ()

    def traffic(size: int, real_bytes: int) -> Traffic:
        moved = len(bitonic_plan(size, strategy, tile, names, steps)) * size * element
        return Traffic(read=moved, write=moved)

    return KernelSpec(
        name=name,
        group="Sort",
        fixed_group=SORT_GROUP_FIXED,
        summary=summary,
        arrays=(Array("keys", key, lambda n: n, "inout"), *value_array),
        scalars=_SCALARS,
        plan=lambda n: bitonic_plan(n, strategy, tile, names, steps),
        init=_case_init(dist, order == "desc", key_type, value),
        reference=_reference(kind, bool(value)),
        cpu=_cpu_entries(kind, tile, steps),
        traffic=traffic,
        flops=lambda n: 0,
        default_size=1 << 20,
        default_reps=20,
        check_size=3001,
        check_sizes=_check_sizes(tile, strategy, steps),
        check_cases_up_to=_CASES_UP_TO * tile + 3,
        check_cases=check_cases(key_type, value, (dist, order)),
        tolerance=EXACT,
        features=_features(strategy, key_type.itemsize),
        rajaperf_features=("Sort",),
        complexity="N_logN^2",
        source="BitonicPairs" if value else "Bitonic",
        other_groups=(ROW_GROUP,),
        work_group_bytes=_work_group_bytes(strategy, tile * element),
        constants={
            "KEY_KIND": kind,
            "WORD_BITS": key_type.itemsize * 8,
            **_pass_constants(steps, tile),
        },
        type_aliases={"WORD": _WORDS[key_type.itemsize], **({"VALUE": value} if value else {})},
        params=(STRATEGY, STEPS, TILE_SIZE, ORDER, DIST),
        bind=lambda chosen: _bitonic(name, key, value, {**values, **chosen}, summary),
        param_values=dict(values),
        verify=_verify(bool(value)),
        items="keys",
    )


_DEFAULTS = {
    "strategy": "global",
    "steps": "4",
    "tile_bytes": str(TILE_BYTES),
    "order": "asc",
    "dist": "uniform",
}

KERNELS = (
    _bitonic("Bitonic_U32", "u32", None, _DEFAULTS, "bitonic sort of u32 keys, any length"),
    _bitonic("Bitonic_I32", "i32", None, _DEFAULTS, "bitonic sort of i32 keys, any length"),
    _bitonic("Bitonic_F32", "f32", None, _DEFAULTS, "bitonic sort of f32 keys (NaNs last)"),
    _bitonic("Bitonic_F64", "f64", None, _DEFAULTS, "bitonic sort of f64 keys (NaNs last)"),
    _bitonic("Bitonic_PAIRS", "u32", "u32", _DEFAULTS, "bitonic sort of u32 keys with u32 values"),
)


# --- RAJAPerf's Algorithm_SORT and Algorithm_SORTPAIRS ------------------------


def _rajaperf_sort(
    name: str, pairs: bool, strategy: str, steps: int = 4, tile_bytes: int = TILE_BYTES
) -> KernelSpec:
    """RAJAPerf's SORT / SORTPAIRS: doubles from RandValue, ascending.

    RAJAPerf sorts a fresh chunk of N keys each repetition (N x reps keys in
    all); here every repetition sorts the same N keys again, which costs the
    same because a bitonic network does the same work whatever the data.
    """
    names = ("keys", "values") if pairs else ("keys",)
    tile = _tile(16 if pairs else 8, tile_bytes)

    def init(size: int, seed: int, precision: str) -> dict:
        d = DataInit()
        data = {"keys": d.rand_value(size), "descending": 0}
        if pairs:
            data["values"] = d.rand_value(size)
        return data

    return KernelSpec(
        name=name,
        group="Algorithm",
        fixed_group=SORT_GROUP_FIXED,
        summary="sort (key, value) pairs of doubles by key" if pairs else "sort doubles",
        arrays=(
            Array("keys", "f64", lambda n: n, "inout"),
            *((Array("values", "f64", lambda n: n, "inout"),) if pairs else ()),
        ),
        scalars=_SCALARS,
        plan=lambda n: bitonic_plan(n, strategy, tile, names, steps),
        init=init,
        reference=_reference(FLOAT, pairs),
        cpu=_cpu_entries(FLOAT, tile, steps),
        traffic=lambda n, b: Traffic(modify_write=(2 if pairs else 1) * 8 * n),
        flops=lambda n: 0,
        default_reps=20,
        check_size=3001,
        check_sizes=_check_sizes(tile, strategy, steps),
        check_cases_up_to=_CASES_UP_TO * tile + 3,
        check_cases=check_cases(np.dtype(np.float64), "f64" if pairs else None, None),
        tolerance=EXACT,
        features=_features(strategy, 8),
        rajaperf_features=("Sort",),
        complexity="N_logN",
        source="BitonicPairs" if pairs else "Bitonic",
        other_groups=(ROW_GROUP,),
        work_group_bytes=_work_group_bytes(strategy, tile * (16 if pairs else 8)),
        constants={"KEY_KIND": FLOAT, "WORD_BITS": 64, **_pass_constants(steps, tile)},
        type_aliases={"WORD": "u64", **({"VALUE": "f64"} if pairs else {})},
        params=(STRATEGY, STEPS, TILE_SIZE),
        bind=lambda chosen: _rajaperf_sort(
            name,
            pairs,
            chosen.get("strategy", strategy),
            int(chosen.get("steps", steps)),
            int(chosen.get("tile_bytes", tile_bytes)),
        ),
        param_values={"strategy": strategy, "steps": str(steps), "tile_bytes": str(tile_bytes)},
        verify=_verify(pairs),
        items="keys",
    )


RAJAPERF_KERNELS = (
    _rajaperf_sort("Algorithm_SORT", False, "fused"),
    _rajaperf_sort("Algorithm_SORTPAIRS", True, "fused"),
)
