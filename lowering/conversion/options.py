"""`LoweringOptions`: every knob of code generation, as `soac-to-kernel`'s typed pass options.

`SoacToKernelPass` takes these fields as its options (a field `scan_items` is written `scan-items` on the command
line), and hands a frozen `LoweringOptions` to the lowering context (`HostLowering.options`), where the strategies
read it. Nothing in `lowering/strategies/` reads the environment:

    soac-opt prog.mlir -p 'soac-to-kernel{target=nvidia hist=global scan-items=8}'

The environment variables of earlier versions (`SOAC_HIST=global`, ...) are read once, by the tools and the
runtime's entry (`options_from_environment`), and mapped onto these options; `ENVIRONMENT` lists them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin, get_type_hints

from soac.lowering.kernel.target import DeviceTarget, get_target

TargetName = Literal["generic", "nvidia", "cpu", "emulated-warps"]
ScanStrategy = Literal["auto", "reduce-then-scan", "lookback", "chunked"]
SCAN_STRATEGIES = ("reduce-then-scan", "lookback", "chunked")
"""Device-wide scan algorithms: reduce-then-scan (any device), single-pass decoupled look-back (`lookback`: needs
forward progress of started work-groups; with warp shuffles on targets with sub-groups; see
`strategies/lookback_scan.py`), and `chunked` for CPUs (one work-item per contiguous chunk, also used for reduce and
redomap; see `strategies/chunked_scan.py`). Each target has its default (`kernel/target.py`)."""


MAX_TILE_RESULTS = 64
"""The most results a work-item's register block may hold (`small-tile-rows` x `small-tile-cols`)."""


