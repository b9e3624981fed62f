"""The description improvement loop, with a truly held-out test set.

Round 1 evaluates the ORIGINAL description. Each later round asks a proposer for a candidate built
from train results only (a `TrainView`), validates it (an invalid candidate is retried once with the
validator's messages, then repaired, never evaluated as-is), evaluates it on every query through the
(cached) trigger judge, and records train / selection / test / full figures with Wilson intervals.
The loop stops at the round limit, when every train query passes, or when a proposal repeats an
earlier description. The best round is the one with the highest SELECTION pass rate (ties: the
shorter description, then the earlier round); the test split takes part in no decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skillbench.aio import blocking
from skillbench.backends.base import TextModel, TextRequest, TextResponse, TriggerJudge
from skillbench.backends.claude_cli.tested import cli_warnings
from skillbench.cost.budget import STOPPED_NOTE, Budget
from skillbench.cost.prices import price_table_date
from skillbench.errors import CostCapReached, InputError
from skillbench.improve.adopt import adoption_warning, decide_adoption
from skillbench.improve.options import DEFAULT_FRACTIONS as DEFAULT_FRACTIONS
from skillbench.improve.options import DEFAULT_ROUNDS as DEFAULT_ROUNDS
from skillbench.improve.options import ImproveOptions
from skillbench.improve.prompt import MAX_DESCRIPTION_CHARS, Attempt, QueryFeedback, TrainView
from skillbench.improve.proposers import ModelProposer, Proposal, Proposer
from skillbench.improve.splits import SPLIT_NAMES, Split, split_record, stratified_split
from skillbench.redaction import clip
from skillbench.schemas.cost import CostBlock
from skillbench.schemas.loop import (
    ImprovementHistory,
    ImprovementRound,
    LoopIteration,
    LoopProposalFailure,
    LoopQueryResult,
    LoopSettings,
    LoopSummary,
)
from skillbench.schemas.trigger import TriggerQuery, TriggerReport
from skillbench.stats import wilson_interval
from skillbench.timestamps import utc_timestamp
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.listing import harness_phrase
from skillbench.trigger.options import DEFAULT_CONTEXT, EvalContext
from skillbench.trigger.run import backend_workers, run_trigger_eval
from skillbench.validate.rules import validate_description

DEFAULT_IMPROVE = ImproveOptions()


class LeakError(RuntimeError):
    """A held-out (selection or test) query was about to reach the improver."""


@dataclass(frozen=True)
class RoundEvent:
    """Progress of the loop, for a CLI or a notebook: one event per stage of a round."""

    round: int
    rounds: int
    stage: str  # "warning", "candidate", "evaluating", "proposing", "evaluated", "stopped"
    message: str
    iteration: LoopIteration | None = None


ProgressHook = Callable[[RoundEvent], None]


@dataclass
class LoopResult:
    """Everything a loop produced: the seed documents, the per-round reports, the prompts sent."""

    summary: LoopSummary
    history: ImprovementHistory
    reports: list[TriggerReport]
    split: Split
    prompts: list[str] = field(default_factory=list)
    applied: bool = False
    failure: str | None = None
    """Why the loop stopped on an error (the improver gave no usable reply, a round could not
    be evaluated); None when it ended normally. What was measured before is in `summary`."""

    @property
    def measured(self) -> bool:
        """Whether round 1 measured anything (not every run of the original errored)."""
        first = self.summary.iterations[0]
        runs = sum(r.runs for r in first.results or [])
        return runs > 0 and (first.errors or 0) < runs

    @property
    def best(self) -> LoopIteration:
        """The iteration chosen on the selection split."""
        assert self.summary.best_iteration is not None
        return self.summary.best_iteration

    @property
    def chosen(self) -> LoopIteration:
        """The iteration `--apply` writes: the best round when the adoption rule lets it
        replace the original, else the original (round 1)."""
        adoption = self.summary.adoption
        if adoption is None or adoption.adopted:
            return self.best
        return self.summary.iterations[0]

    def __repr__(self) -> str:
        applied = ", applied" if self.applied else ""
        return f"LoopResult({self.summary!r}{applied})"

    def _repr_html_(self) -> str:
        return self.summary._repr_html_()


# ---------------------------------------------------------------------------------------------
# What the improver may see


def train_attempt(round_no: int, report: TriggerReport, split: Split) -> Attempt:
    """One round's description with its TRAIN results only."""
    train = set(split.train)
    results = tuple(
        QueryFeedback(
            query=r.query,
            should_trigger=r.should_trigger,
            trigger_rate=r.trigger_rate,
            passed=r.passed,
            runs=r.runs,
            fired_instead=tuple(sorted(r.fired_instead or {})),
        )
        for r in report.results
        if r.query in train
    )
    return Attempt(
        round=round_no,
        description=report.description,
        train_passed=sum(1 for r in results if r.passed),
        train_total=len(results),
        results=results,
    )


