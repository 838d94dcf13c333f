"""The tile sizes of a program's `soac.tiled_redomap`s as tuning parameters, set like thresholds.

A tiled op named `"tile_0"` over two dimensions has the parameters `tile_0_block_0`,
`tile_0_block_1`, `tile_0_reg_0`, `tile_0_reg_1` and `tile_0_chunk`. Unlike thresholds they
shape the kernels, so they are applied to the program before it is lowered:

    >>> [p.name for p in list_tile_parameters(module)]
    ['tile_0_block_0', 'tile_0_block_1', 'tile_0_reg_0', 'tile_0_reg_1', 'tile_0_chunk']
    >>> sized = with_tile_sizes(module, {"tile_0_chunk": 16})   # a copy; the module is unchanged

The tile of each `soac.stencil` (the block of elements a work-group computes, a column of it per work-item) is a
parameter too: the first stencil of a program over two dimensions has `stencil_0_block_0` and
`stencil_0_block_1`, the stencils numbered in program order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from soac.dialect import STENCIL_DEFAULT_TILES, StencilOp, TiledRedomapOp, TileSizes, stencil_tile_problem
from soac.parsing import location_of
from soac.passes.thresholds import threshold_path
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.ir import Operation

CANDIDATES = {"block": (16, 32, 64, 128, 256), "reg": (1, 2, 4, 8), "chunk": (4, 8, 16, 32, 64, 128, 256)}
"""The values soac-autotune tries for each kind of parameter (those that make usable sizes)."""


class TileSizeError(ValueError):
    """Tile sizes that a tiled op cannot use; the message names the parameters and the op."""


@dataclass(frozen=True)
class TileParameter:
    """One tile size of one `soac.tiled_redomap`."""

    name: str
    tile: str
    kind: str
    """`block`, `reg` or `chunk`."""
    dimension: int | None
    default: int
    path: tuple[tuple[str, bool], ...]
    """The thresholds compared on the way to the op, as for thresholds."""


def _parameters(op: TiledRedomapOp) -> list[TileParameter]:
    sizes, tile, path = op.sizes, op.tile_name, threshold_path(op)
    found = [TileParameter(f"{tile}_block_{d}", tile, "block", d, b, path) for d, b in enumerate(sizes.block)]
    found += [TileParameter(f"{tile}_reg_{d}", tile, "reg", d, r, path) for d, r in enumerate(sizes.reg)]
    return [*found, TileParameter(f"{tile}_chunk", tile, "chunk", None, sizes.chunk, path)]


def _stencil_parameters(op: StencilOp, index: int) -> list[TileParameter]:
    tile, name = op.tile_shape or STENCIL_DEFAULT_TILES[len(op.dims)], f"stencil_{index}"
    return [TileParameter(f"{name}_block_{d}", name, "block", d, t, threshold_path(op)) for d, t in enumerate(tile)]


def _tiled_ops(module: ModuleOp) -> list[tuple[Operation, list[TileParameter]]]:
    """The ops of `module` that have tile sizes, in program order, with their parameters."""
    found: list[tuple[Operation, list[TileParameter]]] = []
    for op in module.walk():
        if isinstance(op, TiledRedomapOp):
            found.append((op, _parameters(op)))
        elif isinstance(op, StencilOp):
            found.append((op, _stencil_parameters(op, sum(isinstance(o, StencilOp) for o, _ in found))))
    return found


def list_tile_parameters(module: ModuleOp) -> list[TileParameter]:
    """The tile sizes of `module`, in program order."""
    return [p for _, parameters in _tiled_ops(module) for p in parameters]


def sized(sizes: TileSizes, parameters: list[TileParameter], values: Mapping[str, int]) -> TileSizes:
    """`sizes` with the given values of `parameters` (of one op) put in."""
    block, reg, chunk = list(sizes.block), list(sizes.reg), sizes.chunk
    for p in parameters:
        if p.name not in values:
            continue
        if p.kind == "chunk":
            chunk = values[p.name]
        else:
            (block if p.kind == "block" else reg)[p.dimension] = values[p.name]  # pyright: ignore[reportArgumentType,reportCallIssue]
    return replace(sizes, block=tuple(block), reg=tuple(reg), chunk=chunk)


def with_tile_sizes(module: ModuleOp, values: Mapping[str, int] | None) -> ModuleOp:
    """`module` with the tile sizes in `values` (names of other parameters are ignored): a copy when any applies."""
    if not values or not any(p.name in values for p in list_tile_parameters(module)):
        return module
    copy = module.clone()
    for op, parameters in _tiled_ops(copy):
        if isinstance(op, StencilOp):
            _size_stencil(op, parameters, values)
            continue
        assert isinstance(op, TiledRedomapOp)
        chosen = sized(op.sizes, parameters, values)
        if problem := chosen.problem(len(op.dims)):
            names = ", ".join(f"{p.name}={values[p.name]}" for p in parameters if p.name in values)
            raise TileSizeError(f"{location_of(op) or op.name}: tile sizes {names}: '{op.name}' {problem}")
        op.properties.update(chosen.properties())
    return copy


def _size_stencil(op: StencilOp, parameters: list[TileParameter], values: Mapping[str, int]) -> None:
    tile = [values.get(p.name, p.default) for p in parameters]
    if problem := stencil_tile_problem(tile):
        names = ", ".join(f"{p.name}={values[p.name]}" for p in parameters if p.name in values)
        raise TileSizeError(f"{location_of(op) or op.name}: tile sizes {names}: '{op.name}' {problem}")
    op.properties["tile"] = DenseArrayBase.from_list(i64, tile)


def tile_values(module: ModuleOp, values: Mapping[str, int] | None) -> tuple[tuple[str, int], ...]:
    """The entries of `values` that are tile sizes of `module` (what a compiled program depends on)."""
    names = {p.name for p in list_tile_parameters(module)}
    return tuple(sorted((name, value) for name, value in (values or {}).items() if name in names))


def tile_tuning_text(parameters: list[TileParameter], values: Mapping[str, int] | None = None) -> str:
    """Tuning-file lines (`name=value`) for tile sizes, the given values else the defaults, with what each sizes."""
    what = {
        "block": "elements per work-group along d{d}",
        "reg": "elements per work-item along d{d}",
        "chunk": "elements of k per chunk",
    }
    lines = []
    for p in parameters:
        value = (values or {}).get(p.name, p.default)
        path = " and ".join(name if taken else f"not {name}" for name, taken in p.path)
        note = what[p.kind].format(d=p.dimension) + f' in tile "{p.tile}"' + (f", when {path}" if path else "")
        lines.append(f"{p.name}={value}  # {note}\n")
    return "".join(lines)
