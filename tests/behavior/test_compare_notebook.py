"""The blind_comparison notebook runs offline on the recorded samples (slow: a kernel starts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.reports.runner import DEMO_NOTEBOOKS, run_notebook

pytestmark = pytest.mark.slow


def test_blind_comparison_notebook_runs_on_the_samples(tmp_path: Path) -> None:
    assert "blind_comparison" in DEMO_NOTEBOOKS
    result = run_notebook("blind_comparison", {}, out_root=tmp_path)
    assert result.manifest.status == "ok", result.manifest.error
    summary = json.loads((result.folder / "compare_summary.json").read_text(encoding="utf-8"))
    assert summary["judge"] == "deterministic-proxy"
    assert summary["judged"] == summary["pairs"] > 0
    assert summary["swap_consistency"] == 1.0  # the proxy ignores the order
    assert summary["cost"]["calls"] == 0 and summary["cost"]["dollars"] == 0.0
    header = json.loads((result.folder / "header.json").read_text(encoding="utf-8"))
    assert header["cost"].startswith("$0.0000: 0 calls") and "prices as of" in header["cost"]
    analysis = json.loads((result.folder / "analysis.json").read_text(encoding="utf-8"))
    assert analysis["skillbench"]["analyzer"] == "deterministic"
    assert analysis["suggestions"] == []
    page = (result.folder / "index.html").read_text(encoding="utf-8")
    assert "DETERMINISTIC PROXY" in page
    assert (result.folder / "outcomes.png").stat().st_size > 0
