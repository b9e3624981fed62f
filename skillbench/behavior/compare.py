"""Blind A/B comparison of two configurations of a workspace, judged in both orders.

For each case and each run number present in both configurations, the two runs are labelled A/B
in an order drawn from the seed (sha256 of seed, case, run) and judged twice: as drawn and
swapped. When the two orders disagree the verdict is a TIE. The judge sees only `RunOutput`s
(`skillbench.behavior.blind`): never a configuration name or a version number.

With the `local` backend there is no model judge: a transparent DETERMINISTIC PROXY decides by
the machine-checkable expectations (`skillbench.behavior.checks`) each run passes, else TIE, and
every record it writes says so.

Writes `comparisons/<case>_<A>_vs_<B>_run<k>.json` (the dialect's comparison document plus the
`skillbench` swap record) and `comparisons/<A>_vs_<B>_summary.json` (`CompareSummary`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from skillbench.backends.base import TextModel, TextRequest
from skillbench.behavior.blind import (
    DIALECT_CHOICES,
    SKILL_CREATOR,
    WRITING_SKILLS,
    RunOutput,
    comparison_request,
    judge_document,
    judge_output_model,
    read_run_output,
    redaction_pattern,
)
from skillbench.behavior.checks import RunMaterial, run_check
from skillbench.behavior.records import ExpectationCheck
from skillbench.behavior.structured import ask_structured
from skillbench.behavior.workspace import (
    RUN_DIR_PATTERN,
    Workspace,
    check_config,
    config_version,
    read_history,
    record_result,
)
from skillbench.cost.budget import STOPPED_NOTE, Budget
from skillbench.cost.plan import CostPlan
from skillbench.cost.prices import price_table_date
from skillbench.errors import BackendError, CostCapReached, InputError
from skillbench.io import write_json
from skillbench.schemas import skill_creator as sc
from skillbench.schemas import writing_skills as ws
from skillbench.schemas.base import Document
from skillbench.schemas.cost import CostBlock
from skillbench.schemas.display import box_html, one_line, table_html
from skillbench.schemas.loading import write
from skillbench.schemas.registry import native_entry

if TYPE_CHECKING:
    from skillbench.backends.cache import CallCache

Label = Literal["A", "B", "TIE"]
Verdict = Literal["a", "b", "tie"]
JudgeKind = Literal["model", "deterministic-proxy"]
SWAP_KEY = "skillbench"
PROXY_NOTE = (
    "DETERMINISTIC PROXY, not a model judgement: the local backend has no judge model. The run "
    "that passes more machine-checkable expectations wins; otherwise TIE. Everything a model "
    "would judge (quality, style, the 1–10 dimensions) is left UNJUDGED."
)
WS_TIE_NOTE = (
    "writing-skills comparisons have no tie (winner is A or B); this TIE is therefore written "
    "in the skill-creator comparison shape"
)
ProgressFn = Callable[[int, int], None]


class Judgement(Document):
    """One order's judgement: who was shown as A and B, and the judge's document as returned."""

    order: int = Field(description="1: the seeded order, 2: swapped")
    shown_as: dict[str, str] = Field(description='{"A": config, "B": config}')
    winner: Label
    winner_config: str | None
    document: dict[str, Any]


class JudgeProvenance(Document):
    """Who judged and how: shared by every comparison record and summary."""

    judge: JudgeKind
    note: str | None
    backend: str
    model: str | None
    dialect: str
    seed: int


class SwapRecord(JudgeProvenance):
    """The `skillbench` key of a comparison file: both orders and the consistent verdict."""

    case_id: str
    run_number: int
    config_a: str
    config_b: str
    judgements: list[Judgement]
    swap_consistent: bool
    verdict: Verdict = Field(description="a: config_a won, b: config_b won")
    winner_config: str | None


class PairResult(Document):
    """One (case, run) pair: its record, or why it was not judged."""

    case_id: str
    run_number: int
    status: Literal["judged", "error", "skipped"]
    reason: str | None = None
    record: SwapRecord | None = None
    path: str | None = None
    run_dirs: dict[str, str] | None = Field(
        default=None, description="config → run folder, relative to the workspace"
    )


class CaseTally(Document):
    """Wins/losses/ties of config_a over config_b in one case (run pairs)."""

    case_id: str
    wins: int
    losses: int
    ties: int
    errors: int
    verdict: Literal["a", "b", "tie", "none"]


class CompareSummary(JudgeProvenance):
    """`comparisons/<A>_vs_<B>_summary.json`: counts, bias diagnostics and the sign test.

    Counts are from config_a's side. The unit of the sign test and the win-rate interval is the
    case (its runs are within-case resamples, reduced to one case verdict first); ties are left
    out of both, as in a sign test.
    """

    config_a: str
    config_b: str
    pairs: int
    judged: int
    errors: int
    skipped: int
    wins: int
    losses: int
    ties: int
    swap_consistency: float | None = Field(description="judged pairs whose two orders agreed")
    position_bias_rate: float | None = Field(
        description="judged pairs where the same LABEL won in both orders (a verdict that "
        "followed the position, not the content)"
    )
    a_label_win_rate: float | None = Field(
        description='decisive single-order judgements won by the label "A" (0.5: no bias)'
    )
    cases: list[CaseTally]
    case_wins: int
    case_losses: int
    case_ties: int
    win_rate: float | None = Field(description="case_wins / (case_wins + case_losses)")
    win_rate_low: float | None
    win_rate_high: float | None
    sign_test_p: float = Field(description="exact two-sided binomial test of case wins vs losses")
    history: str | None = Field(default=None, description="what was recorded in history.json")
    pair_results: list[PairResult]
    cost: CostBlock | None = Field(
        default=None,
        description="the judge's (and the analyzer's) calls, call-cache hits, tokens and dollars",
    )

    def _line(self) -> str:
        return (
            f"{self.config_a} vs {self.config_b}: {self.case_wins} case win(s), "
            f"{self.case_losses} loss(es), {self.case_ties} tie(s); sign test p = "
            f"{self.sign_test_p:.3g}; judge {self.judge}"
        )

    def __repr__(self) -> str:
        return one_line("CompareSummary", self._line())

    def _repr_html_(self) -> str:
        decided = self.case_wins + self.case_losses
        ok = None if decided == 0 or self.sign_test_p >= 0.05 else self.case_wins > self.case_losses
        table = table_html(
            ["case", "wins", "losses", "ties", "errors", "verdict"],
            [[c.case_id, c.wins, c.losses, c.ties, c.errors, c.verdict] for c in self.cases],
        )
        rows = [
            ("judge", f"{self.judge} ({self.backend}{', ' + self.model if self.model else ''})"),
            ("pairs", f"{self.judged} judged of {self.pairs}; {self.errors} errors"),
            ("swap consistency", "–" if self.swap_consistency is None
             else f"{self.swap_consistency:.2f}"),
        ]  # fmt: skip
        return box_html("Blind A/B comparison", self._line(), ok, rows, table=table)


@dataclass(frozen=True)
class CaseSpec:
    """One eval case as the comparator uses it."""

    case_id: str
    prompt: str
    expectations: list[str]
    checks: list[ExpectationCheck | None]


def case_specs(skill_dir: str | Path) -> dict[str, CaseSpec]:
    """case id (as str) → CaseSpec, from `grade.load_cases` (the one loader of the cases)."""
    from skillbench.behavior.grade import load_cases

    evals = load_cases(skill_dir)
    return {
        key: CaseSpec(
            key, case.prompt, [e.text for e in case.expectations], evals.checks.get(key, [])
        )
        for key, case in evals.cases.items()
    }


def seeded_first_is_a(seed: int, case_id: str, run_number: int) -> bool:
    """Whether config_a is shown as "A" in the first order: sha256(seed, case, run), low bit."""
    digest = hashlib.sha256(f"{seed}\x1f{case_id}\x1f{run_number}".encode()).digest()
    return digest[0] % 2 == 0


def run_folders(workspace: Workspace, config: str) -> dict[tuple[str, int], Path]:
    """(case id, run number) → run folder holding a run.json, for one configuration."""
    base = workspace.runs_dir / config
    found: dict[tuple[str, int], Path] = {}
    if not base.is_dir():
        return found
    for case_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        for run_dir in case_dir.iterdir():
            match = RUN_DIR_PATTERN.match(run_dir.name)
            if match and (run_dir / "run.json").is_file():
                found[(case_dir.name, int(match[1]))] = run_dir
    return found


# ----- judges --------------------------------------------------------------------------------


def proxy_tally(
    run: RunOutput, checks: list[ExpectationCheck | None]
) -> tuple[int, int, list[str]]:
    """(passed, checked, evidence lines) over the machine-checkable expectations of a case."""
    material = RunMaterial(run.run_dir, run.final_text)
    passed = checked = 0
    lines: list[str] = []
    for index, check in enumerate(checks):
        if check is None:
            continue
        outcome = run_check(check, material)
        if outcome.passed is None:  # undecided (a regex over its time bound): not counted
            lines.append(f"#{index + 1} UNDECIDED: {outcome.evidence}")
            continue
        checked += 1
        passed += outcome.passed
        lines.append(f"#{index + 1} {'PASS' if outcome.passed else 'FAIL'}: {outcome.evidence}")
    return passed, checked, lines


def proxy_document(
    shown_a: RunOutput, shown_b: RunOutput, case: CaseSpec, dialect: str
) -> dict[str, Any]:
    """The deterministic proxy's comparison document for one order (it ignores the order)."""
    pa, na, ea = proxy_tally(shown_a, case.checks)
    pb, nb, eb = proxy_tally(shown_b, case.checks)
    winner: Label = "A" if pa > pb else "B" if pb > pa else "TIE"
    if na == 0:
        why = "the case has no machine-checkable expectation, so nothing decides: TIE"
    else:
        why = f"A passed {pa}/{na} machine-checkable expectations, B passed {pb}/{nb}"
    document: dict[str, Any] = {"winner": winner, "reasoning": f"{PROXY_NOTE} {why}."}
    if dialect == WRITING_SKILLS and winner != "TIE":
        document["eval_prompt"] = case.prompt
    else:
        document["expectation_results"] = {
            "A": {"passed": pa, "total": na, "details": ea},
            "B": {"passed": pb, "total": nb, "details": eb},
        }
    return document


