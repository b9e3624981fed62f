"""notebooks/library_routing.ipynb runs offline, shows the header first and saves the strict
`library-routing` JSON beside its figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.library.document import LibraryReport
from skillbench.reports.runner import run_notebook

pytestmark = pytest.mark.slow


def test_the_library_notebook_runs_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    result = run_notebook("library_routing", {"backend": "lexical", "runs": 1},
                          out_root=tmp_path / "reports")  # fmt: skip
    assert result.ok, result.manifest.error
    saved = (result.folder / "library_routing.json").read_text(encoding="utf-8")
    report = LibraryReport.model_validate(json.loads(saved, parse_constant=lambda c: 1 / 0))
    assert report.listing is not None and len(report.skills) == 11
    header = json.loads((result.folder / "header.json").read_text(encoding="utf-8"))
    assert header["ok"] is False and "testsmith" in header["verdict"]
    assert (
        header["catalog"].startswith(str(Path("data") / "library"))
        or "library" in header["catalog"]
    )
    assert {"confusion.png", "listing.png", "confusion_matrix.json"} <= {
        p.name for p in result.folder.iterdir()
    }
