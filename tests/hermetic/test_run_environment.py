"""`run` with cases holding an `environment` block: the real-world warning follows the network
mode, and a confined network that cannot be made here is refused with exit 2 before anything is
created (never silently dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.cli import main

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"
SKILL_MD = "---\nname: pr-helper\ndescription: Use when opening pull requests.\n---\n# PR\n"
MARK = "acting on the real world"


def skill(tmp_path: Path, *environments: dict | None) -> Path:
    folder = tmp_path / "pr-helper"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    cases = []
    for index, environment in enumerate(environments):
        expectation = {"criterion": "c", "description": "d", "required": True}
        case: dict = {"id": f"c{index}", "prompt": "open a PR", "expectations": [expectation]}
        if environment is not None:
            case["environment"] = environment
        cases.append(case)
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": cases}))
    return folder


@pytest.fixture(autouse=True)
def _cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE_AGENT))
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_BACKEND", raising=False)


def dry_run(folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    argv = ["run", str(folder), "--backend", "claude-code", "--runs", "1", "--dry-run"]
    assert main([*argv, "--model", "claude-sonnet-4-5"]) == 0
    out, err = capsys.readouterr()
    return out + err


@pytest.mark.parametrize(
    ("environments", "warned", "says"),
    [
        ([{"network": "api-only"}, {"network": "none", "fakes": {"gh": []}}], False, ""),
        ([{}], False, ""),  # api-only is the default
        ([{"network": "api-only"}, None], True, "no `environment` block"),
        (
            [{"network": "api-only"}, {"network": "allow"}],
            True,
            '1 of 2 cases set "network": "allow"',
        ),
    ],
)
def test_the_warning_follows_the_network_mode(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    environments: list,
    warned: bool,
    says: str,
) -> None:
    text = dry_run(skill(tmp_path, *environments), capsys)
    lines = [line for line in text.splitlines() if MARK in line]
    assert len(lines) == int(warned), text
    assert says in " ".join(lines)


def test_a_confined_network_that_cannot_be_made_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "skillbench.behavior.execute.namespace_problem", lambda: "`unshare -n` failed (exit 1)"
    )
    folder = skill(tmp_path, {"network": "api-only"})
    argv = ["run", str(folder), "--backend", "claude-code", "--runs", "1", "--configs", "baseline"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "environment.network" in err and "unshare -n" in err and '"network": "allow"' in err
    assert not (tmp_path / "pr-helper-workspace").exists()
    # allow needs no namespace: the same case runs
    allowed = skill(tmp_path / "b", {"network": "allow"})
    monkeypatch.setenv("FAKE_AGENT_SKILL", "*")
    assert main([*argv[:1], str(allowed), *argv[2:]]) == 0


def test_a_bad_block_is_refused_before_anything_is_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = skill(tmp_path, {"network": "offline"})
    assert main(["run", str(folder), "--backend", "claude-code", "--runs", "1"]) == 2
    err = capsys.readouterr().err
    assert "cases[0].environment.network" in err and "evals.json" in err
    assert not (tmp_path / "pr-helper-workspace").exists()
