"""The behavior workspace: its layout, version snapshots and `history.json` in both dialects.

Layout (seed 002 semantics), rooted at `<skill>-workspace/` beside the skill folder::

    history.json  v<N>/skill/  grading/  runs/<config>/<case_id>/run-<k>/
    benchmark.json  comparisons/  analysis.json
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skillbench.backends.skill_copy import DEFAULT_MAX_COPY, copy_plan, human_size
from skillbench.behavior.records import RunRecord, read_run_record
from skillbench.errors import InputError
from skillbench.gitinfo import run_git
from skillbench.io import write_json
from skillbench.schemas import canonical as c
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws
from skillbench.schemas.convert import from_canonical, to_canonical
from skillbench.schemas.loading import dump, format_errors, load
from skillbench.schemas.registry import SKILL_CREATOR, WRITING_SKILLS
from skillbench.skill import SKILL_MD, linked_outside, read_skill_md
from skillbench.timestamps import utc_timestamp

CONFIG_PATTERN = re.compile(r"^(with_skill|baseline|v\d+)$")
RUN_DIR_PATTERN = re.compile(r"^run-(\d+)$")
SNAPSHOT_IGNORE = (".git", "__pycache__", ".DS_Store", "*.pyc")
HISTORY_DIALECTS = (WRITING_SKILLS, SKILL_CREATOR)

# Fields one history dialect lacks, carried as extra keys so neither dialect loses the other's data.
_WS_EXTRA_VERSION = ("parent", "expectation_pass_rate", "grading_result")
_SC_EXTRA_VERSION = ("timestamp", "description", "git_hash", "path", "average_score")
# skillbench's own version fields (either dialect): see `VersionScores`.
SCORE_EXTRAS = ("check_pass_rate", "score_basis")


def check_config(config: str) -> str:
    """Validate a configuration name: "with_skill", "baseline" or "v<N>"."""
    if not CONFIG_PATTERN.match(config):
        raise InputError(
            f"unknown configuration {config!r}: use with_skill, baseline or v<N>",
            path="--configs",
            rule="config-name",
        )
    return config


def config_version(config: str) -> int | None:
    """The version number of a "v<N>" configuration (None for with_skill/baseline)."""
    return int(config[1:]) if re.fullmatch(r"v\d+", config) else None


def _safe_segment(value: str, what: str) -> str:
    if not value or value in (".", "..") or "/" in value or "\\" in value or "\x00" in value:
        raise InputError(f"{what} {value!r} cannot be used as a folder name", rule="path-segment")
    return value


@dataclass(frozen=True)
class StoredRun:
    """A run folder on disk and its `run.json`."""

    record: RunRecord
    dir: Path

    @property
    def run_json(self) -> Path:
        """`run.json`."""
        return self.dir / "run.json"

    @property
    def transcript_md(self) -> Path:
        """Readable transcript graders quote from."""
        return self.dir / "transcript.md"

    @property
    def transcript_jsonl(self) -> Path:
        """Raw stream (claude-code) or the messages (anthropic)."""
        return self.dir / "transcript.jsonl"

    @property
    def outputs_dir(self) -> Path:
        """Files the run created."""
        return self.dir / "outputs"

    @property
    def metrics_path(self) -> Path:
        """Seed 004 `outputs/metrics.json`."""
        return self.dir / "outputs" / "metrics.json"

    @property
    def timing_path(self) -> Path:
        """Seed 004 `timing.json`."""
        return self.dir / "timing.json"

    @property
    def grading_path(self) -> Path:
        """Seed 004 `grading.json` of this run."""
        return self.dir / "grading.json"


class Workspace:
    """Paths of one workspace folder (nothing is created by constructing it)."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    @classmethod
    def for_skill(cls, skill_dir: str | Path, workspace: str | Path | None = None) -> Workspace:
        """`workspace` when given, else `<skill>-workspace` beside the skill folder."""
        if workspace is not None:
            return cls(workspace)
        skill = Path(skill_dir).resolve()
        return cls(skill.parent / f"{skill.name}-workspace")

    @property
    def history_path(self) -> Path:
        """`history.json`."""
        return self.root / "history.json"

    @property
    def grading_dir(self) -> Path:
        """`grading/` (seed 002 gradings)."""
        return self.root / "grading"

    @property
    def runs_dir(self) -> Path:
        """`runs/`."""
        return self.root / "runs"

    @property
    def benchmark_path(self) -> Path:
        """`benchmark.json` (seed 004)."""
        return self.root / "benchmark.json"

    @property
    def comparisons_dir(self) -> Path:
        """`comparisons/`."""
        return self.root / "comparisons"

    @property
    def analysis_path(self) -> Path:
        """`analysis.json`."""
        return self.root / "analysis.json"

    def version_dir(self, number: int) -> Path:
        """`v<N>/skill/`: the snapshot of version N."""
        return self.root / f"v{number}" / "skill"

    def run_dir(self, config: str, case_id: str | int, run_number: int) -> Path:
        """`runs/<config>/<case_id>/run-<k>/`."""
        check_config(config)
        return self.runs_dir / config / _safe_segment(str(case_id), "case id") / f"run-{run_number}"

    def grading_path(self, case_id: str | int, version: int | None, run: int) -> Path:
        """`grading/<case>_v<version>_run<run>.json`, or `<case>_baseline_run<run>.json`."""
        label = "baseline" if version is None else f"v{version}"
        name = f"{_safe_segment(str(case_id), 'case id')}_{label}_run{run}.json"
        return self.grading_dir / name

    def comparison_path(self, case_id: str | int, config_a: str, config_b: str, run: int) -> Path:
        """`comparisons/<case>_<A>_vs_<B>_run<k>.json`."""
        case = _safe_segment(str(case_id), "case id")
        return self.comparisons_dir / f"{case}_{config_a}_vs_{config_b}_run{run}.json"

    def configs(self) -> list[str]:
        """Configurations that have run folders, sorted."""
        if not self.runs_dir.is_dir():
            return []
        return sorted(p.name for p in self.runs_dir.iterdir() if CONFIG_PATTERN.match(p.name))

    def iter_runs(self, config: str | None = None) -> list[StoredRun]:
        """Every run folder with a `run.json` (optionally of one config), in a stable order."""
        found: list[tuple[tuple[str, str, int], StoredRun]] = []
        for name in [config] if config else self.configs():
            base = self.runs_dir / name
            if not base.is_dir():
                continue
            for case_dir in sorted(p for p in base.iterdir() if p.is_dir()):
                for run_dir in case_dir.iterdir():
                    match = RUN_DIR_PATTERN.match(run_dir.name)
                    if not match or not (run_dir / "run.json").is_file():
                        continue
                    record = read_run_record(run_dir / "run.json")
                    key = (name, case_dir.name, int(match[1]))
                    found.append((key, StoredRun(record, run_dir)))
        return [run for _, run in sorted(found, key=lambda item: item[0])]


