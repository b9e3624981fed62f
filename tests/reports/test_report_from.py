"""`skillbench report trigger_eval --from OUT.json` renders an existing trigger report without
re-running it, and a report built from cached calls states what they cost when first paid
(issue 31, item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.cli import main
from skillbench.io import write_json
from skillbench.schemas.trigger import TriggerReport
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval_sync

QUERIES = [EvalQuery("tidy my csv", True), EvalQuery("what is the weather", False)]


def _cached_report(tmp_path: Path) -> TriggerReport:
    """A report whose every answer came from the call cache (a re-run of a paid eval)."""
    with CallCache(tmp_path / "made.sqlite") as cache:
        for _ in range(2):
            judge = CachingJudge(ScriptedJudge({"tidy my csv": "T"}), cache)
            report = run_trigger_eval_sync(
                "never-rerun-skill", "Cleans CSV files.", QUERIES, judge, TriggerOptions(runs=2)
            )
    assert report.cost is not None and report.cost.calls == 0
    return report


def test_report_from_renders_an_existing_result_without_re_running_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "render.sqlite"))
    source = tmp_path / "out.json"
    write_json(source, _cached_report(tmp_path))
    code = main(["report", "trigger_eval", "--from", str(source), "--out", str(tmp_path / "r")])
    assert code in (0, 1), capsys.readouterr().err  # rendered (1: the verdict is ✗)
    folder = Path(capsys.readouterr().out.splitlines()[0])
    rendered = json.loads((folder / "trigger_report.json").read_text(encoding="utf-8"))
    original = json.loads(source.read_text(encoding="utf-8"))
    assert rendered["created_at"] == original["created_at"]  # the same result, not a new run
    assert rendered["skill_name"] == "never-rerun-skill"
    html = (folder / "index.html").read_text(encoding="utf-8")
    assert "first paid $0.0040" in html and "served from the call cache" in html
    with CallCache(tmp_path / "render.sqlite") as cache:
        assert cache.stats().entries == 0  # no call was made, none stored


@pytest.mark.parametrize(
    ("notebook", "content", "message"),
    [
        ("trigger_eval", None, "no trigger report here"),
        ("trigger_eval", {"not": "a report"}, "invalid trigger report"),
        ("improve_description", "report", "only with trigger_eval"),
    ],
)
def test_report_from_refuses_bad_input_before_any_kernel(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    notebook: str,
    content: object,
    message: str,
) -> None:
    source = tmp_path / "out.json"
    if content == "report":
        write_json(source, _cached_report(tmp_path))
    elif content is not None:
        source.write_text(json.dumps(content), encoding="utf-8")
    out = tmp_path / "r"
    assert main(["report", notebook, "--from", str(source), "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()
