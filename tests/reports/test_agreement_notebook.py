"""notebooks/backend_agreement.ipynb runs offline and writes the agreement document."""

from __future__ import annotations

import json
from pathlib import Path

from skillbench.reports.runner import run_notebook
from skillbench.schemas.agreement import AgreementReport


def test_the_agreement_notebook_runs_offline(tmp_path: Path) -> None:
    # lexical against itself with another seed: two offline proxies, no torch, no key
    result = run_notebook(
        "backend_agreement",
        {"backend_a": "lexical", "backend_b": "lexical", "runs": 2, "catalog": None},
        out_root=tmp_path / "reports",
    )
    assert result.ok, result.manifest.error
    saved = next(result.folder.rglob("agreement.json"))
    doc = AgreementReport.model_validate(json.loads(saved.read_text()))
    assert doc.backend_a.name == doc.backend_b.name == "lexical"
    assert doc.agreement.value == 1.0  # the same proxy, the same seed: identical verdicts
    assert len(doc.queries) > 10
