"""The `pr-helper` skill the hermetic tests evaluate, written with one eval case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SKILL_MD = "---\nname: pr-helper\ndescription: Use when opening pull requests.\n---\n# PR\n"


def pr_helper_skill(root: Path, case: dict[str, Any]) -> Path:
    """`root/pr-helper` holding SKILL.md and `evals/evals.json` with `case` alone."""
    folder = root / "pr-helper"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    return folder
