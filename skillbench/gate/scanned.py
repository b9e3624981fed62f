"""The gate's scan line: `skillbench scan` findings the head has and the base has not."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from skillbench.scan.findings import ScanFinding
from skillbench.scan.output import counts_text


class ScanChange(BaseModel):
    """What the change under test did to the skill's scan findings."""

    model_config = ConfigDict(extra="forbid")

    base_findings: int | None = Field(description="findings at the base (None: no base)")
    head_findings: int
    new: list[ScanFinding] = Field(
        default_factory=list, description="the head's findings the base lacks (lines may move)"
    )

    def lines(self) -> list[str]:
        """``Scan: …`` then one line per new finding."""
        if not self.new:
            return [f"Scan: no new finding ({self.head_findings} in head)"]
        head = [f"Scan: {len(self.new)} new in head ({counts_text(self.new)}):"]
        return head + [f"  {f.severity} {f.rule} {f.file}:{f.line}: {f.reason}" for f in self.new]


def scan_change(base_folder: Path | None, head_folder: Path) -> ScanChange:
    """Scan both sides' skill folders (the base as materialised from git)."""
    from skillbench.scan.scan import new_findings, scan_skill

    head = scan_skill(head_folder)
    base = None if base_folder is None else scan_skill(base_folder)
    return ScanChange(
        base_findings=None if base is None else len(base.findings),
        head_findings=len(head.findings),
        new=new_findings(base, head),
    )
