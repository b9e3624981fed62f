"""One typed options object per behavior workflow (issue 22.3): `run_cases`, `grade_workspace`
and `compare` take `RunOptions` / `GradeOptions` / `CompareOptions` (shared fields declared once
in their bases), checked when built with errors naming the CLI flag; no public function of
skillbench takes more than 9 parameters, and the `*_sync` forms show their real ones."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import pytest

import skillbench
from skillbench.behavior import compare_run, grade, run
from skillbench.behavior.options import (
    BehaviorOptions,
    CachedOptions,
    CompareOptions,
    GradeOptions,
    RunOptions,
)
from skillbench.errors import InputError
from skillbench.reports import header

MOST_PARAMETERS = 9

ENTRY_POINTS = [
    run.run_cases,
    grade.grade_workspace,
    grade.grade_workspace_sync,
    grade.plan_grade,
    compare_run.compare,
    compare_run.compare_sync,
    compare_run.plan_compare_run,
    header.make_header,
]

# Wide today and being narrowed elsewhere in issue 22 (the trigger and improve planners, owned
# by the cost work): listed so the sweep below still catches every new wide function.
NOT_YET_NARROW: set[str] = set()


@pytest.mark.parametrize("function", ENTRY_POINTS, ids=lambda f: f.__name__)
def test_behavior_entry_points_are_narrow_and_typed(function: Callable[..., Any]) -> None:
    signature = inspect.signature(function)
    kinds = {p.kind for p in signature.parameters.values()}
    assert inspect.Parameter.VAR_KEYWORD not in kinds, f"{function}{signature}"
    assert len(signature.parameters) <= 8, f"{function}{signature}"
    assert all(p.annotation is not inspect.Parameter.empty for p in signature.parameters.values())
    assert signature.return_annotation is not inspect.Signature.empty


def _public_functions() -> list[tuple[str, Callable[..., Any]]]:
    found = []
    for info in pkgutil.walk_packages(skillbench.__path__, "skillbench."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(value):
                continue
            if getattr(value, "__module__", None) != module.__name__:
                continue
            found.append((f"{module.__name__}.{name}", value))
    return found


def test_no_public_function_of_skillbench_is_wide() -> None:
    """Every module-level public function (the `*_sync` forms too) takes at most 9 parameters."""
    wide = {
        f"{name}{inspect.signature(function)}"
        for name, function in _public_functions()
        if len(inspect.signature(function).parameters) > MOST_PARAMETERS
        and name not in NOT_YET_NARROW
    }
    assert not wide


@pytest.mark.parametrize(
    "function", [grade.grade_workspace_sync, compare_run.compare_sync], ids=lambda f: f.__name__
)
def test_sync_forms_keep_the_coroutines_signature(function: Callable[..., Any]) -> None:
    wrapped = function.__wrapped__  # type: ignore[attr-defined]
    assert inspect.signature(function) == inspect.signature(wrapped)
    assert "options" in inspect.signature(function).parameters


def test_shared_options_are_declared_once() -> None:
    """backend, model and max_cost live in the base; the cache options in `CachedOptions`."""
    for kind in (RunOptions, GradeOptions, CompareOptions):
        assert issubclass(kind, BehaviorOptions)
    assert issubclass(GradeOptions, CachedOptions) and issubclass(CompareOptions, CachedOptions)
    shared = {f.name for f in dataclasses.fields(BehaviorOptions)}
    assert shared == {"backend", "model", "max_cost"}
    for function in ENTRY_POINTS:
        if function is grade.plan_grade:  # a planner of a resolved backend: five parameters
            continue
        shown = set(inspect.signature(function).parameters)
        assert not shown & (shared | {"runs", "workers", "timeout", "use_cache", "dialect"})


@pytest.mark.parametrize(
    ("kind", "changes", "flag"),
    [
        (RunOptions, {"runs": 0}, "--runs"),
        (RunOptions, {"runs": 10_000}, "--runs"),
        (RunOptions, {"workers": 0}, "--workers"),
        (RunOptions, {"timeout": -1.0}, "--timeout"),
        (RunOptions, {"max_cost": -1.0}, "--max-cost"),
        (GradeOptions, {"dialect": "yaml"}, "--dialect"),
        (GradeOptions, {"max_cost": float("nan")}, "--max-cost"),
        (CompareOptions, {"seed": -1}, "--seed"),
        (CompareOptions, {"workers": 1000}, "--workers"),
        (CompareOptions, {"max_cost": "five"}, "--max-cost"),
    ],
)
def test_bad_options_are_refused_when_built_naming_the_flag(
    kind: type[BehaviorOptions], changes: dict[str, Any], flag: str
) -> None:
    with pytest.raises(InputError) as caught:
        kind(**changes)
    assert flag in str(caught.value)
    with pytest.raises(InputError):  # a copy is checked again
        kind().but(**changes)


def test_options_are_frozen_with_the_libraries_defaults() -> None:
    options = RunOptions(configs=["v1", "v0"], runs=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.runs = 5  # type: ignore[misc]
    assert options.configs == ("v1", "v0")  # a list is kept as a tuple
    assert (RunOptions().backend, RunOptions().workers, RunOptions().runs) == ("local", 2, 3)
    assert (GradeOptions().dialect, GradeOptions().backend, GradeOptions().force) == (
        "all",
        None,
        False,
    )
    compare = CompareOptions()
    assert (compare.dialect, compare.seed, compare.workers, compare.analyze) == (
        "writing-skills",
        0,
        4,
        True,
    )
    assert CompareOptions(max_cost="0.5").max_cost == 0.5  # papermill and YAML pass text
    assert options.but(runs=4).runs == 4 and options.runs == 2


def test_make_header_takes_one_inputs_object(tmp_path: Any) -> None:
    evals = tmp_path / "e.json"
    evals.write_text("{}")
    made = header.make_header(
        "T",
        header.Verdict(ok=True, line="fine"),
        header.HeaderInputs(skill="s", eval_set=evals, backend="local", runs=3),
    )
    assert (made.skill, made.backend, made.runs, made.eval_set) == ("s", "local", "3", str(evals))
    assert made.eval_set_sha256 is not None
