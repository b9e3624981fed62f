"""Real papermill runs: the validate_library notebook into a report folder, and a failing notebook."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from skillbench.cli import main
from skillbench.reports.manifest import Manifest, sha256_file
from skillbench.reports.runner import ReportResult, run_notebook
from skillbench.schemas.validation import ValidationReport

pytestmark = pytest.mark.slow

SCRIPT_PAYLOAD = "</script><script>alert(1)"
TAG_PAYLOAD = "<img src=x onerror=alert(1)>"  # no '/', so it can be a folder name
RUN_ID = re.compile(r"^\d{8}T\d{6}Z-[0-9a-f]{6}$")


def _skill(root: Path, folder: str, name: str, description: str) -> None:
    path = root / folder
    path.mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n\n# {name}\n\nSteps.\n"
    (path / "SKILL.md").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def validated(tmp_path_factory: pytest.TempPathFactory) -> ReportResult:
    base = tmp_path_factory.mktemp("validate")
    skills = base / "skills"
    _skill(skills, "csv-tidy", "csv-tidy", "Tidies CSV files. Use when a CSV has messy headers.")
    _skill(skills, TAG_PAYLOAD, "evil-skill", f"Use when testing. {SCRIPT_PAYLOAD}")
    return run_notebook("validate_library", {"skills_dir": str(skills)}, out_root=base / "reports")


def test_report_folder_layout(validated: ReportResult) -> None:
    folder = validated.folder
    assert validated.ok, validated.manifest.error
    assert RUN_ID.match(folder.name) and folder.parent.name == "validate_library"
    names = {p.name for p in folder.iterdir()}
    assert names == {
        "validate_library.ipynb",
        "index.html",
        "manifest.json",
        "validation.json",
        "findings_by_code.png",
        "header.json",
    }
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(".")], "staging left over"
    reports = [
        ValidationReport.model_validate(r)
        for r in json.loads((folder / "validation.json").read_text())
    ]
    assert len(reports) == 2
    assert (folder / "findings_by_code.png").read_bytes().startswith(b"\x89PNG")


def test_manifest_describes_the_run(validated: ReportResult) -> None:
    folder = validated.folder
    manifest = Manifest.model_validate_json((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == validated.manifest
    assert manifest.status == "ok" and manifest.error is None
    assert manifest.notebook == "validate_library" and manifest.run_id == folder.name
    assert manifest.parameters["report_dir"] == str(folder)
    assert manifest.defaults["profile"] == '"claude-code"'
    assert manifest.kernel_name == "python3"
    assert all(
        manifest.software.packages[p] for p in ("pydantic", "pandas", "papermill", "nbconvert")
    )
    (skills_hash,) = [h for h in manifest.inputs if h.parameter == "skills_dir"]
    assert skills_hash.kind == "folder" and skills_hash.files == 2
    assert manifest.finished_utc is not None and manifest.started_utc <= manifest.finished_utc
    assert manifest.wall_seconds is not None and manifest.wall_seconds > 0
    listed = {a.name: a.sha256 for a in manifest.artifacts}
    assert set(listed) == {p.name for p in folder.iterdir()} - {"manifest.json"}
    assert all(listed[name] == sha256_file(folder / name) for name in listed)
    executed = nbformat.read(str(folder / "validate_library.ipynb"), as_version=4)
    assert any("injected-parameters" in c.metadata.get("tags", []) for c in executed.cells)


def test_html_has_no_code_and_escapes_skill_text(validated: ReportResult) -> None:
    assert validated.html is not None
    html = validated.html.read_text(encoding="utf-8")
    assert "Summary per skill" in html  # markdown kept
    assert "validate_library(skills_dir" not in html and "nb.show_table" not in html
    assert "csv-tidy" in html
    assert SCRIPT_PAYLOAD not in html
    assert TAG_PAYLOAD not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_failing_notebook_leaves_a_failed_folder_and_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "boom.ipynb"
    notebook = new_notebook(
        cells=[
            new_code_cell("n = 1", metadata={"tags": ["parameters"]}),
            new_code_cell("print('before')"),
            new_code_cell("raise RuntimeError(f'broken {n}')"),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )
    nbformat.write(notebook, str(path))
    out = tmp_path / "reports"
    assert main(["report", str(path), "-p", "n", "7", "--out", str(out)]) == 1
    (folder,) = list((out / "boom").iterdir())
    assert RUN_ID.match(folder.name)
    assert not (out / "boom" / "latest").exists()  # a failed report never becomes latest
    assert (
        "the notebook failed in cell 2: RuntimeError: broken 7" in (out / "index.html").read_text()
    )
    manifest = Manifest.model_validate_json((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.status == "failed" and manifest.parameters == {"n": 7}
    assert manifest.header is not None and manifest.header.ok is False
    assert manifest.error is not None
    assert manifest.error.type == "RuntimeError" and manifest.error.message == "broken 7"
    executed = nbformat.read(str(folder / "boom.ipynb"), as_version=4)
    assert manifest.error.cell_index == 2  # in boom.ipynb as written
    assert manifest.error.executed_cell_index is not None
    failing = executed.cells[manifest.error.executed_cell_index]
    assert "raise RuntimeError" in failing.source
    assert (folder / "index.html").is_file()
