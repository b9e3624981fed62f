"""Seed 001 "Validation Output" (`validate_skill.py --json`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from skillbench.schemas.base import Document
from skillbench.schemas.common import rule_error
from skillbench.schemas.display import box_html, one_line, table_html


class Finding(Document):
    """One validator finding."""

    level: Literal["error", "warning"]
    code: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$")
    message: str


class ValidationSummary(Document):
    """Counts that must equal the lengths of the two lists."""

    error_count: int = Field(ge=0)
    warning_count: int = Field(ge=0)


class ValidationReport(Document):
    """The validator's answer for one skill folder; `valid` means no errors."""

    skill_path: str
    valid: bool
    errors: list[Finding]
    warnings: list[Finding]
    summary: ValidationSummary

    def __repr__(self) -> str:
        state = "valid" if self.valid else "INVALID"
        codes = sorted({f.code for f in [*self.errors, *self.warnings]})
        text = f"{self.skill_path}: {state}, {len(self.errors)} error(s), "
        text += f"{len(self.warnings)} warning(s)" + (f": {', '.join(codes)}" if codes else "")
        return one_line("ValidationReport", text)

    def _repr_html_(self) -> str:
        findings = [[f.level, f.code, f.message] for f in [*self.errors, *self.warnings]]
        verdict = ("valid" if self.valid else "invalid") + (
            f": {len(self.errors)} error(s), {len(self.warnings)} warning(s)"
        )
        table = table_html(["level", "code", "message"], findings) if findings else ""
        return box_html(
            "Validation", verdict, self.valid, [("skill", self.skill_path)], table=table
        )

    @model_validator(mode="after")
    def _consistent(self) -> ValidationReport:
        for name, level in (("errors", "error"), ("warnings", "warning")):
            for index, finding in enumerate(getattr(self, name)):
                if finding.level != level:
                    raise rule_error(
                        "finding-level",
                        f"an entry of `{name}` must have level '{level}'",
                        f"{name}[{index}].level",
                    )
        for count, name in (("error_count", "errors"), ("warning_count", "warnings")):
            listed = len(getattr(self, name))
            if getattr(self.summary, count) != listed:
                raise rule_error(
                    "summary-counts",
                    f"summary.{count} ({getattr(self.summary, count)}) must equal len({name}) ({listed})",
                    f"summary.{count}",
                )
        if self.valid != (not self.errors):
            raise rule_error(
                "valid-iff-no-errors",
                "`valid` must be true exactly when `errors` is empty",
                "valid",
            )
        return self

    @classmethod
    def from_findings(cls, skill_path: str, findings: list[Finding]) -> ValidationReport:
        """Build a consistent report from an unordered list of findings."""
        errors = [f for f in findings if f.level == "error"]
        warnings = [f for f in findings if f.level == "warning"]
        return cls(
            skill_path=skill_path,
            valid=not errors,
            errors=errors,
            warnings=warnings,
            summary=ValidationSummary(error_count=len(errors), warning_count=len(warnings)),
        )
