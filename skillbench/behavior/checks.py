"""Deterministic expectation checks: graded from the run folder alone, never by a model.

The check shape and its semantics are defined in `skillbench.behavior.records.ExpectationCheck`.
Every outcome carries evidence: the matched text, or the reason the check failed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import regex

from skillbench.behavior.records import ExpectationCheck
from skillbench.behavior.world_checks import HERMETIC_CHECKS, world_check

EVIDENCE_LIMIT = 300
#: Time bound of one regex check (the `regex` package stops a catastrophic backtrack).
REGEX_TIMEOUT_SECONDS = 2.0
OUTPUTS = "outputs"


@dataclass(frozen=True)
class RunMaterial:
    """What a check (or the model grader) may look at in one run folder."""

    run_dir: Path
    final_text: str = ""

    @property
    def outputs_dir(self) -> Path:
        """The run's outputs/ folder."""
        return self.run_dir / OUTPUTS

    def transcript(self) -> str | None:
        """transcript.md, or None when the run has none."""
        path = self.run_dir / "transcript.md"
        return _read_text(path) if path.is_file() else None


@dataclass(frozen=True)
class CheckOutcome:
    """The verdict of one deterministic check, with evidence."""

    passed: bool | None  # None: the check could not decide (a regex over its time bound)
    evidence: str


def _read_text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _clip(text: str, limit: int = EVIDENCE_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _inside(base: Path, candidate: Path) -> bool:
    try:
        candidate.resolve().relative_to(base.resolve())
    except ValueError:
        return False
    return True


def _target_files(check: ExpectationCheck, run: RunMaterial) -> list[Path]:
    relative = check.target[len(OUTPUTS) + 1 :]
    base = run.outputs_dir
    if not base.is_dir() or not relative:
        return []
    matches = (
        sorted(base.glob(relative)) if any(c in relative for c in "*?[") else [base / relative]
    )
    return [p for p in matches if p.is_file() and _inside(base, p)]


def _target_text(check: ExpectationCheck, run: RunMaterial) -> tuple[str | None, str]:
    """(text, label) of the check's target; text None with the reason as label when missing."""
    if check.target == "final_text":
        return run.final_text, "the final reply"
    if check.target == "transcript":
        text = run.transcript()
        return (
            (text, "transcript.md") if text is not None else (None, "no transcript.md in the run")
        )
    files = _target_files(check, run)
    if not files:
        return None, f"{check.target} does not exist in the run"
    return _read_text(files[0]), files[0].relative_to(run.run_dir).as_posix()


def run_check(check: ExpectationCheck, run: RunMaterial) -> CheckOutcome:
    """Grade one expectation's machine-checkable form against a run folder."""
    if check.type in HERMETIC_CHECKS:
        return CheckOutcome(*world_check(check, run.run_dir))
    if check.type == "file_exists":
        files = _target_files(check, run)
        if files:
            names = ", ".join(p.relative_to(run.run_dir).as_posix() for p in files[:5])
            return CheckOutcome(True, f"found: {names}")
        return CheckOutcome(False, f"{check.target} does not exist in the run")
    text, label = _target_text(check, run)
    if text is None:
        return CheckOutcome(False, label)
    if check.type == "regex":
        return _regex(check.pattern or "", text, label)
    if check.type == "contains":
        return _contains(str(check.value), text, label)
    if check.type == "json_valid":
        return _json_valid(text, label)
    return _max_lines(int(check.value or 0), text, label)


def _regex(pattern: str, text: str, label: str) -> CheckOutcome:
    try:
        found = regex.search(pattern, text, regex.MULTILINE, timeout=REGEX_TIMEOUT_SECONDS)
    except regex.error as exc:
        return CheckOutcome(False, f"invalid regex {pattern!r}: {exc}")
    except TimeoutError:  # undecided: an error, never counted as a failure
        return CheckOutcome(
            None, f"regex /{_clip(pattern, 80)}/ timed out after {REGEX_TIMEOUT_SECONDS:g} s"
        )
    if found is None:
        return CheckOutcome(False, f"no match for /{pattern}/ in {label}")
    return CheckOutcome(True, f"matched in {label}: {_clip(found.group(0))!r}")


def _contains(value: str, text: str, label: str) -> CheckOutcome:
    at = text.find(value)
    if at < 0:
        return CheckOutcome(False, f"{value!r} not found in {label}")
    start, end = max(0, at - 40), min(len(text), at + len(value) + 40)
    return CheckOutcome(True, f"found in {label}: {_clip(text[start:end])!r}")


def _json_valid(text: str, label: str) -> CheckOutcome:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return CheckOutcome(False, f"{label} is not valid JSON: {exc.msg} at line {exc.lineno}")
    return CheckOutcome(True, f"{label} parses as JSON ({type(value).__name__})")


def _max_lines(limit: int, text: str, label: str) -> CheckOutcome:
    count = len(text.splitlines())
    verdict = count <= limit
    relation = "≤" if verdict else ">"
    return CheckOutcome(verdict, f"{label} has {count} lines ({relation} {limit})")
