"""The options of the improvement loop, declared once: `ImproveOptions`, which holds the
`TriggerOptions` every round's trigger eval runs with and adds the loop's own (rounds, split,
adoption test)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.errors import InputError
from skillbench.improve.adopt import ADOPT_ALPHA
from skillbench.improve.splits import Split
from skillbench.trigger.options import TriggerOptions

DEFAULT_ROUNDS = 5
DEFAULT_FRACTIONS = (0.6, 0.2, 0.2)


@dataclass(frozen=True, kw_only=True)
class ImproveOptions:
    """How to run the improvement loop. `trigger.seed` drives the backend and, unless
    `split_seed` is given, the split; `trigger.runs` is a fixed number."""

    trigger: TriggerOptions = field(default_factory=TriggerOptions)
    """The options of every round's trigger eval (backend, model, runs, workers, cost cap, …)."""
    rounds: int = DEFAULT_ROUNDS
    """Evaluations, the original's included."""
    fractions: tuple[float, float, float] = DEFAULT_FRACTIONS
    """Train, selection and test shares of the eval set."""
    split_seed: int | None = None
    """Seed of the split (None: `trigger.seed`)."""
    split_from: str | Path | Split | None = None
    """Reuse a recorded split (a Split, or a loop summary file or folder) instead of drawing
    one; it must hold exactly the eval set's queries."""
    adopt_alpha: float = ADOPT_ALPHA
    """Significance level of the adoption test (the best round replaces the original only when
    it beats it on the selection split at this level)."""
    library_dir: str | Path | None = None
    """`--library`: the other skills of this folder compete (the catalog, unless
    `trigger.catalog_dir` names one) and their should-trigger queries join as should-not-trigger
    ones (`library.neighbours`); the summary lists each round's stolen neighbour queries."""

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise InputError("must be a positive integer", field="rounds")
        if not 0.0 < self.adopt_alpha < 1.0:
            raise InputError("must be between 0 and 1 (exclusive)", field="adopt_alpha")
        if self.trigger.runs == "auto":  # every round samples every query alike
            raise InputError("the loop needs a fixed number of runs per query", path="--runs")

    def but(self, **changes: Any) -> ImproveOptions:
        """A copy with `changes` applied (`dataclasses.replace`; checked again)."""
        return dataclasses.replace(self, **changes)

    @property
    def runs(self) -> int:
        """Runs per query of every round (a fixed number)."""
        return int(self.trigger.runs)

    @property
    def drawn_split_seed(self) -> int:
        """The seed the split is drawn with: `split_seed`, else `trigger.seed`."""
        return self.trigger.seed if self.split_seed is None else self.split_seed
