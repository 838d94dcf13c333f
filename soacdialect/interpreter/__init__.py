"""The reference interpreter of the soac dialect: runs a module's functions on numpy arrays.

    from soac.interpreter import run_function, SoacRuntimeError
    ys, total = run_function(module, "main", [n, xs])

Design. Every lambda runs once over all its lanes: a *frame* has a batch shape
`B`, and each runtime value is a numpy array whose leading dimensions are batch
dimensions (`values.py`). A value may have fewer batch dimensions than its
frame (it is then uniform over the rest: constants and host data are never
materialised per lane); elementwise ops align operands by inserting singleton
axes and let numpy broadcast. A SOAC of width `n` runs its lambda in a child
frame with batch `B + (n,)`; segmented ops add all their dimensions at once.

- reduce/scan (and redomap, scanomap, segred, segscan): `ufunc.reduce` /
  `ufunc.accumulate` when the operator is one recognised arith op per output,
  else a pairwise tree / Hillis-Steele evaluation of the operator region
  (`combine.py`); the left operand stays on the left.
- Control flow with a per-lane condition or bounds (`scf.py`) runs each region
  only on the lanes that take it (`frame.MaskedFrame`), then merges.
- An op that needs a size to agree over the lanes (a SOAC width, `iota`,
  `replicate`, a slice length, ...) and finds it does not raises `Irregular`;
  the block runner then groups the lanes by that size and runs the rest of the
  block once per group (`core.SoacInterpreter.split`). Results whose rows then
  differ in shape are irregular arrays, an error.

Semantic choices where MLIR or Futhark leave freedom: integer ops wrap;
shifts by at least the bit width give 0 (`shli`, `shrui`) or the sign fill
(`shrsi`); float-to-int casts of NaN or out-of-range values give numpy's result;
`scatter` skips rows whose index is out of bounds (as Futhark's does) and, when
two rows write one place, the later row wins; a reduction combines the neutral element on the left of the
reduced value, and sums floats pairwise (numpy's order); `math.fma` on f64
rounds twice. A per-lane `scf.if`/`scf.index_switch`/loop whose array results
have different shapes on different lanes is reported as irregular.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from soac.interpreter import arith, hist, math_ops, partition, scf, soac_ops, stencil, tensor  # noqa: F401  (registers the op implementations)
from soac.interpreter.core import SoacInterpreter
from soac.interpreter.errors import SoacRuntimeError
from xdsl.dialects.builtin import ModuleOp

__all__ = ["SoacInterpreter", "SoacRuntimeError", "run_function"]


def run_function(
    module: ModuleOp, name: str, args: Sequence[object], thresholds: Mapping[str, int] | None = None
) -> tuple[object, ...]:
    """Run the function `@name` of `module` on `args`.

    Tensor parameters take numpy arrays of the right rank and element type (or a
    losslessly widened one); scalar parameters take numpy scalars or Python
    numbers. Returns numpy arrays for tensors and numpy scalars for scalars.
    `thresholds` sets `soac.threshold` values by name (otherwise their defaults).
    Raises SoacRuntimeError when the program fails at run time.
    """
    return SoacInterpreter(module, thresholds).call(name, args)