# ----- history -----------------------------------------------------------------------------


@dataclass
class HistoryFile:
    """`history.json` as the canonical model, plus the dialect it is written in."""

    history: c.History
    dialect: str = WRITING_SKILLS
    losses: list[str] = field(default_factory=list)

    def version(self, label: str) -> c.Version:
        """The version with this label ("v2"); InputError when unknown."""
        for version in self.history.versions:
            if version.label == label:
                return version
        known = ", ".join(v.label for v in self.history.versions)
        raise InputError(f"no version {label!r} in the history (known: {known})", rule="version")

    def latest(self) -> c.Version:
        """The version with the highest number."""
        return max(self.history.versions, key=lambda v: v.number or 0)

    def current_number(self) -> int:
        """The number of the version being worked on (the latest when not recorded)."""
        label = self.history.current or self.latest().label
        number = self.version(label).number
        return number if number is not None else 0


def _number(label: str) -> int | None:
    match = re.fullmatch(r"v?(\d+)", label)
    return int(match[1]) if match else None


def read_history(workspace: Workspace) -> HistoryFile:
    """Load `history.json` in either dialect; extra keys of the other dialect are kept."""
    path = workspace.history_path
    if not path.is_file():
        raise InputError(
            "no history.json: run `skillbench init SKILL_DIR` first", path=path, rule="workspace"
        )
    loaded = load(path)
    if loaded.kind != "history" or loaded.dialect not in HISTORY_DIALECTS:
        raise InputError(
            f"expected a history document, found {loaded.kind} ({loaded.dialect})", path=path
        )
    canonical, _ = to_canonical(loaded.model)
    assert isinstance(canonical, c.History)
    raw = dump(loaded.model)
    listed = raw["versions"] if loaded.dialect == WRITING_SKILLS else raw["iterations"]
    for version, item in zip(canonical.versions, listed, strict=True):
        version.extra.update({k: item[k] for k in SCORE_EXTRAS if item.get(k) is not None})
    if loaded.dialect == WRITING_SKILLS:
        items = raw["versions"]
        for version, item in zip(canonical.versions, items, strict=True):
            version.parent = item.get("parent")
            version.pass_rate = item.get("expectation_pass_rate")
            version.result = item.get("grading_result")
        canonical.best = raw.get("current_best")
        canonical.skill_name = raw.get("skill_name")
        canonical.started_at = raw.get("started_at")
    else:
        for version, item in zip(canonical.versions, raw["iterations"], strict=True):
            for key in _SC_EXTRA_VERSION:
                if key in item:
                    setattr(version, "mean_score" if key == "average_score" else key, item[key])
        if isinstance(raw.get("current_version"), int):
            canonical.current = f"v{raw['current_version']}"
    return HistoryFile(canonical, loaded.dialect)