def check_view(view: TrainView, split: Split) -> None:
    """Raise LeakError unless every query in the view belongs to the train split."""
    train = set(split.train)
    for attempt in (*view.earlier, view.current):
        for result in attempt.results:
            if result.query not in train:
                raise LeakError(
                    f"round {attempt.round}: a {split.split_of(result.query)} query reached the "
                    "improver's view"
                )


def forbidden_texts(split: Split, allowed_context: Iterable[str]) -> tuple[str, ...]:
    """Held-out query texts that must never appear in a prompt (those already present in the
    skill's own text, which the improver legitimately sees, cannot be told apart and are skipped)."""
    context = "\n".join(allowed_context)
    held_out = [*split.selection, *split.test]
    return tuple(t for t in held_out if t.strip() and t.strip() not in context)


class HeldOutGuard:
    """A TextModel wrapper that refuses to send a prompt containing a held-out query."""

    def __init__(self, inner: TextModel, forbidden: Sequence[str]) -> None:
        self.inner = inner
        self.forbidden = tuple(t.strip() for t in forbidden if t.strip())
        self.name = inner.name
        self.model = inner.model

    def identity(self) -> dict[str, Any]:
        """The wrapped model's identity."""
        return self.inner.identity()

    async def complete(self, request: TextRequest) -> TextResponse:
        """Check the prompt, then ask the wrapped model."""
        for text in self.forbidden:
            if text in request.prompt or text in request.system:
                raise LeakError("a held-out query appeared in an improver prompt; not sent")
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.inner.aclose()


def guard_proposer(proposer: Proposer, forbidden: Sequence[str]) -> Proposer:
    """A model proposer whose every prompt passes through HeldOutGuard (others unchanged)."""
    if isinstance(proposer, ModelProposer) and not isinstance(proposer.model, HeldOutGuard):
        return proposer.with_model(HeldOutGuard(proposer.model, forbidden))
    return proposer


# ---------------------------------------------------------------------------------------------
# Candidates


@dataclass
class Candidate:
    """A validated candidate (or None) and how it was obtained."""

    description: str | None
    note: str
    warnings: list[str] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """Improver calls that raised or gave an unusable reply (a retry follows the first)."""


#: Errors a proposal must not swallow: a leak is a bug, the cost cap and bad input stop the run.
_NOT_A_PROPOSAL_FAILURE = (LeakError, CostCapReached, InputError)


def _failure_text(exc: Exception) -> str:
    """A failed improver call as one redacted line (a malformed or empty JSON reply from the
    API arrives as a decoding error, not a BackendError)."""
    detail = str(exc).strip()
    kind = type(exc).__name__
    return clip(f"{kind}: {detail}" if detail else kind)


async def _ask(
    proposer: Proposer, view: TrainView, failures: list[str], *, attempt: int, feedback: str = ""
) -> Proposal | None:
    """One improver call; a failure (any error but a leak, the cost cap or bad input) is
    appended to `failures` and gives None."""
    try:
        return await proposer.propose(view, attempt=attempt, feedback=feedback)
    except _NOT_A_PROPOSAL_FAILURE:
        raise
    except Exception as exc:
        failures.append(_failure_text(exc))
        return None


def candidate_problems(text: str, name: str) -> tuple[list[str], list[str]]:
    """(errors, warnings) of the validator's description rules, as "CODE: message" lines."""
    findings = validate_description(text, name=name)
    errors = [f"{f.code}: {f.message}" for f in findings if f.level == "error"]
    warnings = [f"{f.code}: {f.message}" for f in findings if f.level == "warning"]
    return errors, warnings


