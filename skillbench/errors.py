"""Errors skillbench raises for bad input: one clear message naming the file and the field."""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_COST_CAP = 3
"""Refused to start (the estimate exceeds --max-cost) or stopped when the spend reached it."""


class SkillbenchError(Exception):
    """Base class for every error skillbench raises on purpose."""

    exit_code = EXIT_USAGE


class InputError(SkillbenchError):
    """A file or argument the user supplied is unusable.

    The message always names the file (or argument) and, where known, the JSON path or field
    and the rule that was broken. The CLI prints it on one line and exits with code 2.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        field: str | None = None,
        rule: str | None = None,
    ) -> None:
        self.path = str(path) if path is not None else None
        self.field = field
        self.rule = rule
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.path or "<input>"
        if self.field:
            where += f": {self.field}"
        text = f"{where}: {self.detail}"
        if self.rule:
            text += f" [{self.rule}]"
        return text


class BackendError(SkillbenchError):
    """A model backend could not be used (missing key, missing CLI, unreachable server)."""


class CostCapError(SkillbenchError):
    """The estimated cost of a run exceeds the --max-cost cap: refused before any call."""

    exit_code = EXIT_COST_CAP


class CostCapReached(SkillbenchError):
    """A call was asked for after the spend reached the --max-cost cap."""

    exit_code = EXIT_COST_CAP
