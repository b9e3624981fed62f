"""Issue 27 item 2: no secret reaches the workspace, the reports or the call cache.

Canary credentials sit in the environment (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN,
AWS_SECRET_ACCESS_KEY), the model repeats them in its reply (loopback Messages API mock,
tests/e2e_mock_api.py) and the agent writes them into the files it creates (the fake agentic CLI,
tests/fake_claude_agent with $FAKE_AGENT_LEAK: a text file, a binary file holding the key, a clean
binary file). After run (anthropic baseline, claude-code with_skill) → grade → benchmark →
compare → a benchmark report, no canary is in any file under the folder: workspace, reports,
the SQLite cache (its bytes, and every output it stores, base64-decoded).
"""

from __future__ import annotations

import base64
import json
import shutil
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_mock_api import MockAPI

from skillbench.behavior.records import read_run_record
from skillbench.cli import main

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
FAKE_AGENT = REPO / "tests" / "fake_claude_agent" / "claude"
CASE = "dedupe-crm-export"


@pytest.fixture
def canaries(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    tag = uuid.uuid4().hex
    values = {
        # key-shaped: caught by its shape and as an environment value
        "ANTHROPIC_API_KEY": f"sk-ant-api03-CANARY{tag}",
        # not key-shaped: caught only because the variable's name says it is a secret
        "ANTHROPIC_AUTH_TOKEN": f"CANARYauth{tag}",
        "AWS_SECRET_ACCESS_KEY": f"CANARYaws/{tag[:20]}+{tag[20:]}",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


@pytest.fixture
def skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "csv-cleanup"
    shutil.copytree(REPO / "data" / "skills" / "csv-cleanup", folder)
    evals_file = folder / "evals" / "evals.json"
    data = json.loads(evals_file.read_text(encoding="utf-8"))
    data["cases"] = [c for c in data["cases"] if c["id"] == CASE]
    evals_file.write_text(json.dumps(data, indent=2), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE_AGENT))
    monkeypatch.setenv("FAKE_AGENT_SKILL", "csv-cleanup")
    monkeypatch.setenv("FAKE_AGENT_LEAK", "1")
    return folder


@pytest.fixture
def api(canaries: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[MockAPI]:
    said = " ".join(f"{name}={value}" for name, value in canaries.items())
    with MockAPI(reply_extra=f"\nFor the record: {said}") as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        yield mock


def _stored_outputs(cache: Path) -> Iterator[bytes]:
    """Every output file the call cache stores, decoded."""
    with sqlite3.connect(cache) as conn:
        for (value,) in conn.execute("SELECT value FROM calls"):
            outputs = json.loads(value).get("outputs")
            if isinstance(outputs, dict):
                yield from (base64.b64decode(v) for v in outputs.values())


def test_no_canary_reaches_the_workspace_reports_or_cache(
    skill: Path,
    api: MockAPI,
    canaries: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    workspace = tmp_path / "csv-cleanup-workspace"
    steps = [
        ["run", str(skill), "--configs", "baseline", "--runs", "1", "--backend", "anthropic"],
        ["run", str(skill), "--configs", "with_skill", "--runs", "1", "--backend", "claude-code"],
        ["grade", str(skill), "--backend", "anthropic"],
        ["benchmark", str(skill)],
        ["compare", str(skill), "--a", "with_skill", "--b", "baseline", "--backend", "anthropic"],
        [
            "report",
            "benchmark",
            "-p",
            "skill_dir",
            str(skill),
            "-p",
            "workspace",
            str(workspace),
            "--out",
            str(tmp_path / "reports"),
        ],
    ]
    for argv in steps:
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (0, 1), f"{argv[:2]}: exit {code}\n{out}\n{err}"
        for value in canaries.values():
            assert value not in out + err, argv[:2]
    assert api.count("execute") == 1

    # the reply was saved, redacted, and run.json says so
    baseline = workspace / "runs" / "baseline" / CASE / "run-1"
    reply = (baseline / "outputs" / "response.md").read_text(encoding="utf-8")
    assert "For the record: ANTHROPIC_API_KEY=[REDACTED]" in reply
    assert read_run_record(baseline / "run.json").redacted_outputs == ["response.md"]

    # the agent's files: text redacted, the binary holding the key withheld, a clean one kept
    agent = workspace / "runs" / "with_skill" / CASE / "run-1"
    outputs = agent / "outputs"
    env_txt = (outputs / "out" / "env.txt").read_text(encoding="utf-8")
    # the session held dummy keys only (redacted all the same: they are key-shaped) and no AWS
    # secret at all (issue 38: an allowlisted environment)
    assert env_txt.count("=[REDACTED]") == 2, env_txt
    assert "AWS_SECRET_ACCESS_KEY=\n" in env_txt, env_txt
    assert not (outputs / "out" / "leak.bin").exists()
    assert (outputs / "out" / "clean.bin").read_bytes().startswith(b"\x89PNG")
    record = read_run_record(agent / "run.json")
    assert record.status == "ok", record.error
    assert record.redacted_outputs == ["out/env.txt"]
    assert record.withheld_outputs == ["out/leak.bin"]
    assert list((tmp_path / "reports" / "benchmark").glob("*/index.html"))

    scanned = 0
    for path in tmp_path.rglob("*"):
        if path.is_symlink() or not path.is_file() or path.is_relative_to(skill):
            continue
        data = path.read_bytes()
        scanned += 1
        for name, value in canaries.items():
            assert value.encode() not in data, f"{name} found in {path}"
    assert scanned > 20
    assert (tmp_path / "cache.sqlite").is_file()
    stored = list(_stored_outputs(tmp_path / "cache.sqlite"))
    assert stored, "the runs' outputs are cached"
    for data in stored:
        for name, value in canaries.items():
            assert value.encode() not in data, f"{name} in a cached output"