@dataclass(frozen=True)
class LoweringOptions:
    """How soac-to-kernel lowers a module: the target and every strategy choice, as pass options.

    `auto` (and 0 for sizes) lets the lowering choose, by target, op and types; the other values force a choice,
    mostly for tests and timing. Each field is a pass option of `soac-to-kernel` (hyphens for underscores).
    """

    target: TargetName = "generic"
    """What the kernels may use (`kernel/target.py`): `generic`, `nvidia`, `cpu`, or `emulated-warps` (NVIDIA's
    kernels with sub-groups emulated in local memory, for PoCL)."""
    group_size: int = 256
    """Work-group size, a power of two."""
    max_groups: int = 1024
    """The most work-groups of a grid-stride launch."""
    scan: ScanStrategy = "auto"
    """The device-wide scan algorithm (`SCAN_STRATEGIES`); `auto`: the target's."""
    layout: Literal["auto", "strided", "contiguous"] = "auto"
    """Grid-stride kernels: strided, or contiguous ranges per work-item (CPUs); `auto`: the target's."""
    scan_reduce: Literal["fused", "split"] = "fused"
    """A scanomap with a reduction part: one look-back kernel where the `lookback` scan takes it (`fused`), or a
    scanomap and a redomap (`split`)."""
    segred: Literal["auto", "thread", "teams"] = "auto"
    """How a function-level segred splits its segments: `auto` chooses by segment length when it runs; `thread` (a
    work-item per segment), `teams` (teams sized by the segment length)."""
    segscan: Literal["auto", "thread", "group", "lookback"] = "auto"
    """How a function-level segscan splits its segments (`auto`, `thread`, `group`: a work-group per segment,
    `lookback`: one flat look-back scan)."""
    hist: Literal["auto", "global", "local", "copies", "passes"] = "auto"
    """Where a histogram's updates go (`strategies/histogram.py`); `auto`: `global` for contiguous layouts (CPUs),
    else `local`."""
    hist_copies: int = 0
    """Global copies of the bins that the `copies` histogram keeps; 0: as many as fit, 1 to 16."""
    hist_update: Literal["auto", "cas", "packed", "lock"] = "auto"
    """How a histogram updates a bin (`strategies/hist_updates.py`); `auto`: the first that applies."""
    seghist: Literal["atomic", "segment"] = "atomic"
    """A seghist: atomic updates where the operator has them (`atomic`), or a work-group per segment (`segment`)."""
    stencil: Literal["auto", "streamed", "tiled", "direct"] = "auto"
    """A stencil's kernel (`strategies/stencil.py`); `auto`: `streamed` on targets with local tiles, else `direct`."""
    transpose: Literal["auto", "tiled", "simple"] = "auto"
    """A top-level transpose of the last two dimensions: through local-memory tiles (`strategies/transpose.py`) or a
    grid-stride copy (`simple`); `auto`: `tiled` on targets with local tiles. Other permutations are always copied."""
    scan_items: int = 0
    """Elements per work-item of a look-back scan tile (a multiple of 4); 0: by target and scanned values."""
    scan_group: int = 0
    """Work-group size of NVIDIA's look-back scan kernel; 0: by the values published."""
    scan_layout: Literal["auto", "striped", "contiguous"] = "auto"
    """An NVIDIA look-back tile: warp-striped or contiguous per work-item; `auto`: striped for up to 4 values."""
    scan_status: Literal["paired", "split"] = "paired"
    """A scan of several values keeps a tile's status words side by side (`paired`) or one array per value."""
    scan_stage: bool = True
    """A look-back scan whose kernel compacts (a scatter to each kept element's running count, `scan_scatter.py`)
    stages a full tile's kept elements in local memory and writes them out contiguously."""
    scan_lookback: bool = True
    """false skips the look-back (wrong results: timing experiments only)."""
    segscan_aligned: bool = True
    """A regular segmented look-back scan gets a kernel without segment flags for rows of whole tiles."""
    seg_min_team: int = 8
    """Fewest work-items per segment of a `teams` segred."""
    seg_lane_items: int = 8
    """Elements per work-item a `teams` segred aims at before its teams grow."""
    seg_short_rows: int = 8
    """Short rows a team of the vector segred reads at once."""
    seg_short_vectors: int = 64
    """Rows of at most this many 4-element vectors are short for the vector segred."""
    seg_one_vector_rows: bool = True
    """On 32-lane targets, short rows of at most 32 vectors get a loop of their own in the vector segred."""
    row_unroll: int = 0
    """The loops of a work-item's nested maps and reductions (a row a work-item: the outer-parallel kernels) get
    `#pragma unroll N`, several elements' loads in flight; 0: no hint, the device compiler's choice."""
    seg_streams: int = 0
    """Independent loads in flight per work-item in the strided folds of the segreds (`teams`, `vector`); 0: 8."""
    seg_uniform_rounds: bool = True
    """The strided folds' main loop runs every whole round of a work-item's elements (false: only the rounds that fit
    the distance from the team's first element, so all members but the first did one round fewer, the rest in a
    guarded tail: the loop before issue 27)."""
    scan_reduce_fan_in: int = 0
    """Tiles per block when the look-back kernel combines a scanomap's reduced values; 0: the group size."""
    partition_items: int = 0
    """Rows per work-item of a partition's tile (`strategies/partition.py`); 0: 4096 rows a tile."""
    partition_match: Literal["auto", "match", "ballots"] = "auto"
    """How a warp of a partition's tile finds the lanes of each lane's class: one `kernel.match_any` (`match`), or a
    ballot per bit of the class (`ballots`, as CUB's `BlockRadixRankMatch` does before Volta); `auto`: `ballots`
    (on the H200 a radix sort's pass took 1.3x as long with `match`)."""
    partition_ranks: Literal["auto", "registers", "keep", "again"] = "auto"
    """How a staged partition tile carries each row's rank from counting to moving: with its values in registers
    (`registers`: the rounds unrolled, private arrays), in local memory (`keep`, where it fits; the rows are read
    again), or not (`again`: the moving round matches the warps' classes again); `auto`: `keep`."""
    partition_rows: Literal["auto", "registers", "load"] = "auto"
    """How a partition tile's rounds get their rows: loaded into registers before the first round (`registers`, the
    rounds unrolled; the moving round reads them there too), or by each round (`load`); `auto`: `registers` with
    warps where a work-item's rows are few enough (`PRELOAD_VALUES`)."""
    partition_index: Literal["auto", "i32", "i64"] = "auto"
    """The index width of a partition's ranking kernel: `i32` adds a version with 32-bit index arithmetic, which the
    host launches where the rows fit it (`kernel.func`'s `index_bitwidth`), `i64` keeps only the 64-bit kernel;
    `auto`: the target's `narrow_indices`."""
    tile_index: Literal["auto", "i32", "i64"] = "auto"
    """The index width of the tiled kernels (`soac.tiled_redomap`'s and the tiled transpose's): `i32` adds a version
    with 32-bit index arithmetic, which the host launches where every index fits it, `i64` keeps only the 64-bit
    kernel; `auto`: the target's `narrow_indices`."""
    tile_warps: Literal["off", "4x8", "8x4"] = "4x8"
    """How a tiled kernel's 2-D work-items are laid out in warps of 32: `off` numbers them row-major over the block
    (a warp spans 2 rows of work-items), `4x8`/`8x4` gives each warp 4 x 8 (8 x 4) of them, so that its reads of a
    tile row hit few distinct addresses (broadcasts)."""
    tile_buffers: int = 1
    """Local tiles of a tiled kernel: one (the chunk ahead waits in registers, two barriers a chunk), or two used in
    turn (the next chunk is stored into the other while the group folds this one: one barrier a chunk)."""
    tile_tail_branch: bool = True
    """A tiled kernel runs its last, partial chunk (two barriers and a fold) in a branch taken where the chunk is not
    empty; `false`: every work-group runs it, empty or not. The runtime sets `false` on PoCL: PoCL 3.0 and 3.1
    miscompile a branch with barriers followed by a store guarded by a private condition (each work-item's result in
    the index space), storing in every work-item of the group when work-item 0 stores, so a block with fewer results
    than work-items wrote past its result buffer (heap corruption: `bench/pocl_select_barrier.py`)."""
    tile_unroll: Literal["auto", "on", "off"] = "auto"
    """A tiled kernel's fold of a full chunk (a loop of `chunk` steps) is marked `#pragma unroll`; `auto`: in 2-D
    nests (matmul: 0.81 -> 0.90 of cuBLAS at 2048^3 on an H200; nbody's 1-D fold got 4% slower)."""
    partition_lookback: int = 0
    """Status words a Onesweep partition's look-back reads at once (tiles p, p - 1, ... in one step, their loads
    overlapping); 0: `LOOKBACK_WINDOW` of `strategies/partition.py`."""
    tile_split_items: int = 0
    """Work-items a 1-D `soac.tiled_redomap` aims at by splitting its reduction into slices (`strategies/tiled.py`);
    0: `SPLIT_ITEMS` (2^19; staged rows 2^17); 1: never split."""
    small_tile_rows: int = 4
    """Rows of the block of results each work-item of a staged batch of small products keeps in registers
    (soac-small-intra's nests: `strategies/register_tiles.py`); its rows lie `ceil(n / rows)` apart. 4 x 1 by default:
    a warp then reads one or two rows of `a` (broadcasts) and 16 or 32 neighbouring columns of `b` per step, with no
    bank conflicts at n = 16 and 32 (2 x 2 reads four rows 16 words apart: two-way conflicts)."""
    small_tile_cols: int = 1
    """Columns of that block, `ceil(m / cols)` apart (neighbouring work-items take neighbouring columns)."""
    small_batches: int = 0
    """Batch elements a work-group of such a nest stages and computes at once; 0: as many as its work-items cover
    (a group of 256 takes 4 batches of 16 x 16 in 4 x 1 blocks) and 1024 elements of local memory per staged array
    hold. A number also sizes the local memory for that many (up to 32 KiB in all: `packed_groups.PACKED_LOCAL_BYTES`)."""
    small_fma: bool = False
    """Such a nest whose lambda ends in a product that its operator adds (`acc + x * y`) folds each step with one
    `math.fma` (one rounding, as cuBLAS's kernels do; the interpreter rounds the product and the sum apart)."""
    small_index: Literal["auto", "i32", "i64"] = "auto"
    """Such a nest's kernel: `i32` adds a version with 32-bit index arithmetic, which the host launches where its
    arrays, sizes and loops fit below 2^31 (`index_width.index_versions`), `i64` keeps only the 64-bit kernel;
    `auto`: the target's `narrow_indices` (nvidia)."""
    chunk_min: int = 4096
    """The fewest elements of a chunk of the `chunked` (CPU) scan and reduction (below that, fewer chunks)."""
    chunk_align: int = 16
    """Chunks of the `chunked` scan and contiguous grid-stride ranges are multiples of this many elements (64 bytes
    of 32-bit values: no cache line shared by two writers)."""

    def __post_init__(self) -> None:
        hints = get_type_hints(LoweringOptions)
        for field in dataclasses.fields(LoweringOptions):
            value, hint = getattr(self, field.name), hints[field.name]
            option = field.name.replace("_", "-")
            if get_origin(hint) is Literal and value not in get_args(hint):
                allowed = ", ".join(get_args(hint))
                raise ValueError(f"soac-to-kernel: {option} must be one of {allowed}, got '{value}'")
            if hint is int and (not isinstance(value, int) or value < 0):
                raise ValueError(f"soac-to-kernel: {option} must be a whole number, got '{value}'")
        if self.group_size <= 0 or self.group_size & (self.group_size - 1):
            raise ValueError(f"soac-to-kernel: group-size must be a power of two, got {self.group_size}")
        if self.max_groups <= 0:
            raise ValueError(f"soac-to-kernel: max-groups must be positive, got {self.max_groups}")
        if self.small_tile_rows * self.small_tile_cols > MAX_TILE_RESULTS:
            raise ValueError(
                f"soac-to-kernel: a block of small-tile-rows x small-tile-cols results is at most {MAX_TILE_RESULTS} "
                f"(each a copy of the lambda in the kernel), got {self.small_tile_rows} x {self.small_tile_cols}"
            )
        if self.scan_items % 4:
            raise ValueError(f"soac-to-kernel: scan-items must be a multiple of 4, got {self.scan_items}")
        if self.tile_buffers not in (1, 2):
            raise ValueError(f"soac-to-kernel: tile-buffers must be 1 or 2, got {self.tile_buffers}")
        positive = ("seg_min_team", "seg_lane_items", "seg_short_rows", "chunk_min", "chunk_align", "small_tile_rows")
        for name in (*positive, "small_tile_cols"):
            if getattr(self, name) == 0:
                raise ValueError(f"soac-to-kernel: {name.replace('_', '-')} must be positive")

    @property
    def device_target(self) -> DeviceTarget:
        return get_target(self.target)

    @property
    def scan_strategy(self) -> str:
        """The device-wide scan algorithm: the `scan` option, else the target's."""
        return self.device_target.scan if self.scan == "auto" else self.scan

    @property
    def contiguous(self) -> bool:
        """Grid-stride kernels give each work-item a contiguous range: the `layout` option, else the target's."""
        return self.device_target.contiguous if self.layout == "auto" else self.layout == "contiguous"

    def option_text(self) -> str:
        """The options that differ from the defaults, as `soac-to-kernel{...}` writes them (for cache keys)."""
        return " ".join(f"{k.replace('_', '-')}={_spelt(v)}" for k, v in sorted(self.changed().items()))

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the defaults, by field name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) != f.default}


