"""skillbench's report documents: the header every report opens with, a saved table, and a
library's validation reports as one list (pure models; rendering lives in skillbench.reports)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, RootModel

from skillbench.schemas.base import Document
from skillbench.schemas.cost import CostBlock
from skillbench.schemas.display import box_html, mark, one_line
from skillbench.schemas.validation import ValidationReport


class ReportHeader(Document):
    """What a report is about and its one-line verdict (first in every report)."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"cli_untested"})

    title: str
    verdict: str = Field(description="one line: the answer, failures named")
    ok: bool | None = Field(default=None, description="true: passed, false: failed, null: n/a")
    failures: list[str] = Field(default_factory=list, description="the failures, listed first")
    skill: str | None = None
    eval_set: str | None = Field(default=None, description="path of the eval set (or workspace)")
    eval_set_sha256: str | None = None
    backend: str | None = None
    harness: str | None = Field(default=None, description="how the model was driven")
    model: str | None = None
    cli_version: str | None = Field(default=None, description="Claude Code CLI version, if used")
    cli_untested: str | None = Field(
        default=None,
        description="set when that CLI is newer than every version whose request fidelity "
        "skillbench tested: the warning",
    )
    listing: str | None = Field(default=None, description="what the model was shown (skills)")
    catalog: str | None = Field(
        default=None, description="the competing skills: source, skill count, sha256 (short)"
    )
    catalog_sha256: str | None = Field(default=None, description="hash of the catalog's skills")
    runs: str | None = Field(default=None, description="runs per query or case")
    date: str = Field(description="UTC, ISO 8601")
    skill_commit: str | None = Field(
        default=None, description="HEAD of the git repository holding the skill (not skillbench's)"
    )
    skill_dirty: bool | None = Field(
        default=None, description="uncommitted changes in the skill's folder"
    )
    tool_version: str | None = Field(default=None, description="skillbench's version")
    commit: str | None = Field(default=None, description="skillbench's own commit (its checkout)")
    dirty: bool | None = Field(
        default=None, description="uncommitted changes in skillbench's checkout"
    )
    recorded: str | None = Field(
        default=None, description="set when the numbers come from recorded fixtures, not a model"
    )
    proxy: str | None = Field(default=None, description="set when the judge is not Claude")
    cost: str | None = Field(
        default=None,
        description="calls, cache hit share, tokens by kind and dollars, with the price date",
    )
    cost_detail: CostBlock | None = Field(
        default=None, description="the cost as data: per backend, model and purpose"
    )

    def rows(self) -> list[tuple[str, str]]:
        """The labelled rows of the header (those with a value), in display order."""
        eval_set = self.eval_set
        if eval_set and self.eval_set_sha256:
            eval_set = f"{eval_set} (sha256 {self.eval_set_sha256[:12]})"
        skill_commit = None
        if self.skill_commit:
            skill_commit = self.skill_commit[:12]
            if self.skill_dirty:
                skill_commit += " (dirty: uncommitted changes in the skill folder)"
        tool = f"skillbench {self.tool_version}" if self.tool_version else "skillbench"
        if self.commit:
            tool += f", commit {self.commit[:12]}" + (" (dirty)" if self.dirty else "")
        rows = [
            ("skill", self.skill),
            ("eval set", eval_set),
            ("backend", self.backend),
            ("harness", self.harness),
            ("model", self.model),
            ("CLI version", self.cli_version),
            ("listing", self.listing),
            ("catalog", self.catalog),
            ("runs", self.runs),
            ("cost", self.cost),
            ("date", self.date),
            ("skill commit", skill_commit),
            ("tool", tool if self.tool_version or self.commit else None),
        ]
        return [(k, v) for k, v in rows if v]

    def __repr__(self) -> str:
        return one_line("ReportHeader", f"{self.title}: {mark(self.ok)} {self.verdict}")

    def _repr_html_(self) -> str:
        banners = []
        if self.recorded:
            banners.append(("Recorded fixtures", self.recorded, "#fff8c5"))
        if self.proxy:
            banners.append(("Not Claude", self.proxy, "#ddf4ff"))
        if self.cli_untested:
            banners.append(("Untested CLI", self.cli_untested, "#ffebe9"))
        return box_html(
            self.title, self.verdict, self.ok, self.rows(), banners=banners,
            failures=self.failures,
        )  # fmt: skip


class ReportTable(Document):
    """A table a report saved (`nb.save_table`): its header, columns and rows. A value that
    could not be computed is null, and `nulls` says why, per column."""

    table: str
    header: ReportHeader | None = None
    columns: list[str]
    rows: list[dict[str, Any]]
    nulls: dict[str, str] = Field(
        default_factory=dict, description="column -> why some of its values are null"
    )


class ValidationList(RootModel[list[ValidationReport]]):
    """The validation reports of a library, one per skill folder (validate_library)."""
