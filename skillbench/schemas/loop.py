"""Seed 001 Improvement History and Loop Summary, with skillbench's optional selection fields."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, RootModel, StrictInt, model_validator

from skillbench.schemas.common import Count, Doc, Number, Rate, close, rule_error
from skillbench.schemas.cost import CostBlock
from skillbench.schemas.display import box_html, one_line, table_html
from skillbench.schemas.trigger import TriggerQuery

RATE_TOLERANCE = 1e-4
_FRACTION = re.compile(r"^(\d+)/(\d+)$")


class ImprovementRound(Doc):
    """One round of `improve_description.py --history`."""

    round: StrictInt = Field(ge=0)
    timestamp: str
    description: str
    pass_rate: str = Field(description='"passed/total", e.g. "8/10"')
    under_triggers: Count
    over_triggers: Count
    split: str | None = Field(
        default=None, description="which queries pass_rate counts (skillbench writes 'train')"
    )

    @model_validator(mode="after")
    def _fraction(self) -> ImprovementRound:
        match = _FRACTION.match(self.pass_rate)
        if not match:
            raise rule_error("pass-rate-fraction", 'pass_rate must look like "p/t"', "pass_rate")
        passed, total = int(match[1]), int(match[2])
        if passed > total:
            raise rule_error(
                "pass-rate-fraction", f"pass_rate {self.pass_rate}: p must be <= t", "pass_rate"
            )
        return self

    @property
    def passed_total(self) -> tuple[int, int]:
        """The (passed, total) pair of `pass_rate`."""
        passed, total = self.pass_rate.split("/")
        return int(passed), int(total)


class ImprovementHistory(RootModel[list[ImprovementRound]]):
    """The history file: a JSON array of rounds."""


Interval2 = Annotated[list[Number], Field(min_length=2, max_length=2, description="[low, high]")]
SplitLabel = Literal["train", "selection", "test"]


class LoopQueryResult(Doc):
    """One query's trigger result in one iteration (skillbench), tagged with its split."""

    query: str
    split: SplitLabel
    should_trigger: bool
    trigger_rate: Rate
    triggers: Count
    runs: Count
    errors: Count = 0
    passed: bool


class LoopIteration(Doc):
    """One loop iteration: rates on each split; counts where known."""

    round: StrictInt = Field(ge=0)
    description: str
    full_pass_rate: Rate
    train_pass_rate: Rate | None = None
    test_pass_rate: Rate | None = None
    train_passed: Count | None = None
    train_total: Count | None = None
    test_passed: Count | None = None
    test_total: Count | None = None
    full_passed: Count | None = None
    full_total: Count | None = None
    timestamp: str | None = None
    errors: Count | None = Field(default=None, description="errored runs (skillbench)")
    selection_pass_rate: Rate | None = Field(
        default=None, description="skillbench: selection split"
    )
    selection_passed: Count | None = None
    selection_total: Count | None = None
    train_ci: Interval2 | None = None
    selection_ci: Interval2 | None = None
    test_ci: Interval2 | None = None
    full_ci: Interval2 | None = None
    proposer: str | None = Field(default=None, description="who proposed it (skillbench)")
    proposal_note: str | None = None
    validation_warnings: list[str] | None = None
    results: list[LoopQueryResult] | None = Field(
        default=None, description="per-query results of this iteration (skillbench)"
    )
    cost: CostBlock | None = Field(
        default=None, description="cost of this round: its proposal and its evaluation"
    )

    @model_validator(mode="after")
    def _rates_match_counts(self) -> LoopIteration:
        for split in ("full", "train", "selection", "test"):
            rate = getattr(self, f"{split}_pass_rate")
            passed = getattr(self, f"{split}_passed")
            total = getattr(self, f"{split}_total")
            if passed is None or total is None:
                continue
            if passed > total:
                raise rule_error(
                    "passed-le-total",
                    f"{split}_passed ({passed}) exceeds {split}_total ({total})",
                    f"{split}_passed",
                )
            if rate is not None and total > 0 and not close(rate, passed / total, RATE_TOLERANCE):
                raise rule_error(
                    "rate-equals-counts",
                    f"{split}_pass_rate must equal {split}_passed / {split}_total = "
                    f"{passed / total:.4f}, got {rate}",
                    f"{split}_pass_rate",
                )
        for split in ("full", "train", "selection", "test"):
            ci = getattr(self, f"{split}_ci")
            if ci is not None and not (0 <= ci[0] <= ci[1] <= 1):
                raise rule_error("ci-order", "need 0 <= low <= high <= 1", f"{split}_ci")
        return self


class LoopSplit(Doc):
    """How the eval set was split (skillbench): seed, fractions and the queries of each split."""

    seed: StrictInt
    fractions: dict[str, Number]
    train: list[TriggerQuery]
    selection: list[TriggerQuery]
    test: list[TriggerQuery]

    @model_validator(mode="after")
    def _disjoint(self) -> LoopSplit:
        seen: set[str] = set()
        for name in ("train", "selection", "test"):
            for index, item in enumerate(getattr(self, name)):
                if item.text in seen:
                    raise rule_error(
                        "split-disjoint",
                        f"query {item.text!r} appears in more than one split",
                        f"{name}[{index}]",
                    )
                seen.add(item.text)
        return self


