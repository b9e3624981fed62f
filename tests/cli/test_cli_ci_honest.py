"""CI-honest commands: one exit-code rule (0 ok, 1 the check failed or nothing could be measured,
2 bad input, 3 cost cap), no wrapping at 80 columns off a terminal, and `--format github` /
`--junit FILE` on trigger, grade and benchmark."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from xml.etree import ElementTree as ET

import pytest
from grade_fixtures import EVALS, GOOD, RunSpec, make_run, make_skill, standard_workspace
from trigger_fakes import ScriptedJudge

from skillbench.backends import registry
from skillbench.behavior.workspace import Workspace
from skillbench.cli import main

BACKEND = "ci-scripted"
LONG = (
    "please turn this quarterly revenue spreadsheet with forty columns into a one page pdf "
    "summary with charts for the board meeting tomorrow"
)
SCRIPT = {LONG: "N", "make a pdf": "T", "weather": "N", "always errors": "E"}


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    registry.register_judge(BACKEND, lambda **options: ScriptedJudge(SCRIPT))
    registry.register_judge(f"{BACKEND}-b", lambda **options: ScriptedJudge(SCRIPT))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("COLUMNS", raising=False)
    yield
    registry.unregister(BACKEND)
    registry.unregister(f"{BACKEND}-b")


def trigger_setup(tmp_path: Path) -> tuple[Path, Path]:
    skill = tmp_path / "pdf-maker"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: pdf-maker\ndescription: Makes PDFs. Use when a PDF is wanted.\n---\n# pdf\n",
        encoding="utf-8",
    )
    evals = tmp_path / "evals.json"
    items = [
        {"query": "make a pdf", "should_trigger": True},
        {"query": LONG, "should_trigger": True},
        {"query": "weather", "should_trigger": False},
        {"query": "always errors", "should_trigger": True},
    ]
    evals.write_text(json.dumps(items, indent=1), encoding="utf-8")
    return skill, evals


def test_trigger_output_is_not_wrapped_at_80_columns_off_a_terminal(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = trigger_setup(tmp_path)
    code = main(["trigger", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs", "2"])
    assert code == 1
    out = capsys.readouterr().out
    assert any(LONG in line for line in out.splitlines()), out  # the query on one line
    assert max(len(line) for line in out.splitlines()) > 80


def test_help_is_not_wrapped_at_80_columns_off_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["improve", "--help"]) == 0
    out = capsys.readouterr().out
    assert (
        "Split the eval set (train for the improver, selection to pick the best round, test for "
        "reporting only)" in out
    )


def test_trigger_github_annotations_and_junit(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, _evals = trigger_setup(tmp_path)
    junit = tmp_path / "ci" / "trigger.xml"
    (tmp_path / "ci").mkdir()
    code = main(
        ["trigger", str(skill), "--evals", "evals.json", "--backend", BACKEND, "--runs", "2",
         "--format", "github", "--junit", str(junit)]
    )  # fmt: skip
    assert code == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == 2  # the missed long query and the unresolved one
    assert errors[0].startswith("::error file=evals.json,line=7,title=trigger%3A pdf-maker::")
    assert "should trigger: trigger rate 0.00" in errors[0]
    assert "unresolved" in errors[1] and "line=15" in errors[1]
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "4"
    assert (suite.get("failures"), suite.get("errors")) == ("1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert cases[LONG].find("failure") is not None and cases["make a pdf"].find("failure") is None
    assert cases["always errors"].find("error") is not None
    assert not list(tmp_path.glob("ci/.*"))  # written atomically: no temporary left


def test_junit_path_is_checked_before_any_call(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = trigger_setup(tmp_path)
    (tmp_path / "taken").write_text("x", encoding="utf-8")
    code = main(
        ["trigger", str(skill), "--evals", str(evals), "--backend", BACKEND,
         "--junit", "taken/out.xml"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "taken/out.xml" in err and "(--junit)" in err


def test_grade_with_nothing_graded_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evals = json.loads(json.dumps(EVALS))
    for case in evals["cases"]:
        for item in case["expectations"]:
            item.pop("check", None)  # no machine check: the local backend grades nothing
    skill = make_skill(tmp_path, evals)
    make_run(Workspace.for_skill(skill), RunSpec("with_skill", "case-one", 1, GOOD))
    code = main(["grade", str(skill)])
    captured = capsys.readouterr()
    assert "0 expectations graded, 3 UNGRADED" in captured.out
    assert code == 1 and "nothing was graded" in captured.err


def test_grade_and_benchmark_github_annotations_and_junit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, _space = standard_workspace(tmp_path)
    monkeypatch.chdir(tmp_path)
    junit = tmp_path / "grade.xml"
    assert main(["grade", str(skill), "--format", "github", "--junit", str(junit)]) == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    warnings = [line for line in out.splitlines() if line.startswith("::warning")]
    assert errors and all("file=demo-skill/evals/evals.json,line=" in e for e in errors)
    assert any("title=grade%3A baseline/case-one/run-2" in e for e in errors)
    assert len(warnings) == 4  # the UNGRADED tone expectation of every case-one run
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert suite.get("tests") == str(4 * 3 + 4 * 1) and suite.get("skipped") == "4"
    assert int(suite.get("failures") or 0) == len(errors)
    bench = tmp_path / "bench.xml"
    code = main(
        ["benchmark", str(skill), "--candidate", "baseline", "--baseline", "with_skill",
         "--format", "github", "--junit", str(bench)]
    )  # fmt: skip
    assert code == 1
    out = capsys.readouterr().out
    assert "::error file=demo-skill-workspace/benchmark.json,title=benchmark%3A baseline - " in out
    suite = ET.parse(bench).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "2"


def test_benchmark_with_no_case_under_both_exits_1_without_a_fake_delta(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path)
    space = Workspace.for_skill(skill)
    make_run(space, RunSpec("with_skill", "case-one", 1, GOOD))
    make_run(space, RunSpec("baseline", "case-two", 1, final_text="done"))
    assert main(["grade", str(skill)]) == 0
    capsys.readouterr()
    junit = tmp_path / "bench.xml"
    assert main(["benchmark", str(skill), "--junit", str(junit)]) == 1
    captured = capsys.readouterr()
    assert "+0.00" not in captured.out and "no case was run under both" in captured.out
    assert "nothing to compare" in captured.err
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("errors") == "2"  # case-one and case-two unpaired


def test_agreement_with_nothing_decided_by_both_exits_1(
    tmp_path: Path, scripted: None, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, _ = trigger_setup(tmp_path)
    evals = tmp_path / "errors.json"
    evals.write_text(
        json.dumps([{"query": "always errors", "should_trigger": True}]), encoding="utf-8"
    )
    code = main(
        ["agreement", str(skill), "--evals", str(evals), "--backend-a", BACKEND,
         "--backend-b", f"{BACKEND}-b", "--runs", "1", "--no-cache"]
    )  # fmt: skip
    assert code == 1 and "nothing to compare" in capsys.readouterr().err


def test_report_exits_1_on_a_failed_verdict(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import skillbench.reports.runner as runner
    from skillbench.reports.header import Verdict, make_header

    verdict: list[bool | None] = [False]

    def fake_run(name: str, params: dict[str, object], **options: object) -> SimpleNamespace:
        header = make_header("Trigger eval", Verdict(ok=verdict[0], line="3/12 queries fail"))
        manifest = SimpleNamespace(header=header, error=None)
        return SimpleNamespace(folder=tmp_path / "r", ok=True, manifest=manifest)

    monkeypatch.setattr(runner, "run_notebook", fake_run)
    assert main(["report", "trigger_eval"]) == 1
    assert "✗ 3/12 queries fail" in capsys.readouterr().out
    verdict[0] = None  # inconclusive is not a failure
    assert main(["report", "trigger_eval"]) == 0
    verdict[0] = True
    assert main(["report", "trigger_eval"]) == 0
