"""Thresholds from a tuning file (as `soac-run --tuning`) and from `thresholds=` reach the compiled program; every
version of the flattened matmul gives numpy's result."""

from __future__ import annotations

import importlib.util
import re
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
    tuning = tmp_path / "matmul.tuning"
    tuning.write_text(f"suff_outer_par_0={value}  # the inner map's outer-parallel version (matmul has no other)\n")
    rng = np.random.default_rng(4)
    a, b = rng.random((9, 5), np.float32), rng.random((5, 7), np.float32)
    for given, expected in (({}, value), ({"suff_outer_par_0": 5}, 5)):  # thresholds= wins over the file
        f = sl.jit(matmul(), tuning=str(tuning), thresholds=given)
        np.testing.assert_allclose(f(a, b), a @ b, rtol=1e-5)
        assert f.last is not None
        assert f.last.runner.thresholds == {"suff_outer_par_0": expected}
    listed = [line.split('"')[1] for line in f.ir(optimized=True).splitlines() if "soac.threshold" in line]
    assert listed == ["suff_outer_par_0"]


def test_a_bad_tuning_file_is_reported_at_its_line(tmp_path: Path) -> None:
    tuning = tmp_path / "bad.tuning"
    tuning.write_text("suff_outer_par_0=1\nsuff_intra_par_1=lots\n")
    with pytest.raises(InputError, match=r"bad\.tuning:2"):
        sl.jit(matmul(), tuning=str(tuning))


def add(xs, ys):
    return sl.map(lambda x, y: x + y, xs, ys)


def test_a_pipeline_with_an_unknown_pass_or_option_is_refused_where_jit_is_applied() -> None:
    with pytest.raises(
        ValueError, match=r"pipeline 'soac-bogus': unknown pass 'soac-bogus' \(did you mean 'soac-fuse'\?\)"
    ) as error:
        sl.jit(add, pipeline="soac-bogus")  # BOGUS PASS
    assert str(error.value).startswith(f"{__file__}:{line_of('BOGUS PASS')}: sl.jit")
    with pytest.raises(ValueError, match=r"option 'mode' of pass 'soac-flatten' takes a value of type .*, not 'bad'"):
        sl.jit(add, pipeline="canonicalize,soac-flatten{mode=bad}")
    with pytest.raises(ValueError, match=r"pipeline 'soac-fuse,,' does not parse: expected pass name here"):
        sl.jit(add, pipeline="soac-fuse,,")
    ints = np.arange(4, dtype=np.int32)
    assert sl.jit(add, backend="interp", pipeline="canonicalize,soac-fuse")(ints, ints).tolist() == [0, 2, 4, 6]


def test_thresholds_must_be_the_program_s_and_integers() -> None:
    with pytest.raises(ValueError, match=r"thresholds: 'suff_outer_par_0' needs an integer value, not 2.5") as error:
        sl.jit(matmul(), thresholds={"suff_outer_par_0": 2.5})  # FLOAT THRESHOLD
    assert str(error.value).startswith(f"{__file__}:{line_of('FLOAT THRESHOLD')}: sl.jit")
    with pytest.raises(ValueError, match=r"thresholds: 'suff_outer_par_0' must not be negative, not -1"):
        sl.jit(matmul(), thresholds={"suff_outer_par_0": -1})

    f = sl.jit(matmul(), backend="interp", thresholds={"suff_outer_par_O": 1})  # TYPO
    a = np.ones((3, 2), np.float32)
    with pytest.raises(
        ValueError, match=r"has no threshold or tile size 'suff_outer_par_O' \(did you mean 'suff_outer_par_0'\?\)"
    ) as error:
        f(a, a.T)
    assert str(error.value).startswith(f"{__file__}:{line_of('TYPO')}: sl.jit thresholds of matmul([][]f32, [][]f32)")
    good = sl.jit(matmul(), backend="interp", thresholds={"suff_outer_par_0": 1})
    np.testing.assert_allclose(good(a, a.T), a @ a.T)


def line_of(marker: str) -> int:
    """The line of this file that ends with the comment `marker`."""
    lines = Path(__file__).read_text().splitlines()
    (number,) = [k + 1 for k, line in enumerate(lines) if line.rstrip().endswith(f"# {marker}")]
    return number


