"""A library run killed with SIGKILL resumes from what it wrote: the re-run makes only the calls
the killed run had not stored in the call cache, none twice, and its matrix equals that of a run
never interrupted (the loopback mock API routes by word overlap, the same answer every time)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from e2e_mock_api import MockAPI

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"
RUNS = 2


def slowed(reply: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """The mock's answer, given 0.1 s after it was counted: the run lasts long enough to be
    killed half way, and a call in flight at the kill is counted as the killed run's."""

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        found = reply(body)
        time.sleep(0.1)
        return found

    return answer


def library(cache: Path, out: Path, api: MockAPI) -> subprocess.Popen[bytes]:
    """`skillbench library` on the sample library in a child process (its own process group)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLBENCH_MAX")}
    env.update(
        ANTHROPIC_API_KEY="sk-ant-test-resume",
        ANTHROPIC_BASE_URL=api.url,
        PYTHONPATH=str(ROOT),
    )
    args = [sys.executable, "-m", "skillbench", "library", str(SAMPLE)]
    args += ["--backend", "anthropic", "--harness", "minimal", "--model", "claude-haiku-4-5"]
    args += ["--runs", str(RUNS), "--workers", "2", "--cache", str(cache), "--out", str(out)]
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def cached(cache: Path) -> int:
    """Answers in the call cache (0 before the cache exists or has its table)."""
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True, timeout=5) as db:
            found: int = db.execute("select count(*) from calls").fetchone()[0]
            return found
    except sqlite3.OperationalError:
        return 0


def finish(proc: subprocess.Popen[bytes]) -> int:
    """Wait for a run; its exit code (0, or 1 when the library's check fails)."""
    _, err = proc.communicate(timeout=300)
    assert proc.returncode in (0, 1), err.decode(errors="replace")[-2000:]
    return proc.returncode


def test_a_killed_library_run_resumes_from_the_call_cache(tmp_path: Path) -> None:
    with MockAPI() as api:
        api.reply = slowed(api.reply)  # type: ignore[method-assign]
        whole = tmp_path / "whole.json"
        finish(library(tmp_path / "whole.sqlite", whole, api))
        total = json.loads(whole.read_text())["calls"]
        assert total == api.count("route") and total >= 40

        cache, out = tmp_path / "cache.sqlite", tmp_path / "resumed.json"
        before = api.count("route")
        killed = library(cache, out, api)
        deadline = time.monotonic() + 120
        while cached(cache) < total // 3 and time.monotonic() < deadline:
            assert killed.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait(timeout=10)
        time.sleep(0.5)  # a request the killed run had sent but the mock not yet read
        stored = cached(cache)
        assert total // 3 <= stored < total  # killed half way, what it finished is stored
        assert not out.exists()  # the report is written at the end, whole or not at all

        resumed_from = api.count("route")
        finish(library(cache, out, api))
        report = json.loads(out.read_text())
        made = api.count("route") - resumed_from
        assert made == total - stored  # only what the killed run had not stored
        assert report["cache_hits"] == stored and report["calls"] == total - stored
        assert cached(cache) == total  # one answer per call: none stored twice
        assert resumed_from - before >= stored  # the killed run made what it stored
        assert report["matrix"] == json.loads(whole.read_text())["matrix"]