@dataclass
class Comparator:
    """Judges one configuration pair of a workspace (model judge, or the proxy when None)."""

    workspace: Workspace
    cases: dict[str, CaseSpec]
    config_a: str
    config_b: str
    judge: TextModel | None
    backend: str
    model: str | None = None
    dialect: str = WRITING_SKILLS
    seed: int = 0
    budget: Budget | None = None

    @property
    def kind(self) -> JudgeKind:
        """Whether a model judges or the deterministic proxy."""
        return "model" if self.judge is not None else "deterministic-proxy"

    def orders(self, case: CaseSpec, run_number: int) -> list[dict[str, str]]:
        """The two orders a pair is shown in (seeded): config shown as A and as B."""
        first_a = seeded_first_is_a(self.seed, case.case_id, run_number)
        x, y = (self.config_a, self.config_b) if first_a else (self.config_b, self.config_a)
        return [{"A": x, "B": y}, {"A": y, "B": x}]

    def order_request(
        self, shown: dict[str, str], runs: dict[str, RunOutput], case: CaseSpec
    ) -> TextRequest:
        """The judge's request for one order: what `_one_order` sends and a plan counts."""
        a, b = runs[shown["A"]], runs[shown["B"]]
        return comparison_request(
            task=case.prompt,
            expectations=case.expectations,
            shown_a=a,
            shown_b=b,
            dialect=self.dialect,
            pattern=redaction_pattern(
                (self.config_a, self.config_b), self.workspace.root.resolve()
            ),
            run_index=a.run_number,
        )

    async def _one_order(
        self, order: int, shown: dict[str, str], runs: dict[str, RunOutput], case: CaseSpec
    ) -> Judgement:
        a, b = runs[shown["A"]], runs[shown["B"]]
        if self.judge is None:
            document = proxy_document(a, b, case, self.dialect)
            winner: Label = document["winner"]
        else:
            request = self.order_request(shown, runs, case)
            reply, _usage = await ask_structured(
                self.judge, request, judge_output_model(self.dialect)
            )
            winner = reply.winner
            document = judge_document(reply)
        return Judgement(
            order=order,
            shown_as=dict(shown),
            winner=winner,
            winner_config=None if winner == "TIE" else shown[winner],
            document=document,
        )

    async def judge_pair(
        self, case: CaseSpec, run_number: int, dirs: dict[str, Path]
    ) -> SwapRecord:
        """Judge one run pair in both orders and reduce to a consistent verdict."""
        runs = {config: read_run_output(path) for config, path in dirs.items()}
        one, two = self.orders(case, run_number)
        first = await self._one_order(1, one, runs, case)
        second = await self._one_order(2, two, runs, case)
        consistent = first.winner_config == second.winner_config
        winner = first.winner_config if consistent else None
        verdict: Verdict = "tie" if winner is None else "a" if winner == self.config_a else "b"
        return SwapRecord(
            judge=self.kind,
            note=PROXY_NOTE if self.judge is None else None,
            backend=self.backend,
            model=self.model,
            dialect=self.dialect,
            seed=self.seed,
            case_id=case.case_id,
            run_number=run_number,
            config_a=self.config_a,
            config_b=self.config_b,
            judgements=[first, second],
            swap_consistent=consistent,
            verdict=verdict,
            winner_config=winner,
        )


