"""Dump the OpenCL C of the real-program suite's programs under run.py's variants, for reading the kernels (no device
needed: the programs are traced and optimised with soac.lang's interpreter backend, then lowered for a target).

    python bench/real/dump_kernels.py OUT --only softmax,layernorm --variants coalesce,rowtiles --target nvidia
    # writes OUT/<variant>/<target>/<program>.cl (or .error with the message where the lowering refuses it)
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import VARIANTS  # noqa: E402
from suite import PROGRAMS  # noqa: E402


def lowering_spec(options: str) -> str:
    """bench/dump_opencl.py's lowering pipeline with soac-to-kernel's `options`."""
    spec = importlib.util.spec_from_file_location("dump_opencl", HERE.parent / "dump_opencl.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.lowering_spec(options)


def dump(program_name: str, variant: str, target: str, out: Path) -> Path:
    """The OpenCL of `program_name` (its small inputs' types) under `variant`, lowered for `target`."""
    import soac.lang as sl
    from soac.context import make_context
    from soac.lowering.opencl.emitter import opencl_source
    from soac.parsing import parse_module
    from soac.passes import get_all_passes
    from xdsl.passes import PassPipeline

    program = next(p for p in PROGRAMS if p.name == program_name)
    pipeline, changes, _ = VARIANTS[variant]
    args = program.inputs(np.random.default_rng(0), program.sizes["small"])
    text = sl.jit(program.soac, backend="interp", pipeline=pipeline).ir(*args, optimized=True)
    module = parse_module(make_context(), text, f"{program_name}.mlir")
    options = " ".join(f"{k}={v}" for k, v in {"target": target, **changes}.items())
    folder = out / variant / target
    folder.mkdir(parents=True, exist_ok=True)
    try:
        PassPipeline.parse_spec(get_all_passes(), lowering_spec(options)).apply(make_context(), module)
    except Exception as error:  # a refused program is part of what is read
        path = folder / f"{program_name}.error"
        path.write_text(f"{type(error).__name__}: {error}\n")
        return path
    path = folder / f"{program_name}.cl"
    path.write_text(opencl_source(module))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--only", required=True, help="programs, comma-separated")
    parser.add_argument("--variants", default="rowtiles", help=f"run.py's variants, comma-separated: {', '.join(VARIANTS)}")
    parser.add_argument("--target", default="nvidia")
    options = parser.parse_args()
    names = {p.name for p in PROGRAMS}
    programs, variants = options.only.split(","), options.variants.split(",")
    if unknown := sorted({*(set(programs) - names), *(set(variants) - set(VARIANTS))}):
        parser.error(f"unknown programs or variants: {', '.join(unknown)}")
    for program in programs:
        for variant in variants:
            print(dump(program, variant, options.target, options.out))


if __name__ == "__main__":
    main()
