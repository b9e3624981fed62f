"""The `--max-cost` cap as one guard, in the library: a scoped limit in the style of
inspect_ai's `cost_limit`.

    with cost_limit(0.50):                      # a notebook caps whatever runs inside
        grade_workspace_sync("skills/csv-cleanup", backend="anthropic")

Every workflow (trigger, improve, run, grade, compare) asks `workflow_budget` for the budget it
runs under: its own `budget` when given; else, with `max_cost`, a new capped one — after
refusing up front a plan whose estimate exceeds the cap (`refuse_plan`: CostCapError, exit 3;
a model without a price is an InputError naming --model, exit 2); else the innermost active
`cost_limit`'s. Limits nest: an inner one records into the outer one's meter too, and a call
starts only while every enclosing cap allows it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from skillbench.cost.budget import Budget, parse_max_cost
from skillbench.cost.plan import CostPlan, check_cap, require_price

PlanSource = Callable[[], CostPlan]
"""Builds the workflow's plan (no model call); called only when a cap is to be checked."""

_ACTIVE: ContextVar[Budget | None] = ContextVar("skillbench_cost_limit", default=None)


def active_budget() -> Budget | None:
    """The budget of the innermost `cost_limit` around this call, if any."""
    return _ACTIVE.get()


def refuse_plan(plan: CostPlan, cap: float | None) -> None:
    """Every model of the plan must have a price (InputError naming --model) when a cap is
    set; an estimate above the cap is refused (CostCapError)."""
    if cap is None:
        return
    for line in plan.planned:
        require_price(line.estimator)
    check_cap(plan.estimate, cap)


@contextmanager
def cost_limit(usd: float | str | None, *, plan: PlanSource | None = None) -> Iterator[Budget]:
    """A scoped cap of `usd` dollars (None: meter only) on every workflow started inside; with
    `plan`, refuse up front when its estimate exceeds the cap. Yields the shared Budget (its
    meter holds what was spent inside)."""
    cap = parse_max_cost(usd, env=False) if usd is not None else None
    if plan is not None:
        refuse_plan(plan(), cap)
    budget = Budget(cap, parent=_ACTIVE.get())
    token = _ACTIVE.set(budget)
    try:
        yield budget
    finally:
        _ACTIVE.reset(token)


def workflow_budget(
    *, budget: Budget | None, max_cost: float | str | None, plan: PlanSource | None
) -> Budget:
    """The budget a workflow runs under (see the module's docstring); refuses a plan over
    `max_cost` before anything starts. `max_cost` is checked here for every workflow (a
    notebook's or a YAML's "0.5" is read as 0.5; a cap that is not a positive finite number is
    an InputError naming --max-cost, exit 2)."""
    cap = parse_max_cost(max_cost, env=False) if max_cost is not None else None
    if budget is not None:
        return budget
    outer = _ACTIVE.get()
    if cap is not None:
        if plan is not None:
            refuse_plan(plan(), cap)
        return Budget(cap, parent=outer)
    return outer if outer is not None else Budget()
