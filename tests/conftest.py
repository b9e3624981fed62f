"""Fixtures for every test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from matrix import mark_off_diagonal

# Claude Code's non-essential traffic (update checks, feature flags, telemetry) goes to
# outside hosts: off for the whole process, so a module- or session-scoped fixture that starts
# the real CLI (before any function-scoped fixture runs) is kept on loopback too.
os.environ["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"


@pytest.fixture(autouse=True)
def _private_caches(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test gets its own call cache and user cache folder (`$SKILLBENCH_CACHE`,
    `$XDG_CACHE_HOME`), inherited by the CLIs and kernels it starts: no test reads or writes
    the real ~/.cache/skillbench, nor another test's answers. A test may set either again.
    Every CLI a test starts keeps its traffic on loopback (below)."""
    folder: Path = tmp_path_factory.mktemp("user-cache")
    # The real pinned CLI, run by the fidelity tests, otherwise opens a connection to
    # api.anthropic.com for non-essential traffic: nothing a test starts may leave loopback.
    # skillbench never adds it (the user's own setting, part of the template key), so both
    # sides of every request comparison see it alike.
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    # the fake CLIs (`#!/usr/bin/env python3`) find this interpreter first, as in an activated
    # venv: pyenv's shim would start three bash scripts at every fake session
    here = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([here, os.environ.get("PATH", "")]))
    # the fake CLIs are steered by FAKE_* variables of the test's environment: a session gets an
    # allowlist only (claude_cli.env), so they are let through by name, as a user would
    monkeypatch.setenv("SKILLBENCH_PASS_ENV", "FAKE_*")
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.setenv("SKILLBENCH_CACHE", str(folder / "skillbench" / "cache.sqlite"))


@pytest.hookimpl(tryfirst=True)  # before `-m "not full"` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Thin the version matrices to their diagonal for `make test` (tests/matrix.py)."""
    mark_off_diagonal(items)
