"""Results display well in Jupyter: a short one-line repr with the key figures, an escaped HTML
box with the key table; public functions show their real parameters."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from grade_fixtures import standard_workspace
from trigger_fakes import ScriptedJudge

import skillbench
from skillbench.behavior.benchmark import build_benchmark
from skillbench.behavior.compare_run import compare_sync
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.options import CompareOptions, GradeOptions
from skillbench.improve.options import ImproveOptions
from skillbench.reports.header import Verdict, header_html, make_header
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.run import run_trigger_eval
from skillbench.validate.rules import validate_skill

ROOT = Path(__file__).resolve().parents[1]
EVIL = "<script>alert(1)</script>"


def _short(obj: Any, *figures: str) -> None:
    text = repr(obj)
    assert "\n" not in text and len(text) <= 240, text
    for figure in figures:
        assert figure in text, (figure, text)


def _escaped(obj: Any, *shown: str) -> str:
    page = obj._repr_html_()
    assert EVIL not in page and "&lt;script&gt;" in page
    for text in shown:
        assert text in page, text
    return page


def test_trigger_report() -> None:
    queries = [EvalQuery(f"tidy csv number {i} " + "x" * 80, True, None, (i,)) for i in range(60)]
    queries += [EvalQuery(EVIL, True, None, (60,)), EvalQuery("bake a cake", False, None, (61,))]
    report = asyncio.run(
        run_trigger_eval(
            "csv-tidy",
            "Tidies CSV. Use when X.",
            queries,
            ScriptedJudge({}),
            options=TriggerOptions(runs=2),
        )
    )
    assert len(report.model_dump_json()) > 5000  # the whole document is long …
    _short(report, "csv-tidy", "1/62 queries pass", "backend scripted")  # … its repr is not
    page = _escaped(report, "Trigger eval", "should trigger", "and 42 more row(s)")
    assert "bake a cake" not in page  # failures first: the passing query is past the 20 shown


def test_validation_report_and_header() -> None:
    report = validate_skill(ROOT / "data" / "skills" / "brand-voice-editor")
    _short(report, "brand-voice-editor", "warning(s)")
    assert "DESCRIPTION_TRIGGER_HINT" in report._repr_html_()
    header = make_header(EVIL, Verdict(ok=False, line="2 of 3 pass " * 40, failures=[EVIL]))
    _short(header, "ReportHeader", "✗ 2 of 3 pass")
    assert _escaped(header) == header_html(header)


def test_behavior_summaries(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    summary = grade_workspace_sync(skill, GradeOptions(backend="local"))
    _short(summary, "grader local", "8 run(s)", "UNGRADED")
    assert "case-one" in summary._repr_html_() and "pass rate" in summary._repr_html_()
    bench = build_benchmark(skill)
    _short(bench, "demo-skill", "with_skill − baseline")
    assert "with_skill" in bench._repr_html_()
    run = compare_sync(skill, "with_skill", "baseline", CompareOptions(backend="local"))
    _short(run, "with_skill vs baseline", "sign test p")
    _short(run.summary, "case win(s)")
    assert "Blind A/B comparison" in run._repr_html_()


@pytest.mark.slow
def test_loop_summary_and_result(tmp_path: Path) -> None:
    from skillbench.improve.run import improve_skill_sync

    result = improve_skill_sync(ROOT / "data" / "skills" / "csv-cleanup", ROOT / "data" / "evals" / "csv-cleanup.trigger.json", out=tmp_path / "loop", options=ImproveOptions(trigger=TriggerOptions(backend="local", runs=1, use_cache=False), rounds=2))  # fmt: skip
    _short(result.summary, "csv-cleanup", "round(s)", "best round")
    _short(result, "LoopResult(LoopSummary(")
    page = result._repr_html_()
    assert "Improvement loop" in page and "selection" in page


@pytest.mark.parametrize(
    ("name", "parameters"),
    [
        ("evaluate_skill_sync", {"backend", "catalog_dir", "runs", "threshold", "seed"}),
        ("evaluate_skill", {"runs", "workers", "timeout"}),
        ("improve_skill_sync", {"rounds", "fractions", "adopt_alpha", "runs", "backend"}),
        ("grade_workspace_sync", {"workspace", "backend", "force", "dialect", "cache_path"}),
        ("compare_sync", {"config_a", "workspace", "seed", "dialect", "max_cost"}),
        ("run_cases", {"workspace", "skill_dir", "runs", "configs", "backend", "max_copy"}),
        ("run_agreement_sync", {"backend_a", "runs", "seed"}),
        ("write_benchmark", {"workspace", "baseline", "candidate"}),
    ],
)
def test_public_functions_show_their_parameters(name: str, parameters: set[str]) -> None:
    """`help()` shows the real parameters: the signature's, and the typed fields of the options
    object it takes (`TriggerOptions`, `ImproveOptions`, …), never a bare `**options`."""
    signature = inspect.signature(getattr(skillbench, name), eval_str=True)
    kinds = {p.kind for p in signature.parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{name}{signature}"
    assert parameters <= shown_parameters(signature)
    assert signature.return_annotation is not inspect.Signature.empty


def shown_parameters(signature: inspect.Signature) -> set[str]:
    """The signature's parameter names plus the fields of the option dataclasses it takes
    (nested ones too: `ImproveOptions.trigger`)."""
    import dataclasses
    import typing

    names: set[str] = set()
    pending = [p.annotation for p in signature.parameters.values()]
    names.update(signature.parameters)
    while pending:
        annotation = pending.pop()
        for kind in typing.get_args(annotation) or (annotation,):
            if isinstance(kind, type) and dataclasses.is_dataclass(kind):
                hints = typing.get_type_hints(kind)
                names.update(f.name for f in dataclasses.fields(kind))
                pending.extend(hints[f.name] for f in dataclasses.fields(kind))
    return names
