"""Settings for the whole test suite."""

from __future__ import annotations

import os

import pytest

# Every device buffer starts as 0xA5 bytes (soac.lowering.runtime.Program.alloc): a kernel that reads what
# nothing wrote fails the same way on every run instead of passing on leftovers of an earlier call.
os.environ.setdefault("SOAC_POISON", "1")

LONGEST = ("lowering/test_nested_programs.py",)
"""The files that take longest (minutes on a 2-core machine), relative to tests/: with workers they start first."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a pytest-xdist worker (`.ci/run` runs `-n auto --dist loadfile`), order the files longest first: `LONGEST`,
    then the files with differential tests (marked `slow`), then the rest, each file's tests in their own order. Workers
    take the next file when one is done, so a long file started last would keep one worker busy while the others idle.
    """
    if not hasattr(config, "workerinput"):
        return
    tests = os.path.dirname(os.path.abspath(__file__))
    slow = {item.path for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        relative = os.path.relpath(item.path, tests)
        return 0 if relative in LONGEST else 1 if item.path in slow else 2

    items.sort(key=rank)
