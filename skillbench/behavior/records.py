"""Run-level documents of a behavior workspace: `run.json` and machine-checkable expectations.

`RunRecord` is skillbench's own record of one executed run (`runs/<config>/<case>/run-<k>/run.json`).
`ExpectationCheck` is the machine-checkable form an expectation may carry as an extra `"check"` key
(seed 002 expectations): the grader decides it without a model.

Check semantics (the grader implements them; `target` names what is checked):
- target: ``"outputs/<path>"`` (a file in the run's outputs/, glob patterns allowed for
  file_exists), ``"transcript"`` (transcript.md) or ``"final_text"`` (the run's final reply).
- ``file_exists``: the target file exists (for a glob: at least one file matches).
- ``regex``: ``pattern`` (Python `re` syntax, run by the `regex` package with MULTILINE and a
  2 s time bound; a timeout leaves the expectation UNGRADED) is found in the target text.
- ``contains``: the string ``value`` occurs in the target text (case-sensitive).
- ``json_valid``: the target text parses as JSON.
- ``max_lines``: the target text has at most ``value`` (an integer) lines.
A missing target file fails every check except that it is what file_exists reports.

Checks of a hermetic run (a case with an `environment` block; `calls.jsonl` and
`environment.json` in the run folder), all graded without a model:
- ``called`` / ``not_called``: a call of the fake command ``target`` (`gh`, `mcp:<server>` for
  an MCP tool, `ask` for a question of the agent, from `answers.jsonl`, argv `[question,
  answer]`) whose arguments, joined by spaces, match ``pattern`` (any call when no pattern) is /
  is not in the log. A refused call (an unanswered question) counts as made.
- ``called_before``: such a call comes before the first call matching ``then``
  (``{"target", "pattern"}``); both must be in the log.
- ``no_refusals`` (target ``"calls"``): no fake refused a call (questions are not calls).
- ``untouched`` (target ``"outputs/<path>"``): the run neither changed nor deleted the file.
- ``no_egress`` (target ``"calls"``): the session ran with its network confined (`none` or
  `api-only`, a namespace whose only way out is the model API).
A run without `environment.json` fails the call and world checks: nothing was logged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

import regex
from pydantic import BaseModel, Field, StrictInt, model_validator

from skillbench.documents import read_model, validate_part
from skillbench.io import write_json
from skillbench.schemas import skill_creator as sc
from skillbench.schemas.base import Document
from skillbench.schemas.registry import native_entry

RunStatus = Literal["ok", "error"]
CheckType = Literal[
    "file_exists",
    "regex",
    "json_valid",
    "max_lines",
    "contains",
    "called",
    "not_called",
    "called_before",
    "no_refusals",
    "untouched",
    "no_egress",
]
CHECK_TYPES: tuple[str, ...] = get_args(CheckType)
#: Checks of a hermetic run's calls (`calls.jsonl`): the target is a fake's command name.
CALL_CHECKS = frozenset({"called", "not_called", "called_before"})
#: Checks of the whole run's world: the target is "calls".
WORLD_CHECKS = frozenset({"no_refusals", "no_egress"})
SAMPLE_NOTE = "Hand-written SAMPLE run shipped for the offline demo; not produced by a model."


class RunRecord(Document):
    """`run.json`: one executed (or replayed) run of one case under one configuration."""

    omit_if_none = frozenset(
        {
            "note",
            "skill_name",
            "usage",
            "redacted_outputs",
            "withheld_outputs",
            "calls",
            "refusals",
            "questions",
            "unanswered",
        }
    )

    case_id: str
    config: str = Field(description='"with_skill", "baseline" or "v<N>"')
    version: int | None = Field(description="skill version the run used (None: no skill)")
    run_number: StrictInt = Field(ge=1)
    prompt: str
    backend: str
    model: str | None
    status: RunStatus
    error: str | None = None
    final_text: str = ""
    started_at: str
    duration_s: float = Field(ge=0)
    is_sample: bool = False
    skill_name: str | None = None
    note: str | None = Field(default=None, description="e.g. the sample disclaimer")
    usage: dict[str, int] | None = Field(default=None, description="token counts of the run")
    redacted_outputs: list[str] | None = Field(
        default=None, description="output files in which secrets were replaced by [REDACTED]"
    )
    withheld_outputs: list[str] | None = Field(
        default=None, description="output files not saved: binary files holding a secret"
    )
    calls: int | None = Field(
        default=None, description="a hermetic run's fake calls (calls.jsonl lines)"
    )
    refusals: int | None = Field(default=None, description="of which the fakes refused")
    questions: int | None = Field(
        default=None, description="a hermetic run's questions of the agent (answers.jsonl lines)"
    )
    unanswered: int | None = Field(default=None, description="of which nobody answered")

    @model_validator(mode="after")
    def _error_when_failed(self) -> RunRecord:
        if self.status == "error" and not self.error:
            raise ValueError("status is error but no error message is given")
        return self


def _check_call_ref(target: str, pattern: str | None) -> None:
    if not target or any(c.isspace() for c in target) or "/" in target:
        raise ValueError("target must be a command name (a fake's, `mcp:<server>` or `ask`)")
    if pattern is not None:
        try:
            regex.compile(pattern)
        except regex.error as exc:
            raise ValueError(f"invalid regex {pattern!r}: {exc}") from None


class CallRef(Document):
    """A call to look for: a command and a regex over its arguments (joined by spaces)."""

    target: str
    pattern: str | None = None

    @model_validator(mode="after")
    def _valid(self) -> CallRef:
        _check_call_ref(self.target, self.pattern)
        return self


class ExpectationCheck(Document):
    """A machine-checkable form of an expectation (the `"check"` key of a seed 002 expectation)."""

    type: CheckType
    target: str
    pattern: str | None = None
    value: str | int | None = None
    then: CallRef | None = Field(
        default=None, description="called_before: the call that must come after"
    )

    @model_validator(mode="after")
    def _consistent(self) -> ExpectationCheck:
        if self.type in CALL_CHECKS:
            _check_call_ref(self.target, self.pattern)
            if self.type == "called_before" and self.then is None:
                raise ValueError('a called_before check needs "then": {"target", "pattern"}')
            return self
        if self.type in WORLD_CHECKS:
            if self.target != "calls":
                raise ValueError(f'a {self.type} check needs target "calls"')
            return self
        if not (self.target in ("transcript", "final_text") or self.target.startswith("outputs/")):
            raise ValueError('target must be "transcript", "final_text" or "outputs/<path>"')
        if ".." in Path(self.target).parts:
            raise ValueError("target must not contain '..'")
        if self.type == "regex" and not self.pattern:
            raise ValueError("a regex check needs a pattern")
        if self.type == "contains" and not isinstance(self.value, str):
            raise ValueError("a contains check needs a string value")
        if self.type == "max_lines" and not (isinstance(self.value, int) and self.value >= 0):
            raise ValueError("a max_lines check needs a non-negative integer value")
        if self.type in ("file_exists", "untouched") and not self.target.startswith("outputs/"):
            raise ValueError(f'a {self.type} check needs target "outputs/<path>"')
        return self


def parse_check(
    raw: Any, *, path: str | Path | None = None, field: str = "check"
) -> ExpectationCheck:
    """Validate a raw `"check"` object; InputError names the file and the JSON path."""
    return validate_part(ExpectationCheck, raw, path=path, field=field, rule="expectation-check")


def expectation_checks(
    evals: BaseModel, *, path: str | Path | None = None
) -> dict[str, list[ExpectationCheck | None]]:
    """case id (as str) → one check (or None) per expectation, in the evals' order.

    Seed 002 expectations may carry `"check"`; seed 004 expectations are plain strings (None).
    """
    out: dict[str, list[ExpectationCheck | None]] = {}
    cases = getattr(evals, "cases", None)
    if cases is None:
        items = getattr(evals, "evals", None) or getattr(evals, "root", [])
        for case, case_id in zip(items, sc.case_ids(items), strict=True):
            out[str(case_id)] = [None for _ in case.statements()]
        return out
    for ci, case in enumerate(cases):
        checks: list[ExpectationCheck | None] = []
        for ei, expectation in enumerate(case.expectations):
            raw = (expectation.model_extra or {}).get("check")
            checks.append(
                None
                if raw is None
                else parse_check(raw, path=path, field=f"cases[{ci}].expectations[{ei}].check")
            )
        out[str(case.id)] = checks
    return out


def read_run_record(path: str | Path) -> RunRecord:
    """Load a `run.json`; InputError names the file and the field."""
    return read_model(path, RunRecord, rule="run-record")


def write_run_record(record: RunRecord, path: str | Path) -> Path:
    """Write a `run.json` atomically."""
    return write_json(path, record)


RUN_RECORD_DOCUMENT = native_entry(
    "run-record",
    RunRecord,
    ("case_id", "config", "run_number", "backend", "status", "started_at"),
    ("run.json",),
)
"""Registered with the schema registry through the `skillbench.documents` entry point."""
