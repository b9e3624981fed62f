"""Review fixes of the library view: the improve dry run's split, duplicate skills, listing
claims per harness, truncated skills, the cost wording, `report diff` exit codes, the verdict
when no run completed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skillbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"


def test_improve_dry_run_with_library_uses_the_plans_split(
    capsys: pytest.CaptureFixture[str],
) -> None:
    skill = SAMPLE / "release-announcer"
    args = ["improve", str(skill), "--evals", str(skill / "evals" / "trigger.json")]
    code = main([*args, "--library", str(SAMPLE), "--backend", "local", "--dry-run"])
    assert code == 0, capsys.readouterr().err


def _skill(folder: Path, name: str, description: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")
    (folder / f"{name}.trigger.json").write_text(
        '[{"query": "read this PDF for me", "should_trigger": true},'
        ' {"query": "what is the weather", "should_trigger": false}]'
    )


@pytest.mark.parametrize(
    ("first", "second", "clash"),
    [
        (("a/pdf-a", "pdf"), ("b/pdf-b", "pdf"), "skill name 'pdf'"),
        (("a/pdf", "pdf"), ("b/pdf", "pdf-forms"), "folder name 'pdf'"),
    ],
)
def test_two_skills_sharing_a_name_or_folder_name_are_refused(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    first: tuple[str, str],
    second: tuple[str, str],
    clash: str,
) -> None:
    library = tmp_path / "lib"
    for where, name in (first, second):
        _skill(library / where, name, f"Works on PDF files ({where}). Use for PDFs.")
    code = main(["library", str(library), "--backend", "lexical", "--dry-run"])
    err = capsys.readouterr().err
    assert code == 2
    assert clash in err
    assert str(library / first[0]) in err and str(library / second[0]) in err