def row_sums(xss):
    return sl.map(lambda row: sl.sum(row), xss)


def test_lowering_options_force_the_segmented_strategy() -> None:
    """`lowering=` reaches soac-to-kernel: the fully flattened row sums (a map of one reduction has no intra-group
    version) run as one segred, by the forced strategy; an unknown option or strategy is named where `jit` is applied."""
    xss = np.arange(12, dtype=np.int32).reshape(3, 4)
    never = {"suff_outer_par_0": 2**62}
    for strategy in ("thread", "teams"):
        f = sl.jit(row_sums, thresholds=never, device="pocl", lowering={"segred": strategy})
        np.testing.assert_array_equal(f(xss), xss.sum(axis=1))
        kernels = set(re.findall(r"__kernel void (\w+)", f.opencl()))
        assert {k for k in kernels if "segred" in k} == (
            {"row_sums_segred_thread_0"} if strategy == "thread" else {"row_sums_segred_teams_0", "row_sums_segred_parts_0"}
        )
    with pytest.raises(
        ValueError,
        match=r"test_tuning.py:\d+: sl.jit lowering option 'segrid' \(did you mean 'segred'\?\): "
        r"soac-to-kernel's options are target, .*segred, segscan, hist",
    ):
        sl.jit(row_sums, lowering={"segrid": "teams"})
    with pytest.raises(
        ValueError,
        match=r"sl.jit lowering option segscan='teams': soac-to-kernel: segscan must be one of auto, "
        r"thread, group, lookback, got 'teams'",
    ):
        sl.jit(row_sums, lowering={"segscan": "teams"})
    with pytest.raises(
        ValueError, match=r"sl.jit lowering option scan-items='6': soac-to-kernel: scan-items must be a multiple of 4"
    ):
        sl.jit(row_sums, lowering={"scan-items": "6"})


def segred_kernels(f) -> set[str]:
    return {k for k in re.findall(r"__kernel void (\w+)", f.opencl()) if "segred" in k}


def test_a_tuning_files_lowering_options_apply_and_key_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`soac-to-kernel.OPTION=VALUE` lines set the lowering the thresholds were tuned with; `lowering=` wins over
    them; the compile cache keys on every option in force, also one the environment sets."""
    xss = np.arange(12, dtype=np.int32).reshape(3, 4)
    tuning = tmp_path / "rows.tuning"
    tuning.write_text("soac-to-kernel.segred=thread\nsuff_outer_par_0=4611686018427387904\n")
    f = sl.jit(row_sums, tuning=str(tuning))
    np.testing.assert_array_equal(f(xss), xss.sum(axis=1))
    assert segred_kernels(f) == {"row_sums_segred_thread_0"}
    g = sl.jit(row_sums, tuning=str(tuning), lowering={"segred": "teams"})
    np.testing.assert_array_equal(g(xss), xss.sum(axis=1))
    assert segred_kernels(g) == {"row_sums_segred_teams_0", "row_sums_segred_parts_0"}
    assert f.last is not None
    assert g.last is not None
    assert f.last.key != g.last.key
    monkeypatch.setenv("SOAC_SEG_MIN_TEAM", "1")
    h = sl.jit(row_sums, tuning=str(tuning), lowering={"segred": "teams"})
    h(xss)
    assert h.last is not None
    assert h.last.key != g.last.key


def test_a_bad_lowering_option_in_a_tuning_file_is_reported_at_its_line(tmp_path: Path) -> None:
    tuning = tmp_path / "bad.tuning"
    tuning.write_text("# tuned\nsoac-to-kernel.hist=global\nsoac-to-kernel.hsit=local\n")
    with pytest.raises(InputError, match=r"bad\.tuning:3: soac-to-kernel has no option 'hsit' \(did you mean 'hist'\?\)"):
        sl.jit(row_sums, tuning=str(tuning))
    tuning.write_text("soac-to-kernel.scan-items=6\n")
    with pytest.raises(InputError, match=r"bad\.tuning:1: soac-to-kernel: scan-items must be a multiple of 4, got 6"):
        sl.jit(row_sums, tuning=str(tuning))