def _history_data(history: c.History, dialect: str) -> tuple[dict[str, Any], list[str]]:
    result = from_canonical(history, "history", dialect)
    data = dump(result.model)
    assert isinstance(data, dict)
    if dialect == WRITING_SKILLS:
        for version, item in zip(history.versions, data["versions"], strict=True):
            extras = {
                "parent": version.parent,
                "expectation_pass_rate": version.pass_rate,
                "grading_result": version.result,
            }
            item.update({k: v for k, v in extras.items() if v is not None})
        top = {
            "current_best": history.best,
            "skill_name": history.skill_name,
            "started_at": history.started_at,
        }
        data.update({k: v for k, v in top.items() if v is not None})
        carried: tuple[str, ...] = (
            "parent",
            "pass_rate",
            "grading_result",
            "skill_name",
            "started_at",
        )
    else:
        for version, item in zip(history.versions, data["iterations"], strict=True):
            extras = {
                "timestamp": version.timestamp,
                "description": version.description,
                "git_hash": version.git_hash,
                "path": version.path,
                "average_score": version.mean_score,
            }
            item.update({k: v for k, v in extras.items() if v is not None})
        if history.current is not None and _number(history.current) is not None:
            data["current_version"] = _number(history.current)
        carried = (*_SC_EXTRA_VERSION, "current_version")
    listed = data["versions"] if dialect == WRITING_SKILLS else data["iterations"]
    for version, item in zip(history.versions, listed, strict=True):
        item.update({k: version.extra[k] for k in SCORE_EXTRAS if version.extra.get(k) is not None})
    losses = [loss for loss in result.losses if not any(k in loss for k in carried)]
    return data, losses


def write_history(workspace: Workspace, doc: HistoryFile) -> Path:
    """Write `history.json` atomically in `doc.dialect`; `doc.losses` says what was not carried."""
    if doc.dialect not in HISTORY_DIALECTS:
        raise InputError(
            f"history dialect must be one of {', '.join(HISTORY_DIALECTS)}, got {doc.dialect!r}",
            field="dialect",
        )
    data, losses = _history_data(doc.history, doc.dialect)
    model_cls = ws.WSHistory if doc.dialect == WRITING_SKILLS else sc.SCHistory
    try:
        model_cls.model_validate(data)
    except ValidationError as exc:
        where, message, rule = format_errors(exc, model_cls)[0]
        raise InputError(message, path=workspace.history_path, field=where, rule=rule) from None
    doc.losses = losses
    return write_json(workspace.history_path, data)