def repair_description(text: str) -> str:
    """Mechanical repair: drop angle brackets, normalise spaces, cut to the length limit at a
    sentence end (else a word end)."""
    clean = " ".join(text.replace("<", " ").replace(">", " ").split())
    if len(clean) <= MAX_DESCRIPTION_CHARS:
        return clean
    cut = clean[:MAX_DESCRIPTION_CHARS]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    if end >= MAX_DESCRIPTION_CHARS // 2:
        return cut[: end + 1]
    return cut[: MAX_DESCRIPTION_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "."


async def propose_candidate(proposer: Proposer, view: TrainView, name: str) -> Candidate:
    """Ask for a candidate; retry once with the validator's messages when it has problems; repair
    what still has errors; give up (None) rather than return an invalid description. A model's
    call that fails (a backend error, an invalid or empty JSON reply, a reply without a
    description) is retried once as a fresh sample; when the retry fails too, the candidate is
    None and `failures` says why."""
    failures: list[str] = []
    prompts: list[str] = []
    model_made = not getattr(proposer, "is_heuristic", False)
    first: Proposal | None = None
    for attempt in (0, 1):
        first = await _ask(proposer, view, failures, attempt=attempt)
        if first is not None and first.description is None and model_made:
            prompts.extend(first.prompts)  # a model's reply without a description: unusable
            failures.append(f"unusable reply: {first.note or 'no description'}")
            first = None
        if first is not None:
            break
    if first is None:
        note = f"the improver gave no usable reply ({len(failures)} tries): {failures[-1]}"
        return Candidate(None, note, prompts=prompts, failures=failures)
    prompts.extend(first.prompts)
    if first.description is None:
        note = first.note or "the proposer returned no description"
        return Candidate(None, note, [], prompts, failures)
    text, note = first.description, first.note
    errors, warnings = candidate_problems(text, name)
    if (errors or warnings) and not failures:  # one retry per proposal in all
        feedback = "; ".join(errors + warnings)
        retry = await _ask(proposer, view, failures, attempt=1, feedback=feedback)
        prompts.extend(retry.prompts if retry is not None else [])
        if retry is not None and retry.description is not None:
            r_errors, r_warnings = candidate_problems(retry.description, name)
            if not r_errors and (errors or len(r_warnings) < len(warnings)):
                text, errors, warnings = retry.description, r_errors, r_warnings
                note = f"{retry.note}; retried with the validator's messages".lstrip("; ")
    if errors:
        repaired = repair_description(text)
        r_errors, r_warnings = candidate_problems(repaired, name)
        if r_errors:
            note = "no valid candidate: " + "; ".join(r_errors)
            return Candidate(None, note, [], prompts, failures)
        text, warnings = repaired, r_warnings
        note = f"{note}; repaired ({'; '.join(errors)})".lstrip("; ")
    return Candidate(text, note, warnings, prompts, failures)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


# ---------------------------------------------------------------------------------------------
# Recording


def _ci(passed: int, total: int) -> list[float] | None:
    if total == 0:
        return None
    low, high = wilson_interval(passed, total)
    return [round(low, 4), round(high, 4)]


def _rate(passed: int, total: int) -> float:
    return round(passed / total, 4) if total else 0.0


def build_iteration(
    round_no: int,
    report: TriggerReport,
    split: Split,
    *,
    proposer: str | None = None,
    note: str | None = None,
    warnings: Sequence[str] = (),
) -> LoopIteration:
    """The loop summary's record of one round, with per-split counts, intervals and results."""
    results = [
        LoopQueryResult(
            query=r.query,
            split=split.split_of(r.query),
            should_trigger=r.should_trigger,
            trigger_rate=r.trigger_rate,
            triggers=r.triggers,
            runs=r.runs,
            errors=r.errors,
            passed=r.passed,
        )
        for r in report.results
    ]
    fields: dict[str, Any] = {}
    for name in ("full", *SPLIT_NAMES):
        chosen = [r for r in results if name == "full" or r.split == name]
        passed, total = sum(1 for r in chosen if r.passed), len(chosen)
        fields[f"{name}_pass_rate"] = _rate(passed, total)
        fields[f"{name}_passed"] = passed
        fields[f"{name}_total"] = total
        fields[f"{name}_ci"] = _ci(passed, total)
    return LoopIteration(
        round=round_no,
        description=report.description,
        timestamp=report.created_at or utc_timestamp(),
        errors=sum(r.errors for r in results),
        proposer=proposer,
        proposal_note=note or None,
        validation_warnings=list(warnings) or None,
        results=results,
        **fields,
    )


def choose_best(iterations: Sequence[LoopIteration]) -> LoopIteration:
    """Highest selection pass rate; ties: shorter description, then earlier round. Never test."""
    if not iterations:
        raise ValueError("no iterations to choose from")
    return min(
        iterations,
        key=lambda it: (-(it.selection_pass_rate or 0.0), len(it.description), it.round),
    )


def history_entry(iteration: LoopIteration) -> ImprovementRound:
    """Seed 001 Improvement History entry: `pass_rate` counts the TRAIN split."""
    train = [r for r in iteration.results or [] if r.split == "train"]
    return ImprovementRound(
        round=iteration.round,
        timestamp=iteration.timestamp or utc_timestamp(),
        description=iteration.description,
        pass_rate=f"{iteration.train_passed or 0}/{iteration.train_total or 0}",
        under_triggers=sum(1 for r in train if r.should_trigger and not r.passed),
        over_triggers=sum(1 for r in train if not r.should_trigger and not r.passed),
        split="train",
    )


# ---------------------------------------------------------------------------------------------
# The loop


async def run_improve_loop(
    skill_name: str,
    description: str,
    queries: Sequence[EvalQuery | TriggerQuery],
    judge: TriggerJudge,
    proposer: Proposer,
    options: ImproveOptions = DEFAULT_IMPROVE,
    *,
    context: EvalContext = DEFAULT_CONTEXT,
    progress: ProgressHook | None = None,
    budget: Budget | None = None,
) -> LoopResult:
    """Run the loop (see the module docstring); nothing is written. The judge is not closed.

    `options.trigger.seed` drives the backend and, unless `options.split_seed` is given, the
    split; a `Split` in `options.split_from` is used as is (it must hold exactly the eval set's
    queries; a file there is `improve_skill`'s to read). `context` is every round's (the skill's
    body and folder, the catalog, the eval file). With `budget` (whose meter the judge and the
    proposer's model record into, see `improve.run`), each round's cost counts its proposal and
    its evaluation, and the loop stops at the budget's cap; without it, a round's cost is its
    evaluation's."""
    rounds, fractions, adopt_alpha = options.rounds, options.fractions, options.adopt_alpha
    trigger = options.trigger
    runs, threshold, seed = trigger.runs, trigger.threshold, trigger.seed
    workers = trigger.workers if trigger.workers is not None else backend_workers(judge)
    trigger = trigger.but(workers=workers)
    catalog = context.catalog
    source = context.source
    split = options.split_from
    if split is not None and not isinstance(split, Split):
        raise InputError(
            "a recorded split must be loaded first (improve_skill, load_recorded_split)",
            field="split_from",
        )
    labelled = [_labelled(q) for q in queries]
    if split is None:
        split = stratified_split(labelled, fractions, seed=options.drawn_split_seed, source=source)
    check_split_covers(split, labelled, source)
    guarded = guard_proposer(
        proposer, forbidden_texts(split, [skill_name, context.body, description])
    )
    proposer_name = getattr(proposer, "name", type(proposer).__name__)
    emit = progress or (lambda event: None)
    warnings: list[str] = []
    unadoptable = adoption_warning(
        len(split.selection), len(labelled), split.fractions, adopt_alpha
    )
    if unadoptable is not None:
        warnings.append(unadoptable)
        emit(RoundEvent(0, rounds, "warning", unadoptable))

    async def evaluate(text: str, round_no: int) -> TriggerReport:
        role = "original" if round_no == 1 else "candidate"
        emit(
            RoundEvent(round_no, rounds, "candidate", f"round {round_no}/{rounds}: {role}: {text}")
        )
        emit(RoundEvent(round_no, rounds, "evaluating", f"round {round_no}/{rounds}: evaluating"))
        return await run_trigger_eval(skill_name, text, labelled, judge, trigger, context=context)

    as_of = price_table_date()
    mark = budget.meter.snapshot() if budget is not None else None
    start = mark
    reports = [await evaluate(description, 1)]
    iterations = [build_iteration(1, reports[0], split, proposer="original")]
    iterations[0].cost = _round_cost(reports[0], budget, mark, as_of)
    emit(_evaluated(iterations, rounds))
    attempts = [train_attempt(1, reports[0], split)]
    prompts: list[str] = []
    failures: list[LoopProposalFailure] = []
    failure: str | None = None
    stop = f"round limit reached ({rounds} evaluations)"
    while True:
        last = iterations[-1]
        if last.cost is not None and last.cost.stopped_at_cap:
            stop = f"{STOPPED_NOTE} during round {last.round}'s evaluation"
            _halt(budget)
            break
        if last.train_passed == last.train_total:
            stop = "all train queries pass"
            break
        if len(iterations) >= rounds:
            break
        round_no = last.round + 1
        if budget is not None and not budget.allows():
            stop = f"{STOPPED_NOTE} before round {round_no}"
            _halt(budget)
            break
        mark = budget.meter.snapshot() if budget is not None else None
        view = TrainView(
            skill_name, context.body, current=attempts[-1], earlier=tuple(attempts[:-1])
        )
        check_view(view, split)
        emit(RoundEvent(round_no, rounds, "proposing", f"round {round_no}/{rounds}: proposing"))
        try:
            candidate = await propose_candidate(guarded, view, skill_name)
        except CostCapReached:
            stop = f"{STOPPED_NOTE} while proposing round {round_no}"
            _halt(budget)
            break
        prompts.extend(candidate.prompts)
        failures.extend(
            LoopProposalFailure(round=round_no, attempt=i, error=error)
            for i, error in enumerate(candidate.failures)
        )
        if budget is not None and not budget.allows():
            stop = f"{STOPPED_NOTE} after proposing round {round_no} (not evaluated)"
            _halt(budget)
            break
        if candidate.description is None:
            stop = f"no candidate in round {round_no}: {candidate.note}"
            if candidate.failures:
                failure = stop
            break
        repeat = next(
            (
                it.round
                for it in iterations
                if _normal(it.description) == _normal(candidate.description)
            ),
            None,
        )
        if repeat is not None:
            stop = f"round {round_no} proposal repeats round {repeat}"
            break
        try:
            report = await evaluate(candidate.description, round_no)
        except _NOT_A_PROPOSAL_FAILURE:
            raise
        except Exception as exc:  # keep what was measured: the rounds before are written
            stop = failure = f"round {round_no} could not be evaluated: {_failure_text(exc)}"
            break
        reports.append(report)
        iteration = build_iteration(
            round_no,
            report,
            split,
            proposer=proposer_name,
            note=candidate.note,
            warnings=candidate.warnings,
        )
        iteration.cost = _round_cost(report, budget, mark, as_of)
        iterations.append(iteration)
        attempts.append(train_attempt(round_no, report, split))
        emit(_evaluated(iterations, rounds))
    complete = [it for it in iterations if not (it.cost and it.cost.stopped_at_cap)]
    best = choose_best(complete or iterations)
    emit(
        RoundEvent(len(iterations), rounds, "stopped", f"stopped: {stop}; best round {best.round}")
    )
    backend = reports[0].backend
    untested = cli_warnings(backend.versions if backend else None)
    for warning in untested:  # said as it is found, and kept in the summary
        emit(RoundEvent(len(iterations), rounds, "warning", warning))
    adoption = decide_adoption(iterations[0], best, alpha=adopt_alpha)
    summary = LoopSummary(
        skill_name=skill_name,
        original_description=description,
        iterations=iterations,
        best_iteration=best,
        final_description=best.description if adoption.adopted else iterations[0].description,
        total_rounds=len(iterations),
        split=split_record(split, labelled),
        selected_by="selection",
        stop_reason=stop,
        adoption=adoption,
        warnings=[*untested, *warnings] or None,
        proposal_failures=failures or None,
        settings=LoopSettings(
            rounds=rounds,
            runs=runs,
            threshold=threshold,
            seed=seed,
            workers=workers,
            catalog=[entry.name for entry in catalog if entry.name != skill_name],
            evals_file=str(context.evals_file) if context.evals_file is not None else None,
            evals_sha256=reports[0].config.evals_sha256 if reports[0].config else None,
            backend=backend.name if backend else None,
            model=backend.model if backend else None,
            cli_version=backend.versions.get("claude_code") if backend else None,
            proposer=proposer_name,
            proposer_is_heuristic=bool(getattr(proposer, "is_heuristic", False)),
            trigger_harness=harness_phrase(reports[0]),
        ),
    )
    summary.cost = _loop_cost(iterations, budget, start, as_of)
    history = ImprovementHistory([history_entry(it) for it in iterations])
    return LoopResult(summary, history, reports, split, prompts, failure=failure)


def _halt(budget: Budget | None) -> None:
    if budget is not None:
        budget.halt()


def _round_cost(
    report: TriggerReport, budget: Budget | None, mark: Any, as_of: str | None
) -> CostBlock | None:
    """A round's cost: the meter's growth since `mark` (proposal + evaluation) when metered,
    else the evaluation's report cost."""
    if budget is None:
        return report.cost
    block = budget.meter.block(as_of=as_of, since=mark)
    block.cap_usd = budget.cap_usd
    if report.cost is not None and report.cost.stopped_at_cap:
        block.stopped_at_cap = True
        block.notes = report.cost.notes
    return block


def _loop_cost(
    iterations: Sequence[LoopIteration], budget: Budget | None, start: Any, as_of: str | None
) -> CostBlock | None:
    """The whole loop's cost (the meter's growth since `start` when metered, else the rounds'
    sum)."""
    if budget is not None:
        return budget.block(as_of=as_of, since=start)
    blocks = [it.cost for it in iterations if it.cost is not None]
    if not blocks:
        return None
    total = blocks[0]
    for block in blocks[1:]:
        total = total.plus(block)
    return total


run_improve_loop_sync = blocking(run_improve_loop)


def _evaluated(iterations: Sequence[LoopIteration], rounds: int) -> RoundEvent:
    """The event of the latest round: its results on every split, then what the selection
    split made of it (`selection_result`)."""
    it = iterations[-1]
    message = (
        f"round {it.round}/{rounds}: train {it.train_passed}/{it.train_total}, "
        f"selection {it.selection_passed}/{it.selection_total}, "
        f"test {it.test_passed}/{it.test_total}, errors {it.errors}; "
        f"{selection_result(iterations)}"
    )
    return RoundEvent(it.round, rounds, "evaluated", message, it)


def selection_result(iterations: Sequence[LoopIteration]) -> str:
    """Whether the latest round is now the best on the selection split (`choose_best`: the
    rate, then the shorter description, then the earlier round), said against the round it
    displaces or the round that stays best."""
    latest = iterations[-1]
    earlier = [it for it in iterations[:-1] if not (it.cost and it.cost.stopped_at_cap)]
    if not earlier:
        return "selection result: the original, the round to beat"
    before = choose_best(earlier)
    now = choose_best([*earlier, latest])
    held = f"{before.selection_passed}/{before.selection_total}"
    if now is latest:
        why = "shorter at the same rate" if _same_rate(now, before) else "higher rate"
        return f"selection result: best so far ({why}; round {before.round} had {held})"
    return f"selection result: not chosen, round {before.round} stays best ({held})"


def _same_rate(a: LoopIteration, b: LoopIteration) -> bool:
    return (a.selection_pass_rate or 0.0) == (b.selection_pass_rate or 0.0)


def _labelled(query: EvalQuery | TriggerQuery) -> EvalQuery:
    if isinstance(query, EvalQuery):
        return query
    return EvalQuery(query.text, query.should_trigger, query.family)


def check_split_covers(
    split: Split,
    queries: Sequence[EvalQuery | TriggerQuery],
    source: str,
    *,
    against: str = "the eval set",
) -> None:
    """A given split must hold exactly the eval set's queries (InputError naming `source`)."""
    texts = {q.text for q in queries}
    members = {t for name in SPLIT_NAMES for t in split.members(name)}
    if members != texts:
        missing = sorted(texts - members)[:3]
        extra = sorted(members - texts)[:3]
        raise InputError(
            f"the split does not match {against} (missing {missing}, unknown {extra})",
            path=source,
            field="split",
        )
