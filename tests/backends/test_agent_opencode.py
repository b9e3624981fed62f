"""The opencode backend end to end: the REAL pinned opencode CLI (`make agents`) captured against
the loopback capture server, its replay sent through the anthropic SDK to a loopback Messages fake
(`messages_fake`), and the first move classified. Only 127.0.0.1 is contacted: the capture runs
with opencode's fetch / update / share / LSP / plugin switches off and no proxy variable.

Two CLI runs in all (one capture, one direct run for the fidelity check), ~30 s.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import math
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from messages_fake import MessagesFake, last_user_text
from mock_anthropic_sse import text_stream, tool_use_stream

from skillbench.backends import registry
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.cache import CachingJudge, CallCache
from skillbench.backends.claude_cli.install import install_skills
from skillbench.backends.opencode.agent import NULL_PROXY, OFFLINE, OPENCODE, to_date_string
from skillbench.backends.opencode.judge import OpencodeJudge
from skillbench.backends.opencode.spec import OPENCODE_SPEC
from skillbench.backends.replay.agent import SENTINEL, STABLE_ROOT, Listing
from skillbench.backends.replay.run import run_until_captured
from skillbench.backends.replay.template import ReplayTemplate as AgentTemplate
from skillbench.backends.spec import register_backend, unregister_backend
from skillbench.errors import BackendError

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".tools" / "node_modules" / ".bin" / "opencode"
DAY = datetime.date(2026, 11, 26)
MODEL = "claude-haiku-4-5"

TARGET = SkillEntry(
    "csv-cleanup",
    "Clean CSV exports: remove duplicate rows, fix semicolon delimiters.",
    "# CSV cleanup\n\nDeduplicate rows.\n",
)
CATALOG = (SkillEntry("sql-review", "Review SQL queries for slow joins.", "# SQL\n"),)


def _skip_reason() -> str | None:
    if not BIN.exists():
        return f"opencode CLI not installed at {BIN} (run `make agents`)"
    try:
        done = subprocess.run([str(BIN), "--version"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`opencode --version` cannot run: {type(exc).__name__}"
    return None if done.returncode == 0 else "`opencode --version` failed"


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))


def script(body: dict[str, Any]) -> bytes | int:
    """The fake model: the query says what the first move is."""
    model = str(body.get("model"))
    query = last_user_text(body)
    if "please fire" in query:
        return tool_use_stream(model, "skill", {"name": "csv-cleanup"})
    if "other skill" in query:
        return tool_use_stream(model, "skill", {"name": "sql-review"})
    if "builtin" in query:
        return tool_use_stream(model, "skill", {"name": "customize-opencode"})
    if "look first" in query:
        return tool_use_stream(model, "bash", {"command": "ls", "description": "list"})
    if "bad call" in query:
        return tool_use_stream(model, "skill", {"nom": "csv-cleanup"})
    if "server error" in query:
        return 400
    return text_stream(model, "Here is how to do it.")


@pytest.fixture(scope="module")
def fake() -> Iterator[MessagesFake]:
    with MessagesFake(script) as server:
        yield server


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("opencode-templates")


def make_judge(fake: MessagesFake, templates: Path, **options: Any) -> OpencodeJudge:
    return OpencodeJudge(
        MODEL,
        api_key="sk-ant-dummy-offline",
        base_url=fake.base_url,
        template_dir=templates,
        max_retries=0,
        clock=lambda: DAY,
        **options,
    )


def judge_once(judge: OpencodeJudge, query: str) -> Any:
    async def go() -> Any:
        try:
            return await judge.judge(TriggerRequest(TARGET, CATALOG, query, 0))
        finally:
            await judge.aclose()

    return asyncio.run(go())


@pytest.fixture(scope="module")
def template(fake: MessagesFake, templates: Path) -> AgentTemplate:
    """One capture by the real CLI (module-wide), then stored."""
    judge = make_judge(fake, templates)
    return judge.template_for(TARGET, CATALOG)


def test_capture_holds_opencode_request(template: AgentTemplate) -> None:
    assert template.agent == "opencode"
    assert template.path.split("?")[0] == "/v1/messages"
    assert template.sentinel_count() == 1
    names = [tool["name"] for tool in template.body["tools"]]
    assert "skill" in names and len(names) >= 5
    assert "stream" not in template.body
    system = json.dumps(template.body["system"])
    assert STABLE_ROOT + "/project" in system  # the throwaway folder made stable
    assert "skillbench-capture-" not in json.dumps(template.body)
    assert set(template.headers) <= {"anthropic-version", "anthropic-beta"}


def test_listing_visibility_read_from_the_request(template: AgentTemplate) -> None:
    view = template.view()
    assert view.visibility(TARGET.name, TARGET.description) == "full"
    assert view.visibility("sql-review", CATALOG[0].description) == "full"
    assert "customize-opencode" in view.shown  # the built-in competitor stays in the request
    assert view.chars > 0 and view.budget is None


def test_replayed_request_is_the_clis_own(
    template: AgentTemplate, fake: MessagesFake, templates: Path, tmp_path: Path
) -> None:
    """The CLI run directly with a real query sends, after normalising its folder, exactly the
    body (and anthropic headers) the replay sends for that query through the SDK."""
    query = 'tidy "this" file — ok?'
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    install_skills(project, TARGET, CATALOG, OPENCODE.skills_dir)
    before = len(fake.requests)
    env = OPENCODE.capture_env(tmp_path / "home", fake.base_url, {})
    # every host but loopback goes to a dead loopback proxy (1.18.33 tries registry.npmjs.org)
    assert env["HTTPS_PROXY"] == env["HTTP_PROXY"] == NULL_PROXY
    call = OPENCODE.capture_call(BIN, MODEL, query)

    class Until:  # stop the CLI once its agent request reached the fake
        def wait_for_agent_request(self, seconds: float) -> bool:
            import time

            time.sleep(seconds)
            return any(OPENCODE.is_agent_request(p, b) for p, _, b in fake.requests[before:])

    run_until_captured(OPENCODE, call, project, env, Until(), 120)  # type: ignore[arg-type]
    own = [(p, h, b) for p, h, b in fake.requests[before:] if OPENCODE.is_agent_request(p, b)]
    assert own, "the CLI sent no request offering the skill tool"
    path, headers, body = own[0]
    cli_body = OPENCODE.normalise(body, str(tmp_path))
    today = datetime.date.today()  # the CLI's own day

    judge = make_judge(fake, templates)
    judge.clock = lambda: today
    count = len(fake.requests)
    outcome = judge_once(judge, query)
    assert outcome.error is None
    replay_path, replay_headers, replay_body = fake.requests[count]
    replay_body = {k: v for k, v in replay_body.items() if k != "stream"}
    assert replay_body == cli_body
    assert replay_path.split("?")[0] == path.split("?")[0]
    for name in ("anthropic-version", "anthropic-beta"):
        assert replay_headers.get(name) == headers.get(name)


@pytest.mark.parametrize(
    ("query", "triggered", "fired", "undecided", "error_kind"),
    [
        ("please fire on my csv", True, "csv-cleanup", None, None),
        ("an other skill please", False, "sql-review", None, None),
        ("a builtin one", False, "customize-opencode", None, None),
        ("look first at the files", False, None, "bash", None),
        ("just answer", False, None, None, None),
        ("bad call", False, None, None, "malformed_tool_call"),
        ("server error", False, None, None, "api"),
    ],
)
def test_first_move_classified(
    template: AgentTemplate,
    fake: MessagesFake,
    templates: Path,
    query: str,
    triggered: bool,
    fired: str | None,
    undecided: str | None,
    error_kind: str | None,
) -> None:
    outcome = judge_once(make_judge(fake, templates), query)
    assert outcome.triggered is triggered
    assert outcome.fired == fired
    assert outcome.undecided == undecided
    assert (outcome.error is not None) is (error_kind is not None)
    assert outcome.detail.get("error_kind") == error_kind
    assert "sk-ant-dummy" not in json.dumps(outcome.to_cache())


def test_cache_keys_on_the_full_replayed_request(
    template: AgentTemplate, fake: MessagesFake, templates: Path
) -> None:
    judge = make_judge(fake, templates)
    first = judge.request_fields(TriggerRequest(TARGET, CATALOG, "q one", 0))
    again = judge.request_fields(TriggerRequest(TARGET, CATALOG, "q one", 0))
    other = judge.request_fields(TriggerRequest(TARGET, CATALOG, "q two", 0))
    assert first is not None and first == again and first != other
    judge.clock = lambda: DAY + datetime.timedelta(days=1)  # the prompt's date changes
    assert judge.request_fields(TriggerRequest(TARGET, CATALOG, "q one", 0)) != first


def test_cached_run_is_not_sent_twice(
    template: AgentTemplate, fake: MessagesFake, templates: Path, tmp_path: Path
) -> None:
    cache = CallCache(tmp_path / "cache.sqlite")
    request = TriggerRequest(TARGET, CATALOG, "please fire twice", 0)

    async def twice() -> list[Any]:
        judge = CachingJudge(make_judge(fake, templates), cache)
        try:
            return [await judge.judge(request), await judge.judge(request)]
        finally:
            await judge.aclose()

    count = len(fake.requests)
    first, second = asyncio.run(twice())
    assert first.triggered and second.triggered and second.cached
    assert len(fake.requests) == count + 1


def test_day_swapped_in_the_prompt(template: AgentTemplate) -> None:
    body = template.body_for(OPENCODE, "hello", datetime.date(2027, 1, 5))
    text = json.dumps(body["system"])
    assert "Today's date: Tue Jan 05 2027" in text
    assert to_date_string(datetime.date(2027, 1, 5)) == "Tue Jan 05 2027"
    assert SENTINEL not in json.dumps(body) and "hello" in json.dumps(body["messages"])


def test_registered_backend_builds_the_judge(fake: MessagesFake, tmp_path: Path) -> None:
    register_backend(OPENCODE_SPEC)
    try:
        cache = CallCache(tmp_path / "cache.sqlite")
        judge = registry.cached_judge(
            "opencode",
            cache=cache,
            api_key="sk-ant-dummy-offline",
            base_url=fake.base_url,
            workers=3,
        )
        inner = judge.inner
        assert isinstance(inner, OpencodeJudge)
        assert inner.store.folder == tmp_path / "replay-templates"
        assert inner.max_concurrency == 3
        assert registry.default_workers("opencode") == OPENCODE_SPEC.default_workers
    finally:
        unregister_backend("opencode")


def test_capture_env_reaches_nothing_but_the_capture_server(tmp_path: Path) -> None:
    environ = {"PATH": "/usr/bin", "HTTPS_PROXY": "http://proxy:1", "ANTHROPIC_API_KEY": "sk-x"}
    env = OPENCODE.capture_env(tmp_path, "http://127.0.0.1:9", {})
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert env["ANTHROPIC_API_KEY"].startswith("sk-ant-skillbench-capture")
    assert all(env[name] == value for name, value in OFFLINE.items())
    # every host but loopback goes to a dead loopback proxy; the caller's proxy never passes
    assert env["HTTPS_PROXY"] == env["HTTP_PROXY"] == env["ALL_PROXY"] == NULL_PROXY
    assert env["NO_PROXY"] == "127.0.0.1,localhost"
    assert OPENCODE.base_env(tmp_path, environ) == {
        "PATH": "/usr/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / ".config"),
        "XDG_DATA_HOME": str(tmp_path / ".local" / "share"),
        "XDG_STATE_HOME": str(tmp_path / ".local" / "state"),
        "XDG_CACHE_HOME": str(tmp_path / ".cache"),
    }


def test_missing_cli_names_make_agents(tmp_path: Path) -> None:
    with pytest.raises(BackendError, match="make agents"):
        OPENCODE.locate(tmp_path / "no-such-opencode")


def test_listing_visibility_kinds() -> None:
    view = Listing(shown={"a": "short", "b": None, "c": "full text"})
    assert view.visibility("a", "short text cut") == "shortened"
    assert view.visibility("b", "x") == "name-only"
    assert view.visibility("c", "full text") == "full"
    assert view.visibility("d", "x") == "absent"


def test_trigger_report_names_the_agent_harness_and_listing(
    template: AgentTemplate, fake: MessagesFake, templates: Path
) -> None:
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.options import EvalContext, TriggerOptions
    from skillbench.trigger.run import run_trigger_eval

    queries = [EvalQuery("please fire on the csv", True), EvalQuery("just answer me", False)]

    async def go() -> Any:
        judge = make_judge(fake, templates)
        try:
            return await run_trigger_eval(
                TARGET.name,
                TARGET.description,
                queries,
                judge,
                TriggerOptions(runs=2),
                context=EvalContext(catalog=CATALOG, body=TARGET.body),
            )
        finally:
            await judge.aclose()

    report = asyncio.run(go())
    assert report.summary.passed == 2
    assert report.harness is not None and not report.harness.claude_code_request
    assert report.harness.name == "opencode replay"
    assert report.listing is not None and report.listing.target == "full"
    assert report.listing.source == "captured-request"


def test_dry_run_counts_and_prices_the_request_as_sent(
    template: AgentTemplate, templates: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`trigger --agent opencode --dry-run`: the plan counts opencode's own request with each
    query swapped in (the stored capture: no new CLI run) and prices it from the price table
    (opencode on a Claude model); no model call."""
    import shutil

    from skillbench.backends.replay.store import templates_dir
    from skillbench.cli import main
    from skillbench.cost.estimate import CHARS_PER_TOKEN
    from skillbench.trigger.cost import plan_trigger
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.options import EvalContext, TriggerOptions

    skill = tmp_path / TARGET.name
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {TARGET.name}\ndescription: {TARGET.description}\n---\n{TARGET.body}",
        encoding="utf-8",
    )
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": "fix my csv", "should_trigger": True}]))
    catalog = tmp_path / "catalog"
    (catalog / "sql-review").mkdir(parents=True)
    (catalog / "sql-review" / "SKILL.md").write_text(
        f"---\nname: sql-review\ndescription: {CATALOG[0].description}\n---\n{CATALOG[0].body}",
        encoding="utf-8",
    )
    cache = tmp_path / "cache.sqlite"
    shutil.copytree(templates, templates_dir(cache))  # the module's capture, beside the cache
    register_backend(OPENCODE_SPEC)
    try:
        argv = ["trigger", str(skill), "--evals", str(evals), "--agent", "opencode"]
        argv += ["--model", MODEL, "--catalog", str(catalog), "--runs", "2"]
        code = main([*argv, "--cache", str(cache), "--dry-run"])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert "opencode request as sent" in out.out and "$" in out.out
        assert main([*argv, "--cache", str(cache), "--max-cost", "0.000001"]) == 3
        options = TriggerOptions(
            backend="opencode",
            model=MODEL,
            use_cache=False,
            backend_options={"template_dir": str(templates)},
            runs=2,
        )
        context = EvalContext(body=TARGET.body, catalog=tuple(CATALOG))
        queries = [EvalQuery("fix my csv", True)]
        plan = plan_trigger(TARGET.name, TARGET.description, queries, options, context)
    finally:
        unregister_backend("opencode")
    (line,) = plan.estimate.lines
    assert line.backend == "opencode" and line.calls == 2
    body = template.body_for(OPENCODE, "", datetime.date.today())
    chars = len(json.dumps(body, ensure_ascii=False)) + len("fix my csv")
    assert line.tokens.input_tokens == math.ceil(2 * chars / CHARS_PER_TOKEN)
    assert isinstance(line.dollars, float) and line.dollars > 0  # a Claude model: priced