def record_result(
    workspace: Workspace,
    label: str,
    result: str,
    *,
    pass_rate: float | None = None,
    make_best: bool | None = None,
) -> HistoryFile:
    """Record a comparison result ("baseline"|"won"|"lost"|"tie") for a version.

    `make_best` defaults to True for "won"; the best version is what `current_best` names.
    """
    if result not in ("baseline", "won", "lost", "tie"):
        raise InputError(f"grading_result must be baseline/won/lost/tie, got {result!r}")
    doc = read_history(workspace)
    version = doc.version(label)
    version.result = result  # type: ignore[assignment]
    if pass_rate is not None:
        version.pass_rate = pass_rate
    if make_best if make_best is not None else result == "won":
        doc.history.best = label
    write_history(workspace, doc)
    return doc


# ----- git, snapshots, scores ----------------------------------------------------------------


def git_hash(skill_dir: str | Path) -> str | None:
    """HEAD of the repository holding the skill; None without a repo or with uncommitted changes
    (modified, staged or untracked files under the skill folder)."""
    folder = Path(skill_dir).resolve()
    head = run_git(folder, "rev-parse", "HEAD", timeout=30)
    if head is None:
        return None
    status = run_git(
        folder, "status", "--porcelain", "--untracked-files=all", "--", ".", timeout=30
    )
    if status is None or status.strip():
        return None
    return head.strip() or None


