"""`skillbench library`: offline end to end on the sample library, the call cache (a re-run costs
no call; a changed library is re-planned), `--budget`, `--dry-run` with the pre-screen, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.library.run import plan_library, route_library_sync
from skillbench.trigger.options import TriggerOptions

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"


def _run(*args: str) -> int:
    return main(["library", *args])


def test_the_sample_library_offline_re_run_from_cache_and_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = str(tmp_path / "cache.sqlite")
    out = tmp_path / "report.json"
    code = _run(
        str(SAMPLE), "--backend", "lexical", "--runs", "2", "--cache", cache, "--out", str(out)
    )
    assert code == 1  # a confused pair and a hidden skill: the check fails
    first = json.loads(out.read_text())
    assert first["calls"] == 2 * len(first["queries"]) and first["cache_hits"] == 0
    skills = {s["name"]: s for s in first["per_skill"]}
    assert skills["testsmith"]["listing"] == "name-only"
    assert skills["testsmith"]["recall"]["value"] == 0.0  # hidden: never seen by its description
    assert {"a": "changelog-writer", "b": "release-announcer"}.items() <= first["pairs"][
        0
    ].items() or any(
        p["a"] == "changelog-writer" and p["b"] == "release-announcer" for p in first["pairs"]
    )
    assert first["overlap"][0]["a"] == "changelog-writer"
    text = capsys.readouterr().out
    assert "testsmith" in text and "listing at 16,000 characters: 11 of 11 in full" in text
    assert "Scan: 11 skills scanned: 11 clean, 0 with errors, 0 with warnings only" in text

    again = route_library_sync(SAMPLE, TriggerOptions(backend="lexical", runs=2, cache_path=cache))
    assert again.calls == 0 and again.cache_hits == first["calls"]
    assert again.matrix.model_dump() == first["matrix"]

    lexical = TriggerOptions(backend="lexical", runs=2, cache_path=cache)
    wide = route_library_sync(SAMPLE, lexical, listing_budget=20000)
    recall = {s.name: s.recall.value for s in wide.per_skill}
    assert recall["testsmith"] and recall["testsmith"] > 0.5  # what hiding cost in recall
    assert wide.config.budget_chars == 20000


def test_dry_run_shows_the_plan_the_pre_screen_and_a_changed_library(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = tmp_path / "lib"
    shutil.copytree(SAMPLE, library)
    cache = str(tmp_path / "cache.sqlite")
    local = TriggerOptions(backend="local", runs=1, cache_path=cache)
    route_library_sync(library, local, embedder=None)
    plan = plan_library(library, local)
    assert plan.planned[0].calls == 0 and plan.planned[0].cache_hits == 26
    shutil.copytree(library / "sql-formatter", library / "sql-beautifier")
    (library / "sql-beautifier" / "sql-formatter.trigger.json").unlink()
    skill_md = library / "sql-beautifier" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("name: sql-formatter", "name: sql-beautifier"))
    assert (
        _run(str(library), "--backend", "local", "--runs", "1", "--cache", cache, "--dry-run") == 0
    )
    text = capsys.readouterr().out
    assert (
        "12 skill(s) installed at once, 7 with an eval set; 26 queries × 1 runs = 26 calls (0 in the call cache)"
        in text
    )
    assert "changes the request of every query" in text
    assert "sql-beautifier ~ sql-formatter: 1.00" in text  # the pre-screen, before any call


def test_bad_input_is_exit_2_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(str(tmp_path / "missing"), "--backend", "lexical") == 2
    assert "library folder not found" in capsys.readouterr().err
    assert _run(str(SAMPLE), "--backend", "lexical", "--budget", "0") == 2
    assert _run(str(SAMPLE), "--backend", "lexical", "--evals", str(tmp_path / "nope")) == 2
    assert "--evals" in capsys.readouterr().err


def test_the_summary_counts_the_scan_findings_of_a_hostile_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = tmp_path / "library"
    shutil.copytree(SAMPLE, library)
    shutil.copytree(ROOT / "tests" / "data" / "scan" / "hostile" / "secret", library / "secret")
    _run(str(library), "--backend", "lexical", "--runs", "1", "--no-cache")
    text = capsys.readouterr().out
    assert (
        "Scan: 12 skills scanned: 11 clean, 1 with errors, 0 with warnings only (1 error, " in text
    )
