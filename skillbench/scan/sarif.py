"""SARIF 2.1.0 for GitHub code scanning: one run, the rule table as the driver's rules, one
result per finding located by a URI relative to the working directory (the checkout in CI)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from skillbench.scan.findings import ScanReport
from skillbench.scan.rules import RULES
from skillbench.version import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"


def _uri(path: Path, base: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), base)
    return quote(Path(rel).as_posix(), safe="/-._~")


def _rules() -> list[dict[str, Any]]:
    return [
        {
            "id": rule.id,
            "name": "".join(part.capitalize() for part in rule.id.split("_")),
            "shortDescription": {"text": rule.summary},
            "defaultConfiguration": {"level": rule.severity},
        }
        for rule in RULES
    ]


def sarif_document(report: ScanReport, cwd: str | Path | None = None) -> dict[str, Any]:
    """The SARIF log of `report`; paths relative to `cwd` (default: the working directory)."""
    base = os.path.abspath(cwd or os.getcwd())
    index = {rule.id: i for i, rule in enumerate(RULES)}
    results = []
    for scan in report.skills:
        for finding in scan.findings:
            uri = _uri(Path(scan.path) / finding.file, base)
            results.append(
                {
                    "ruleId": finding.rule,
                    "ruleIndex": index[finding.rule],
                    "level": finding.severity,
                    "message": {"text": f"{finding.rule}: {finding.reason}"},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": uri},
                                "region": {"startLine": finding.line},
                            }
                        }
                    ],
                }
            )
    driver = {
        "name": "skillbench scan",
        "version": __version__,
        "rules": _rules(),
    }
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
