"""`skillbench trigger --backend anthropic` end to end against loopback mocks of the Messages API.

- the API key (a unique sentinel) never reaches a written file, the cache, stdout or stderr,
  neither on success nor when the API refuses the call (401, 500 — the mock even echoes the key
  in its error text, as a careless proxy would);
- `--runs auto` and `--batch` (Message Batches endpoints of benchmarks/mock_messages_server.py).
No network: every request goes to 127.0.0.1.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_mock_api import MockAPI

from benchmarks.mock_messages_server import MockMessagesServer
from skillbench.backends.anthropic.sdk import AnthropicJudge
from skillbench.cli import main
from skillbench.schemas import load
from skillbench.schemas.trigger import TriggerReport

SKILL_DESCRIPTION = (
    "Repairs messy CSV exports: encodings, delimiters, broken quoting and duplicate rows. "
    "Use when a csv file will not import cleanly."
)
QUERIES = [
    {"query": "my csv exports have broken quoting and odd encodings", "should_trigger": True},
    {"query": "remove the duplicate rows from this csv export file", "should_trigger": True},
    {"query": "what is the capital of France", "should_trigger": False},
    {"query": "write a haiku about autumn leaves", "should_trigger": False},
]
CATALOG_SKILL = (
    "regex-builder",
    "Builds regular expressions from examples. Use when a pattern is needed.",
)


def _write_skill(folder: Path, name: str, description: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n# {name}\n\nSteps.\n",
        encoding="utf-8",
    )
    return folder


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A skill, a catalog and an eval set in tmp_path, which is also the working directory."""
    _write_skill(tmp_path / "skills" / "csv-cleanup", "csv-cleanup", SKILL_DESCRIPTION)
    _write_skill(tmp_path / "catalog" / CATALOG_SKILL[0], *CATALOG_SKILL)
    (tmp_path / "evals.json").write_text(json.dumps(QUERIES), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "default-cache.sqlite"))
    for name in ("ANTHROPIC_AUTH_TOKEN", "SKILLBENCH_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture(params=["sk-ant-api03-", "PLAINKEY"], ids=["sk-ant-shaped", "plain"])
def sentinel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """A unique API key, in the usual `sk-ant-…` shape and in a shape no regex would catch."""
    key = f"{request.param}{uuid.uuid4().hex}{uuid.uuid4().hex}"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    return key


@pytest.fixture
def api(sentinel: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[MockAPI]:
    with MockAPI(expected_key=sentinel) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        yield mock


def trigger_args(root: Path, *extra: str) -> list[str]:
    return [
        "trigger",
        str(root / "skills" / "csv-cleanup"),
        "--evals",
        str(root / "evals.json"),
        "--backend",
        "anthropic",
        "--harness",
        "minimal",
        "--catalog",
        str(root / "catalog"),
        "--cache",
        str(root / "cache.sqlite"),
        "--out",
        str(root / "out" / "report.json"),
        *extra,
    ]


def leaks(root: Path, secret: str) -> list[str]:
    """Every file under `root` whose bytes hold the secret or its last 12 characters."""
    needles = [secret.encode(), secret[-12:].encode()]
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and any(n in path.read_bytes() for n in needles):
            found.append(str(path.relative_to(root)))
    return found


def test_key_never_written_or_printed_on_success(
    project: Path, api: MockAPI, sentinel: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*trigger_args(project, "--runs", "2"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert api.count("route") == len(QUERIES) * 2
    assert api.count("key_matched") == api.count("requests")  # the key really was used
    report = TriggerReport.model_validate_json((project / "out" / "report.json").read_text())
    assert report.summary.passed == len(QUERIES) and report.summary.calls == 8
    assert json.loads(out)["summary"]["passed"] == len(QUERIES)
    assert (project / "cache.sqlite").stat().st_size > 0
    assert leaks(project, sentinel) == []
    assert sentinel not in out + err and sentinel[-12:] not in out + err
    # a re-run is served by the cache: zero calls, and still nothing leaks
    before = api.count("requests")
    assert main(trigger_args(project, "--runs", "2")) == 0
    out, err = capsys.readouterr()
    assert api.count("requests") == before
    assert leaks(project, sentinel) == []
    assert sentinel not in out + err


@pytest.mark.parametrize("status", [401, 500])
def test_key_absent_from_errors_when_the_api_refuses(
    project: Path,
    sentinel: str,
    status: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with MockAPI(expected_key=sentinel, fail_status=status, echo_key=True) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        code = main([*trigger_args(project, "--runs", "1"), "--json"])
        requests = mock.count("requests")
    out, err = capsys.readouterr()
    assert code == 1, err  # errors are failures, never "not triggered" passes
    report = TriggerReport.model_validate_json((project / "out" / "report.json").read_text())
    assert all(r.errors == 1 and r.runs == 0 and r.unresolved for r in report.results)
    errors = [e for r in report.results for e in (r.error_messages or [])]
    assert errors, report.results[0]
    assert all(f"HTTP {status}" in e for e in errors)
    assert requests >= len(QUERIES)
    assert leaks(project, sentinel) == []
    assert sentinel not in out + err and sentinel[-12:] not in out + err


async def test_judge_error_text_is_redacted_when_the_server_echoes_the_key(sentinel: str) -> None:
    """The judge level: the outcome's error names the status but never the key."""
    with MockAPI(expected_key=sentinel, fail_status=401, echo_key=True) as mock:
        judge = AnthropicJudge(base_url=mock.url, max_retries=0)
        from skillbench.backends.base import SkillEntry, TriggerRequest

        outcome = await judge.judge(
            TriggerRequest(SkillEntry("csv-cleanup", SKILL_DESCRIPTION), (), "fix my csv", 0)
        )
        await judge.aclose()
        assert mock.count("key_matched") == 1
    assert outcome.error is not None and "HTTP 401" in outcome.error
    assert "[REDACTED]" in outcome.error  # the echoed key was there, and was masked
    assert sentinel not in outcome.error and sentinel[-12:] not in outcome.error
    assert sentinel not in repr(outcome)


# ----- --runs auto and --batch -----------------------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[MockMessagesServer]:
    with MockMessagesServer(latency=0.0) as mock:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", mock.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy-offline-key")
        yield mock


def test_runs_auto_stops_early_on_clear_queries(
    project: Path, server: MockMessagesServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(trigger_args(project, "--runs", "auto", "--max-runs", "10"))
    out, err = capsys.readouterr()
    assert code == 0, err
    report = load(project / "out" / "report.json").model
    assert isinstance(report, TriggerReport)
    runs = [r.runs for r in report.results]
    # the mock is deterministic: every query is unanimous, so adaptive runs stop below the cap
    assert all(1 <= n < 10 for n in runs), runs
    assert report.summary.calls == sum(runs) == server.count("messages")
    assert report.summary.calls_saved is not None and report.summary.calls_saved > 0
    assert "saved by --runs auto" in out


def test_batch_flag_goes_through_message_batches(
    project: Path,
    server: MockMessagesServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kwdefaults = AnthropicJudge.__init__.__kwdefaults__
    assert kwdefaults is not None
    monkeypatch.setitem(kwdefaults, "batch_poll_seconds", 0.01)  # the mock ends on 2nd poll
    code = main(trigger_args(project, "--runs", "2", "--batch"))
    _out, err = capsys.readouterr()
    assert code == 0, err
    report = TriggerReport.model_validate_json((project / "out" / "report.json").read_text())
    assert report.summary.passed == len(QUERIES)
    assert server.count("messages") == 0
    assert server.count("batch_requests") == len(QUERIES) * 2
    assert server.count("batches") >= 1
    # a re-run is served by the cache: no new batch
    batches = server.count("batches")
    assert main(trigger_args(project, "--runs", "2", "--batch")) == 0
    assert server.count("batches") == batches


def test_batch_with_a_per_run_timeout_is_refused_not_silently_dropped(
    project: Path, server: MockMessagesServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(trigger_args(project, "--runs", "2", "--batch", "--timeout", "30"))
    _out, err = capsys.readouterr()
    assert code == 2, err
    assert "--timeout" in err and "Message Batch" in err
    assert server.count("messages") == 0 and server.count("batches") == 0
    assert not (project / "out" / "report.json").exists()
