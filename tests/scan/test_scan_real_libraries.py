"""The false-positive budget on real skill libraries installed on this machine: Gemini CLI's
bundled skills (npm @google/gemini-cli, installed under .tools/ by `make agents`) and any library
named by SKILLBENCH_SCAN_LIBRARIES (os.pathsep-separated folders, e.g. a checkout of
anthropics/skills). Most skills of each must have no error finding."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skillbench.scan.scan import scan_path

ROOT = Path(__file__).resolve().parents[2]
GEMINI_BUNDLE = ROOT / ".tools" / "node_modules" / "@google" / "gemini-cli" / "bundle"
EXTRA = [Path(p) for p in os.environ.get("SKILLBENCH_SCAN_LIBRARIES", "").split(os.pathsep) if p]


@pytest.mark.skipif(not GEMINI_BUNDLE.is_dir(), reason="Gemini CLI not installed (make agents)")
def test_gemini_cli_bundled_skills_flag_only_the_install_script_piped_to_bash() -> None:
    report = scan_path(GEMINI_BUNDLE)
    errors = {(s.skill, f.rule) for s in report.skills for f in s.errors}
    assert len(report.skills) >= 3
    # antigravity-support tells the agent to run `curl … | bash` (and `irm … | iex`): a real
    # download-and-run order, reported by design; the other skills are clean.
    assert errors <= {("builtin/antigravity-support", "INJECTED_DOWNLOAD_RUN")}
    clean = sum(not s.errors for s in report.skills)
    assert clean / len(report.skills) > 0.5


@pytest.mark.parametrize("library", EXTRA, ids=str)
def test_most_of_a_named_real_library_has_no_error_finding(library: Path) -> None:
    report = scan_path(library)
    clean = sum(not s.errors for s in report.skills)
    assert clean / len(report.skills) >= 0.9, [s.skill for s in report.skills if s.errors]