class LoopSettings(Doc):
    """How the loop was run (skillbench), so a run can be reproduced."""

    rounds: Count
    runs: Count
    threshold: Number
    seed: StrictInt
    workers: Count | None = None
    catalog: list[str] | None = None
    catalog_source: str | None = Field(
        default=None, description="the catalog given: a folder, installed or none"
    )
    catalog_sha256: str | None = Field(default=None, description="hash of the catalog's skills")
    evals_file: str | None = None
    evals_sha256: str | None = None
    backend: str | None = None
    model: str | None = None
    cli_version: str | None = Field(
        default=None, description="the Claude Code CLI version, if used"
    )
    proposer: str | None = None
    proposer_is_heuristic: bool | None = None
    trigger_harness: str | None = Field(
        default=None,
        description="the trigger evals' harness, whose request and the CLI mode "
        "(e.g. `replay (Claude Code's own request, interactive CLI)`)",
    )


class LoopAdoption(Doc):
    """Whether the best round replaces the original (skillbench): only when it beats it on the
    selection split by a one-sided exact McNemar test at `alpha`."""

    rule: str = Field(description="the adoption rule, in words")
    alpha: Number
    adopted: bool
    chosen_round: StrictInt = Field(ge=0, description="the round whose description is kept")
    best_round: StrictInt = Field(ge=0, description="the round chosen on selection")
    improved: Count = Field(description="selection queries only the best round passes")
    regressed: Count = Field(description="selection queries only the original passes")
    p_value: Number | None = Field(description="one-sided exact McNemar p (null: same round)")
    reason: str
    selection_size: Count | None = Field(default=None, description="selection queries")
    min_p_value: Number | None = Field(
        default=None,
        description="the smallest p attainable with this selection split (every query a "
        "discordant pair in the best round's favour); adoption is impossible when >= alpha",
    )
    min_selection_size: Count | None = Field(
        default=None, description="the fewest selection queries with which p < alpha is possible"
    )


class LoopProposalFailure(Doc):
    """An improver call that failed or gave an unusable reply (skillbench)."""

    round: StrictInt = Field(ge=0, description="the round being proposed")
    attempt: Count = Field(description="0 = first try, 1 = the retry")
    error: str


class NeighbourSteal(Doc):
    """A neighbour's should-trigger query that fired the target in a round (`improve --library`)."""

    neighbour: str = Field(description="the library skill the query belongs to")
    query: str
    triggers: Count
    runs: Count


class RoundSteals(Doc):
    """One round's stolen neighbour queries (empty: the round's description stole none)."""

    round: Count
    stolen: list[NeighbourSteal] = Field(default_factory=list)


class LoopSummary(Doc):
    """`run_loop.py --output-dir` summary."""

    skill_name: str
    original_description: str
    iterations: list[LoopIteration]
    best_iteration: LoopIteration | None
    final_description: str = Field(
        description="the description kept: the best round's when the adoption rule adopted it, "
        "else the original (skillbench); never a rejected candidate"
    )
    total_rounds: Count
    split: LoopSplit | None = None
    selected_by: Literal["selection"] | None = None
    stop_reason: str | None = Field(default=None, description="why the loop ended (skillbench)")
    settings: LoopSettings | None = None
    cost: CostBlock | None = Field(default=None, description="cost of the whole loop")
    adoption: LoopAdoption | None = None
    warnings: list[str] | None = Field(
        default=None, description="loud warnings about the run (skillbench)"
    )
    proposal_failures: list[LoopProposalFailure] | None = Field(
        default=None, description="improver calls that gave no usable reply (skillbench)"
    )
    neighbour_steals: list[RoundSteals] | None = Field(
        default=None,
        description="improve --library: per round, the other skills' queries that fired the "
        "target (skillbench)",
    )

    def __repr__(self) -> str:
        best = self.best_iteration
        text = f"{self.skill_name}: {len(self.iterations)} round(s)"
        if best is not None:
            text += f", best round {best.round}"
            if best.selection_passed is not None and best.selection_total:
                text += f" (selection {best.selection_passed}/{best.selection_total})"
        if self.adoption is not None:
            text += f", kept round {self.adoption.chosen_round}"
        if self.stop_reason:
            text += f"; stopped: {self.stop_reason}"
        return one_line("LoopSummary", text)

    def _repr_html_(self) -> str:
        def split(passed: int | None, total: int | None) -> str | None:
            return None if passed is None or not total else f"{passed}/{total}"

        table = table_html(
            ["round", "train", "selection", "test", "description"],
            [
                [
                    it.round,
                    split(it.train_passed, it.train_total),
                    split(it.selection_passed, it.selection_total),
                    split(it.test_passed, it.test_total),
                    it.description,
                ]
                for it in self.iterations
            ],
        )
        best = self.best_iteration
        verdict = f"best round {best.round}" if best is not None else "no round chosen"
        if self.adoption is not None:
            verdict += f"; kept round {self.adoption.chosen_round}: {self.adoption.reason}"
        rows = [("skill", self.skill_name), ("rounds", str(len(self.iterations)))]
        if self.stop_reason:
            rows.append(("stopped", self.stop_reason))
        if self.settings is not None and self.settings.backend:
            rows.append(("backend", self.settings.backend))
        title = "Improvement loop"
        return box_html(title, verdict, None, rows, table=table)

    @model_validator(mode="after")
    def _best_is_an_iteration(self) -> LoopSummary:
        if self.best_iteration is not None:
            rounds = {it.round for it in self.iterations}
            if self.best_iteration.round not in rounds:
                raise rule_error(
                    "best-is-iteration",
                    f"best_iteration.round {self.best_iteration.round} is not among the iterations",
                    "best_iteration.round",
                )
        return self
