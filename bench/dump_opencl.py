"""Dump the OpenCL C of every example and bench program, for every target and lowering configuration, to compare.

    python bench/dump_opencl.py OUT            # writes OUT/<config>/<target>/<folder>_<program>.cl
    diff -r BEFORE AFTER                       # byte-identical when a refactoring kept the kernels

Each program runs through `soac.passes.DEFAULT_PIPELINE`, then is lowered by the lowering pipeline
(`soac.lowering.conversion.pipeline`; `soac-to-kernel` alone in trees without it) for each target
(`generic`, `nvidia`, `emulated-warps`) under each configuration of `CONFIGS`: the defaults, and each lowering knob
set to a value other than its default. A program the lowering refuses under a configuration gets a `.error` file
with the message instead. Where `soac-to-kernel` lacks an option (a tree before issue 32, whose knobs were the
environment variables of `LEGACY_ENVIRONMENT`), that configuration sets the variable instead, so the same command
dumps a tree from before and after the change. One process per configuration (the old knobs were read at import).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("generic", "nvidia", "emulated-warps")

CONFIGS: dict[str, dict[str, str]] = {
    "default": {},
    "scan-reduce-split": {"scan-reduce": "split"},
    "hist-global": {"hist": "global"},
    "hist-local": {"hist": "local"},
    "hist-copies": {"hist": "copies"},
    "hist-passes": {"hist": "passes"},
    "hist-copies-3": {"hist": "copies", "hist-copies": "3"},
    "hist-update-cas": {"hist-update": "cas"},
    "hist-update-packed": {"hist-update": "packed"},
    "hist-update-lock": {"hist-update": "lock"},
    "seghist-segment": {"seghist": "segment"},
    "stencil-streamed": {"stencil": "streamed"},
    "stencil-tiled": {"stencil": "tiled"},
    "stencil-direct": {"stencil": "direct"},
    "scan-items-8": {"scan-items": "8"},
    "scan-group-64": {"scan-group": "64"},
    "scan-layout-striped": {"scan-layout": "striped"},
    "scan-layout-contiguous": {"scan-layout": "contiguous"},
    "scan-status-split": {"scan-status": "split"},
    "scan-lookback-false": {"scan-lookback": "false"},
    "segscan-aligned-false": {"segscan-aligned": "false"},
    "seg-min-team-1": {"seg-min-team": "1"},
    "seg-lane-items-4": {"seg-lane-items": "4"},
    "seg-short-rows-4": {"seg-short-rows": "4"},
    "seg-short-vectors-32": {"seg-short-vectors": "32"},
    "seg-one-vector-rows-false": {"seg-one-vector-rows": "false"},
    "seg-uniform-rounds-false": {"seg-uniform-rounds": "false"},
    "seg-streams-8": {"seg-streams": "8"},
}
"""Each configuration's soac-to-kernel options (besides `target`)."""

LEGACY_ENVIRONMENT: dict[str, tuple[str, dict[str, str]]] = {
    "scan-reduce": ("SOAC_SCAN_REDUCE", {}),
    "hist": ("SOAC_HIST", {}),
    "hist-copies": ("SOAC_HIST_COPIES", {}),
    "hist-update": ("SOAC_HIST_UPDATE", {}),
    "seghist": ("SOAC_SEGHIST", {}),
    "stencil": ("SOAC_STENCIL", {}),
    "scan-items": ("SOAC_SCAN_ITEMS", {}),
    "scan-group": ("SOAC_SCAN_GROUP", {}),
    "scan-layout": ("SOAC_SCAN_LAYOUT", {}),
    "scan-status": ("SOAC_SCAN_STATUS", {}),
    "scan-lookback": ("SOAC_SCAN_NO_LOOKBACK", {"false": "1", "true": "0"}),
    "segscan-aligned": ("SOAC_SEGSCAN_ALIGNED", {"false": "0", "true": "1"}),
    "seg-min-team": ("SOAC_SEG_MIN_TEAM", {}),
    "seg-lane-items": ("SOAC_SEG_LANE_ITEMS", {}),
    "seg-short-rows": ("SOAC_SEG_SHORT_ROWS", {}),
    "seg-short-vectors": ("SOAC_SEG_SHORT_VECTORS", {}),
    "seg-one-vector-rows": ("SOAC_SEG_ONE_VECTOR_ROWS", {"false": "0", "true": "1"}),
}
"""The environment variable each option replaced, and how its values were spelt there (where they differ)."""


