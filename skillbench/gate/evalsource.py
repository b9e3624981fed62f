"""Which eval set grades a gate: the base's, so a pull request cannot grade itself.

The eval set is part of the test, not of the change under test: when `--evals` lies in the
skill's git repository, the gate reads it as it is at the base commit (`git show`) into a
scratch copy, and reports what the change did to it (queries added, removed, or with
`should_trigger` flipped). `--evals-from head` grades on the working tree's eval set instead and
the verdict says so. An eval set outside the repository is not part of any change: used as is.
An eval set that cannot detect anything is refused (`check_not_vacuous`, exit 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from skillbench.errors import InputError
from skillbench.gate.baseref import BaseSkill, repo_root
from skillbench.gitinfo import run_git
from skillbench.schemas.common import Doc
from skillbench.trigger.evalset import EvalQuery

EvalsFrom = Literal["base", "head"]
EvalsUsed = Literal["base", "head", "outside the repository"]
HEAD_MARK = "graded on the head's eval set (--evals-from head), which this change may have edited"


class EvalSetChange(Doc):
    """The eval set that graded both sides, and what the change under test did to it."""

    path: str = Field(description="--evals as given (the head's file)")
    used: EvalsUsed = Field(description="whose eval set graded both sides")
    base_commit: str | None = None
    added: list[str] = Field(default_factory=list, description="queries only the head has")
    removed: list[str] = Field(default_factory=list, description="queries only the base has")
    flipped: list[str] = Field(
        default_factory=list, description="queries in both whose should_trigger differs"
    )
    edited: list[str] = Field(
        default_factory=list,
        description="behavior eval cases in both (by id) whose prompt, files or expectations differ",
    )

    @property
    def changed(self) -> bool:
        """Whether the change under test edited the eval set's queries or labels."""
        return bool(self.added or self.removed or self.flipped or self.edited)

    def header_text(self) -> str:
        """The eval set as a report header names it: the file and whose version graded."""
        if self.used == "base":
            edited = " (this change edited it: not used)" if self.changed else ""
            return f"{self.path} as at base {(self.base_commit or '?')[:12]}{edited}"
        if self.used == "head":
            return f"{self.path} as in the working tree (--evals-from head)"
        return self.path

    def summary(self) -> str:
        """One sentence: which eval set was used and what the change did to it."""
        if self.used == "outside the repository":
            return f"{self.path}: outside the skill's repository, used as it is"
        counts = f"{len(self.added)} added, {len(self.removed)} removed, " + (
            f"{len(self.edited)} edited" if self.edited else
            f"{len(self.flipped)} with should_trigger flipped"
        )  # fmt: skip
        at = f"base {(self.base_commit or '?')[:12]}"
        if self.used == "head":
            what = f"this change edited it ({counts})" if self.changed else "unchanged from base"
            return f"{self.path}: the head's (--evals-from head); {what}"
        if not self.changed:
            return f"{self.path} as at {at} (unchanged by this change)"
        return f"{self.path} as at {at}; this change edited it ({counts}), not used"


@dataclass(frozen=True)
class GateEvals:
    """The queries both sides run, the file they were read from, and the change record."""

    queries: list[EvalQuery]
    file: Path
    change: EvalSetChange


def compare_queries(base: Sequence[EvalQuery], head: Sequence[EvalQuery]) -> dict[str, list[str]]:
    """Queries added, removed and flipped (same text, other should_trigger), base → head."""
    on_base = {q.text.strip(): q for q in base}
    on_head = {q.text.strip(): q for q in head}
    return {
        "added": [q.text for k, q in on_head.items() if k not in on_base],
        "removed": [q.text for k, q in on_base.items() if k not in on_head],
        "flipped": [
            q.text
            for k, q in on_head.items()
            if k in on_base and on_base[k].should_trigger != q.should_trigger
        ],
    }


def _in_repository(path: Path, root: Path) -> str | None:
    """`path` relative to the repository `root` (POSIX), or None when it lies outside it."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def base_text(evals: Path, root: Path, commit: str) -> tuple[str | None, str | None]:
    """(the path of `evals` in the repository, its text at `commit`); (None, None) when it
    lies outside the repository, (path, None) when it did not exist at the commit."""
    relative = _in_repository(evals, root)
    if relative is None:
        return None, None
    return relative, run_git(root, "show", f"{commit}:{relative}")


def _parse(text: str, where: str) -> list[EvalQuery]:
    """An eval set's text into queries; InputError naming `where`."""
    import json

    from skillbench.trigger.evalset import parse_eval_set

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputError(f"not valid JSON: {exc}", path=where) from exc
    return parse_eval_set(data, path=where)


def _scratch_copy(relative: str, text: str) -> Path:
    """`text` written under a scratch folder removed at exit, at the repository path."""
    from skillbench.backends.scratch import scratch_until_exit
    from skillbench.io import atomic_write_text

    target = scratch_until_exit("gate-evals") / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, text)
    return target


