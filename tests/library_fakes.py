"""A scripted routing judge and a small library on disk, for library-routing tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillbench.backends.base import CallUsage, TriggerOutcome, TriggerRequest


class RouterJudge:
    """Answers each run from a per-query script: a list of what fires at run index i (cycled):
    a skill name, "" for none, "?" another tool first (undecided), "!" an error. Queries missing
    from the script fire nothing. Records every request."""

    def __init__(
        self, script: dict[str, list[str]], *, is_proxy: bool = False, name: str = "router"
    ) -> None:
        self.script = script
        self.name = name
        self.model: str | None = "fake-1"
        self.is_proxy = is_proxy
        self.requests: list[TriggerRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}  # a re-scripted judge: same keys

    def versions(self) -> dict[str, str]:
        return {"router": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.requests.append(request)
        pattern = self.script.get(request.query, [""])
        fired = pattern[request.run_index % len(pattern)]
        usage = CallUsage(input_tokens=10, output_tokens=1, cost_usd=0.001)
        if fired == "!":
            return TriggerOutcome(False, error="api error 529 overloaded", usage=usage)
        if fired == "?":
            return TriggerOutcome(False, undecided="Bash", usage=usage)
        return TriggerOutcome(fired == request.target.name, fired=fired or None, usage=usage)

    async def aclose(self) -> None:
        """Nothing to release."""


def write_skill(root: Path, name: str, description: str, evals: list[dict[str, Any]] | None,
                *, where: str = "evals/trigger.json") -> Path:  # fmt: skip
    """A skill folder with SKILL.md and (unless None) its eval set at `where`."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n", encoding="utf-8"
    )
    if evals is not None:
        path = folder / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(evals), encoding="utf-8")
    return folder


def q(text: str, positive: bool = True) -> dict[str, Any]:
    return {"query": text, "should_trigger": positive}


def small_library(root: Path) -> Path:
    """alpha (3 positives, 1 negative), beta (2 positives), gamma (no eval set)."""
    write_skill(root, "alpha", "Alpha things. Use when alpha.",
                [q("a1"), q("a2"), q("a3"), q("n1", False)])  # fmt: skip
    write_skill(root, "beta", "Beta things. Use when beta.", [q("b1"), q("b2")])
    write_skill(root, "gamma", "Gamma things. Use when gamma.", None)
    return root
