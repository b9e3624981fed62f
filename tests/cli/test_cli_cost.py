"""`--dry-run` and `--max-cost` on trigger and improve: plans, refusals, clean stops, exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cost_fakes import flat_factory
from improve_fakes import KeywordJudge, RecordingTextModel, learner, sample_queries
from real_cli import real_cli_skip_reason
from trigger_fakes import ScriptedJudge

from skillbench.backends import registry
from skillbench.backends.base import (
    CallUsage,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
)
from skillbench.cli import main
from skillbench.cost.estimate import register_estimator, unregister_estimator
from skillbench.errors import EXIT_COST_CAP
from skillbench.improve.cost import round_costs_frame
from skillbench.improve.run import load_loop_summary
from skillbench.schemas.cost import cost_summary
from skillbench.schemas.trigger import TriggerReport

BACKEND = "cost-test"


class CostedJudge(KeywordJudge):
    """The keyword judge, each call costing $0.001."""

    name = BACKEND

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        outcome = await super().judge(request)
        outcome.usage = CallUsage(10, 1, cost_usd=0.001)
        return outcome


class CostedModel(RecordingTextModel):
    name = BACKEND

    async def complete(self, request: TextRequest) -> TextResponse:
        reply = await super().complete(request)
        reply.usage = CallUsage(10, 1, cost_usd=0.001)
        return reply


class Made:
    def __init__(self) -> None:
        self.judges: list[ScriptedJudge | KeywordJudge] = []
        self.models: list[RecordingTextModel] = []

    @property
    def calls(self) -> int:
        return sum(len(j.requests) for j in self.judges) + sum(len(m.requests) for m in self.models)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Made]:
    record = Made()

    def judge(**options: object) -> CostedJudge:
        record.judges.append(CostedJudge())
        return record.judges[-1]  # type: ignore[return-value]

    def model(**options: object) -> CostedModel:
        record.models.append(CostedModel(learner))
        return record.models[-1]  # type: ignore[return-value]

    registry.register_judge(BACKEND, judge)
    registry.register_text_model(BACKEND, model)
    register_estimator(BACKEND, flat_factory(BACKEND))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    yield record
    registry.unregister(BACKEND)
    unregister_estimator(BACKEND)


def setup(tmp_path: Path) -> tuple[Path, Path]:
    skill = tmp_path / "tidy"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Tidies messy exports. Use when a user hands over a file "
        "to clean\n---\n# tidy\nBody.\n",
        encoding="utf-8",
    )
    evals = tmp_path / "evals.json"
    items = [{"query": q.text, "should_trigger": q.should_trigger} for q in sample_queries()]
    evals.write_text(json.dumps(items), encoding="utf-8")
    return skill, evals


def trigger(skill: Path, evals: Path, *extra: str, backend: str = BACKEND) -> int:
    return main(["trigger", str(skill), "--evals", str(evals), "--backend", backend, *extra])


def test_trigger_dry_run_makes_no_call_and_counts_the_cache_as_free(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    assert trigger(skill, evals, "--dry-run", "--runs", "2", "--workers", "1") == 0
    out = capsys.readouterr().out
    assert made.calls == 0 and not (tmp_path / "cache.sqlite").exists()  # nothing created
    assert "20 queries × 2 runs × 1 description = 40 runs" in out
    assert "estimated cost: $0.0400" in out and "calls 40, cache hits 0" in out
    assert trigger(skill, evals, "--runs", "1", "--out", "r.json") == 1  # some queries fail
    capsys.readouterr()
    assert trigger(skill, evals, "--dry-run", "--runs", "2") == 0
    out = capsys.readouterr().out
    assert "calls 20, cache hits 20 (50%)" in out and "$0.0200" in out


def test_trigger_refuses_when_the_estimate_exceeds_the_cap(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    assert (
        trigger(skill, evals, "--runs", "2", "--max-cost", "0.01", "--out", "r.json")
        == EXIT_COST_CAP
    )
    err = capsys.readouterr().err
    assert "--max-cost" in err and "exceeds the cap" in err
    assert made.calls == 0 and not Path("r.json").exists()
    assert trigger(skill, evals, "--dry-run", "--max-cost", "0.01") == EXIT_COST_CAP


@pytest.mark.parametrize("bad", ["-1", "abc", "0"])
def test_bad_caps_exit_2_naming_the_option(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    skill, evals = setup(tmp_path)
    assert trigger(skill, evals, "--max-cost", bad) == 2
    assert "--max-cost" in capsys.readouterr().err
    assert made.calls == 0


def test_bad_cap_from_the_environment_exits_2(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = setup(tmp_path)
    monkeypatch.setenv("SKILLBENCH_MAX_COST", "-3")
    assert main(["improve", str(skill), "--evals", str(evals), "--backend", BACKEND]) == 2
    assert "$SKILLBENCH_MAX_COST" in capsys.readouterr().err


def test_unknown_model_exits_2_naming_model(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    code = trigger(
        skill, evals, "--dry-run", "--model", "claude-nonexistent-9", backend="anthropic"
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "--model" in err and "claude-nonexistent-9" in err and "no price" in err


def test_anthropic_dry_run_needs_no_key_and_splits_cache_writes_and_reads(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    code = trigger(
        skill,
        evals,
        "--dry-run",
        "--model",
        "claude-sonnet-4-5",
        "--harness",
        "minimal",
        backend="anthropic",
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "character estimate" in out and "stated default 60 tokens" in out
    assert "cache writes 0" in out  # a one-skill listing is below sonnet-4-5's 1,024-token minimum
    assert "prices as of 2026-11-21" in out


@pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason()))
def test_replay_dry_run_counts_the_captured_template_once(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default harness: Claude Code's own request captured once (by the pinned CLI against
    a loopback server), counted once, and billed as its breakpoints bill it: the tools and system
    prompt written once and read by the rest; the listing before the query written once per
    distinct query (Claude Code's last breakpoint is on the query) unless --cache-before-query."""
    skill, evals = setup(tmp_path)

    def tokens(*flags: str) -> dict[str, int]:
        code = trigger(
            skill, evals, "--dry-run", "--model", "claude-sonnet-4-5", *flags, backend="anthropic"
        )
        assert code == 0
        out = capsys.readouterr().out
        assert "captured template(s), each counted once" in out, out
        assert ("+ 1 before the query" in out) == bool(flags), out
        line = next(x for x in out.splitlines() if x.strip().startswith("tokens:"))
        return {
            kind: int(line.split(f"{kind} ")[1].split(",")[0])
            for kind in ("input", "cache writes", "cache reads")
        }

    exact, extra = tokens(), tokens("--cache-before-query")
    assert exact["cache writes"] > 10_000  # Claude Code's tools and system prompt: one write
    assert exact["cache reads"] > 20 * exact["cache writes"]  # later runs read that prefix
    assert sum(exact.values()) == sum(extra.values())  # the same tokens, billed differently
    assert extra["cache writes"] < exact["cache writes"] * 0.6  # the listing is written once
    assert extra["cache reads"] > exact["cache reads"]


