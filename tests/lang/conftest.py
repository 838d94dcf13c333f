"""Every soac.lang test compiles into a fresh on-disk cache of its own (never ~/.cache)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "soac-cache"
    monkeypatch.setenv("SOAC_CACHE_DIR", str(folder))
    return folder