def _spelt(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_fields() -> dict[str, Any]:
    """Each option's field name and type hint."""
    hints = get_type_hints(LoweringOptions)
    return {f.name: hints[f.name] for f in dataclasses.fields(LoweringOptions)}


ENVIRONMENT: dict[str, tuple[str, dict[str, str]]] = {
    "SOAC_TARGET": ("target", {}),
    "SOAC_SCAN": ("scan", {}),
    "SOAC_SCAN_REDUCE": ("scan_reduce", {}),
    "SOAC_HIST": ("hist", {}),
    "SOAC_HIST_COPIES": ("hist_copies", {}),
    "SOAC_HIST_UPDATE": ("hist_update", {}),
    "SOAC_SEGHIST": ("seghist", {}),
    "SOAC_STENCIL": ("stencil", {}),
    "SOAC_SCAN_ITEMS": ("scan_items", {}),
    "SOAC_SCAN_GROUP": ("scan_group", {}),
    "SOAC_SCAN_LAYOUT": ("scan_layout", {}),
    "SOAC_SCAN_STATUS": ("scan_status", {}),
    "SOAC_SCAN_STAGE": ("scan_stage", {"0": "false", "1": "true"}),
    "SOAC_SCAN_NO_LOOKBACK": ("scan_lookback", {"1": "false", "0": "true"}),
    "SOAC_SEGSCAN_ALIGNED": ("segscan_aligned", {"0": "false", "1": "true"}),
    "SOAC_SEG_MIN_TEAM": ("seg_min_team", {}),
    "SOAC_SEG_LANE_ITEMS": ("seg_lane_items", {}),
    "SOAC_SEG_SHORT_ROWS": ("seg_short_rows", {}),
    "SOAC_SEG_SHORT_VECTORS": ("seg_short_vectors", {}),
    "SOAC_SEG_ONE_VECTOR_ROWS": ("seg_one_vector_rows", {"0": "false", "1": "true"}),
    "SOAC_TILE_SPLIT_ITEMS": ("tile_split_items", {}),
    "SOAC_PARTITION_ITEMS": ("partition_items", {}),
    "SOAC_PARTITION_MATCH": ("partition_match", {}),
    "SOAC_PARTITION_RANKS": ("partition_ranks", {}),
    "SOAC_PARTITION_LOOKBACK": ("partition_lookback", {}),
    "SOAC_PARTITION_INDEX": ("partition_index", {}),
    "SOAC_PARTITION_ROWS": ("partition_rows", {}),
    "SOAC_TILE_INDEX": ("tile_index", {}),
    "SOAC_TILE_WARPS": ("tile_warps", {}),
    "SOAC_TILE_BUFFERS": ("tile_buffers", {}),
    "SOAC_TILE_UNROLL": ("tile_unroll", {"0": "off", "1": "on"}),
    "SOAC_TILE_TAIL_BRANCH": ("tile_tail_branch", {"0": "false", "1": "true"}),
}
"""The environment variables that set lowering options (read by the tools and the runtime's entry only), each with
its option's field and how a value is spelt there where it differs (`SOAC_SCAN_NO_LOOKBACK=1` is
`scan-lookback=false`)."""


def parse_option(name: str, text: str) -> Any:
    """The value of option field `name` written as `text` (`8`, `true`, `global`); ValueError naming the option."""
    hint = option_fields()[name]
    option = name.replace("_", "-")
    if hint is bool:
        if text.lower() not in ("true", "false", "1", "0"):
            raise ValueError(f"soac-to-kernel: {option} must be true or false, got '{text}'")
        return text.lower() in ("true", "1")
    if hint is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"soac-to-kernel: {option} must be a whole number, got '{text}'") from None
    return text