# ----- the comparison document ---------------------------------------------------------------


def comparison_document(record: SwapRecord, case: CaseSpec) -> ws.WSComparison | sc.SCComparison:
    """The dialect document of the consistent verdict (labels of order 1) plus the swap record."""
    first = record.judgements[0]
    label: Label = "TIE"
    for key, config in first.shown_as.items():
        if config == record.winner_config:
            label = "A" if key == "A" else "B"
    if record.swap_consistent:
        reasoning = str(first.document.get("reasoning", ""))
    else:
        picks = [f"order {j.order} chose {j.winner_config or 'TIE'}" for j in record.judgements]
        reasoning = (
            f"The two orders disagreed ({'; '.join(picks)}), so the verdict is a TIE. "
            f"Order 1 said: {first.document.get('reasoning', '')}"
        )
    swap = record.to_json_dict()
    if record.dialect == WRITING_SKILLS and label != "TIE":
        data: dict[str, Any] = {
            "eval_prompt": case.prompt,
            "winner": label,
            "reasoning": reasoning,
        }
        if "scores" in first.document and record.judge == "model":
            data["scores"] = first.document["scores"]
        data[SWAP_KEY] = swap
        return ws.WSComparison.model_validate(data)
    data = {"winner": label, "reasoning": reasoning}
    for key in ("rubric", "output_quality", "expectation_results"):
        if key in first.document:
            data[key] = first.document[key]
    if record.dialect == WRITING_SKILLS:
        swap["dialect_note"] = WS_TIE_NOTE
    data[SWAP_KEY] = swap
    return sc.SCComparison.model_validate(data)


