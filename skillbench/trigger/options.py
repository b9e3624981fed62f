"""The options of a trigger eval, declared once: `TriggerOptions`, shared by the trigger eval, the
improvement loop (inside `ImproveOptions`), the agreement experiment and whatever runs trigger
evals next; and `EvalContext`, what one eval is run with beside its queries (the skill's body,
the competing catalog, and where the inputs came from, for the report).

Both are frozen: derive a variant with `dataclasses.replace` (or `TriggerOptions.but`). The numeric
options are checked when the object is built, so a bad value is an `InputError` naming its CLI flag
before any file is read or any call is made.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from skillbench import limits
from skillbench.backends.base import SkillEntry
from skillbench.errors import InputError
from skillbench.schemas.trigger import CatalogInfo

Runs = int | Literal["auto"]


@dataclass(frozen=True, kw_only=True)
class TriggerOptions:
    """How to run a trigger eval: which backend, how many runs, how concurrently, what to spend.

    Runs per query default to `limits.DEFAULT_RUNS`, as in the CLI and the notebooks.
    """

    # which model, through which backend
    backend: str | None = None
    """Backend name (`local`, `lexical`, `anthropic`, `claude-code`, a plugin's); None means
    `$SKILLBENCH_BACKEND`, else `local`."""
    model: str | None = None
    """Model name for the backend (None: its default)."""
    harness: str | None = None
    """The anthropic backend's trigger harness (`replay`, the default, or `minimal`)."""
    cache_before_query: bool = False
    """Replay harness: one prompt-cache breakpoint before the query (`--cache-before-query`)."""
    project: str | Path | None = None
    """Replay harness: capture Claude Code's request as inside this repository (`--project`)."""
    as_user: str | Path | None = None
    """Replay harness: capture Claude Code's request with this user's configuration (`--as-user
    [HOME]`, `"~"` for your own): settings, CLAUDE.md, personal and plugin skills, output
    styles and usage history, read-only, cut of what runs commands or holds a credential."""
    batch: bool = False
    """Send each wave as one Message Batch (`--batch`; no per-run `timeout` then)."""
    backend_options: Mapping[str, Any] | None = None
    """Any other keyword for the backend's judge (e.g. `{"auth": "login"}` for claude-code)."""
    cli_mode: str | None = None
    """How Claude Code's CLI runs (`--cli-mode`): `interactive` (the CLI users type into,
    driven in a pty) or `print` (`claude -p`, headless and SDK users), for the claude-code
    backend's sessions and the replay harness's capture; None means interactive there. Other
    backends take no mode."""
    escalate: bool = False
    """Re-run undecided runs (another tool first) through the claude-code backend."""

    # sampling and the verdict
    runs: Runs = limits.DEFAULT_RUNS
    """Runs per query, or `"auto"`: sample in waves until each verdict is settled."""
    max_runs: int = 10
    """The most runs of one query with `runs="auto"`."""
    confidence: float = 0.95
    """Confidence of the Wilson intervals (and of `runs="auto"`'s stopping rule)."""
    threshold: float = 0.5
    """A should-trigger query passes when its trigger rate reaches this (a should-not below)."""
    seed: int = 0
    """Seed handed to the backend with every run."""

    # how it runs
    workers: int | None = None
    """Concurrent runs (None: the backend's default, see `BackendSpec.default_workers`)."""
    timeout: float | None = None
    """Seconds one run may take (None: the backend's own per-call limit)."""
    catalog_dir: str | Path | None = None
    """Competing skills: a folder, `"installed"` or `"none"` (None: no competition)."""
    use_cache: bool = True
    """Serve repeated calls from the call cache (a re-run makes zero calls)."""
    cache_path: str | Path | None = None
    """The call cache's file (None: the default location)."""
    max_cost: float | None = None
    """USD: refuse to start when the estimate exceeds it; stop starting calls once spent."""

    def __post_init__(self) -> None:
        if self.runs != "auto":
            limits.check_int(self.runs, "--runs", 1, limits.MAX_RUNS)
        limits.check_int(self.max_runs, "--max-runs", 1, limits.MAX_RUNS)
        limits.check_float(self.confidence, "--confidence", 0.0, 1.0, low_open=True)
        if self.confidence >= 1.0:
            raise InputError("must be below 1", path="--confidence")
        limits.check_float(self.threshold, "--threshold", 0.0, 1.0)
        if self.workers is not None:
            limits.check_int(self.workers, "--workers", 1, limits.MAX_WORKERS)
        limits.check_timeout(self.timeout)
        if self.cli_mode is not None:
            from skillbench.backends.claude_cli.interactive import check_cli_mode

            check_cli_mode(self.cli_mode)

    def but(self, **changes: Any) -> TriggerOptions:
        """A copy with `changes` applied (`dataclasses.replace`; checked again)."""
        return dataclasses.replace(self, **changes)

    def judge_options(self) -> dict[str, Any]:
        """The keywords for the backend's judge: `backend_options`, the harness, `batch`,
        `project`, `as_user` (only those set, so a default run keys the call cache as before)
        and, on a backend that runs Claude Code's CLI, the CLI mode (`judge_cli_mode`)."""
        from skillbench.backends.registry import harness_options

        options: dict[str, Any] = {"batch": True} if self.batch else {}
        options.update(self.backend_options or {})
        options.update(harness_options(self.harness, cache_before_query=self.cache_before_query))
        if self.project is not None:
            options["project"] = self.project
        if self.as_user is not None:
            options["as_user"] = self.as_user
        mode = self.judge_cli_mode(options.get("harness"))
        if mode is not None:
            options["cli_mode"] = mode
        return options

    def judge_cli_mode(self, harness: str | None = None) -> str | None:
        """The CLI mode the judge runs with (`cli_mode`, else interactive); None when the
        backend takes none (`registry.takes_cli_mode`: the claude-code backend and the replay
        harness do; `harness`, else `self.harness`: a harness may come in `backend_options`)."""
        from skillbench.backends.claude_cli.interactive import DEFAULT_CLI_MODE
        from skillbench.backends.registry import takes_cli_mode

        if takes_cli_mode(self.backend, harness or self.harness):
            return self.cli_mode or DEFAULT_CLI_MODE
        return None


@dataclass(frozen=True, kw_only=True)
class EvalContext:
    """What one eval runs with beside its queries and options: the skill's body and folder (the
    CLI harness installs it whole), the competing catalog, and the inputs' provenance for the
    report (eval file, catalog source)."""

    body: str = ""
    catalog: tuple[SkillEntry, ...] = field(default=())
    folder: str | Path | None = None
    content_hash: str | None = None
    evals_file: str | Path | None = None
    catalog_info: CatalogInfo | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "catalog", tuple(self.catalog))

    @property
    def source(self) -> str:
        """How messages name the eval set: its file, else "eval set"."""
        return str(self.evals_file) if self.evals_file is not None else "eval set"


DEFAULT_OPTIONS = TriggerOptions()
DEFAULT_CONTEXT = EvalContext()
