"""`skillbench agents`: one eval set through several agents' requests, side by side."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillbench.backends.opencode.spec import OPENCODE_SPEC
from skillbench.backends.spec import BackendSpec, register_backend, unregister_backend
from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.trigger.agents import agents_frame, agents_lines, run_agents_sync
from skillbench.trigger.options import TriggerOptions

SPECS = (
    BackendSpec(
        name="alpha", summary="test agent", judge="agent_judge_fakes:AgentAlpha", agent="alpha"
    ),
    BackendSpec(
        name="beta", summary="test agent", judge="agent_judge_fakes:AgentBeta", agent="beta"
    ),
    OPENCODE_SPEC,
)


@pytest.fixture
def setup(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    for spec in SPECS:
        register_backend(spec)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.setenv("SKILLBENCH_OPENCODE_BIN", str(tmp_path / "no-opencode"))
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: csv-cleanup\ndescription: Clean CSV files. Use when asked.\n---\n# CSV\n",
        encoding="utf-8",
    )
    evals = tmp_path / "evals.json"
    items = [
        {"query": "tidy my csv", "should_trigger": True},
        {"query": "dedupe rows", "should_trigger": True},
        {"query": "weather", "should_trigger": False},
    ]
    evals.write_text(json.dumps(items), encoding="utf-8")
    yield skill, evals
    for spec in SPECS:
        unregister_backend(spec.name)


def test_side_by_side_with_kappa_and_verdict(setup: tuple[Path, Path]) -> None:
    skill, evals = setup
    options = TriggerOptions(runs=2)
    report = run_agents_sync(skill, evals, options, agents=["alpha", "beta", "opencode"])
    rows = {row.agent: row for row in report.agents}
    assert rows["alpha"].passed == 3 and rows["alpha"].failing == []
    assert rows["beta"].passed == 2 and rows["beta"].failing == ["dedupe rows"]
    assert rows["beta"].ci_low is not None and rows["beta"].ci_low < 2 / 3 < rows["beta"].ci_high
    assert not rows["opencode"].ran and "make agents" in str(rows["opencode"].reason)
    assert report.verdict == "works in 1 of 2 agents (alpha); not run: opencode"
    (pair,) = report.agreement
    assert (pair.a, pair.b, pair.n, pair.agree) == ("alpha", "beta", 3, 2)
    assert pair.kappa == 0.0  # agreement 2/3 is exactly what chance gives: p_e = 1 · 2/3
    assert list(agents_frame(report).columns) == ["query", "should_trigger", "alpha", "beta"]
    text = "\n".join(agents_lines(report))
    assert "fails: dedupe rows" in text and "not run" in text


def test_unknown_agent_is_input_error_before_any_run(setup: tuple[Path, Path]) -> None:
    skill, evals = setup
    with pytest.raises(InputError, match="unknown agent"):
        run_agents_sync(skill, evals, agents=["alpha", "local"])


def test_cli_exit_codes_and_json(
    setup: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup
    base = ["agents", str(skill), "--evals", str(evals), "--runs", "1"]
    out = tmp_path / "agents.json"
    assert main([*base, "--agents", "alpha", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["verdict"] == "works in 1 of 1 agents (alpha)"
    assert main([*base, "--agents", "alpha,beta"]) == 1
    assert "κ alpha vs beta" in capsys.readouterr().out
    assert main([*base, "--agents", "alpha", "--model", "beta=x"]) == 2
    assert main([*base, "--agents", "opencode"]) == 1  # none ran: nothing measured
