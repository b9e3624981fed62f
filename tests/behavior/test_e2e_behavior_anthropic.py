"""The behavior pipeline end to end on the anthropic backend, against a loopback Messages API mock:
`skillbench run` → `grade` → `benchmark` → `compare` on a copy of data/skills/csv-cleanup (one
case, with_skill and baseline, 2 runs). Every JSON file written must load with
skillbench.schemas.load, the API key never reaches a file, and a re-run makes zero calls.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_mock_api import MockAPI

from skillbench.behavior.compare import CompareSummary
from skillbench.behavior.records import read_run_record
from skillbench.cli import main
from skillbench.schemas import load

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "data" / "skills" / "csv-cleanup"
CASE = "dedupe-crm-export"


@pytest.fixture
def skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of csv-cleanup whose evals.json keeps only the first case; cwd is tmp_path."""
    folder = tmp_path / "csv-cleanup"
    shutil.copytree(SOURCE, folder)
    evals_file = folder / "evals" / "evals.json"
    data = json.loads(evals_file.read_text(encoding="utf-8"))
    data["cases"] = [c for c in data["cases"] if c["id"] == CASE]
    assert len(data["cases"]) == 1
    evals_file.write_text(json.dumps(data, indent=2), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    return folder


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[MockAPI]:
    key = f"sk-ant-api03-e2e{uuid.uuid4().hex}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    with MockAPI(expected_key=key) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        yield mock


def pipeline(skill: Path) -> list[tuple[list[str], int]]:
    """The four commands and the exit code each must give."""
    common = ["--backend", "anthropic"]
    return [
        (["run", str(skill), "--configs", "with_skill,baseline", "--runs", "2", *common], 0),
        # the baseline fails the file checks, so grading reports failed expectations: exit 1
        (["grade", str(skill), *common], 1),
        (["benchmark", str(skill)], 0),
        (["compare", str(skill), "--a", "with_skill", "--b", "baseline", *common], 0),
    ]


def test_run_grade_benchmark_compare_on_the_anthropic_backend(
    skill: Path, api: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv, expected in pipeline(skill):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == expected, f"{argv[0]}: exit {code}\n{out}\n{err}"
        assert "real world" not in err  # API calls, not agent sessions: no such warning
    assert api.count("unknown_schema") == 0
    assert api.count("key_matched") == api.count("requests")
    assert api.count("execute") == 4  # 2 configs x 1 case x 2 runs
    # grader: one call per run (only the expectation without a machine check goes to the model);
    # comparator: 2 run pairs x 2 orders; analyzer: 1
    assert api.count("structured") == 4 + 4 + 1, dict(api.counts)

    workspace = skill.parent / "csv-cleanup-workspace"
    runs = sorted(p for p in (workspace / "runs").glob("*/*/run-*") if p.is_dir())
    assert [p.relative_to(workspace / "runs").as_posix() for p in runs] == [
        f"{config}/{CASE}/run-{n}" for config in ("baseline", "with_skill") for n in (1, 2)
    ]
    for run in runs:
        reply = (run / "outputs" / "response.md").read_text(encoding="utf-8")
        assert ("7 rows in" in reply) == ("with_skill" in run.parts)
        timing = json.loads((run / "timing.json").read_text())
        assert timing["total_tokens"] > 0

    # every JSON file skillbench wrote is a known document of some dialect
    written = sorted(workspace.rglob("*.json"))
    names = {p.name for p in written}
    assert {"benchmark.json", "grading.json", "metrics.json", "timing.json"} <= names, names
    assert any("comparison" in p.as_posix() for p in written), names
    assert any("analysis" in p.name for p in written), names
    own = {"run.json", "with_skill_vs_baseline_summary.json"}  # skillbench's own records
    for path in written:
        if path.name in own:
            continue
        doc = load(path)
        assert doc.dialect and doc.kind, path
    kinds = {(load(p).dialect, load(p).kind) for p in written if p.name not in own}
    assert {
        ("skill-creator", "benchmark"),
        ("skill-creator", "grading"),
        ("skill-creator", "metrics"),
        ("skill-creator", "timing"),
        ("skill-creator-v3", "behavior-grading"),
        ("writing-skills", "grading"),
        ("writing-skills", "comparison"),
        ("writing-skills", "analysis"),
        ("writing-skills", "history"),
    } <= kinds, kinds
    for path in written:
        if path.name == "run.json":
            assert read_run_record(path).status == "ok"
        elif path.name in own:
            compared = CompareSummary.model_validate_json(path.read_text())
            assert compared.judged == 2 and compared.errors == 0
            assert compared.wins == 2 and compared.swap_consistency == 1.0

    benchmark = json.loads((workspace / "benchmark.json").read_text())
    summary = benchmark["run_summary"]
    assert summary["with_skill"]["pass_rate"]["mean"] > summary["baseline"]["pass_rate"]["mean"]

    # the key reached no file
    key = str(api.expected_key)
    for path in skill.parent.rglob("*"):
        assert not (path.is_file() and key.encode() in path.read_bytes()), path

    # a re-run of the whole pipeline is served by the call cache: zero requests
    before = api.count("requests")
    for argv, expected in pipeline(skill):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == expected, f"re-run {argv[0]}: exit {code}\n{out}\n{err}"
    assert api.count("requests") == before, dict(api.counts)


def test_an_invalid_grader_reply_is_named_never_no_model(
    skill: Path, api: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    """The grader was asked (and paid) but its replies were not JSON: `grade` says so, per run,
    and never that there was no model (issue 31)."""
    argv = ["--backend", "anthropic"]
    assert main(["run", str(skill), "--configs", "with_skill", "--runs", "1", *argv]) == 0
    capsys.readouterr()
    api.structured_text = "I think it passed, mostly."
    assert main(["grade", str(skill), *argv]) == 1
    err = capsys.readouterr().err
    assert "UNGRADED with_skill/dedupe-crm-export/run-1: the grader's reply was invalid" in err
    assert "GraderReply: not valid JSON" in err, err
    assert "no model" not in err, err
    assert api.count("structured") == 2  # asked twice: the first call and one retry
    # both calls were made and paid, their replies unusable: the cost block counts them
    assert "calls 2, cache hits 0" in err and "output 120" in err, err  # 60 tokens a reply
    assert "anthropic claude-haiku-4-5 [grade]: calls 2, hits 0, $0.0" in err, err


def test_grade_repeats_keeps_the_majority_and_records_every_verdict(
    skill: Path, api: MockAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    """`grade --repeats 3`: the grader is asked three times (pass, fail, pass), the stored verdict
    is the majority, the three verdicts are recorded and the plan and the cost count 3 calls."""
    argv = ["--backend", "anthropic"]
    assert main(["run", str(skill), "--configs", "with_skill", "--runs", "1", *argv]) == 0
    capsys.readouterr()
    assert main(["grade", str(skill), "--repeats", "3", "--dry-run", *argv]) == 0
    planned = capsys.readouterr()
    shown = planned.out + planned.err
    assert "the grader asked 3 times each" in shown, shown
    assert "[grade]: calls 3, hits 0" in shown, shown  # K calls per run are planned
    # --max-cost weighs the K calls: a cap one asking fits under but three do not is refused
    assert main(["grade", str(skill), "--dry-run", "--max-cost", "0.006", *argv]) == 0
    capsys.readouterr()
    assert main(["grade", str(skill), "--repeats", "3", "--max-cost", "0.006", *argv]) == 3
    assert "0.006" in capsys.readouterr().err
    assert api.count("structured") == 0  # planning asks nothing
    api.grader_scores = [4, 2, 4]  # pass, fail, pass
    # exit 1: the mock's run writes no files, so the machine checks fail
    assert main(["grade", str(skill), "--repeats", "3", *argv]) == 1
    err = capsys.readouterr().err
    assert api.count("structured") == 3
    assert "calls 3, cache hits 0" in err, err
    grading = json.loads(
        (skill.parent / "csv-cleanup-workspace" / "runs" / "with_skill" / CASE / "run-1"
         / "grading.json").read_text(encoding="utf-8")
    )  # fmt: skip
    judged = [e for e in grading["expectations"] if e["method"] == "model"]
    assert len(judged) == 1
    assert judged[0]["passed"] is True
    assert judged[0]["repeat_verdicts"] == [True, False, True]
    assert judged[0]["score"] == 4  # the evidence of a repeat that agrees with the majority
    assert load(skill.parent / "csv-cleanup-workspace" / "runs" / "with_skill" / CASE / "run-1"
                / "grading.json").kind == "grading"  # fmt: skip
    # each repeat has its own cache key: a re-run is served by the cache, three hits
    assert main(["grade", str(skill), "--repeats", "3", *argv]) == 1
    assert "calls 0, cache hits 3" in capsys.readouterr().err
    assert api.count("structured") == 3
