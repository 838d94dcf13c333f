"""How soac-fuse scales: time the pass on generated modules of 500 to 4000 SOACs.

    python bench/fuse_scale.py [sizes...]

Prints, per size, the SOACs before and after fusion, the time of the pass, and
the time per SOAC (roughly constant when the pass grows linearly). Parsing and
verification are not timed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from soac.context import make_context
from soac.dialect import ScatterOp
from soac.parsing import parse_module
from soac.passes.screma import SCREMA_OPS
from soac.passes.soac_fuse import SoacFusePass
from xdsl.dialects.builtin import ModuleOp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from programs import module_of_soacs


def count_soacs(module: ModuleOp) -> int:
    return sum(1 for op in module.walk() if isinstance(op, (*SCREMA_OPS, ScatterOp)))


def measure(size: int) -> tuple[int, int, float]:
    ctx = make_context()
    module = parse_module(ctx, module_of_soacs(size, seed=size).text, f"scale{size}")
    before = count_soacs(module)
    start = time.perf_counter()
    SoacFusePass().apply(ctx, module)
    elapsed = time.perf_counter() - start
    module.verify()
    return before, count_soacs(module), elapsed


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [500, 1000, 2000, 4000]
    print(f"{'SOACs':>6} {'after':>6} {'seconds':>8} {'ms/SOAC':>8}")
    for size in sizes:
        before, after, elapsed = measure(size)
        print(f"{before:>6} {after:>6} {elapsed:>8.2f} {1000 * elapsed / before:>8.2f}")


if __name__ == "__main__":
    main()
