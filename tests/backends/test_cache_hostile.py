"""The call cache refuses unusable files early, and keeps one answer per key under races."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skillbench.backends.cache import CallCache
from skillbench.errors import InputError


def test_corrupt_file_is_an_input_error_naming_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not sqlite " * 100)
    with pytest.raises(InputError, match=r"cannot be used as the call cache \(--cache"):
        CallCache(path)


def test_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory"):
        CallCache(tmp_path)


def test_parent_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="is a file, not a folder"):
        CallCache(tmp_path / "f" / "cache.sqlite")


def test_first_writer_wins_and_the_loser_is_kept(tmp_path: Path) -> None:
    with CallCache(tmp_path / "c.sqlite") as cache:
        assert cache.put("k", {"v": 1}, backend="x", kind="trigger") is None
        assert cache.put("k", {"v": 1}, backend="x", kind="trigger") is None
        assert cache.put("k", {"v": 2}, backend="x", kind="trigger") == {"v": 1}
        assert cache.get("k") == {"v": 1}
        kept = cache.superseded("k")
        assert [row["value"] for row in kept] == [{"v": 2}]


RACER = textwrap.dedent(
    """
    import asyncio, json, os, pathlib, random, sys, time
    from skillbench.backends import registry
    from skillbench.backends.base import CallUsage, TriggerOutcome
    from skillbench.cli import main

    class Coin:
        name, model, is_proxy = "coin", "coin-1", False
        def identity(self): return {"backend": "coin"}
        def versions(self): return {"coin": "1"}
        async def judge(self, request):
            await asyncio.sleep(0.01)
            return TriggerOutcome(random.random() < 0.5, fired=None, usage=CallUsage())
        async def aclose(self): pass

    random.seed(int(sys.argv[2]))
    ready = pathlib.Path(sys.argv[6] + f".ready-{sys.argv[2]}")
    ready.write_text("")
    deadline = time.monotonic() + 60
    while len(list(ready.parent.glob("*.ready-*"))) < int(sys.argv[7]):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    registry.register_judge("coin", lambda **_: Coin())
    sys.exit(main(["trigger", sys.argv[1], "--evals", sys.argv[3], "--backend", "coin",
                   "--runs", "5", "--workers", "4", "--catalog", sys.argv[4],
                   "--out", sys.argv[5], "--cache", sys.argv[6]]))
    """
)


def _rates(report: Path) -> list[float]:
    return [r["trigger_rate"] for r in json.loads(report.read_text())["results"]]


def test_two_processes_racing_each_reproduce_their_report(tmp_path: Path) -> None:
    skill = tmp_path / "coin-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: coin-skill\ndescription: Flips coins.\n---\nB\n")
    evals = tmp_path / "evals.json"
    items = [{"query": f"query {i}", "should_trigger": i % 2 == 0} for i in range(30)]
    evals.write_text(json.dumps(items))
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    script = tmp_path / "racer.py"
    script.write_text(RACER)
    cache = tmp_path / "cache.sqlite"
    root = Path(__file__).resolve().parents[2]

    def start(seed: int, out: Path, wait_for: int) -> subprocess.Popen[bytes]:
        """A racer; it starts its eval once `wait_for` racers are ready (a real overlap)."""
        argv = [str(skill), str(seed), str(evals), str(catalog), str(out), str(cache)]
        argv.append(str(wait_for))
        return subprocess.Popen(
            [sys.executable, str(script), *argv],
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
            stderr=subprocess.PIPE,
        )

    racers = [start(1, tmp_path / "a.json", 2), start(2, tmp_path / "b.json", 2)]
    for racer in racers:
        _, err = racer.communicate(timeout=120)
        assert racer.returncode in (0, 1), err.decode()[-2000:]
    first_a, first_b = _rates(tmp_path / "a.json"), _rates(tmp_path / "b.json")
    assert first_a == first_b  # one answer per key, whichever run stored it first
    for seed, name in ((3, "a2.json"), (4, "b2.json")):  # re-runs with other coin seeds
        rerun = start(seed, tmp_path / name, 0)
        rerun.communicate(timeout=120)
        assert _rates(tmp_path / name) == first_a