def resolve_evals(
    evals: Path,
    head_queries: list[EvalQuery],
    *,
    root: Path | None,
    commit: str | None,
    ref: str,
    evals_from: EvalsFrom,
) -> GateEvals:
    """The eval set that grades both sides, the base's (default) or the head's, and what the
    change did to it. No repository (`root` None, an A/A calibration) or a file outside it:
    the file as it is. InputError when the base must be used and did not have the file."""
    relative, text = (
        (None, None) if root is None or commit is None else base_text(evals, root, commit)
    )
    if relative is None or commit is None:
        change = EvalSetChange(path=str(evals), used="outside the repository")
        return GateEvals(head_queries, evals, change)
    where = f"{evals} at {ref} ({commit[:12]})"
    if evals_from == "head":
        try:
            base_queries = [] if text is None else _parse(text, where)
        except InputError:
            base_queries = []  # a base that does not parse: every head query counts as added
        change = EvalSetChange(path=str(evals), used="head", base_commit=commit,
                               **compare_queries(base_queries, head_queries))  # fmt: skip
        return GateEvals(head_queries, evals, change)
    if text is None:
        raise InputError(
            f"does not exist at the base {ref} ({commit[:12]}): this change adds the eval set "
            "it would be graded on; to gate on it anyway, pass --evals-from head (the verdict "
            "says so)",
            path=evals,
        )
    base_queries = _parse(text, where)
    change = EvalSetChange(path=str(evals), used="base", base_commit=commit,
                           **compare_queries(base_queries, head_queries))  # fmt: skip
    return GateEvals(base_queries, _scratch_copy(relative, text), change)


def check_not_vacuous(
    queries: Sequence[EvalQuery], runs: int, half: float, *, where: str | Path
) -> None:
    """InputError ("vacuous eval set", exit 2) when the eval set has no should-trigger query,
    or a class (should / should not trigger) so small that even every one of its queries
    falling from always passing to always failing over `runs` runs could not be significant
    in the gate's pooled exact test (at `half`, the pooled test's share of alpha)."""
    from skillbench.stats import mcnemar_exact

    should = sum(1 for q in queries if q.should_trigger)
    if not should:
        raise InputError(
            "vacuous eval set: no should-trigger query, so a description that never triggers "
            "passes every query; add queries the skill should trigger on",
            path=where,
        )
    for label, count in (("should-trigger", should), ("should-not-trigger", len(queries) - should)):
        if count and mcnemar_exact(count * runs, 0) >= half:
            raise InputError(
                f"vacuous eval set: {count} {label} quer{'y' if count == 1 else 'ies'} × {runs} "
                f"runs cannot detect anything (even all of them failing instead of passing "
                f"gives exact McNemar p = {mcnemar_exact(count * runs, 0):.3g} ≥ {half:g}); add "
                "queries or runs",
                path=where,
            )


def _raw_cases(text: str) -> dict[str, str]:
    """Each case of a behavior evals file's text (`cases`, `evals` or a bare list) by id, as
    canonical JSON: what the file says, every field (checks included)."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return {}
    items = data if isinstance(data, list) else None
    if isinstance(data, dict):
        items = data.get("cases", data.get("evals"))
    if not isinstance(items, list):
        return {}
    return {
        str(item.get("id", index)): json.dumps(item, sort_keys=True)
        for index, item in enumerate(items)
        if isinstance(item, dict)
    }


def compare_cases(base: str, head: str) -> dict[str, list[str]]:
    """Behavior eval cases added, removed and edited (any field differs), base → head, by id."""
    on_base, on_head = _raw_cases(base), _raw_cases(head)
    return {
        "added": [k for k in on_head if k not in on_base],
        "removed": [k for k in on_base if k not in on_head],
        "edited": [k for k, c in on_head.items() if k in on_base and on_base[k] != c],
    }


def resolve_behavior_evals(
    evals: Path, skill_dir: Path, base: BaseSkill, *, evals_from: EvalsFrom
) -> tuple[Path, EvalSetChange]:
    """The behavior eval cases both sides run: the base's file (default; inside the skill
    folder, the base's own copy with its input files), or the head's with --evals-from head;
    a file outside the repository as it is. InputError when the base must be used and lacks it."""
    from skillbench.behavior.workspace import read_evals

    root = repo_root(skill_dir)
    relative, text = base_text(evals, root, base.commit)
    if relative is None:
        return evals, EvalSetChange(path=str(evals), used="outside the repository")
    if text is None and evals_from == "base":
        raise InputError(
            f"does not exist at the base {base.ref} ({base.commit[:12]}): this change adds the "
            "eval cases it would be graded on; to gate on them anyway, pass --evals-from head "
            "(the verdict says so)",
            path=evals,
        )
    copy = None if text is None else _scratch_copy(relative, text)
    if copy is not None and evals_from == "base":
        read_evals(copy)  # a base that does not read: InputError before any call
    head_text = evals.read_text(encoding="utf-8", errors="replace")
    diff = compare_cases(text or "[]", head_text)
    change = EvalSetChange(path=str(evals), used=evals_from, base_commit=base.commit, **diff)
    if evals_from == "head" or copy is None:
        return evals, change
    inside = _in_repository(evals, skill_dir)
    if base.folder is not None and inside is not None and (base.folder / inside).is_file():
        return base.folder / inside, change  # with the base's input files beside it
    return copy, change
