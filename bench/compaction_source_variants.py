"""What the compaction scan (`sl.filter`, 2^28 i32 at 50%) spends its time on (issue 28): edits of the generated
OpenCL C of its look-back kernel (bench/programs/compaction_iota.mlir, what lang/compaction.py emits), each timed in
one run beside CUB's DeviceSelect::If and two floors (bench/cub_select.cu).

    python bench/compaction_source_variants.py [--log2-n 28] [--runs 7] [--variants base,keep,stage,...]

The edits change only the kernel's text, that of the lowering with `scan-stage=false` (session 39's kernel):

- `base`: that kernel;
- `lowered`: the lowering's own staging (`scan-stage=true`, the default since session 40; no edit);
- `keep`: the store step of a full tile takes the rows from the registers the scan step loaded them into (in 16-byte
  vectors), instead of loading each again;
- `stage`: a full tile's kept elements go to local memory at their place in the tile's output, then the work-group
  copies them out contiguously (CUB's select does this), instead of each work-item storing its own;
- `nostore`: no stores of kept elements from full tiles (timing only: wrong results, not checked);
- `nolb`: no look-back (timing only: wrong results, not checked).

Variants join with `+` (`keep+stage`). Prints the look-back kernel's median time, each checked variant's result
against numpy, and the ratios to the floors: the int2-read, half-write kernel and 3/4 of a device-to-device memcpy
(which reads and writes all n).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
from peers import build_cuda  # noqa: E402  # pyright: ignore[reportMissingImports]
from resident import kernel_breakdown  # noqa: E402  # pyright: ignore[reportMissingImports]

KERNEL = re.compile(r"(__kernel void \w*scan_lookback\w*\(.*?\n)(.*?\n)(?=\}\n)", re.S)
TIMING_ONLY = ("nostore", "nolb")


def _full_blocks(body: str) -> tuple[int, int, int]:
    """(start of the scan step's full-tile block, start and end of the store step's full-tile block)."""
    starts = [m.start() for m in re.finditer(r"\n  if \(full\) \{\n", body)]
    assert len(starts) == 2, "expected a load and a store block for full tiles"
    end = body.index("\n  } else {\n", starts[1])
    return starts[0], starts[1], end


def _keep(body: str) -> str:
    load_start, store_start, store_end = _full_blocks(body)
    load = body[load_start:store_start]
    registers: dict[str, str] = {}
    declared = []
    for vec, base in re.findall(r"const int4 (\w+) = \*\(const __global int4\*\)\(\w+ \+ (\w+)\);", load):
        for lane in range(4):
            found = re.search(rf"const int (\w+) = {vec}\.s{lane};", load)
            assert found is not None
            registers[f"{base}+{lane}"] = found.group(1)
            declared.append(found.group(1))
            load = load.replace(found.group(0), f"{found.group(1)} = {vec}.s{lane};")
    store = body[store_start:store_end]
    offsets = {name: (base, int(k)) for name, base, k in re.findall(r"const long (\w+) = (\w+) \+ (\d)L;", store)}

    def register(match: re.Match[str]) -> str:
        address = match.group(2)
        base, lane = offsets.get(address, (address, 0))
        return f"{match.group(1)}{registers[f'{base}+{lane}']};"

    store = re.sub(r"(const int \w+ = )\w+\[(\w+)\];", register, store)
    declarations = "".join(f"  int {name};\n" for name in declared)
    return body[:load_start] + "\n" + declarations.rstrip("\n") + load + store + body[store_end:]


def _stage(body: str) -> str:
    _, store_start, store_end = _full_blocks(body)
    tile_out = re.search(r"const int (\w+) = has_prefix \? \w+ : 0;", body)
    total = re.search(r"const long v_\d+ = \(long\)\(uint\)(\w+);\n\s*const long v_\d+ = v_\d+ \| v_\d+;", body)
    tile = re.search(r"tile \* (\d+)L;", body)
    warps = re.search(r"__local int warp_sums\[(\d+)\];", body)
    assert tile_out is not None
    assert total is not None
    assert tile is not None
    assert warps is not None
    store = body[store_start:store_end]
    stored = re.findall(r"(\w+)\[(qi\w*)\] = (\w+);", store)
    assert stored, "no scatter stores in the full tile"
    target = stored[0][0]
    store = re.sub(rf"{target}\[(qi\w*)\] = (\w+);", rf"stage[\1 - (long){tile_out.group(1)}] = \2;", store)
    group = int(warps.group(1)) * 32
    copy_out = (
        "\n    barrier(CLK_LOCAL_MEM_FENCE);\n"
        f"    for (int e = (int)tid; e < {total.group(1)}; e += {group}) {{\n"
        f"      {target}[(long){tile_out.group(1)} + e] = stage[e];\n    }}"
    )
    body = body[:store_start] + store + copy_out + body[store_end:]
    return f"  __local int stage[{tile.group(1)}];\n" + body



def _nostore(body: str) -> str:
    _, store_start, store_end = _full_blocks(body)
    store = re.sub(r"(\w+)\[(qi\w*)\] = (\w+);", ";", body[store_start:store_end])
    return body[:store_start] + store + body[store_end:]


EDITS: dict[str, Callable[[str], str]] = {
    "base": lambda body: body,
    "lowered": lambda body: body,
    "keep": _keep,
    "stage": _stage,
    "nostore": _nostore,
    "nolb": lambda body: re.sub(r"const bool has_prefix = [^;]*;", "const bool has_prefix = false;", body),
}
ORDER = ("keep", "nostore", "stage", "nolb", "base", "lowered")


def edit(source: str, variant: str) -> str:
    def apply(match: re.Match[str]) -> str:
        body = match.group(2)
        for feature in sorted(variant.split("+"), key=ORDER.index):
            body = EDITS[feature](body)
        return match.group(1) + body

    edited, found = KERNEL.subn(apply, source)
    if not found:
        raise SystemExit("no scan_lookback kernel in the program")
    return edited


def cub_select(n: int, runs: int) -> tuple[float, float, float] | None:
    binary = build_cuda(ROOT / "cub_select.cu")
    if binary is None:
        return None
    done = subprocess.run([str(binary), str(n), str(runs)], capture_output=True, text=True, check=True)
    select, floor, memcpy, ok = done.stdout.split()
    assert ok == "1", f"CUB's selection is wrong: {done.stdout}"
    return float(select), float(floor), float(memcpy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log2-n", type=int, default=28)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--variants", default="base,lowered,stage,keep,nostore")
    parser.add_argument("--lowering", default="", help="soac-to-kernel options ('target=emulated-warps')")
    parser.add_argument("--dump", type=Path, default=None, help="write each variant's kernel source here")
    options = parser.parse_args()
    import soac.lowering.runtime.program as program_module
    from soac.context import make_context
    from soac.lowering.runtime import choose_device, compile_module, device_put
    from soac.parsing import parse_module
    from soac.passes import get_all_passes
    from xdsl.passes import PassPipeline

    n = 1 << options.log2_n
    device = choose_device()
    peers = cub_select(n, options.runs) if "NVIDIA" in device.platform.name else None
    if peers is not None:
        select, floor, memcpy = peers
        print(f"{device.name}: CUB DeviceSelect::If {select:.3f} ms; floors: int2 read + half write {floor:.3f} ms, "
              f"3/4 of memcpy {0.75 * memcpy:.3f} ms (memcpy {memcpy:.3f})", flush=True)  # fmt: skip
    xs = np.random.default_rng(5).integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    kept = xs[xs > 0]
    dx = device_put(xs, device)
    original = program_module.opencl_source
    text = (ROOT / "programs" / "compaction_iota.mlir").read_text()
    try:
        for variant in options.variants.split(","):

            def source(module: Any, variant: str = variant) -> str:
                edited = edit(original(module), variant)
                if options.dump:
                    options.dump.mkdir(parents=True, exist_ok=True)
                    (options.dump / f"{variant}.cl").write_text(edited)
                return edited

            program_module.opencl_source = source
            module = parse_module(make_context(), text, "compaction_iota.mlir")
            PassPipeline.parse_spec(get_all_passes(), "soac-fuse").apply(make_context(), module)
            try:
                forced: dict[str, Any] = {k.replace("-", "_"): v for k, v in (i.split("=") for i in options.lowering.split())}
                forced["scan_stage"] = variant == "lowered"
                program = compile_module(module, device, **forced)
                out, counted = program.call("main", [dx])
            except Exception as error:  # a variant whose edit does not build is reported, not fatal
                print(f"{variant:<24} FAILED: {type(error).__name__}: {str(error)[:400]}", flush=True)
                continue
            checked = not any(t in variant.split("+") for t in TIMING_ONLY)
            right = np.array_equal(np.asarray(out)[: len(kept)], kept) and int(np.asarray(counted)[0]) == len(kept)
            times = kernel_breakdown(program, lambda p=program: p.call("main", [dx], device_results=True), options.runs)
            scan = sum(ms for name, ms in times.items() if "scan_lookback" in name)
            ratios = f"  {scan / peers[1]:.2f}x the int2 floor, {scan / peers[0]:.2f}x CUB" if peers else ""
            verdict = ("right" if right else "WRONG") if checked else "not checked"
            print(f"{variant:<24} {scan:8.3f} ms{ratios}  {verdict}", flush=True)
    finally:
        program_module.opencl_source = original


if __name__ == "__main__":
    main()
