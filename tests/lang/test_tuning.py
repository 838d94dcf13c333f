"""Thresholds from a tuning file (as `soac-run --tuning`) and from `thresholds=` reach the compiled program; every
version of the flattened matmul gives numpy's result."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import soac.lang as sl
from soac.tools.soac_run import InputError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "matmul.py"


def matmul():
    spec = importlib.util.spec_from_file_location("lang_example_matmul_tuning", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.matmul


@pytest.mark.parametrize("value", [1, 2**62])
def test_thresholds_of_a_tuning_file_select_versions(tmp_path: Path, value: int) -> None:
    names = ["suff_outer_par_0", "suff_intra_par_1", "suff_outer_par_2", "suff_intra_par_3"]
    tuning = tmp_path / "matmul.tuning"
    tuning.write_text("".join(f"{name}={value}  # all the same\n" for name in names))
    f = sl.jit(matmul(), tuning=str(tuning), thresholds={"suff_intra_par_3": 5})
    rng = np.random.default_rng(4)
    a, b = rng.random((9, 5), np.float32), rng.random((5, 7), np.float32)
    np.testing.assert_allclose(f(a, b), a @ b, rtol=1e-5)
    assert f.last is not None
    assert f.last.runner.thresholds == {**dict.fromkeys(names[:3], value), "suff_intra_par_3": 5}
    listed = [line.split('"')[1] for line in f.ir(optimized=True).splitlines() if "soac.threshold" in line]
    assert sorted(set(listed)) == sorted(names)


def test_a_bad_tuning_file_is_reported_at_its_line(tmp_path: Path) -> None:
    tuning = tmp_path / "bad.tuning"
    tuning.write_text("suff_outer_par_0=1\nsuff_intra_par_1=lots\n")
    with pytest.raises(InputError, match=r"bad\.tuning:2"):
        sl.jit(matmul(), tuning=str(tuning))