def programs() -> dict[str, str]:
    """Each program's text by name (`examples_map_scan`, `programs_segred_group`): a bench program with a `LEVEL`
    placeholder once per level."""
    found: dict[str, str] = {}
    for path in sorted([*ROOT.glob("examples/*.mlir"), *ROOT.glob("bench/programs/*.mlir")]):
        name, text = f"{path.parent.name}_{path.stem}", path.read_text()
        for level in ("thread", "group") if "LEVEL" in text else ("",):
            found[f"{name}_{level}" if level else name] = text.replace("LEVEL", level)
    return found


def pass_options() -> set[str]:
    """The options `soac-to-kernel` of this tree takes (kebab-case)."""
    import dataclasses

    from soac.lowering.conversion.soac_to_kernel import SoacToKernelPass

    return {f.name.replace("_", "-") for f in dataclasses.fields(SoacToKernelPass) if f.init}


def lowering_spec(options: str) -> str:
    """The lowering pipeline with soac-to-kernel's `options` (soac-to-kernel alone in a tree without the pipeline)."""
    if importlib.util.find_spec("soac.lowering.conversion.pipeline") is None:
        return f"soac-to-kernel{{{options}}}"
    return (
        f"soac-recompute-forwarded,soac-split-unfused-scan-reduce{{{options}}},soac-vectorised-operators,"
        f"soac-to-kernel{{{options} prepare=false}}"
    )


def dump_config(name: str, out: Path) -> int:
    """Write the OpenCL of every program and target under configuration `name`; the count of files written."""
    from soac.context import make_context
    from soac.lowering.opencl.emitter import opencl_source
    from soac.parsing import parse_module
    from soac.passes import DEFAULT_PIPELINE, get_all_passes
    from xdsl.passes import PassPipeline

    known = pass_options()
    options = {k: v for k, v in CONFIGS[name].items() if k in known}
    written = 0
    for program, text in programs().items():
        ctx = make_context()
        module = parse_module(ctx, text, f"{program}.mlir")
        PassPipeline.parse_spec(get_all_passes(), DEFAULT_PIPELINE).apply(ctx, module)
        for target in TARGETS:
            chosen = {"target": target, **options}
            if target == "emulated-warps":  # groups of one warp, as the runtime launches them (others are refused)
                chosen = {**{k: "32" for k in ("group-size", "scan-group") if k in known}, **chosen}
            spec = " ".join(f"{k}={v}" for k, v in chosen.items())
            folder = out / name / target
            folder.mkdir(parents=True, exist_ok=True)
            lowered = module.clone()
            try:
                PassPipeline.parse_spec(get_all_passes(), lowering_spec(spec)).apply(make_context(), lowered)
                (folder / f"{program}.cl").write_text(opencl_source(lowered))
            except Exception as error:  # a refused program is part of what is compared
                (folder / f"{program}.error").write_text(f"{type(error).__name__}: {error}\n")
            written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--only", nargs="*", default=None, help="configurations to dump (default: all)")
    parser.add_argument("--config", help=argparse.SUPPRESS)  # one configuration, in this process
    args = parser.parse_args()
    if args.config is not None:
        print(dump_config(args.config, args.out))
        return
    known = pass_options()
    total = 0
    for name in args.only or CONFIGS:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SOAC_")}
        for option, value in CONFIGS[name].items():
            if option not in known:
                variable, spelling = LEGACY_ENVIRONMENT[option]
                env[variable] = spelling.get(value, value)
        run = subprocess.run([sys.executable, __file__, str(args.out), "--config", name], env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{name}: {run.stderr}")
        total += int(run.stdout.split()[-1])
        print(f"{name}: {run.stdout.strip()} files", flush=True)
    print(f"{total} files in {args.out}")


if __name__ == "__main__":
    main()
