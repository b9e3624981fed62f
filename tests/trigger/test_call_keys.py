"""The call cache keys trigger calls on what is sent (issue 20.3): an edit that leaves the
requests byte-identical (evals/, notes, a new file in the skill folder) costs no call, the
dry run counts exactly the keys the run uses, and a cached CLI run makes its report free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main
from skillbench.schemas.trigger import TriggerReport

REPO = Path(__file__).resolve().parents[2]


def skill_with_evals(root: Path) -> tuple[Path, Path]:
    skill = root / "tidy"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidies messy CSV exports. Use when a CSV file will not "
        "load.\n---\n# tidy\nBody.\n",
        encoding="utf-8",
    )
    evals = skill / "evals" / "evals.json"
    queries = [
        {"query": "my csv export will not load in pandas", "should_trigger": True},
        {"query": "tidy this messy csv file", "should_trigger": True},
        {"query": "what is the capital of France", "should_trigger": False},
    ]
    evals.write_text(json.dumps(queries), encoding="utf-8")
    return skill, evals


def trigger(skill: Path, evals: Path, out: Path, *extra: str) -> TriggerReport:
    code = main(
        ["trigger", str(skill), "--evals", str(evals), "--backend", "local", "--runs", "2",
         "--out", str(out), *extra]
    )  # fmt: skip
    assert code in (0, 1)
    return TriggerReport.model_validate_json(out.read_text(encoding="utf-8"))


def test_editing_evals_or_adding_a_file_to_the_skill_folder_costs_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = skill_with_evals(tmp_path)
    first = trigger(skill, evals, tmp_path / "a.json")
    assert first.summary.calls == 6 and first.summary.cache_hits == 0
    data = json.loads(evals.read_text(encoding="utf-8"))
    evals.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")  # reformatted
    (skill / "NOTES.md").write_text("why the description says what it says\n", encoding="utf-8")
    (skill / "SKILL.md").write_text(
        (skill / "SKILL.md").read_text(encoding="utf-8") + "\nMore body the router never sees.\n",
        encoding="utf-8",
    )
    capsys.readouterr()
    assert main(["trigger", str(skill), "--evals", str(evals), "--backend", "local",
                 "--runs", "2", "--dry-run"]) == 0  # fmt: skip
    assert "calls 0, cache hits 6" in capsys.readouterr().out  # the plan's keys are the run's
    again = trigger(skill, evals, tmp_path / "b.json")
    assert again.summary.calls == 0 and again.summary.cache_hits == 6
    # what is sent does change the key: a new description is asked again
    text = (skill / "SKILL.md").read_text(encoding="utf-8")
    (skill / "SKILL.md").write_text(text.replace("Tidies", "Cleans"), encoding="utf-8")
    changed = trigger(skill, evals, tmp_path / "c.json")
    assert changed.summary.calls == 6


@pytest.mark.slow
def test_a_cached_cli_run_makes_its_report_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI and the notebooks share one cache (the user cache folder): the trigger_eval
    report of a run the CLI made, with the same parameters, makes no model call."""
    from skillbench.reports.runner import run_notebook

    monkeypatch.delenv("SKILLBENCH_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)  # the CLI's working directory is not the notebooks'
    skill = REPO / "data" / "skills" / "csv-cleanup"
    evals = REPO / "data" / "evals" / "csv-cleanup.trigger.json"
    catalog = REPO / "data" / "catalog"
    cli = trigger(skill, evals, tmp_path / "cli.json", "--catalog", str(catalog), "--seed", "0")
    assert cli.summary.calls and cli.summary.calls > 0
    params = {
        "skill_dir": str(skill),
        "evals": str(evals),
        "backend": "local",
        "runs": 2,
        "catalog": str(catalog),
        "seed": 0,
    }
    result = run_notebook("trigger_eval", params, out_root=tmp_path / "reports")
    assert result.ok, result.manifest.error
    (saved,) = result.folder.rglob("trigger_report.json")
    report = TriggerReport.model_validate_json(saved.read_text(encoding="utf-8"))
    assert report.summary.calls == 0 and report.summary.cache_hits == cli.summary.calls
    assert not (tmp_path / ".skillbench").exists()
