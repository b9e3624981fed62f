"""Checks on the sample data in data/: skills, distractor catalog and trigger eval sets.

These tests do not use skillbench's validator; they check with plain YAML and regexes that
each sample carries exactly the defects data/README.md promises, so the validator's own tests
can rely on the README table.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from skillbench.schemas.trigger import TriggerEvalSetA, TriggerEvalSetB, TriggerQuery

DATA = Path(__file__).resolve().parents[1] / "data"
SKILLS = DATA / "skills"
CATALOG = DATA / "catalog"
EVALS = DATA / "evals"

NAME_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
TRIGGER_RE = re.compile(r"\buse (when|whenever|for)\b", re.IGNORECASE)
WHEN_TO_USE_RE = re.compile(r"^#+\s*when to use", re.IGNORECASE | re.MULTILINE)
ESCAPING_LINK_RE = re.compile(r"\]\(\s*\.\./")
ALLOWED_KEYS = {
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
}

# Must agree with the table in data/README.md (checked below).
EXPECTED: dict[str, set[str]] = {
    "csv-cleanup": set(),
    "commit-message-writer": set(),
    "sql-query-reviewer": set(),
    "incident-postmortem": set(),
    "release-notes-writer": set(),
    "dockerfile-reviewer": set(),
    "pdf-form-filler": {"NAME_FOLDER_MISMATCH", "README_PRESENT"},
    "terraform_plan_review": {"NAME_FORMAT"},
    "brand-voice-editor": {"DESCRIPTION_TRIGGER_HINT", "WHEN_TO_USE_IN_BODY"},
    "k8s-deploy-checklist": {"CONTEXT_FORK_NO_AGENT", "DEEP_LINK_TARGET"},
    "pr-description-writer": {"DESCRIPTION_ANGLE_BRACKETS", "UNKNOWN_KEYS"},
}


def split_skill(path: Path) -> tuple[dict[str, Any], str]:
    """Return (frontmatter, body) of a SKILL.md, accepting a UTF-8 BOM and CRLF."""
    text = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")
    assert text.startswith("---\n"), f"{path}: no opening ---"
    end = text.find("\n---\n", 4)
    assert end > 0, f"{path}: no closing ---"
    meta = yaml.safe_load(text[4:end])
    assert isinstance(meta, dict), f"{path}: frontmatter is not a mapping"
    return meta, text[end + 5 :]


def findings(folder: Path) -> set[str]:
    """The seed 001 codes the sample data is meant to exercise, found by simple checks."""
    meta, body = split_skill(folder / "SKILL.md")
    name, description = meta["name"], meta["description"]
    codes: set[str] = set()
    if not NAME_RE.fullmatch(name):
        codes.add("NAME_FORMAT")
    if name != folder.name:
        codes.add("NAME_FOLDER_MISMATCH")
    if "<" in description or ">" in description:
        codes.add("DESCRIPTION_ANGLE_BRACKETS")
    if not TRIGGER_RE.search(description):
        codes.add("DESCRIPTION_TRIGGER_HINT")
    if set(meta) - ALLOWED_KEYS:
        codes.add("UNKNOWN_KEYS")
    if meta.get("context") == "fork" and "agent" not in meta:
        codes.add("CONTEXT_FORK_NO_AGENT")
    if "agent" in meta and meta.get("context") != "fork":
        codes.add("AGENT_WITHOUT_FORK")
    if WHEN_TO_USE_RE.search(body):
        codes.add("WHEN_TO_USE_IN_BODY")
    if any(
        ESCAPING_LINK_RE.search(p.read_text(encoding="utf-8-sig")) for p in folder.rglob("*.md")
    ):
        codes.add("DEEP_LINK_TARGET")
    if any(folder.rglob("README.md")):
        codes.add("README_PRESENT")
    return codes


def skill_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


def test_every_folder_has_a_parsable_skill_md() -> None:
    for folder in skill_dirs(SKILLS) + skill_dirs(CATALOG):
        meta, body = split_skill(folder / "SKILL.md")
        assert isinstance(meta.get("name"), str) and meta["name"], folder
        assert isinstance(meta.get("description"), str), folder
        assert 0 < len(meta["description"]) <= 1024, folder
        assert body.strip(), f"{folder}: empty body"


def test_counts_and_unique_names() -> None:
    samples, catalog = skill_dirs(SKILLS), skill_dirs(CATALOG)
    assert len(samples) >= 8
    assert len(catalog) >= 15
    names = [split_skill(p / "SKILL.md")[0]["name"] for p in samples + catalog]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_sample_bodies_are_substantial() -> None:
    for folder in skill_dirs(SKILLS):
        _, body = split_skill(folder / "SKILL.md")
        assert 30 <= len(body.strip().splitlines()) <= 150, folder.name


@pytest.mark.parametrize("folder", skill_dirs(SKILLS), ids=lambda p: p.name)
def test_sample_carries_exactly_the_documented_defects(folder: Path) -> None:
    assert folder.name in EXPECTED, f"{folder.name} is not listed in EXPECTED / data/README.md"
    assert findings(folder) == EXPECTED[folder.name]


def test_expected_table_matches_readme() -> None:
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| (none|`[A-Z_]+`(?:, `[A-Z_]+`)*) \|", readme, re.M)
    table = {folder: set(re.findall(r"[A-Z_]{4,}", codes)) for folder, codes in rows}
    assert table == EXPECTED


def test_line_ending_and_bom_samples_keep_their_bytes() -> None:
    crlf = (SKILLS / "release-notes-writer" / "SKILL.md").read_bytes()
    assert crlf.count(b"\r\n") == crlf.count(b"\n") > 30
    assert (SKILLS / "dockerfile-reviewer" / "SKILL.md").read_bytes().startswith(b"\xef\xbb\xbf---")
    for folder in skill_dirs(SKILLS):
        if folder.name not in {"release-notes-writer", "dockerfile-reviewer"}:
            raw = (folder / "SKILL.md").read_bytes()
            assert b"\r" not in raw and not raw.startswith(b"\xef\xbb\xbf"), folder.name


@pytest.mark.parametrize("folder", skill_dirs(CATALOG), ids=lambda p: p.name)
def test_catalog_skill_is_clean(folder: Path) -> None:
    assert findings(folder) == set()


def test_sample_scripts_compile(tmp_path: Path) -> None:
    scripts = sorted(SKILLS.glob("*/scripts/*.py"))
    assert scripts
    for script in scripts:
        compile(script.read_text(encoding="utf-8"), str(script), "exec")


def test_profile_csv_script_reports_duplicates_and_ragged_rows(tmp_path: Path) -> None:
    sample = tmp_path / "leads.csv"
    rows = "id;name;zip\n1;José;01234\n2;Bo;02345\n2;Bo;02345\n3;Cy\n"
    sample.write_text(rows, encoding="cp1252")
    script = SKILLS / "csv-cleanup" / "scripts" / "profile_csv.py"
    out = subprocess.run(
        [sys.executable, str(script), str(sample)], capture_output=True, text=True, check=True
    ).stdout
    assert "encoding:  cp1252" in out
    assert "delimiter: ';'" in out
    assert "rows:      4" in out
    assert "ragged:    1 rows [5]" in out
    assert "duplicates: 1 extra copies" in out
    assert "'zip': 3/3 filled, e.g. ['01234', '02345']" in out


def load_eval_items(path: Path) -> list[TriggerQuery]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        return TriggerEvalSetA.model_validate(data).root
    return TriggerEvalSetB.model_validate(data).evals


EVAL_FILES = sorted(EVALS.glob("*.json"))


def test_eval_sets_cover_three_clean_skills_in_both_formats() -> None:
    assert all(p.name.endswith(".trigger.json") for p in EVAL_FILES)
    skills = [p.name.removesuffix(".trigger.json") for p in EVAL_FILES]
    assert len(skills) >= 3
    assert all(EXPECTED.get(s) == set() for s in skills), "eval sets target clean samples"
    raw = [json.loads(p.read_text(encoding="utf-8")) for p in EVAL_FILES]
    assert any(isinstance(d, list) and "query" in d[0] for d in raw)
    assert any(isinstance(d, dict) and "prompt" in d["evals"][0] for d in raw)


@pytest.mark.parametrize("path", EVAL_FILES, ids=lambda p: p.name)
def test_eval_set_is_well_formed(path: Path) -> None:
    skill = path.name.removesuffix(".trigger.json")
    assert (SKILLS / skill / "SKILL.md").is_file(), f"no sample skill named {skill}"
    data = json.loads(path.read_text(encoding="utf-8"))
    raw_items = data if isinstance(data, list) else data["evals"]
    assert all(isinstance(item["should_trigger"], bool) for item in raw_items)
    items = load_eval_items(path)
    assert len(items) >= 20
    positives = sum(item.should_trigger for item in items)
    assert abs(positives - (len(items) - positives)) <= 2
    normalised = [" ".join(item.text.lower().split()) for item in items]
    assert len(set(normalised)) == len(normalised), "duplicate queries"
    assert all(isinstance(item.family, str) and item.family for item in items)
