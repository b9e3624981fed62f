"""What a scan finds, as documents: one `ScanFinding` per hit, grouped per skill."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Severity = Literal["error", "warning"]


class ScanFinding(BaseModel):
    """One hit of one rule: where it is and, in one line, why it is a risk."""

    model_config = ConfigDict(extra="forbid")

    rule: str = Field(description="the rule id (`skillbench.scan.rules.RULES`)")
    severity: Severity
    file: str = Field(description="the file, relative to the skill folder (POSIX)")
    line: int = Field(ge=1, description="1-based line")
    reason: str = Field(description="one line; never the secret itself")


class SkillScan(BaseModel):
    """Every finding in one skill folder, in file and line order."""

    model_config = ConfigDict(extra="forbid")

    skill: str = Field(description="the skill folder as shown (relative to a library's root)")
    path: str = Field(description="the skill folder as scanned")
    findings: list[ScanFinding] = Field(default_factory=list)
    skipped: list[str] = Field(
        default_factory=list, description="files not read (binary or too large), with why"
    )

    @property
    def errors(self) -> list[ScanFinding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[ScanFinding]:
        return [f for f in self.findings if f.severity == "warning"]


class ScanReport(BaseModel):
    """`skillbench scan --format json`: one skill, or every skill of a library."""

    model_config = ConfigDict(extra="forbid")

    root: str = Field(description="the PATH given")
    library: bool = Field(description="whether PATH was scanned as a library of skills")
    skills: list[SkillScan]

    @property
    def findings(self) -> list[ScanFinding]:
        return [f for s in self.skills for f in s.findings]

    @property
    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)
