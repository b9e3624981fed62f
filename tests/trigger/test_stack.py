"""`trigger.stack`: the one judge stack of trigger, library, improve and gate (issue 37)."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

from skillbench.aio import run_sync
from skillbench.backends.base import SkillEntry, TriggerOutcome, TriggerRequest
from skillbench.backends.registry import register_judge
from skillbench.backends.spec import unregister_backend
from skillbench.cost.budget import Budget, MeteredJudge
from skillbench.gate.run import GateOptions
from skillbench.trigger.options import TriggerOptions
from skillbench.trigger.stack import judge_stack, with_default_workers

PACKAGE = Path(__file__).resolve().parents[2] / "skillbench"
CLOSED: list[str] = []


class _Judge:
    name, model, is_proxy = "stack-fake", "m", False

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name}

    def versions(self) -> dict[str, str]:
        return {}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        return TriggerOutcome(triggered=True)

    async def aclose(self) -> None:
        CLOSED.append("judge")


def test_the_stack_meters_caches_and_closes(tmp_path: Path) -> None:
    register_judge("stack-fake", lambda **_: _Judge())
    try:
        options = TriggerOptions(backend="stack-fake", cache_path=tmp_path / "c.sqlite")
        request = TriggerRequest(SkillEntry("a", "does a"), (), "q", 0, 0)

        async def go() -> tuple[Any, Any, bool]:
            async with judge_stack(options, Budget()) as stack:
                assert isinstance(stack.judge, MeteredJudge)
                first = await stack.judge.judge(request)
                again = await stack.judge.judge(request)
                return first, again, stack.cache is not None

        CLOSED.clear()
        first, again, cached = run_sync(go)
        assert first.triggered and again.triggered and cached
        assert CLOSED == ["judge"]

        async def bare() -> Any:
            async with judge_stack(options.but(use_cache=False), None) as stack:
                return stack.judge, stack.cache

        judge, cache = run_sync(bare)
        assert not isinstance(judge, MeteredJudge) and cache is None
        assert with_default_workers(options).workers is not None
    finally:
        unregister_backend("stack-fake")


def test_no_question_package_builds_a_judge_stack_of_its_own() -> None:
    found = []
    for package in ("trigger", "library", "improve", "gate", "cli"):
        for path in sorted((PACKAGE / package).rglob("*.py")):
            if path.name == "stack.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call):
                    name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                    if name in ("cached_judge", "MeteredJudge"):
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {name}")
    assert not found, "open trigger.stack.judge_stack instead:\n" + "\n".join(found)


def test_gate_options_reuse_trigger_options() -> None:
    gate = {f.name for f in dataclasses.fields(GateOptions)}
    # runs alone is the gate's own: a number or "planned" (a pilot, then what the power needs)
    assert gate & {f.name for f in dataclasses.fields(TriggerOptions)} == {"runs"}
    assert GateOptions().trigger == TriggerOptions()