# ----- aggregation ---------------------------------------------------------------------------


def _rate(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def tally_cases(results: list[PairResult]) -> list[CaseTally]:
    """Per-case wins/losses/ties of config_a, with the case verdict (more wins than losses...)."""
    by_case: dict[str, list[PairResult]] = {}
    for result in results:
        by_case.setdefault(result.case_id, []).append(result)
    tallies = []
    for case_id, items in by_case.items():
        verdicts = [r.record.verdict for r in items if r.record is not None]
        wins, losses, ties = verdicts.count("a"), verdicts.count("b"), verdicts.count("tie")
        errors = sum(r.status == "error" for r in items)
        verdict: Literal["a", "b", "tie", "none"] = (
            "none" if not verdicts else "a" if wins > losses else "b" if losses > wins else "tie"
        )
        tallies.append(
            CaseTally(
                case_id=case_id, wins=wins, losses=losses, ties=ties, errors=errors, verdict=verdict
            )
        )
    return tallies


def summarise(comparator: Comparator, results: list[PairResult]) -> CompareSummary:
    """Counts, swap consistency, position bias, the case-level sign test and Wilson interval."""
    records = [r.record for r in results if r.record is not None]
    judgements = [j for rec in records for j in rec.judgements]
    decisive = [j for j in judgements if j.winner != "TIE"]
    same_label = sum(
        1
        for rec in records
        if rec.judgements[0].winner != "TIE"
        and rec.judgements[0].winner == rec.judgements[1].winner
    )
    cases = tally_cases(results)
    case_wins = sum(c.verdict == "a" for c in cases)
    case_losses = sum(c.verdict == "b" for c in cases)
    decided = case_wins + case_losses
    from skillbench.stats import binomial_test, wilson_interval  # numpy: not at import time

    low, high = wilson_interval(case_wins, decided) if decided else (None, None)
    return CompareSummary(
        config_a=comparator.config_a,
        config_b=comparator.config_b,
        judge=comparator.kind,
        note=PROXY_NOTE if comparator.judge is None else None,
        backend=comparator.backend,
        model=comparator.model,
        dialect=comparator.dialect,
        seed=comparator.seed,
        pairs=len(results),
        judged=len(records),
        errors=sum(r.status == "error" for r in results),
        skipped=sum(r.status == "skipped" for r in results),
        wins=sum(rec.verdict == "a" for rec in records),
        losses=sum(rec.verdict == "b" for rec in records),
        ties=sum(rec.verdict == "tie" for rec in records),
        swap_consistency=_rate(sum(rec.swap_consistent for rec in records), len(records)),
        position_bias_rate=_rate(same_label, len(records)),
        a_label_win_rate=_rate(sum(j.winner == "A" for j in decisive), len(decisive)),
        cases=cases,
        case_wins=case_wins,
        case_losses=case_losses,
        case_ties=sum(c.verdict == "tie" for c in cases),
        win_rate=_rate(case_wins, decided),
        win_rate_low=None if low is None else round(low, 4),
        win_rate_high=None if high is None else round(high, 4),
        sign_test_p=round(binomial_test(case_wins, decided), 6),
        pair_results=results,
    )


# ----- history -------------------------------------------------------------------------------


def pair_versions(
    workspace: Workspace, config_a: str, config_b: str
) -> tuple[int | None, int | None]:
    """The skill version each configuration ran (from v<N>, else from its run.json records)."""
    found: list[int | None] = []
    for config in (config_a, config_b):
        number = config_version(config)
        if number is None:
            versions = {run.record.version for run in workspace.iter_runs(config)}
            number = versions.pop() if len(versions) == 1 else None
        found.append(number)
    return found[0], found[1]


def history_result(summary: CompareSummary, newer_is_a: bool) -> Literal["won", "lost", "tie"]:
    """won/lost/tie of the newer version: more case wins than losses (ties and equal: tie)."""
    wins, losses = summary.case_wins, summary.case_losses
    if not newer_is_a:
        wins, losses = losses, wins
    return "won" if wins > losses else "lost" if losses > wins else "tie"


def update_history(workspace: Workspace, summary: CompareSummary) -> str | None:
    """Record won/lost/tie for the newer version against its parent; a sentence, or None."""
    if not workspace.history_path.is_file() or summary.judged == 0:
        return None
    va, vb = pair_versions(workspace, summary.config_a, summary.config_b)
    if va is None or vb is None or va == vb:
        return None
    newer, older = (va, vb) if va > vb else (vb, va)
    history = read_history(workspace)
    try:
        version = history.version(f"v{newer}")
    except InputError as exc:
        return f"history not updated: {exc.detail}"
    parent = version.parent if version.parent is not None else f"v{newer - 1}"
    if parent != f"v{older}":
        return f"history not updated: v{older} is not the parent of v{newer} ({parent})"
    result = history_result(summary, newer_is_a=va > vb)
    record_result(workspace, f"v{newer}", result)
    best = read_history(workspace).history.best
    return f"v{newer} {result} against v{older}; current_best {best}"


# ----- entry points --------------------------------------------------------------------------


def plan_pairs(
    comparator: Comparator,
) -> tuple[list[tuple[CaseSpec, int, dict[str, Path]]], list[PairResult]]:
    a_runs = run_folders(comparator.workspace, comparator.config_a)
    b_runs = run_folders(comparator.workspace, comparator.config_b)
    if not a_runs:
        raise InputError(
            f"no runs of configuration {comparator.config_a!r}",
            path=comparator.workspace.runs_dir / comparator.config_a,
            field="--a",
        )
    if not b_runs:
        raise InputError(
            f"no runs of configuration {comparator.config_b!r}",
            path=comparator.workspace.runs_dir / comparator.config_b,
            field="--b",
        )
    todo: list[tuple[CaseSpec, int, dict[str, Path]]] = []
    skipped: list[PairResult] = []
    for key in sorted(set(a_runs) | set(b_runs), key=lambda k: (k[0], k[1])):
        case_id, run_number = key
        case = comparator.cases.get(case_id)
        reason = None
        if case is None:
            reason = "case not in evals/evals.json"
        elif key not in a_runs or key not in b_runs:
            missing = comparator.config_a if key not in a_runs else comparator.config_b
            reason = f"no run {run_number} of {missing}"
        if reason is not None or case is None:
            skipped.append(
                PairResult(case_id=case_id, run_number=run_number, status="skipped", reason=reason)
            )
            continue
        todo.append(
            (case, run_number, {comparator.config_a: a_runs[key], comparator.config_b: b_runs[key]})
        )
    return todo, skipped


def plan_compare(comparator: Comparator, *, cache: CallCache | None = None) -> CostPlan:
    """The plan of `compare_workspace` for `comparator` (its `judge` unused): two requests per
    run pair, built by `Comparator.order_request` as sent; the analyzer's calls are not
    counted (named in a note); no model call."""
    from skillbench.backends.registry import backend_spec
    from skillbench.behavior.cost import key_model, planned_text_calls
    from skillbench.cost import notes
    from skillbench.cost.estimate import get_estimator
    from skillbench.cost.plan import plan_block

    todo, skipped = plan_pairs(comparator)
    backend, model = comparator.backend, comparator.model
    head = [
        f"plan: compare {comparator.config_a} vs {comparator.config_b}: {len(todo)} run pair(s) "
        f"× 2 orders on backend {backend} ({len(skipped)} pair(s) skipped)"
    ]
    estimator = get_estimator(backend, model=model, cache=cache)
    if backend_spec(backend).offline:
        return CostPlan(head, plan_block([], notes=[f"{notes.OFFLINE} (proxy comparator)"]), [])
    requests: list[TextRequest] = []
    for case, run_number, dirs in todo:
        runs = {config: read_run_output(path) for config, path in dirs.items()}
        for shown in comparator.orders(case, run_number):
            requests.append(comparator.order_request(shown, runs, case))
    output = judge_output_model(comparator.dialect)
    line = planned_text_calls(
        estimator, "compare", requests, key_model(backend, model), output, cache
    )
    return CostPlan(head, plan_block([line], notes=[notes.RETRY, notes.ANALYZER]), [line])


def _errored_runs(dirs: dict[str, Path]) -> str | None:
    problems = []
    for config, path in dirs.items():
        run = read_run_output(path)
        if run.status != "ok":
            problems.append(f"{config} run failed ({run.error})")
    return "; ".join(problems) or None


async def compare_workspace(
    comparator: Comparator,
    *,
    workers: int = 4,
    progress: ProgressFn | None = None,
    write_files: bool = True,
    update: bool = True,
) -> CompareSummary:
    """Judge every run pair, write the comparison files and the summary, update history.json.
    With `comparator.budget`, the summary's `cost` states what it metered during this call."""
    if comparator.config_a == comparator.config_b:
        raise InputError("--a and --b name the same configuration", field="--b")
    if comparator.dialect not in DIALECT_CHOICES:
        raise InputError(f"dialect must be one of {', '.join(DIALECT_CHOICES)}", field="--dialect")
    check_config(comparator.config_a)
    check_config(comparator.config_b)
    mark = comparator.budget.meter.snapshot() if comparator.budget is not None else None
    todo, results = plan_pairs(comparator)
    gate = asyncio.Semaphore(max(1, workers))
    done = 0

    async def one(case: CaseSpec, run_number: int, dirs: dict[str, Path]) -> PairResult:
        nonlocal done
        async with gate:
            failed = _errored_runs(dirs)
            budget = comparator.budget
            stop = budget is not None and comparator.judge is not None and not budget.allows()
            if failed is None and stop and budget is not None:
                budget.refuse()
                failed = STOPPED_NOTE
            if failed is not None:
                result = PairResult(
                    case_id=case.case_id,
                    run_number=run_number,
                    status="skipped",
                    reason=f"not judged: {failed}",
                )
            else:
                try:
                    record = await comparator.judge_pair(case, run_number, dirs)
                    result = PairResult(
                        case_id=case.case_id,
                        run_number=run_number,
                        status="judged",
                        record=record,
                        run_dirs={
                            config: path.relative_to(comparator.workspace.root).as_posix()
                            for config, path in dirs.items()
                        },
                    )
                except CostCapReached:
                    result = PairResult(
                        case_id=case.case_id,
                        run_number=run_number,
                        status="skipped",
                        reason=f"not judged: {STOPPED_NOTE}",
                    )
                except BackendError as exc:
                    if comparator.judge is None:
                        raise
                    result = PairResult(
                        case_id=case.case_id, run_number=run_number, status="error", reason=str(exc)
                    )
        done += 1
        if progress is not None:
            progress(done, len(todo))
        return result

    judged = list(await asyncio.gather(*(one(*item) for item in todo)))
    results = sorted(results + judged, key=lambda r: (r.case_id, r.run_number))
    space = comparator.workspace
    if write_files:
        for result in results:
            if result.record is None:
                continue
            path = space.comparison_path(
                result.case_id, comparator.config_a, comparator.config_b, result.run_number
            )
            write(comparison_document(result.record, comparator.cases[result.case_id]), path)
            result.path = path.relative_to(space.root).as_posix()
    summary = summarise(comparator, results)
    if comparator.budget is not None:
        summary.cost = comparator.budget.block(as_of=price_table_date(), since=mark)
    if update and write_files:
        summary.history = update_history(space, summary)
    if write_files:
        write_json(summary_path(space, comparator.config_a, comparator.config_b), summary)
    return summary


def summary_path(workspace: Workspace, config_a: str, config_b: str) -> Path:
    """`comparisons/<A>_vs_<B>_summary.json`."""
    return workspace.comparisons_dir / f"{config_a}_vs_{config_b}_summary.json"


def read_summary(path: str | Path) -> CompareSummary:
    """Load a `CompareSummary`; InputError names the file and the field."""
    from skillbench.documents import read_model

    return read_model(path, CompareSummary, rule="compare-summary")


__all__ = [
    "SKILL_CREATOR",
    "WRITING_SKILLS",
    "CaseSpec",
    "CaseTally",
    "Comparator",
    "CompareSummary",
    "Judgement",
    "PairResult",
    "SwapRecord",
    "case_specs",
    "compare_workspace",
    "comparison_document",
    "read_summary",
    "seeded_first_is_a",
    "summarise",
    "update_history",
]


COMPARE_SUMMARY_DOCUMENT = native_entry(
    "compare-summary", CompareSummary, ("config_a", "config_b", "swap_consistency", "pair_results")
)
"""Registered with the schema registry through the `skillbench.documents` entry point."""
