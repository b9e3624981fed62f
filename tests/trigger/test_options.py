"""One typed options object per workflow (issue 22.3): the trigger options are declared once
(`TriggerOptions`), every public entry point takes at most about 8 parameters, and the blocking
`*_sync` forms show their real parameters (no `**options: Any`)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from skillbench.errors import InputError
from skillbench.improve import loop as improve_loop
from skillbench.improve import run as improve_run
from skillbench.improve.options import ImproveOptions
from skillbench.trigger import agreement, run
from skillbench.trigger.options import EvalContext, TriggerOptions

ENTRY_POINTS = [
    run.run_trigger_eval,
    run.run_trigger_eval_sync,
    run.evaluate_description,
    run.evaluate_description_sync,
    run.evaluate_skill,
    run.evaluate_skill_sync,
    run.plan_skill_eval,
    improve_loop.run_improve_loop,
    improve_loop.run_improve_loop_sync,
    improve_run.improve_skill,
    improve_run.improve_skill_sync,
    improve_run.plan_improve,
    improve_run.improve_warnings,
    improve_run.planned_split,
    agreement.run_agreement,
    agreement.run_agreement_sync,
]


@pytest.mark.parametrize("function", ENTRY_POINTS, ids=lambda f: f.__name__)
def test_entry_points_are_narrow_and_typed(function: object) -> None:
    signature = inspect.signature(function, eval_str=True)  # type: ignore[arg-type]
    kinds = {p.kind for p in signature.parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{function}{signature}"
    assert len(signature.parameters) <= 9, f"{function}{signature}"
    missing = [
        n for n, p in signature.parameters.items() if p.annotation is inspect.Parameter.empty
    ]
    assert not missing


@pytest.mark.parametrize(
    "function",
    [run.run_trigger_eval_sync, run.evaluate_description_sync, improve_loop.run_improve_loop_sync],
    ids=lambda f: f.__name__,
)
def test_sync_forms_have_the_coroutines_signature(function: object) -> None:
    """The three that were `**options: Any` wrappers now show the coroutine's parameters."""
    wrapped = function.__wrapped__  # type: ignore[attr-defined]
    assert inspect.signature(function) == inspect.signature(wrapped)  # type: ignore[arg-type]
    assert "options" in inspect.signature(function).parameters  # type: ignore[arg-type]


def test_the_trigger_options_are_declared_once() -> None:
    """No entry point repeats a sampling option of TriggerOptions as its own parameter."""
    sampling = {"runs", "max_runs", "confidence", "threshold", "seed", "workers", "timeout"}
    for function in ENTRY_POINTS:
        shown = set(inspect.signature(function).parameters)  # type: ignore[arg-type]
        assert not (shown & sampling), function


@pytest.mark.parametrize(
    ("changes", "flag"),
    [
        ({"runs": 0}, "--runs"),
        ({"runs": "sometimes"}, "--runs"),
        ({"max_runs": 10_000}, "--max-runs"),
        ({"confidence": 1.0}, "--confidence"),
        ({"threshold": 1.5}, "--threshold"),
        ({"workers": 0}, "--workers"),
        ({"timeout": -1.0}, "--timeout"),
    ],
)
def test_bad_options_are_refused_when_built_naming_the_flag(
    changes: dict[str, object], flag: str
) -> None:
    with pytest.raises(InputError) as caught:
        TriggerOptions(**changes)  # type: ignore[arg-type]
    assert flag in str(caught.value)
    with pytest.raises(InputError):  # a copy is checked again
        TriggerOptions().but(**changes)


def test_options_are_frozen_and_copied_with_but() -> None:
    options = TriggerOptions(runs=4, backend="lexical")
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.runs = 5  # type: ignore[misc]
    changed = options.but(seed=7)
    assert (changed.runs, changed.backend, changed.seed, options.seed) == (4, "lexical", 7, 0)


def test_judge_options_carry_only_what_is_set() -> None:
    """A default run keys the call cache as before: no option appears that was not set."""
    assert TriggerOptions().judge_options() == {}
    options = TriggerOptions(
        backend="anthropic",
        harness="replay",
        cache_before_query=True,
        project="/tmp/p",
        batch=True,
        backend_options={"auth": "env"},
    )
    assert options.judge_options() == {
        "batch": True,
        "auth": "env",
        "harness": "replay",
        "cache_before_query": True,
        "project": "/tmp/p",
        "cli_mode": "interactive",
    }