def test_trigger_stops_at_the_cap_writes_the_report_and_resumes_from_the_cache(
    tmp_path: Path, made: Made, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = setup(tmp_path)
    # an estimator that underestimates, so the cap is reached during the run
    register_estimator(BACKEND, flat_factory(BACKEND, per_call=0.0001))
    code = trigger(
        skill, evals, "--runs", "1", "--workers", "1", "--max-cost", "0.005", "--out", "r.json"
    )
    assert code == EXIT_COST_CAP
    report = TriggerReport.model_validate_json(Path("r.json").read_text(encoding="utf-8"))
    assert report.cost is not None and report.cost.stopped_at_cap and report.cost.cap_usd == 0.005
    assert report.cost.calls == 5 and report.summary.calls == 5
    assert any("stopped at the cost cap" in w for w in report.warnings or [])
    assert sum(r.errors for r in report.results) == 15  # refused runs are errors, not outcomes
    assert report.summary.unresolved == 15
    first = made.calls
    assert trigger(skill, evals, "--runs", "1", "--max-cost", "1", "--out", "r2.json") == 1
    again = TriggerReport.model_validate_json(Path("r2.json").read_text(encoding="utf-8"))
    assert again.cost is not None and again.cost.cache_hits == 5 and again.cost.calls == 15
    assert made.calls == first + 15


def test_improve_dry_run_and_cost_per_round(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    base = ["improve", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs", "1"]
    assert main([*base, "--rounds", "3", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert made.calls == 0
    assert "up to 3 rounds × 20 queries × 1 runs = 60 trigger runs" in out
    assert "proposer: 2 improver call(s)" in out and "estimated cost: $0.0620" in out
    assert main([*base, "--rounds", "3", "--out", "out"]) == 0
    summary = load_loop_summary(tmp_path / "out")
    assert summary.cost is not None and summary.cost.kind == "actual"
    rounds = [it.cost for it in summary.iterations]
    assert all(c is not None for c in rounds)
    assert rounds[0].calls == 20 and rounds[0].lines[0].purpose == "trigger"  # type: ignore[union-attr]
    if len(rounds) > 1:
        purposes = {line.purpose for line in rounds[1].lines}  # type: ignore[union-attr]
        assert purposes == {"trigger", "improve"}
    total = sum(float(c.dollars) for c in rounds)  # type: ignore[union-attr]
    assert float(summary.cost.dollars) == pytest.approx(total)
    frame = round_costs_frame(summary)
    assert list(frame["round"]) == [str(it.round) for it in summary.iterations] + ["total"]
    assert frame["dollars"].iloc[-1] == summary.cost.dollars
    assert "round 1 cost: $0.0200" in capsys.readouterr().out


def test_improve_stops_at_the_cap_with_outputs_written(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    register_estimator(BACKEND, flat_factory(BACKEND, per_call=0.00001))
    base = ["improve", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs", "1"]
    code = main([*base, "--rounds", "5", "--out", "out", "--max-cost", "0.03"])
    assert code == EXIT_COST_CAP
    summary = load_loop_summary(tmp_path / "out")
    assert summary.stop_reason is not None and "stopped at the cost cap" in summary.stop_reason
    assert summary.cost is not None and summary.cost.stopped_at_cap
    assert summary.total_rounds < 5
    best = summary.best_iteration
    assert best is not None and not (best.cost and best.cost.stopped_at_cap)
    assert "stopped: stopped at the cost cap" in capsys.readouterr().out
    # resuming: the folder holds the stopped run's outputs, so a re-run says --overwrite
    spent = made.calls
    assert main([*base, "--rounds", "5", "--out", "out"]) == 2
    assert "--overwrite" in capsys.readouterr().err and made.calls == spent
    assert main([*base, "--rounds", "5", "--out", "out", "--overwrite"]) == 0
    resumed = load_loop_summary(tmp_path / "out")
    assert resumed.cost is not None and not resumed.cost.stopped_at_cap
    assert resumed.cost.cache_hits >= spent  # what the stopped run paid for is not paid again


def test_report_headers_state_the_cost(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.improve.verdict import improve_header
    from skillbench.reports.header import header_lines
    from skillbench.trigger.verdict import trigger_header

    skill, evals = setup(tmp_path)
    trigger(skill, evals, "--runs", "1", "--out", "r.json")
    out = capsys.readouterr().out
    assert "cost: $0.0200: 20 calls, cache hits 0%" in out  # the header the CLI opens with
    report = TriggerReport.model_validate_json(Path("r.json").read_text(encoding="utf-8"))
    header = trigger_header(report)
    assert header.cost is not None and "prices as of" in header.cost
    assert any(line.startswith("  cost: $0.0200") for line in header_lines(header))
    base = ["improve", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs", "1"]
    main([*base, "--rounds", "2", "--out", "out"])
    summary = load_loop_summary(tmp_path / "out")
    assert summary.cost is not None
    assert improve_header(summary).cost == cost_summary(summary.cost)
