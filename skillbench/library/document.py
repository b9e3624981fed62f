"""The `library-routing` document: what `skillbench library` writes and the notebook saves.

Every number is an integer count or a rate with its Wilson interval (`Interval`); nothing is
NaN, so the JSON is strict (`json.loads(..., parse_constant=...)` never meets a constant).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar, Literal

from pydantic import Field

from skillbench.schemas.base import Document
from skillbench.schemas.cost import CostBlock
from skillbench.schemas.trigger import BackendInfo, HarnessInfo, Interval

NONE = "(none)"
"""The row of queries that should fire no skill, and the column of runs that fired none."""
UNDECIDED = "(undecided)"
"""The column of runs whose first move was another tool (neither a trigger nor a miss)."""
ERROR = "(error)"
"""The column of runs that did not complete (never counted as "no skill")."""
ListingState = Literal["full", "truncated", "name-only", "absent"]


class SkillEvals(Document):
    """One skill of the library and where its trigger queries came from (None: untested)."""

    name: str
    folder: str | None = None
    evals_file: str | None = None
    evals_sha256: str | None = None
    positives: int = 0
    negatives: int = 0


class QueryRouting(Document):
    """One query: the skill it was written for (None: should fire none), the eval sets that hold
    it, and what fired in its runs (`fired`: skill name or `(none)` → runs)."""

    query: str
    expected: str | None
    sources: list[str] = Field(description="`skill:+` (a positive of skill) or `skill:-`")
    target: str = Field(
        description="the skill whose fires count as hits (`--runs auto` settles its rate): the "
        "expected one, else the first skill whose set holds the query as should-not-trigger"
    )
    runs: int = Field(ge=0, description="completed runs")
    undecided: int = Field(ge=0, default=0)
    errors: int = Field(ge=0, default=0)
    fired: dict[str, int] = Field(default_factory=dict)
    error_messages: list[str] | None = None


class ConfusionMatrix(Document):
    """Rows: the skill a query was written for, or `(none)`; columns: what fired (each skill,
    `(none)`, `(undecided)`, `(error)`); `counts[i][j]` runs. A large library (more than
    `confusion.MAX_DENSE_CELLS` cells) keeps only its non-zero cells, `cells`
    ([row, column, runs], row-major), and no `counts`."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"cells"})

    rows: list[str]
    columns: list[str]
    counts: list[list[int]] = Field(default_factory=list)
    cells: list[tuple[int, int, int]] | None = Field(
        default=None, description="the non-zero cells of a matrix too large to hold whole"
    )

    def nonzero(self) -> Iterator[tuple[int, int, int]]:
        """(row, column, runs) of every non-zero cell, row-major, whichever form is kept."""
        if self.cells is not None:
            yield from self.cells
            return
        for i, row in enumerate(self.counts):
            for j, n in enumerate(row):
                if n:
                    yield i, j, n


class Flow(Document):
    """One skill's queries that fired another skill: `runs` that did, `rate` the share of the
    row's queries (with a completed run) it fired at least once."""

    skill: str
    runs: int
    rate: Interval


class SkillRouting(Document):
    """Per skill: its own eval set judged by `trigger`'s rule, recall (its should-trigger
    queries that pass) and precision (the queries firing it in at least `threshold` of their
    runs that are its own), over queries; who steals from it and whom it steals from."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"passed", "failed"})

    name: str
    queries: int
    runs: int = Field(description="completed runs of its own queries")
    fires: int = Field(description="runs of any query that fired it")
    recall: Interval
    precision: Interval
    passed: int | None = Field(
        default=None, description="queries of its own eval set that pass (None: untested)"
    )
    failed: int | None = Field(
        default=None, description="queries of its own eval set that fail (unresolved included)"
    )
    failing: list[str] = Field(default_factory=list, description="the failing queries")
    stolen_by: list[Flow] = Field(default_factory=list)
    steals_from: list[Flow] = Field(default_factory=list)
    listing: ListingState | None = None


class ConfusedPair(Document):
    """Two skills taking each other's queries: `a_to_b` runs of a's queries fired b, and back."""

    a: str
    b: str
    a_to_b: int
    b_to_a: int
    runs: int = Field(description="completed runs of both skills' queries")
    queries: int = Field(
        default=0, description="queries of either that fired the other at least once"
    )
    rate: Interval = Field(description="`queries` over both skills' queries with a completed run")
    examples: list[str] = Field(default_factory=list)


class ListedSkill(Document):
    """How one skill appears in Claude Code's skill listing."""

    name: str
    state: ListingState
    chars: int = Field(description="width of its full listing line")


