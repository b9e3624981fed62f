"""notebooks/agents_side_by_side.ipynb runs offline: an agent that cannot run here is reported as
not run, and the report is written (the measured case runs in tests/trigger/test_agents_report.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.reports.runner import run_notebook


def test_the_agents_notebook_runs_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = run_notebook(
        "agents_side_by_side",
        {
            "agents": ["claude-code"],
            "runs": 1,
            "backend_options": {"claude-code": {"claude_bin": str(tmp_path / "no-claude")}},
        },
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    saved = json.loads(next(result.folder.rglob("agents.json")).read_text())
    assert saved["verdict"] == "works in 0 of 0 agents; not run: claude-code"
    assert saved["agents"][0]["ran"] is False
