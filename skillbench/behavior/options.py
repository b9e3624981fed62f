"""The options of the behavior workflows, each declared once: `RunOptions` (`run_cases`),
`GradeOptions` (`grade_workspace`), `CompareOptions` (`compare`). What they share (backend,
model, the cost cap; the call cache for the two that ask a model) lives in their bases.

All are frozen: derive a variant with `.but(...)` (`dataclasses.replace`, checked again). The
options are checked when the object is built, so a bad value is an `InputError` naming its CLI
flag before any file is read or any call is made.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from skillbench import limits
from skillbench.backends.skill_copy import DEFAULT_MAX_COPY
from skillbench.behavior.execute import DEFAULT_CONFIGS
from skillbench.cost.budget import parse_max_cost
from skillbench.errors import InputError
from skillbench.schemas.registry import WRITING_SKILLS

DIALECTS: tuple[str, ...] = ("all", "skill-creator", "writing-skills")
"""What `grade --dialect` writes: both dialects' gradings, or one."""


@dataclass(frozen=True, kw_only=True)
class BehaviorOptions:
    """What every behavior workflow takes: which backend and model, and what it may spend."""

    backend: str | None = None
    """Backend name (`local`, `anthropic`, `claude-code`, a plugin's); None means
    `$SKILLBENCH_BACKEND`, else `local`."""
    model: str | None = None
    """Model name for the backend (None: its default)."""
    max_cost: float | None = None
    """USD: refuse to start when the plan's estimate exceeds it, then stop starting calls once
    spent (see `cost.limit`); None: the active `cost_limit`'s cap, if any."""

    def __post_init__(self) -> None:
        """The cap is checked as `--max-cost` is everywhere (`cost.budget.parse_max_cost`: a
        positive, finite number of dollars; "0.5" from papermill or YAML is read as 0.5)."""
        object.__setattr__(self, "max_cost", parse_max_cost(self.max_cost, env=False))

    def but(self, **changes: Any) -> Self:
        """A copy with `changes` applied (`dataclasses.replace`; checked again)."""
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True, kw_only=True)
class CachedOptions(BehaviorOptions):
    """A workflow whose model answers go through the call cache (grading, comparing)."""

    use_cache: bool = True
    """Serve repeated calls from the call cache (a re-run makes zero calls)."""
    cache_path: str | Path | None = None
    """The call cache's file (None: the default location)."""


@dataclass(frozen=True, kw_only=True)
class RunOptions(BehaviorOptions):
    """How `run_cases` executes the eval cases: which configurations, how many runs, how
    concurrently."""

    backend: str = "local"
    """Backend name; `local` replays the recorded sample runs."""
    configs: Sequence[str] = DEFAULT_CONFIGS
    """The configurations to run each case in (`with_skill`, `baseline`, `v<N>`, …)."""
    runs: int = 3
    """Runs per case and configuration."""
    workers: int = 2
    """Concurrent runs."""
    timeout: float | None = None
    """Seconds one run may take (None: the backend's own per-session limit)."""
    samples_dir: str | Path | None = None
    """Recorded samples replayed by an offline backend (None: `data/runs/<folder name>/`)."""
    max_copy: int = DEFAULT_MAX_COPY
    """Bytes a claude-code session's project may receive (what would pass it is left out)."""
    max_output: int = limits.DEFAULT_MAX_OUTPUT
    """Bytes of files one run may keep (`--max-output`): past it the run is an error and only
    the files that fit are kept."""

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "configs", tuple(self.configs))
        limits.check_int(self.runs, "--runs", 1, limits.MAX_RUNS)
        limits.check_int(self.workers, "--workers", 1, limits.MAX_WORKERS)
        limits.check_timeout(self.timeout)
        limits.check_int(self.max_output, "--max-output", 1, 2**62)


@dataclass(frozen=True, kw_only=True)
class GradeOptions(CachedOptions):
    """How `grade_workspace` grades the workspace's runs."""

    dialect: str = "all"
    """The gradings written: `all`, `skill-creator` or `writing-skills`."""
    configs: Sequence[str] | None = None
    """The configurations graded (None: every one in the workspace)."""
    force: bool = False
    """Replace gradings made by another grader (backend or model)."""
    repeats: int = 1
    """Times the grader is asked about each run (`--repeats`, 1 to `limits.MAX_GRADE_REPEATS`):
    the stored verdict is the majority (a tie fails) and every verdict is recorded."""

    def __post_init__(self) -> None:
        super().__post_init__()
        limits.check_int(self.repeats, "--repeats", 1, limits.MAX_GRADE_REPEATS)
        if self.configs is not None:
            object.__setattr__(self, "configs", tuple(self.configs))
        if self.dialect not in DIALECTS:
            raise InputError(
                f"unknown dialect {self.dialect!r}; choose {', '.join(DIALECTS)}", path="--dialect"
            )


@dataclass(frozen=True, kw_only=True)
class CompareOptions(CachedOptions):
    """How `compare` judges two configurations blind and analyses the result."""

    dialect: str = WRITING_SKILLS
    """The shape of the comparison and analysis files (`writing-skills` or `skill-creator`)."""
    seed: int = 0
    """Seed of the A/B order."""
    workers: int = 4
    """Pairs judged at once."""
    analyze: bool = True
    """Run the analyzer after the comparison."""

    def __post_init__(self) -> None:
        super().__post_init__()
        limits.check_int(self.seed, "--seed", 0, limits.MAX_SEED)
        limits.check_int(self.workers, "--workers", 1, limits.MAX_WORKERS)