def options_from_environment(environ: Mapping[str, str]) -> dict[str, Any]:
    """The option fields the environment variables of `ENVIRONMENT` set in `environ` (empty ones are unset);
    ValueError naming the variable for a bad value."""
    options: dict[str, Any] = {}
    for variable, (name, spelling) in ENVIRONMENT.items():
        if text := environ.get(variable, ""):
            try:
                options[name] = parse_option(name, spelling.get(text, text))
                LoweringOptions(**{name: options[name]})
            except ValueError as error:
                raise ValueError(f"{variable}={text}: {error}") from None
    return options


def one_warp_problem(target: DeviceTarget, group_size: int, scan_group: int) -> str | None:
    """Why kernels of `target` would compute wrong results in work-groups of `group_size` and look-back tiles of
    `scan_group` work-items (`DeviceTarget.one_warp_groups`: `emulated-warps` needs one warp), or None."""
    warp = target.subgroup_width
    if not target.one_warp_groups or (group_size, scan_group) == (warp, warp):
        return None
    return (
        f"target '{target.name}' runs each work-group as one warp (its shuffles go through local memory): "
        f"group-size and scan-group must be {warp}, not {group_size} and {scan_group}"
    )


def lowering_options(environ: Mapping[str, str] | None = None, **explicit: Any) -> LoweringOptions:
    """Options from `explicit` fields (None: not given), else from the environment variables in `environ`, else the
    defaults."""
    chosen = options_from_environment(environ) if environ is not None else {}
    chosen.update({k: v for k, v in explicit.items() if v is not None})
    return LoweringOptions(**chosen)
