"""Fixtures for every test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_caches(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets its own call cache and user cache folder (`$SKILLBENCH_CACHE`,
    `$XDG_CACHE_HOME`), inherited by the CLIs and kernels it starts: no test reads or writes
    the real ~/.cache/skillbench, nor another test's answers. A test may set either again."""
    folder: Path = tmp_path_factory.mktemp("user-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.setenv("SKILLBENCH_CACHE", str(folder / "skillbench" / "cache.sqlite"))
