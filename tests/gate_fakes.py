"""A trigger judge with known per-query trigger probabilities, for the gate's tests and
benchmark: each run triggers when a uniform number drawn from a hash of (seed, run index,
query, description) falls below the query's probability under that description. Deterministic,
so the call cache's answers and a fresh judge's agree; no network, no model."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from skillbench.backends.base import CallUsage, TriggerOutcome, TriggerRequest

Rates = Callable[[str, str], float]
"""(description, query) → probability that the run triggers."""


def uniform(*parts: object) -> float:
    """A number in [0, 1) fixed by `parts`."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class ProbabilityJudge:
    """Triggers query q under description d with probability rates(d, q)."""

    def __init__(self, rates: Rates, *, name: str = "fake-p", label: str = "v1") -> None:
        self.rates = rates
        self.name = name
        self.model: str | None = "fake-p-1"
        self.is_proxy = False
        self.label = label
        self.calls = 0

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "table": self.label}

    def versions(self) -> dict[str, str]:
        return {"fake-p": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.calls += 1
        p = self.rates(request.target.description, request.query)
        draw = uniform(request.seed, request.run_index, request.query, request.target.description)
        usage = CallUsage(input_tokens=10, output_tokens=1, cost_usd=0.0001)
        if draw < p:
            return TriggerOutcome(True, fired=request.target.name, usage=usage)
        return TriggerOutcome(False, usage=usage)

    async def aclose(self) -> None:
        return None


def table_rates(base: Mapping[str, float], changed: Mapping[str, Mapping[str, float]]) -> Rates:
    """Rates from a base table; a description listed in `changed` overrides some queries."""

    def rates(description: str, query: str) -> float:
        return changed.get(description, {}).get(query, base.get(query, 0.0))

    return rates


def git(cwd: Path, *args: str) -> str:
    """Run git quietly with a fixed identity; its stdout."""
    env_args = [
        "-c",
        "user.email=t@example.invalid",
        "-c",
        "user.name=t",
        "-c",
        "commit.gpgsign=false",
    ]
    done = subprocess.run(
        ["git", *env_args, *args], cwd=cwd, check=True, capture_output=True, text=True
    )
    return done.stdout


def write_skill(folder: Path, description: str, name: str = "gate-skill") -> Path:
    """A minimal skill folder with this description."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the thing.\n",
        encoding="utf-8",
    )
    return folder


def skill_repo(root: Path, base_description: str, head_description: str | None = None) -> Path:
    """A git repository with skills/gate-skill committed on main with `base_description`;
    with `head_description`, the working tree's SKILL.md says that instead (uncommitted)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    skill = write_skill(root / "skills" / "gate-skill", base_description)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    if head_description is not None:
        write_skill(skill, head_description)
    return skill
