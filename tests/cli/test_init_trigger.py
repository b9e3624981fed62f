"""`skillbench init --trigger SKILL_DIR` writes a trigger eval set to fill in (issue 31, item 10):
should and should-not slots with near-miss guidance; `trigger` refuses it until it is filled,
then measures it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.skill import Skill
from skillbench.trigger.evalset import SLOT_MARK, load_eval_set
from skillbench.trigger.template import keywords

ROOT = Path(__file__).resolve().parents[2]
SKILLS = ROOT / "data" / "skills"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """Three skills side by side; the target has no trigger eval set yet."""
    for name in ("csv-cleanup", "sql-query-reviewer", "pdf-form-filler"):
        shutil.copytree(SKILLS / name, tmp_path / name)
    (tmp_path / "csv-cleanup" / "evals" / "trigger.json").unlink(missing_ok=True)
    return tmp_path


def test_init_writes_should_and_near_miss_slots(
    library: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = library / "csv-cleanup"
    assert main(["init", "--trigger", str(skill)]) == 0
    written = skill / "evals" / "trigger.json"
    assert str(written) in capsys.readouterr().out
    slots = json.loads(written.read_text(encoding="utf-8"))["evals"]
    should = [s for s in slots if s["should_trigger"]]
    should_not = [s for s in slots if not s["should_trigger"]]
    assert len(should) >= 5 and len(should_not) >= 3
    assert all(s["query"].startswith(SLOT_MARK) and s["note"] for s in slots)
    families = {s["family"] for s in should_not}
    assert {"near-miss:shared-words", "neighbour:sql-query-reviewer"} <= families
    assert "neighbour:pdf-form-fill" in families  # the neighbour's own name, from its SKILL.md
    shared = next(s for s in should_not if s["family"] == "near-miss:shared-words")
    words = keywords(Skill.load(skill).description)
    assert words and all(f"'{word}'" in shared["query"] for word in words)


def test_init_never_overwrites(library: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill = library / "csv-cleanup"
    out = library / "mine.json"
    out.write_text("[]", encoding="utf-8")
    assert main(["init", "--trigger", str(skill), "--out", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "[]"
    assert "exists already" in capsys.readouterr().err
    assert main(["init", str(skill), "--out", str(out)]) == 2  # --out is for --trigger only


def test_an_unfilled_template_is_refused_then_a_filled_one_is_measured(
    library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = library / "csv-cleanup"
    evals = tmp_path / "csv.trigger.json"
    assert main(["init", "--trigger", str(skill), "--out", str(evals)]) == 0
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    run = ["trigger", str(skill), "--evals", str(evals), "--backend", "local", "--runs", "1"]
    capsys.readouterr()
    assert main([*run, *cache]) == 2
    err = capsys.readouterr().err
    assert str(evals) in err and "evals[0].query" in err and "unfilled slot" in err
    document = json.loads(evals.read_text(encoding="utf-8"))
    fills = iter(
        [
            "clean up this messy csv export from our CRM",
            "my spreadsheet export has broken headers and duplicate lines, fix it",
            "before loading leads.tsv into postgres, normalise the dates and drop repeats",
            "tidy csv",
            "The bank export statement.csv uses semicolons and 1.234,56 decimals; make it a "
            "plain comma-separated file with dot decimals and a log of what changed.",
            "write a csv parser in rust",
            "plot the monthly totals of sales.csv as a bar chart",
            "clean up the kitchen cabinets list",
            "fill in this visa application pdf from my details",
            "why is this SELECT with three joins so slow?",
        ]
    )
    for slot in document["evals"]:
        slot["query"] = next(fills)
    evals.write_text(json.dumps(document), encoding="utf-8")
    assert len(load_eval_set(evals)) == len(document["evals"])
    assert main([*run, *cache, "--json"]) in (0, 1)  # measured: passes or fails, never exit 2
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["total"] == len(document["evals"])