def test_the_replay_harness_captures_the_interactive_cli_unless_print_is_asked() -> None:
    """Issue 32: interactive is the default of the replay harness and of the claude-code
    backend; print is asked for; other backends and the minimal harness never receive the
    option (their judges run no Claude Code CLI)."""
    replay = TriggerOptions(backend="anthropic")
    assert replay.judge_options() == {"cli_mode": "interactive"}
    assert replay.but(cli_mode="print").judge_options() == {"cli_mode": "print"}
    assert replay.but(harness="minimal").judge_options() == {"harness": "minimal"}
    given = replay.but(backend_options={"harness": "minimal"})  # the harness as an option
    assert given.judge_options() == {"harness": "minimal"}
    sessions = TriggerOptions(backend="claude-code")
    assert sessions.judge_options() == {"cli_mode": "interactive"}
    assert sessions.but(cli_mode="print").judge_options() == {"cli_mode": "print"}
    assert TriggerOptions(backend="lexical").judge_options() == {}
    with pytest.raises(InputError, match="--cli-mode"):
        TriggerOptions(cli_mode="tty")


def test_improve_options_hold_the_trigger_options() -> None:
    options = ImproveOptions(trigger=TriggerOptions(runs=2, seed=5), rounds=3)
    assert (options.runs, options.drawn_split_seed) == (2, 5)
    assert options.but(split_seed=9).drawn_split_seed == 9
    for bad in ({"rounds": 0}, {"adopt_alpha": 1.0}, {"trigger": TriggerOptions(runs="auto")}):
        with pytest.raises(InputError):
            ImproveOptions(**bad)  # type: ignore[arg-type]


def test_agreement_sides_share_the_trigger_options() -> None:
    options = agreement.AgreementOptions(
        trigger=TriggerOptions(runs=4, seed=3, model="m"),
        backend_a="local",
        backend_b="lexical",
        model_b="other",
        backend_options_b={"project": "/p"},
    )
    a, b = options.side("a"), options.side("b")
    assert (a.backend, a.model, a.runs, a.seed, a.backend_options) == ("local", "m", 4, 3, None)
    assert (b.backend, b.model, b.runs, b.backend_options) == (
        "lexical",
        "other",
        4,
        {"project": "/p"},
    )


@pytest.mark.parametrize(("given", "mode"), [(None, "interactive"), ("print", "print")])
def test_both_agreement_sides_run_claude_code_in_the_same_mode(
    given: str | None, mode: str
) -> None:
    """The default pair, the replay against the real CLI: one `--cli-mode` for both, so both
    ask the same CLI's request (interactive unless print is asked for)."""
    options = agreement.AgreementOptions(
        trigger=TriggerOptions(cli_mode=given), backend_a="anthropic", backend_b="claude-code"
    )
    assert options.side("a").judge_options()["cli_mode"] == mode
    assert options.side("b").judge_options()["cli_mode"] == mode


def test_eval_context_keeps_a_catalog_as_a_tuple() -> None:
    context = EvalContext(catalog=[], evals_file="x.json")  # type: ignore[arg-type]
    assert context.catalog == () and context.source == "x.json"
    assert EvalContext().source == "eval set"


def test_only_claude_codes_backends_take_a_cli_mode() -> None:
    """The other agents' replay harnesses take no `cli_mode` (their judges would refuse the
    keyword); `--cli-mode` is refused on them with exit 2 (a fresh clone's run caught codex's
    judge handed `cli_mode`). The replay harness and the claude-code backend take it."""
    from skillbench.cli.common import check_cli_mode
    from skillbench.errors import InputError

    assert TriggerOptions(backend="anthropic").judge_options()["cli_mode"] == "interactive"
    assert TriggerOptions(backend="claude-code").judge_options()["cli_mode"] == "interactive"
    check_cli_mode("print", "claude-code", None)
    for agent in ("codex", "gemini", "opencode"):
        assert "cli_mode" not in TriggerOptions(backend=agent).judge_options()
        with pytest.raises(InputError):
            check_cli_mode("print", agent, None)