class BudgetWhatIf(Document):
    """The listing at another budget: how many skills are shown in full, which are hidden."""

    budget_chars: int
    full: int = Field(description="skills listed whole")
    truncated: list[str] = Field(
        default_factory=list, description="skills listed with their entry cut at 1,536 characters"
    )
    name_only: list[str]


class LibraryListing(Document):
    """What Claude Code's skill listing shows of the library, and what would change it."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"rules", "rule_check", "entry_cap"})

    source: Literal["captured-request", "estimate"]
    budget_chars: int | None
    budget_source: str | None = None
    listing_chars: int = Field(
        description="width of every line at full length (skills + built-ins)"
    )
    skills: list[ListedSkill]
    what_if: list[BudgetWhatIf] = Field(default_factory=list)
    cut_to_fit: int | None = Field(
        default=None,
        description="the longest description (characters) that lists every skill in full at this "
        "budget when every longer one is cut to it; None: even bare names do not fit",
    )
    cut_skills: list[str] = Field(default_factory=list, description="skills that cut would shorten")
    rules: str | None = Field(
        default=None,
        description="whose listing rule the what-if, the cut and an estimate apply: the CLI in "
        "use's, read from it by calibration captures, or a tabled version's (no CLI in use)",
    )
    rule_check: str | None = Field(
        default=None,
        description="with a captured listing: whether the rule at the captured budget "
        "reproduces every skill's captured state",
    )
    rule_mismatch: list[str] = Field(
        default_factory=list, description="skills whose captured state the rule predicts wrongly"
    )
    entry_cap: int | None = Field(
        default=None, description="the CLI's cap of one entry's text (UTF-16 units)"
    )
    applied: bool = Field(
        default=True,
        description="whether the model was shown the library as listed here (Claude Code's "
        "request, or a proxy given the listed descriptions); False: the harness sends every "
        "description in full, so the listing is Claude Code's rule only, not what was measured",
    )


class OverlapPair(Document):
    """Two descriptions the offline embedder finds alike (cosine), before any paid call."""

    a: str
    b: str
    similarity: float


class LibraryConfig(Document):
    """The options of the run."""

    runs: int | Literal["auto"]
    max_runs: int | None = None
    confidence: float
    threshold: float = Field(default=0.5, description="trigger's pass rule for each own eval set")
    seed: int
    workers: int
    timeout_seconds: float | None = None
    budget_chars: int | None = Field(default=None, description="--budget: the listing budget set")
    evals_dir: str | None = None


class LibraryReport(Document):
    """`library-routing`: the whole library routed at once (one call per query-run)."""

    kind: ClassVar[str] = "library-routing"
    omit_if_none: ClassVar[frozenset[str]] = frozenset({"harness", "cost", "listing"})

    document: Literal["library-routing"] = "library-routing"
    library: str
    library_sha256: str
    skills: list[SkillEvals]
    untested: list[str] = Field(description="skills without a trigger eval set")
    backend: BackendInfo
    harness: HarnessInfo | None = None
    config: LibraryConfig
    queries: list[QueryRouting]
    matrix: ConfusionMatrix
    per_skill: list[SkillRouting]
    pairs: list[ConfusedPair]
    listing: LibraryListing | None = None
    overlap: list[OverlapPair] = Field(default_factory=list)
    calls: int
    cache_hits: int
    cost: CostBlock | None = None
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    created_at: str
    skillbench_version: str
