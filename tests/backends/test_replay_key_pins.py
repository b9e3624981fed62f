"""The replay family's keys, pinned to the exact strings skillbench computed before the replay
stacks were merged (issue 37): a user's call cache and stored templates stay valid across
refactors. Each agent's template key, its cache fields and its whole call-cache key are checked
against literals, and the stored template files under `tests/data/replay-templates/` (written by
the code before the merge, `model_dump_json(indent=1)` as the store writes them) still load and
give the same keys.

Offline: the CLIs are fake scripts that print a version; nothing is captured or sent.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends.anthropic.capture import template_key
from skillbench.backends.anthropic.replay import ReplayJudge
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.cache import cache_key
from skillbench.backends.claude_cli.env import REQUEST_SETTINGS
from skillbench.backends.codex.agent import CODEX
from skillbench.backends.codex.judge import CodexJudge
from skillbench.backends.gemini.agent import GEMINI
from skillbench.backends.gemini.judge import GeminiJudge
from skillbench.backends.opencode.agent import OPENCODE, SETTINGS
from skillbench.backends.opencode.judge import OpencodeJudge

STORED = Path(__file__).resolve().parents[1] / "data" / "replay-templates"
DAY = datetime.date(2026, 11, 26)
TARGET = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\n")
CATALOG = (SkillEntry("csv-cleaner", "Use when cleaning CSV tables.", "# CSV\n"),)
REQUEST = TriggerRequest(TARGET, CATALOG, 'merge "a.pdf" and b.pdf', 2, 7)
#: Variables that change a judge's settings (so its keys): none set in these tests.
UNSET = (
    *REQUEST_SETTINGS,
    *SETTINGS,
    "GEMINI_SYSTEM_MD",
    "SKILLBENCH_GEMINI_APPROVAL_MODE",
    "SKILLBENCH_CODEX_REASONING_EFFORT",
    "SKILLBENCH_CODEX_SANDBOX",
    "SKILLBENCH_CODEX_APPROVAL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
)

CLAUDE_KEY = "78cebe0f7078f10005358581349a2a70"
CLAUDE_FIELDS: dict[str, Any] = {
    "template": "49720700db1e2a461470ca4ea4a507077503abb07afe7a2b6429e20ad6a38dfb",
    "query": 'merge "a.pdf" and b.pdf',
    "run_index": 2,
    "seed": 7,
}
CLAUDE_BODY = "aa794db137544a1c81665b623b0fd280bdae0da9240862bd6535e416c51ee818"
CLAUDE_CACHE_KEY = "6550f3d83adde09146d6ca090e86668e4d2e34c7bc729932dee785f945f032bf"
AGENT_KEYS = {
    "opencode": "36a2f426788aa8cbb653385d4ec24e5a",
    "gemini": "f7ad62ceba80df4136259b5c9d6b0b1f",
    "codex": "619c0b144d6365d5e22bb47b6bc0488f",
}
AGENT_FIELDS: dict[str, dict[str, Any]] = {
    "opencode": {
        "request": "10d29c67df1e5e8c5c8cbcfd1c4944d345ff9d8b9df2a478ddb6ef1db1d24542",
        "run_index": 2,
        "seed": 7,
    },
    "gemini": {
        "request": "73dd9a55265e9bd51d87654fff3753e8f98cc940b5d10bbfe7d745e42751b3ce",
        "run_index": 2,
        "seed": 7,
    },
    "codex": {
        "request": "4863328c3230e09845a7e4cdf3740ef606a8857bf2e58ad133e4ae8c36465128",
        "run_index": 2,
        "seed": 7,
    },
}
AGENT_CACHE_KEYS = {
    "opencode": "d6e67e59820c02f2040998fc55713d8ddc26b7683f7c4834a46bc82e63547f36",
    "gemini": "606fa566acf8e5ebcaa39e36fccadbefee6036ae65aed5dfeb333616b207882e",
    "codex": "cdfd6f2ac3dacbba8a219ed29bb2d19dc56daf1fef9ee80a14f1ff1b2b24b42a",
}


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)


def digest(body: dict[str, Any]) -> str:
    blob = json.dumps(body, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def fake_cli(folder: Path, name: str, version: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(f'#!/bin/sh\necho "{version}"\n')
    script.chmod(0o755)
    return script


def stored(tmp_path: Path) -> Path:
    """A copy of the template files the code before the merge wrote."""
    folder = tmp_path / "replay-templates"
    shutil.copytree(STORED, folder)
    return folder


def claude_judge(tmp_path: Path) -> ReplayJudge:
    return ReplayJudge(
        "claude-haiku-4-5",
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=fake_cli(tmp_path / "bin", "claude", "2.1.197 (Claude Code)"),
        template_dir=stored(tmp_path),
        clock=lambda: DAY,
    )


JUDGES: dict[str, tuple[Any, str, str, str]] = {
    "opencode": (OpencodeJudge, "opencode", "1.18.33", "claude-haiku-4-5"),
    "gemini": (GeminiJudge, "gemini", "0.61.0", "gemini-2.5-flash"),
    "codex": (CodexJudge, "codex", "codex-cli 0.169.0", "gpt-6.1-sol"),
}


def agent_judge(tmp_path: Path, name: str) -> Any:
    judge_class, binary, version, model = JUDGES[name]
    return judge_class(
        model,
        api_key="dummy-key-0123456789",
        base_url="http://mock.local",
        binary=fake_cli(tmp_path / "bin", binary, version),
        template_dir=stored(tmp_path),
        clock=lambda: DAY,
    )


def test_claude_codes_template_key_is_pinned() -> None:
    assert template_key(TARGET, CATALOG, "claude-haiku-4-5", "2.1.197", {}) == CLAUDE_KEY


def test_claude_codes_stored_template_loads_and_keys_its_calls_as_before(tmp_path: Path) -> None:
    judge = claude_judge(tmp_path)
    template = judge.known_template(TARGET, CATALOG)
    assert template is not None and template.key == CLAUDE_KEY
    fields = judge.request_fields(REQUEST)
    assert fields == CLAUDE_FIELDS
    # what is sent: the query, its billing suffix and the day swapped in, all else as stored
    assert digest(judge.request_body(template, REQUEST.query)) == CLAUDE_BODY
    assert cache_key(judge.identity(), fields) == CLAUDE_CACHE_KEY


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_the_agents_template_keys_are_pinned(name: str) -> None:
    agent = {"opencode": OPENCODE, "gemini": GEMINI, "codex": CODEX}[name]
    version = JUDGES[name][2].split()[-1]
    settings = agent.settings()
    key = agent.template_key(TARGET, CATALOG, JUDGES[name][3], version, settings)
    assert key == AGENT_KEYS[name]


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_the_agents_stored_templates_load_and_key_their_calls_as_before(
    name: str, tmp_path: Path
) -> None:
    judge = agent_judge(tmp_path, name)
    template = judge.known_template(TARGET, CATALOG)
    assert template is not None and template.key == AGENT_KEYS[name]
    assert template.view().visibility(TARGET.name, TARGET.description) == "full"
    fields = judge.request_fields(REQUEST)
    assert fields == AGENT_FIELDS[name]
    assert cache_key(judge.identity(), fields) == AGENT_CACHE_KEYS[name]
