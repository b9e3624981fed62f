"""The model-free checks of a hermetic run (`called`, `not_called`, `called_before`,
`no_refusals`, `untouched`, `no_egress`; semantics in `behavior.records`), graded from the run
folder's `calls.jsonl`, `answers.jsonl` (the questions, as calls of `ask`) and
`environment.json`. Every outcome carries its evidence."""

from __future__ import annotations

from pathlib import Path

import regex

from skillbench.behavior.records import CallRef, ExpectationCheck
from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.hermetic.answers import ANSWERS_FILE, read_answers
from skillbench.hermetic.calls import CALLS_FILE, CallRecord, read_calls
from skillbench.hermetic.world import ENVIRONMENT_FILE, HermeticRecord

__all__ = ["HERMETIC_CHECKS", "WorldOutcome", "world_check"]

HERMETIC_CHECKS = frozenset(
    {"called", "not_called", "called_before", "no_refusals", "untouched", "no_egress"}
)
EVIDENCE_CALLS = 3

WorldOutcome = tuple[bool | None, str]


def _record(run_dir: Path) -> HermeticRecord | None:
    path = run_dir / ENVIRONMENT_FILE
    if not path.is_file():
        return None
    try:
        return read_model(path, HermeticRecord)
    except InputError:
        return None


def _matches(call: CallRecord, ref: CallRef | ExpectationCheck) -> bool:
    if call.command != ref.target:
        return False
    return ref.pattern is None or regex.search(ref.pattern, " ".join(call.argv)) is not None


def _describe(ref: CallRef | ExpectationCheck) -> str:
    return ref.target + (f" /{ref.pattern}/" if ref.pattern else "")


def _listed(calls: list[CallRecord]) -> str:
    shown = "; ".join(f"#{c.sequence} {c.line()[:80]}" for c in calls[:EVIDENCE_CALLS])
    more = f" (+{len(calls) - EVIDENCE_CALLS} more)" if len(calls) > EVIDENCE_CALLS else ""
    return shown + more


def world_check(check: ExpectationCheck, run_dir: Path) -> WorldOutcome:
    """Grade one hermetic check against a run folder: (passed, evidence)."""
    record = _record(run_dir)
    if check.type == "untouched":
        return _untouched(check.target.removeprefix("outputs/"), run_dir, record)
    if record is None:
        return False, "no environment.json in the run: it was not hermetic, nothing was logged"
    if check.type == "no_egress":
        if record.network_confined:
            return True, f"network {record.network}: the session ran in a namespace"
        return False, f"network {record.network}: the session could reach the network"
    calls = read_calls(run_dir / CALLS_FILE)
    if check.type == "no_refusals":
        refused = [c for c in calls if c.refused]
        if refused:
            return False, f"{len(refused)} refused: {_listed(refused)}"
        return True, f"{len(calls)} calls, none refused"
    asked = [a.as_call() for a in read_answers(run_dir / ANSWERS_FILE)]
    calls = sorted([*calls, *asked], key=lambda c: c.sequence)
    found = [c for c in calls if _matches(c, check)]
    if check.type == "called":
        if found:
            return True, f"called: {_listed(found)}"
        return False, f"no call of {_describe(check)} among {len(calls)} calls"
    if check.type == "not_called":
        if found:
            return False, f"called: {_listed(found)}"
        return True, f"no call of {_describe(check)} among {len(calls)} calls"
    assert check.then is not None
    later = [c for c in calls if _matches(c, check.then)]
    if not found or not later:
        missing = _describe(check) if not found else _describe(check.then)
        return False, f"no call of {missing}"
    first, then = found[0], later[0]
    verdict = first.sequence < then.sequence
    order = "before" if verdict else "after"
    return (
        verdict,
        f"#{first.sequence} {first.line()[:60]} {order} #{then.sequence} {then.line()[:60]}",
    )


def _untouched(rel: str, run_dir: Path, record: HermeticRecord | None) -> WorldOutcome:
    if (run_dir / "outputs" / rel).exists():
        return False, f"{rel} was changed (it is among the run's outputs)"
    if record is not None and rel in record.deleted_inputs:
        return False, f"{rel} was deleted"
    return True, f"{rel} neither changed nor deleted"
