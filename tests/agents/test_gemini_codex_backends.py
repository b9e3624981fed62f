"""The gemini and codex backends as the rest of skillbench sees them: registered through their
specs, `--agent gemini|codex` on `skillbench trigger` (exit 2 naming `make agents` without the CLI,
naming the key variable without the key), and, with the real pinned CLIs, a trigger report that
names the agent's harness and reads the target's listing from the agent's own request."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from agent_fake_api import FakeAgentAPI, Reply

from skillbench.backends import registry
from skillbench.backends.base import SkillEntry
from skillbench.backends.cache import CallCache
from skillbench.backends.codex.spec import CODEX_SPEC
from skillbench.backends.gemini.spec import GEMINI_SPEC
from skillbench.backends.spec import BackendSpec, register_backend, unregister_backend
from skillbench.cli import main
from skillbench.errors import BackendError

SPECS = {"gemini": GEMINI_SPEC, "codex": CODEX_SPEC}
BIN_VARIABLE = {"gemini": "SKILLBENCH_GEMINI_BIN", "codex": "SKILLBENCH_CODEX_BIN"}
PACKAGE = {"gemini": "@google/gemini-cli@0.61.0", "codex": "@openai/codex@0.169.0"}
TARGET = SkillEntry("csv-cleanup", "Clean CSV files: duplicates, delimiters, encodings.")
CATALOG = (SkillEntry("sql-query-reviewer", "Review SQL queries for bugs and performance."),)


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    for spec in SPECS.values():  # the entry points reach the venv only on reinstall
        register_backend(spec)
    yield
    for name in SPECS:
        unregister_backend(name)


def test_both_are_agents_with_their_key_and_cli() -> None:
    assert {"gemini", "codex"} <= set(registry.agent_names())
    assert registry.agent_backend("Gemini") == "gemini"
    spec: BackendSpec = registry.backend_spec("codex")
    assert (spec.key_variable, spec.cli) == ("OPENAI_API_KEY", "codex")
    assert registry.backend_spec("gemini").key_variable == "GEMINI_API_KEY"
    assert "make agents" in str(registry.backend_spec("gemini").cli_install)


@pytest.fixture
def skill_and_evals(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, Path]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    skill = tmp_path / "csv-cleanup"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: csv-cleanup\ndescription: Clean CSV files.\n---\n# CSV\n", encoding="utf-8"
    )
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "fix my csv", "should_trigger": True}]))
    return skill, evals


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_missing_cli_is_exit_2_naming_npm_then_make_agents(
    agent: str,
    skill_and_evals: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    skill, evals = skill_and_evals
    monkeypatch.setenv(str(SPECS[agent].key_variable), "dummy-offline")
    monkeypatch.setenv(BIN_VARIABLE[agent], str(skill / f"no-such-{agent}"))
    monkeypatch.setenv("PATH", str(skill))  # nor on PATH
    monkeypatch.setenv("COLUMNS", "400")  # the message on one line: its parts are found whole
    code = main(["trigger", str(skill), "--evals", str(evals), "--agent", agent])
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    parts = (f"npm install -g {PACKAGE[agent]}", "make agents", BIN_VARIABLE[agent])
    places = [err.find(part) for part in parts]
    assert -1 not in places and places == sorted(places), err  # what a pip user can run first


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_missing_key_is_exit_2_naming_the_variable(
    agent: str,
    skill_and_evals: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    skill, evals = skill_and_evals
    monkeypatch.delenv(str(SPECS[agent].key_variable), raising=False)
    code = main(["trigger", str(skill), "--evals", str(evals), "--agent", agent])
    assert code == 2
    assert str(SPECS[agent].key_variable) in capsys.readouterr().err


# -- with the real pinned CLIs --------------------------------------------------------------------


def judge_class(agent: str) -> Any:
    return SPECS[agent].load("judge")


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_trigger_report_names_the_agent_and_its_listing(
    agent: str, tmp_path: Path, agent_templates: Path
) -> None:
    """`registry.cached_judge` builds the agent's judge (workers as max_concurrency; the
    session's template folder, so the capture is shared); a trigger eval through it reports the agent's harness (not Claude
    Code's request) and the target's listing as read from the captured request."""
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.options import EvalContext, TriggerOptions
    from skillbench.trigger.run import run_trigger_eval

    try:
        judge_class(agent).agent.locate()
    except BackendError as exc:
        pytest.skip(str(exc))

    def answer(kind: str, body: dict[str, Any]) -> Reply:
        text = json.dumps(body)
        if "please fire" not in text:
            return Reply("text", text="Just an answer.")
        if kind == "gemini":
            return Reply("call", "activate_skill", {"name": "csv-cleanup"})
        source = 'await tools.exec_command({cmd: "cat .agents/skills/csv-cleanup/SKILL.md"})'
        return Reply("call", "exec", source, custom=True)

    queries = [EvalQuery("please fire on the csv", True), EvalQuery("just answer me", False)]

    async def go(url: str) -> Any:
        cache = CallCache(tmp_path / "cache.sqlite")
        judge = registry.cached_judge(
            agent,
            cache=cache,
            api_key="dummy-offline",
            base_url=url if agent == "gemini" else url + "/v1",
            workers=3,
            template_dir=agent_templates,
        )
        assert judge.inner.max_concurrency == 3
        try:
            return await run_trigger_eval(
                TARGET.name,
                TARGET.description,
                queries,
                judge,
                TriggerOptions(runs=2),
                context=EvalContext(catalog=CATALOG),
            )
        finally:
            await judge.aclose()

    with FakeAgentAPI(answer=answer) as fake:
        report = asyncio.run(go(fake.url))
    assert report.summary.passed == 2
    assert report.harness is not None and not report.harness.claude_code_request
    assert report.harness.name == f"{agent} replay"
    assert report.listing is not None and report.listing.target == "full"
    assert report.listing.source == "captured-request"


class _Judge:
    """Stands for an agent judge: one stored template per skill set, the query swapped."""

    def __init__(self) -> None:
        self.captured = 0

    def template_for(self, target: SkillEntry, catalog: tuple[SkillEntry, ...]) -> str:
        self.captured += 1
        return "t"

    def request_body(self, template: str, query: str) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": query}]}], "x": "y" * 400}


@pytest.mark.parametrize("agent", ["gemini", "codex"])
def test_cost_counts_the_request_and_says_price_unknown(agent: str) -> None:
    """An agent backend has an estimator: the request as its judge sends it is counted (each
    template once), the dollars are "unknown" for a model without a price (never $0), and a
    plan with it is refused, exit 2 naming --model, for --dry-run and --max-cost alike."""
    from skillbench.backends.base import TriggerRequest
    from skillbench.cli.common import check_plan
    from skillbench.cost.estimate import for_judge, get_estimator
    from skillbench.cost.plan import CostPlan, Planned, plan_block
    from skillbench.errors import InputError
    from skillbench.schemas.cost import UNKNOWN

    estimator = get_estimator(agent)
    assert estimator.model == judge_class(agent).agent.default_model
    assert not estimator.price_known()
    judge = _Judge()
    estimator = for_judge(SimpleNamespace(inner=judge), estimator)  # under a cache wrapper
    requests = [TriggerRequest(TARGET, CATALOG, q, run) for q in ("ab", "cde") for run in (0, 1)]
    tokens = estimator.trigger_calls(requests)
    empty = len(json.dumps(judge.request_body("t", ""), ensure_ascii=False))
    assert tokens.input_tokens == -(-(4 * empty + 2 * 2 + 2 * 3) // 4)
    assert tokens.output_tokens > 0 and judge.captured == 1
    assert estimator.dollars(tokens, 4) == UNKNOWN
    line = Planned(estimator, "trigger")
    line.add(tokens, 4)
    plan = CostPlan(["plan"], plan_block([line]), [line])
    for cap, dry_run in ((None, True), (1.0, False)):
        with pytest.raises(InputError) as refused:
            check_plan(plan, cap, dry_run=dry_run)
        assert refused.value.path == "--model" and agent in str(refused.value)
