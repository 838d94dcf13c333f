"""What the one-pass partition kernel of the radix sort spends its time on (issue 28): edits of its generated OpenCL C,
each timed on the sort of examples/radix_sort_onesweep.mlir in one run, beside CUB's SortKeys.

    python bench/partition_source_variants.py [--n 100000000] [--runs 5] [--variants base,i32,pre,...]
        [--lowering 'partition-index=i64 partition-rows=load partition-lookback=1 partition-items=12']

Each variant rewrites the text of the `partition_onesweep` kernel before it is built (the lowering is not changed).
The edits apply to the kernel of session 37's lowering, which `--lowering` selects by default (64-bit indices, rows
loaded each round, one tile a look-back step); session 38 built `i32`, `keep` and a windowed look-back into the
lowering (`partition-index`, `partition-rows`, `partition-lookback`) from what this measured:

- `base`: the generated kernel;
- `i32`: index arithmetic in 32-bit integers (all but the look-back's 64-bit status words);
- `pre`: the tile's keys loaded into registers before the counting round (unrolled), not one load per round between
  the ballots' volatile asm statements;
- `keep`: with `pre`, the moving round takes the keys from those registers instead of loading them again;
- `full8`: tiles that are full skip the ballot of the class's ninth bit (it only tells rows past the end apart);
- `novol`: the warp intrinsics' asm statements without `volatile`;
- `nolb`: no look-back (each tile takes only its own counts: wrong results, the floor of the rest; not checked).

Variants join with `+` (`i32+pre+keep`). Every variant but `nolb` is checked against numpy. Prints the median kernel
time of one sort, the partition kernels' share, and the ratio to CUB measured in the same run.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
import sort  # noqa: E402  # pyright: ignore[reportMissingImports]
from peers import build_cuda  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = re.compile(r"(__kernel void \w*partition_onesweep\w*\(.*?\n)(.*?\n)(?=\}\n)", re.S)
WIDE = ("status", "word", "(long)(uint)", "(ulong)32L", "8589934592L", "4294967296L")


def _narrow(body: str) -> str:
    lines = []
    for line in body.splitlines(keepends=True):
        if not any(w in line for w in WIDE) and not re.search(r"\blong v_\d+;", line):
            line = re.sub(r"\bulong\b", "uint", line)
            line = re.sub(r"\blong\b", "int", line)
            line = re.sub(r"\b(\d+)L\b", r"\1", line)
        lines.append(line)
    return "".join(lines)


def _items(body: str) -> int:
    return int(re.search(r"for \(long e = 0L; e < (\d+)L; e\+\+\)", body).group(1))


def _preload(body: str, keep: bool) -> str:
    items = _items(body)
    count = re.search(r"  for \(long e = 0L; e < \d+L; e\+\+\) \{\n(.*?)\n  \}\n", body, re.S)
    assert count is not None
    load = re.search(r"const int (\w+) = ks\[(\w+)\];", count.group(1))
    assert load is not None
    pre = (
        f"  int kpre[{items}];\n  #pragma unroll\n  for (long e = 0L; e < {items}L; e++) {{\n"
        "    const long r = warp_start + e * 32L + lane;\n"
        "    kpre[e] = ks[(ulong)r < (ulong)(n - 1L) ? r : n - 1L];\n  }\n  #pragma unroll\n"
    )
    new_count = count.group(0).replace(load.group(0), f"const int {load.group(1)} = kpre[e];")
    body = body.replace(count.group(0), pre + new_count)
    if keep:
        move = re.search(r"  for \(long (e_\d+) = 0L; e_\d+ < \d+L; e_\d+\+\+\) \{\n(.*?)\n  \}\n", body, re.S)
        assert move is not None
        moved = re.sub(r"= ks\[row_\d+\];", f"= kpre[{move.group(1)}];", move.group(0))
        body = body.replace(move.group(0), "  #pragma unroll\n" + moved)
    return body


def _full8(body: str) -> str:
    ninth = r"(    const int v_\d+ = \(int\)\(\(uint\)class_bits >> \(uint\)8\);\n.*?)"
    bit8 = re.search(ninth + r"    const int (peers_\d+) = (peers_\d+) & (v_\d+);\n", body, re.S)
    assert bit8 is not None
    block, peers, before, mask = bit8.groups()
    replaced = f"    int {peers} = {before};\n    if (!full_tile) {{\n{block}      {peers} = {before} & {mask};\n    }}\n"
    body = body.replace(bit8.group(0), replaced)
    return re.sub(
        r"(  const long tile_start = [^\n]*\n)", r"\1  const bool full_tile = tile_start + 4096L <= n;\n", body, count=1
    )


EDITS: dict[str, Callable[[str], str]] = {
    "base": lambda body: body,
    "i32": _narrow,
    "pre": lambda body: _preload(body, keep=False),
    "keep": lambda body: _preload(body, keep=True),
    "full8": _full8,
    "novol": lambda body: body.replace("asm volatile(", "asm("),
    "nolb": lambda body: re.sub(r"has_before = [^;]*;", "has_before = false;", body),
}
ORDER = ("full8", "pre", "keep", "novol", "nolb", "i32", "base")


def edit(source: str, variant: str) -> str:
    features = variant.split("+")
    if "keep" in features and "pre" in features:
        features.remove("pre")

    def apply(match: re.Match[str]) -> str:
        body = match.group(2)
        for feature in sorted(features, key=ORDER.index):
            body = EDITS[feature](body)
        return match.group(1) + body

    edited, found = KERNEL.subn(apply, source)
    if not found:
        raise SystemExit("no partition_onesweep kernel in the program")
    return edited


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variants", default="base,i32,pre,keep,full8,novol,i32+keep,i32+keep+full8,nolb")
    parser.add_argument(
        "--lowering",
        default="partition-index=i64 partition-rows=load partition-lookback=1",
        help="soac-to-kernel options for every variant",
    )
    parser.add_argument("--device", default=None)
    parser.add_argument("--dump", type=Path, default=None, help="write each variant's kernel source here")
    options = parser.parse_args()

    import soac.lowering.runtime.program as program_module
    from soac.lowering.conversion.options import parse_option
    from soac.lowering.runtime import choose_device

    device = choose_device(options.device)
    nvidia = "NVIDIA" in device.platform.name
    keys, expected, _ = sort.keys_of(options.n, "uniform")
    forced: dict[str, Any] = {}
    for item in options.lowering.split():
        name, _, text = item.partition("=")
        forced[name.replace("-", "_")] = parse_option(name.replace("-", "_"), text)
    cub = build_cuda(ROOT / "cub_sort.cu") if nvidia else None
    cub_time = sort.cub_ms(cub, options.n, options.runs) if cub else None
    print(f"device {device.name}; n {options.n}; CUB SortKeys {cub_time} ms", flush=True)
    original = program_module.opencl_source
    for variant in options.variants.split(","):

        def source(module: Any, variant: str = variant) -> str:
            text = edit(original(module), variant)
            if options.dump:
                options.dump.mkdir(parents=True, exist_ok=True)
                (options.dump / f"{variant}.cl").write_text(text)
            return text

        program_module.opencl_source = source
        want = [expected.view(np.int32)]
        try:
            program = sort.PARTITION_PROGRAMS["keys"]
            times = sort.soac_times(device, keys, options.runs, True, program, [keys], want, forced, "nolb" not in variant)
        except AssertionError as error:
            print(f"{variant:<24} WRONG: {str(error).splitlines()[0]}", flush=True)
            continue
        except Exception as error:  # a variant whose edit does not build is reported, not fatal
            print(f"{variant:<24} FAILED: {type(error).__name__}: {str(error)[:400]}", flush=True)
            continue
        partition = sum(ms for name, ms in times["breakdown"].items() if "partition_onesweep" in name)
        ratio = f"{times['kernels'] / cub_time:.2f}x CUB" if cub_time else ""
        print(f"{variant:<24} {times['kernels']:8.3f} ms  partition {partition:7.3f} ms  {ratio}", flush=True)
    program_module.opencl_source = original


if __name__ == "__main__":
    main()
