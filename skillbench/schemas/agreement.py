"""The backend-agreement document: how far two trigger backends decide the same queries alike.

Written by `skillbench agreement` and notebooks/backend_agreement.ipynb; registered with the
schema registry by `skillbench.trigger.agreement` (an entry point), never imported from here.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from skillbench.schemas.base import Document
from skillbench.schemas.trigger import BackendInfo, Interval

Verdict = Literal["trigger", "no", "undecided"]


class QueryAgreement(Document):
    """One query as both backends decided it."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"family"})

    query: str
    should_trigger: bool
    family: str | None = None
    rate_a: float | None = Field(description="trigger rate of backend A (None: no completed run)")
    rate_b: float | None = Field(description="trigger rate of backend B (None: no completed run)")
    runs_a: int = Field(ge=0, description="completed runs of backend A")
    runs_b: int = Field(ge=0, description="completed runs of backend B")
    undecided_a: int = Field(ge=0, description="runs of A that decided nothing (errors, undecided)")
    undecided_b: int = Field(ge=0, description="runs of B that decided nothing (errors, undecided)")
    verdict_a: Verdict
    verdict_b: Verdict
    agree: bool | None = Field(description="same verdict; None when either is undecided")
    run_agreement: float | None = Field(
        default=None,
        description="chance that a random run of A and one of B decide alike: "
        "rate_a·rate_b + (1 − rate_a)(1 − rate_b)",
    )


class UndecidedShare(Document):
    """How much of one backend's work decided nothing."""

    runs: Interval = Field(description="undecided runs / all runs, with a Wilson interval")
    queries: int = Field(ge=0, description="queries left undecided (no completed run)")


class AgreementReport(Document):
    """Per-query agreement, overall agreement and Cohen's κ between two backends."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"evals_file", "notes", "warnings"})

    skill_name: str
    description: str
    backend_a: BackendInfo
    backend_b: BackendInfo
    threshold: float
    confidence: float
    runs: int | Literal["auto"]
    seed: int
    evals_file: str | None = None
    queries: list[QueryAgreement]
    compared: int = Field(ge=0, description="queries decided by both backends")
    agreement: Interval = Field(description="share of compared queries with the same verdict")
    kappa: Interval = Field(description="Cohen's κ over compared queries, bootstrap interval")
    run_agreement: float | None = Field(
        default=None, description="mean over compared queries of the per-query run agreement"
    )
    undecided_a: UndecidedShare
    undecided_b: UndecidedShare
    warnings: list[str] | None = Field(
        default=None, description="loud warnings (a Claude Code CLI newer than every tested one)"
    )
    notes: list[str] | None = None
    created_at: str
    skillbench_version: str
