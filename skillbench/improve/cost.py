"""What an improvement loop costs, before it runs (`skillbench improve --dry-run`, through
`improve.run.plan_improve`, which loads the inputs like `improve_skill`).

Round 1 evaluates the original description: its requests are checked against the call cache
(hits free). Later rounds evaluate candidates nobody has seen yet, so they are counted as
uncached, each the size of the original description (a candidate is at most 1,024
characters). Each later round also asks the proposer once: its prompt is built like the real
one (the current attempt with every train query, plus the earlier attempts), so it grows with
the round; validator retries and shortening calls (at most two more per round) are not counted
and are named in a note. The loop may stop early (every train query passes, a repeat), so the
estimate is an upper bound on rounds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillbench.backends.base import TextRequest
from skillbench.cost import notes
from skillbench.cost.estimate import Planned, for_judge, get_estimator
from skillbench.cost.plan import CostPlan, key_judge, plan_block
from skillbench.improve.prompt import Attempt, QueryFeedback, TrainView, build_improver_prompt
from skillbench.improve.splits import Split
from skillbench.trigger.cost import estimate_requests, trigger_requests
from skillbench.trigger.evalset import EvalQuery

if TYPE_CHECKING:
    import pandas as pd

    from skillbench.improve.options import ImproveOptions
    from skillbench.schemas.loop import LoopSummary
    from skillbench.trigger.options import EvalContext

PROPOSER_NOTE = notes.PROPOSER
ROUNDS_NOTE = notes.ROUNDS


def improver_request(
    skill_name: str, body: str, description: str, train: list[EvalQuery], runs: int, round_no: int
) -> TextRequest:
    """A stand-in for round `round_no`'s improver request: every train query shown as failing,
    with `round_no - 2` earlier attempts of the same size."""

    def attempt(number: int) -> Attempt:
        results = tuple(QueryFeedback(q.text, q.should_trigger, 0.0, False, runs) for q in train)
        return Attempt(number, description, 0, len(train), results)

    view = TrainView(
        skill_name,
        body,
        current=attempt(round_no - 1),
        earlier=tuple(attempt(n) for n in range(1, round_no - 1)),
    )
    return TextRequest(prompt=build_improver_prompt(view), max_tokens=1024, purpose="improve")


def plan_loop(
    skill_name: str,
    description: str,
    queries: list[EvalQuery],
    split: Split,
    options: ImproveOptions,
    context: EvalContext,
) -> CostPlan:
    """The plan and estimate of an improvement loop over loaded inputs; no model call.
    `options` are the loop's (its `trigger` options key the calls as the loop's judge does:
    harness, project, batch, backend options); `context` holds the skill's body, folder and
    content hash and the catalog, as the loop's target entry has them (so round 1's cache keys
    are the ones the loop sends)."""
    from skillbench.backends.registry import backend_spec, resolve_backend_name
    from skillbench.cost.plan import existing_cache

    trigger = options.trigger
    body, rounds, runs, model = context.body, options.rounds, options.runs, trigger.model
    train = [q for q in queries if q.text in set(split.train)]
    name = resolve_backend_name(trigger.backend)
    offline = backend_spec(name).offline
    cache = existing_cache(trigger.cache_path, enabled=trigger.use_cache)
    try:
        estimator = get_estimator(name, model=model, cache=cache)
        keys, note = key_judge(name, model=model, cache=cache, options=trigger.judge_options())
        if keys is not None:
            estimator = for_judge(keys, estimator, cache=cache)
        requests = trigger_requests(
            skill_name,
            description,
            queries,
            body=body,
            catalog=list(context.catalog),
            runs_per_query=runs,
            seed=trigger.seed,
            folder=context.folder,
            content_hash=context.content_hash,
        )
        evaluation = estimate_requests(requests, estimator, keys)
        for _round in range(2, rounds + 1):
            estimate_requests(requests, estimator, None, planned=evaluation)
        planned = [evaluation]
        if not offline and rounds > 1:
            proposer = Planned(estimator, "improve")
            for round_no in range(2, rounds + 1):
                request = improver_request(skill_name, body, description, train, runs, round_no)
                proposer.add(estimator.text_call(request), 1)
            planned.append(proposer)
    finally:
        if cache is not None:
            cache.close()
    notes = [n for n in (note, ROUNDS_NOTE if rounds > 1 else None) if n]
    if not offline and rounds > 1:
        notes.append(PROPOSER_NOTE)
    per_round = len(requests)
    lines = [
        f"plan: improvement loop of {skill_name!r} on backend {name}"
        + (f" ({estimator.model})" if estimator.model else ""),
        f"  up to {rounds} rounds × {len(queries)} queries × {runs} runs = "
        f"{rounds * per_round} trigger runs; "
        f"split train {len(split.train)} / selection {len(split.selection)} / "
        f"test {len(split.test)}",
        "  proposer: offline heuristic (no model call)"
        if offline
        else f"  proposer: {max(0, rounds - 1)} improver call(s) to {name}",
    ]
    return CostPlan(lines, plan_block(planned, notes=notes), planned)


def round_costs_frame(summary: LoopSummary) -> pd.DataFrame:
    """One row per round: calls, cache hits, tokens by kind and dollars ("unknown" when a
    model has no price); the loop's total as the last row."""
    import pandas as pd

    rows = []
    entries = [(str(it.round), it.cost) for it in summary.iterations]
    entries.append(("total", summary.cost))
    for label, cost in entries:
        if cost is None:
            continue
        t = cost.tokens
        rows.append(
            {
                "round": label,
                "calls": cost.calls,
                "cache_hits": cost.cache_hits,
                "input_tokens": t.input_tokens,
                "cache_creation_input_tokens": t.cache_creation_input_tokens,
                "cache_read_input_tokens": t.cache_read_input_tokens,
                "output_tokens": t.output_tokens,
                "dollars": cost.dollars,
                "stopped_at_cap": bool(cost.stopped_at_cap),
            }
        )
    return pd.DataFrame(rows)
