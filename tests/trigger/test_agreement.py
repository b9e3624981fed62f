"""Agreement between two trigger backends: per query, overall, κ, undecided share."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.schemas import load
from skillbench.schemas.registry import Entry, register
from skillbench.trigger.agreement import (
    AgreementOptions,
    agreement_frame,
    agreement_lines,
    compare_reports,
    run_agreement_sync,
)
from skillbench.trigger.agreement_document import AGREEMENT_DOCUMENT
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval_sync

ROOT = Path(__file__).resolve().parents[2]
QUERIES = [
    EvalQuery("q-both-yes", True),
    EvalQuery("q-both-no", False),
    EvalQuery("q-a-only", True),
    EvalQuery("q-b-only", False),
    EvalQuery("q-b-errors", True),
    EvalQuery("q-flaky", True),
]
SCRIPT_A = {"q-both-yes": "T", "q-a-only": "T", "q-b-errors": "T", "q-flaky": "TTN"}
SCRIPT_B = {"q-both-yes": "T", "q-b-only": "T", "q-b-errors": "E", "q-flaky": "TNN"}


def report(script: dict[str, str], name: str, proxy: bool = False):  # type: ignore[no-untyped-def]
    judge = ScriptedJudge(script, name=name, is_proxy=proxy)
    return run_trigger_eval_sync(
        "pdf-tools", "Use for PDFs.", QUERIES, judge, options=TriggerOptions(runs=3)
    )


def test_per_query_and_overall_agreement() -> None:
    result = compare_reports(report(SCRIPT_A, "a"), report(SCRIPT_B, "b"))
    rows = {q.query: q for q in result.queries}
    assert rows["q-both-yes"].agree is True
    assert rows["q-both-no"].agree is True
    assert rows["q-a-only"].agree is False
    assert rows["q-b-only"].agree is False
    assert rows["q-b-errors"].verdict_b == "undecided" and rows["q-b-errors"].agree is None
    assert rows["q-b-errors"].undecided_b == 3
    assert rows["q-flaky"].verdict_a == "trigger" and rows["q-flaky"].verdict_b == "no"
    assert rows["q-flaky"].run_agreement == pytest.approx(2 / 3 * 1 / 3 + 1 / 3 * 2 / 3, abs=1e-3)
    assert result.compared == 5
    assert result.agreement.value == pytest.approx(2 / 5)
    assert result.agreement.low is not None and result.agreement.low < 0.4
    # verdicts over the 5 compared: A = [T, N, T, N, T], B = [T, N, N, T, N]
    # p_o = 0.4, p_a = 0.6, p_b = 0.4, p_e = 0.24 + 0.24 = 0.48 → κ = -0.08/0.52
    assert result.kappa.value == pytest.approx(-0.08 / 0.52)
    assert result.kappa.method == "bootstrap" and result.kappa.n == 5
    assert result.undecided_a.runs.value == 0
    assert result.undecided_b.runs.value == pytest.approx(3 / 18)
    assert result.undecided_b.queries == 1
    assert any("interval is wide" in n for n in result.notes or [])
    frame = agreement_frame(result)
    assert list(frame["agree"]) == [True, True, False, False, None, False]
    assert any(line.startswith("Cohen's κ: -0.154") for line in agreement_lines(result))


def test_identical_backends_agree_fully_and_kappa_is_one() -> None:
    result = compare_reports(report(SCRIPT_A, "a"), report(SCRIPT_A, "a2"))
    assert result.agreement.value == 1.0
    assert result.kappa.value == pytest.approx(1.0)


def test_reports_of_different_queries_are_refused() -> None:
    other = run_trigger_eval_sync(
        "pdf-tools",
        "d",
        [EvalQuery("elsewhere", True)],
        ScriptedJudge({}),
        options=TriggerOptions(runs=1),
    )
    with pytest.raises(InputError, match="same queries"):
        compare_reports(report(SCRIPT_A, "a"), other)


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """Two registered scripted backends, a skill folder and an eval file."""
    registry.register_judge("fake-a", lambda **_: ScriptedJudge(SCRIPT_A, name="fake-a"))
    registry.register_judge("fake-b", lambda **_: ScriptedJudge(SCRIPT_B, name="fake-b"))
    skill = tmp_path / "pdf-tools"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: pdf-tools\ndescription: Use for PDFs.\n---\n# P\n")
    evals = tmp_path / "evals.json"
    evals.write_text(
        json.dumps([{"query": q.text, "should_trigger": q.should_trigger} for q in QUERIES])
    )
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    yield skill, evals
    registry.unregister("fake-a")
    registry.unregister("fake-b")


def test_run_agreement_by_backend_names(pair: tuple[Path, Path]) -> None:
    skill, evals = pair
    seen: list[tuple[int, int]] = []
    result = run_agreement_sync(
        skill,
        evals,
        progress=lambda d, p: seen.append((d, p)),
        options=AgreementOptions(
            trigger=TriggerOptions(runs=3), backend_a="fake-a", backend_b="fake-b"
        ),
    )
    assert (result.backend_a.name, result.backend_b.name) == ("fake-a", "fake-b")
    assert result.compared == 5 and result.agreement.value == pytest.approx(0.4)
    assert seen[-1] == (36, 36)
    with pytest.raises(InputError, match="--runs"):
        run_agreement_sync(
            skill,
            evals,
            options=AgreementOptions(
                trigger=TriggerOptions(runs="auto"), backend_a="fake-a", backend_b="fake-b"
            ),
        )


def test_cli_writes_a_recognised_document(
    pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = pair
    out = tmp_path / "agreement.json"
    code = main(
        [
            "agreement",
            str(skill),
            "--evals",
            str(evals),
            "--backend-a",
            "fake-a",
            "--backend-b",
            "fake-b",
            "--runs",
            "3",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "agreement: 0.400" in printed and "q-flaky" in printed
    register(AGREEMENT_DOCUMENT)  # the entry point is read from the installed metadata
    loaded = load(out)
    assert (loaded.kind, loaded.dialect) == ("backend-agreement", "skillbench")


def test_cli_unknown_backend_is_exit_2(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = pair
    code = main(["agreement", str(skill), "--evals", str(evals), "--backend-a", "nope"])
    assert code == 2
    assert "nope" in capsys.readouterr().err


def test_the_document_is_declared_as_an_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    points = project["project"]["entry-points"]["skillbench.documents"]
    module, _, name = points["backend-agreement"].partition(":")
    assert isinstance(getattr(import_module(module), name), Entry)


def test_agreement_figure_draws_every_query() -> None:
    from skillbench.trigger.agreement_plots import agreement_figure

    result = compare_reports(report(SCRIPT_A, "a"), report(SCRIPT_B, "b"))
    fig = agreement_figure(result)
    (ax,) = fig.axes
    points = [line for line in ax.get_lines() if line.get_marker() in ("o", "s")]
    assert len(points) == len(QUERIES)
    hollow = [p for p in points if p.get_markerfacecolor() == "white"]
    assert len(hollow) == 1  # q-b-errors: undecided under B
    assert "κ -0.15" in ax.get_title()
