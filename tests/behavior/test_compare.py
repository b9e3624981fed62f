"""Blind A/B comparison: both orders, ties on disagreement, blinding, dialects, history."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from compare_fakes import GOOD, FakeJudge, make_workspace, sections

from skillbench.behavior.compare import (
    CompareSummary,
    read_summary,
    seeded_first_is_a,
    summary_path,
)
from skillbench.behavior.compare_run import compare
from skillbench.behavior.options import CompareOptions
from skillbench.behavior.workspace import Workspace, read_history
from skillbench.errors import InputError
from skillbench.schemas import load
from skillbench.stats import binomial_test, wilson_interval


async def _run(skill: Path, judge: FakeJudge | None, dialect: str = "writing-skills", **kw: Any):
    options = CompareOptions(dialect=dialect, seed=7, analyze=False)
    return await compare(skill, "v1", "v0", options, text_model=judge, **kw)


async def test_consistent_judge_picks_the_better_version_in_both_orders(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path)
    judge = FakeJudge("content")
    summary = (await _run(skill, judge)).summary
    assert len(judge.prompts) == 12  # 3 cases x 2 runs x 2 orders
    assert (summary.judged, summary.wins, summary.losses, summary.ties) == (6, 6, 0, 0)
    assert summary.swap_consistency == 1.0
    assert summary.position_bias_rate == 0.0
    assert summary.a_label_win_rate == 0.5
    assert (summary.case_wins, summary.case_losses) == (3, 0)
    assert summary.sign_test_p == pytest.approx(binomial_test(3, 3))
    low, high = wilson_interval(3, 3)
    assert (summary.win_rate_low, summary.win_rate_high) == (round(low, 4), round(high, 4))
    assert summary.judge == "model"


async def test_always_a_judge_gives_only_ties_and_zero_swap_consistency(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path)
    summary = (await _run(skill, FakeJudge("always-a"))).summary
    assert (summary.wins, summary.losses, summary.ties) == (0, 0, 6)
    assert summary.swap_consistency == 0.0
    assert summary.position_bias_rate == 1.0
    assert summary.a_label_win_rate == 1.0
    assert summary.case_ties == 3 and summary.win_rate is None
    assert summary.sign_test_p == 1.0
    for pair in summary.pair_results:
        assert pair.record is not None
        first, second = pair.record.judgements
        assert first.shown_as == {"A": second.shown_as["B"], "B": second.shown_as["A"]}
        assert first.winner == second.winner == "A"
        assert pair.record.verdict == "tie"


async def test_prompts_never_name_configs_or_versions(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path)
    judge = FakeJudge("content")
    await _run(skill, judge)
    workspace = str(Workspace.for_skill(skill).root)
    for request in judge.prompts:
        text = request.system + request.prompt
        assert re.search(r"\bv[01]\b", text) is None, text
        for word in ("with_skill", "baseline", workspace, "release-notes-workspace"):
            assert word not in text
        assert "[redacted]" in text  # the transcripts quoted the skill path
        assert "metrics.json" not in text  # harness files are not shown
        shown = sections(request.prompt)
        assert set(shown) == {"A", "B"}
        assert (GOOD in shown["A"]) != (GOOD in shown["B"])


async def test_order_is_seeded_and_both_orders_are_used(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path)
    summary = (await _run(skill, FakeJudge("content"))).summary
    firsts = []
    for pair in summary.pair_results:
        assert pair.record is not None
        first = pair.record.judgements[0].shown_as["A"]
        expected = "v1" if seeded_first_is_a(7, pair.case_id, pair.run_number) else "v0"
        assert first == expected
        firsts.append(first)
    assert seeded_first_is_a(7, "case-1", 1) == seeded_first_is_a(7, "case-1", 1)
    assert len({seeded_first_is_a(s, "c", 1) for s in range(40)}) == 2


@pytest.mark.parametrize("dialect", ["writing-skills", "skill-creator"])
async def test_comparison_files_load_in_their_dialect(tmp_path: Path, dialect: str) -> None:
    skill = make_workspace(tmp_path)
    summary = (await _run(skill, FakeJudge("content", dialect), dialect)).summary
    space = Workspace.for_skill(skill)
    paths = sorted(space.comparisons_dir.glob("case-*_v1_vs_v0_run*.json"))
    assert len(paths) == 6
    for path in paths:
        loaded = load(path)
        assert (loaded.kind, loaded.dialect) == ("comparison", dialect)
        data = loaded.model.to_json_dict()
        swap = data["skillbench"]
        assert swap["verdict"] == "a" and swap["swap_consistent"] is True
        assert len(swap["judgements"]) == 2
        shown = swap["judgements"][0]["shown_as"]
        assert shown[data["winner"]] == "v1"  # the label of the winner in order 1
    assert read_summary(summary_path(space, "v1", "v0")) == summary


async def test_writing_skills_tie_is_written_in_the_skill_creator_shape(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    await _run(skill, FakeJudge("always-a"))
    path = Workspace.for_skill(skill).comparisons_dir / "case-1_v1_vs_v0_run1.json"
    loaded = load(path)
    assert (loaded.kind, loaded.dialect) == ("comparison", "skill-creator")
    data = loaded.model.to_json_dict()
    assert data["winner"] == "TIE"
    assert "disagreed" in data["reasoning"]
    assert "no tie" in data["skillbench"]["dialect_note"]


@pytest.mark.parametrize("dialect", ["writing-skills", "skill-creator"])
async def test_history_records_won_for_the_newer_version(tmp_path: Path, dialect: str) -> None:
    skill = make_workspace(tmp_path, dialect=dialect)
    summary = (await _run(skill, FakeJudge("content", dialect), dialect)).summary
    assert summary.history == "v1 won against v0; current_best v1"
    space = Workspace.for_skill(skill)
    doc = read_history(space)
    assert doc.version("v1").result == "won" and doc.history.best == "v1"
    loaded = load(space.history_path)
    assert loaded.dialect == dialect
    if dialect == "skill-creator":
        assert loaded.model.to_json_dict()["current_best"] == "v1"


async def test_history_records_tie_and_keeps_the_best(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, dialect="skill-creator")
    summary = (await _run(skill, FakeJudge("always-a", "skill-creator"), "skill-creator")).summary
    assert summary.history == "v1 tie against v0; current_best v0"
    data = load(Workspace.for_skill(skill).history_path).model.to_json_dict()
    assert [it["grading_result"] for it in data["iterations"]] == ["baseline", "tie"]
    assert data["current_best"] == "v0"


async def test_local_backend_is_a_labelled_deterministic_proxy(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path)
    summary = (
        await compare(skill, "v0", "v1", CompareOptions(backend="local", analyze=False))
    ).summary
    assert summary.judge == "deterministic-proxy"
    assert summary.note is not None and "not a model judgement" in summary.note
    assert (summary.wins, summary.losses, summary.ties) == (0, 6, 0)
    assert summary.swap_consistency == 1.0
    space = Workspace.for_skill(skill)
    for path in space.comparisons_dir.glob("case-*_run*.json"):
        data = load(path).model.to_json_dict()
        assert "DETERMINISTIC PROXY" in data["reasoning"]
        assert "scores" not in data  # nothing a model would judge is made up
        assert data["skillbench"]["judge"] == "deterministic-proxy"
    assert summary.history == "v1 won against v0; current_best v1"


async def test_proxy_without_checks_says_tie(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    evals = skill / "evals" / "evals.json"
    text = evals.read_text(encoding="utf-8")
    import json

    data = json.loads(text)
    for case in data["cases"]:
        for expectation in case["expectations"]:
            expectation.pop("check", None)
    evals.write_text(json.dumps(data), encoding="utf-8")
    summary = (
        await compare(skill, "v1", "v0", CompareOptions(backend="local", analyze=False))
    ).summary
    assert (summary.wins, summary.losses, summary.ties) == (0, 0, 3)
    record = summary.pair_results[0].record
    assert record is not None
    assert "no machine-checkable expectation" in record.judgements[0].document["reasoning"]


async def test_missing_and_failed_runs_are_skipped_not_judged(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    space = Workspace.for_skill(skill)
    import shutil

    shutil.rmtree(space.run_dir("v0", "case-2", 1))
    run_json = space.run_dir("v0", "case-3", 1) / "run.json"
    text = run_json.read_text(encoding="utf-8").replace('"status": "ok"', '"status": "error"')
    run_json.write_text(text.replace('"error": null', '"error": "timeout"'), encoding="utf-8")
    summary = (await _run(skill, FakeJudge("content"))).summary
    assert (summary.judged, summary.skipped) == (1, 2)
    reasons = {p.case_id: p.reason for p in summary.pair_results if p.status == "skipped"}
    assert reasons["case-2"] == "no run 1 of v0"
    assert "timeout" in str(reasons["case-3"])


async def test_bad_reply_is_an_error_not_a_verdict(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)

    class Broken(FakeJudge):
        async def complete(self, request):  # type: ignore[no-untyped-def]
            response = await super().complete(request)
            response.text = '{"winner": "C", "reasoning": "?"}'
            return response

    summary = (await _run(skill, Broken())).summary
    assert summary.errors == 3 and summary.judged == 0
    assert all("not a valid WSComparison" in str(p.reason) for p in summary.pair_results)


async def test_bad_input_raises_input_error(tmp_path: Path) -> None:
    skill = make_workspace(tmp_path, runs=1)
    with pytest.raises(InputError, match="same configuration"):
        await compare(skill, "v1", "v1", CompareOptions(backend="local"))
    with pytest.raises(InputError, match="no runs of configuration 'v5'"):
        await compare(skill, "v1", "v5", CompareOptions(backend="local"))
    with pytest.raises(InputError, match="unknown configuration"):
        await compare(skill, "v1", "latest", CompareOptions(backend="local"))
    with pytest.raises(InputError, match="dialect"):
        await compare(skill, "v1", "v0", CompareOptions(backend="local", dialect="other"))


def test_summary_model_roundtrips() -> None:
    summary = CompareSummary.model_validate(
        {
            "config_a": "v1",
            "config_b": "v0",
            "judge": "model",
            "note": None,
            "backend": "fake",
            "model": None,
            "dialect": "writing-skills",
            "seed": 0,
            "pairs": 0,
            "judged": 0,
            "errors": 0,
            "skipped": 0,
            "wins": 0,
            "losses": 0,
            "ties": 0,
            "swap_consistency": None,
            "position_bias_rate": None,
            "a_label_win_rate": None,
            "cases": [],
            "case_wins": 0,
            "case_losses": 0,
            "case_ties": 0,
            "win_rate": None,
            "win_rate_low": None,
            "win_rate_high": None,
            "sign_test_p": 1.0,
            "pair_results": [],
        }
    )
    assert CompareSummary.model_validate(summary.to_json_dict()) == summary
