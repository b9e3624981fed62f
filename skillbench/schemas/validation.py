"""Seed 001 "Validation Output" (`validate_skill.py --json`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from skillbench.schemas.base import Document


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

    @model_validator(mode="after")
    def _consistent(self) -> ValidationReport:
        if any(f.level != "error" for f in self.errors):
            raise ValueError("every entry of `errors` must have level 'error'")
        if any(f.level != "warning" for f in self.warnings):
            raise ValueError("every entry of `warnings` must have level 'warning'")
        if self.summary.error_count != len(self.errors):
            raise ValueError(
                f"summary.error_count ({self.summary.error_count}) must equal len(errors) ({len(self.errors)})"
            )
        if self.summary.warning_count != len(self.warnings):
            raise ValueError(
                f"summary.warning_count ({self.summary.warning_count}) must equal len(warnings) ({len(self.warnings)})"
            )
        if self.valid != (not self.errors):
            raise ValueError("`valid` must be true exactly when `errors` is empty")
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