def copy_skill(
    skill_dir: Path,
    target: Path,
    *,
    exclude: Path | None = None,
    max_copy: int = DEFAULT_MAX_COPY,
) -> None:
    """Copy the skill folder to `target` (which must not exist) via a temporary sibling; links
    are copied as links, never followed. A snapshot is a whole record, so files of more than
    `max_copy` bytes in all are refused (InputError naming the largest, before any copy)."""
    if target.exists():
        raise InputError("already exists; refusing to overwrite a snapshot", path=target)
    source = skill_dir.resolve()
    skip = exclude.resolve() if exclude is not None else None
    inside = [skip.relative_to(source).as_posix()] if skip and skip.is_relative_to(source) else []
    plan = copy_plan(source, max_bytes=max_copy, ignore=SNAPSHOT_IGNORE, skip=inside)
    if plan.skipped:
        rel, size = max(plan.skipped, key=lambda item: item[1])
        raise InputError(
            f"the skill folder holds more than the copy limit of {human_size(max_copy)} "
            f"(largest file left: {rel}, {human_size(size)}); raise --max-copy or move it out",
            path=source / rel,
            field="--max-copy",
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    base_ignore = shutil.ignore_patterns(*SNAPSHOT_IGNORE)

    def ignore(folder: str, names: list[str]) -> set[str]:
        ignored = set(base_ignore(folder, names))
        if skip is not None:
            ignored |= {n for n in names if (Path(folder) / n).resolve() == skip}
        return ignored

    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        shutil.copytree(source, staging / "tree", ignore=ignore, symlinks=True)
        if linked_outside(source) is not None:  # a SKILL.md shared within the library: its text
            copied = staging / "tree" / SKILL_MD
            copied.unlink()
            copied.write_bytes(read_skill_md(skill_dir)[1])
        (staging / "tree").rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@dataclass
class VersionScores:
    """What history records about one version's graded runs.

    - `average_score`: mean of MODEL scores (1–5 judgements) only; None when none exist (a
      machine check's 3/1 placeholder is not a judgement).
    - `pass_rate`: mean over graded runs of passed / graded (runs without a graded expectation
      left out): the definition of benchmark `run_summary.<config>.pass_rate.mean`.
    - check counts: machine-checked expectations, pooled (`checks_passed / checks`).
    """

    source: str | None = None
    runs: int = 0
    configs: list[str] = field(default_factory=list)
    run_rates: list[float] = field(default_factory=list)
    model_scores: list[int] = field(default_factory=list)
    checks: int = 0
    checks_passed: int = 0
    check_runs: int = 0

    @property
    def average_score(self) -> float | None:
        """Mean model score, None when no model judged anything."""
        return (
            round(sum(self.model_scores) / len(self.model_scores), 2) if self.model_scores else None
        )

    @property
    def pass_rate(self) -> float | None:
        """Mean per-run pass rate over graded runs, None when no run was graded."""
        return round(sum(self.run_rates) / len(self.run_rates), 4) if self.run_rates else None

    def check_pass_rate(self) -> dict[str, Any] | None:
        """`{rate, passed, n, runs}` of the machine checks, None when there were none."""
        if not self.checks:
            return None
        return {
            "rate": round(self.checks_passed / self.checks, 4),
            "passed": self.checks_passed,
            "n": self.checks,
            "runs": self.check_runs,
        }

    def basis(self) -> dict[str, Any] | None:
        """Which files and runs the numbers come from (None when nothing was graded)."""
        if not self.runs:
            return None
        return {
            "source": self.source,
            "runs": self.runs,
            "configs": self.configs,
            "model_scores": len(self.model_scores),
            "pass_rate": "mean over graded runs of passed/graded (as benchmark pass_rate.mean)",
        }

    def add_run(
        self, config: str, rate: float | None, checks: list[bool], scores: list[int]
    ) -> None:
        """Count one graded run."""
        self.runs += 1
        if config not in self.configs:
            self.configs.append(config)
        if rate is not None:
            self.run_rates.append(rate)
        if checks:
            self.check_runs += 1
            self.checks += len(checks)
            self.checks_passed += sum(checks)
        self.model_scores.extend(scores)


def run_version(record: RunRecord) -> int | None:
    """The skill version a run used (None for a baseline run without skill)."""
    if record.config == "baseline":
        return None
    return record.version if record.version is not None else config_version(record.config)


def _scores_from_runs(workspace: Workspace, number: int) -> VersionScores:
    found = VersionScores(source="runs/<config>/<case>/run-<k>/grading.json")
    for run in workspace.iter_runs():
        if run_version(run.record) != number or not run.grading_path.is_file():
            continue
        loaded = load(run.grading_path)
        if not isinstance(loaded.model, sc.SCGrading):
            raise InputError("expected a skill-creator grading", path=run.grading_path)
        summary = loaded.model.summary
        checks: list[bool] = []
        scores: list[int] = []
        for item in loaded.model.expectations:
            marks = item.model_extra or {}
            if marks.get("method") == "check":
                checks.append(item.passed)
            elif marks.get("method") == "model" and isinstance(marks.get("score"), int):
                scores.append(marks["score"])
        rate = summary.passed / summary.total if summary.total else None
        found.add_run(run.record.config, rate, checks, scores)
    return found


def _scores_from_gradings(workspace: Workspace, number: int) -> VersionScores:
    found = VersionScores(source=f"grading/*_v{number}_run*.json")
    if not workspace.grading_dir.is_dir():
        return found
    for path in sorted(workspace.grading_dir.glob(f"*_v{number}_run*.json")):
        if not re.fullmatch(rf".+_v{number}_run\d+\.json", path.name):
            continue
        loaded = load(path)
        if not isinstance(loaded.model, ws.WSGrading):
            raise InputError("expected a writing-skills grading", path=path, rule="grading")
        results = loaded.model.results
        checks = [r.passed for r in results if (r.model_extra or {}).get("score_source") == "check"]
        scores = [r.score for r in results if (r.model_extra or {}).get("score_source") != "check"]
        config = str((loaded.model.model_extra or {}).get("config") or f"v{number}")
        found.add_run(config, sum(r.passed for r in results) / len(results), checks, scores)
    return found


def version_scores(workspace: Workspace, number: int) -> VersionScores:
    """The numbers of version N from the seed 004 `grading.json` of its run folders (every graded
    run of the version: the files the benchmark reads); from the seed 002
    `grading/*_v<N>_run*.json` files only when no run folder of version N is graded.

    Seed 002 criteria without a `score_source` mark count as model scores (seed 002's meaning);
    seed 004 expectations without a `method` mark count in the pass rate only.
    """
    found = _scores_from_runs(workspace, number)
    return found if found.runs else _scores_from_gradings(workspace, number)


# ----- evals ---------------------------------------------------------------------------------


EVALS_FOLDER = "evals"
"""The skill's own eval set lives in `<skill>/evals/`: not part of what a snapshot compares."""


def evals_path(skill_dir: str | Path) -> Path:
    """`<skill>/evals/evals.json`."""
    return Path(skill_dir) / EVALS_FOLDER / "evals.json"


def example_evals(skill_dir: Path, skill_name: str) -> dict[str, Any]:
    """The seed 002 evals file `init` writes when none exists: one clearly marked example case."""
    return {
        "version": "1.0",
        # relative to the evals file's folder (`<skill>/evals/`), so the file stays right when
        # the library is cloned or moved; its last segment is the skill folder's name
        "skill": f"../../{skill_dir.name}",
        "cases": [
            {
                "id": "example-case",
                "prompt": (
                    f"EXAMPLE CASE - replace this prompt with a real task for {skill_name}, "
                    "then add more cases."
                ),
                "files": [],
                "expectations": [
                    {
                        "criterion": "example-criterion",
                        "description": (
                            "EXAMPLE - replace with a concrete, falsifiable statement about the "
                            "result (e.g. 'the reply contains a fenced code block')"
                        ),
                        "required": True,
                    }
                ],
            }
        ],
    }


@dataclass(frozen=True)
class EvalsFile:
    """An evals file in either dialect: the dialect model, its canonical form and its path.

    `warnings` name what a later step will miss (a first-draft case without expectations
    cannot be graded); the file is still read and usable for `init` and `run`.
    """

    path: Path
    dialect: str
    model: ws.WSEvals | sc.SCEvals | sc.SCEvalList
    evals: c.Evals
    warnings: tuple[str, ...] = ()


def read_evals(path: str | Path) -> EvalsFile:
    """Load an evals file (seed 002 `cases[]`, seed 004 `evals[]`, or seed 004 cases as people
    write them: a bare list, string ids, `assertions`, drafts without expectations)."""
    source = Path(path)
    loaded = load(source)
    model = loaded.model
    if loaded.kind != "evals" or not isinstance(model, ws.WSEvals | sc.SCEvals | sc.SCEvalList):
        raise InputError(
            f"expected an evals document, found {loaded.kind} ({loaded.dialect})", path=source
        )
    canonical, _ = to_canonical(model)
    assert isinstance(canonical, c.Evals)
    _refuse_nul(canonical, model, source)
    soft = model.soft_warnings() if isinstance(model, sc.SCEvals | sc.SCEvalList) else []
    return EvalsFile(source, loaded.dialect, model, canonical, tuple(soft))


def _refuse_nul(evals: c.Evals, model: Any, source: Path) -> None:
    """A NUL byte in a case id, prompt or file name is bad input, named by file and field: an id
    becomes a folder name and a file a path, neither of which can hold one, and a prompt goes
    to an agent CLI, whose arguments cannot either (so no backend takes one: one rule for all)."""
    items = "cases" if isinstance(model, ws.WSEvals) else ""
    items = "evals" if isinstance(model, sc.SCEvals) else items
    for index, case in enumerate(evals.cases):
        fields: list[tuple[str, str]] = [("id", str(case.id)), ("prompt", case.prompt)]
        fields += [(f"files[{i}]", name) for i, name in enumerate(case.files or [])]
        for name, value in fields:
            if "\x00" in value:
                raise InputError(
                    "contains a NUL byte (\\u0000): ids become folder names, files paths and "
                    "prompts agent CLI arguments, none of which can hold one",
                    path=source,
                    field=f"{items}[{index}].{name}",
                    rule="nul-byte",
                )


# ----- init / snapshot -----------------------------------------------------------------------


@dataclass
class InitResult:
    """What `init_workspace` did."""

    workspace: Workspace
    created: list[Path] = field(default_factory=list)
    already_initialised: bool = False
    warnings: list[str] = field(default_factory=list)


def init_workspace(
    skill_dir: str | Path,
    workspace: str | Path | None = None,
    *,
    dialect: str = WRITING_SKILLS,
    max_copy: int = DEFAULT_MAX_COPY,
) -> InitResult:
    """Create evals/evals.json (if missing), v0/skill/, grading/ and history.json (the v0 copy
    bounded by `max_copy` bytes, see `copy_skill`).

    Idempotent: an initialised workspace is left as it is. Refuses to clobber a workspace
    folder that has snapshots but no history.json.
    """
    from skillbench.skill import Skill

    skill = Skill.load(skill_dir)
    folder = skill.path
    space = Workspace.for_skill(folder, workspace)
    result = InitResult(space)
    evals = evals_path(folder)
    if evals.exists():
        # a broken evals file is reported now, not at run time; a draft only warns
        result.warnings.extend(read_evals(evals).warnings)
    initialised = space.history_path.exists()
    if initialised:
        read_history(space)
    elif space.version_dir(0).exists():
        raise InputError(
            "has a v0/ snapshot but no history.json; refusing to overwrite it",
            path=space.root,
            rule="no-clobber",
        )
    if not evals.exists():
        write_json(evals, example_evals(folder, skill.name))
        result.created.append(evals)
    if initialised:
        result.already_initialised = True
        return result
    copy_skill(folder, space.version_dir(0), exclude=space.root, max_copy=max_copy)
    result.created.append(space.version_dir(0))
    if not space.grading_dir.exists():
        space.grading_dir.mkdir(parents=True)
        result.created.append(space.grading_dir)
    history = c.History(
        skill_name=skill.name,
        started_at=utc_timestamp(),
        versions=[
            c.Version(
                label="v0",
                number=0,
                timestamp=utc_timestamp(),
                description="baseline",
                git_hash=git_hash(folder),
                path="v0/skill",
                result="baseline",
            )
        ],
        current="v0",
        best="v0",
    )
    write_history(space, HistoryFile(history, dialect))
    result.created.append(space.history_path)
    return result


def snapshot(
    skill_dir: str | Path,
    workspace: str | Path | None = None,
    *,
    description: str | None = None,
    max_copy: int = DEFAULT_MAX_COPY,
) -> c.Version:
    """Copy the current skill into v<N+1> (bounded by `max_copy` bytes, see `copy_skill`),
    record its git commit and vN's scores (`version_scores`: model average, pass rate, check
    pass rate and their basis)."""
    from skillbench.skill import Skill

    skill = Skill.load(skill_dir)
    space = Workspace.for_skill(skill.path, workspace)
    doc = read_history(space)
    latest = doc.latest()
    number = (latest.number if latest.number is not None else len(doc.history.versions) - 1) + 1
    scores = version_scores(space, number - 1)
    latest.mean_score = scores.average_score
    if scores.pass_rate is not None:
        latest.pass_rate = scores.pass_rate
    for key, value in (
        ("check_pass_rate", scores.check_pass_rate()),
        ("score_basis", scores.basis()),
    ):
        if value is None:
            latest.extra.pop(key, None)
        else:
            latest.extra[key] = value
    copy_skill(skill.path, space.version_dir(number), exclude=space.root, max_copy=max_copy)
    version = c.Version(
        label=f"v{number}",
        number=number,
        parent=latest.label,
        timestamp=utc_timestamp(),
        description=description or f"snapshot v{number}",
        git_hash=git_hash(skill.path),
        path=f"v{number}/skill",
    )
    doc.history.versions.append(version)
    doc.history.current = version.label
    try:
        write_history(space, doc)
    except BaseException:
        shutil.rmtree(space.root / f"v{number}", ignore_errors=True)
        raise
    return version
