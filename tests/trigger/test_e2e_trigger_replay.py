"""`skillbench trigger --backend anthropic` (replay, the default harness) end to end: the REAL
pinned CLI captures its request once, the replayed calls go to a loopback mock of the Messages API
that routes by the listing it is shown. The repo's own sql-query-reviewer among data/catalog is
the bare-name trap: Claude Code lists it by name only."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from mock_anthropic_sse import MockAnthropic
from real_cli import real_cli_skip_reason

from skillbench.cli import main

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
REPO = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-replay-e2e-secret-0123456789abcdef"


@pytest.fixture
def mock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[MockAnthropic]:
    with MockAnthropic() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache" / "calls.sqlite"))
        monkeypatch.delenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", raising=False)
        yield server


def args(tmp_path: Path, skill: str, *extra: str) -> list[str]:
    return [
        "trigger",
        str(REPO / "data" / "skills" / skill),
        "--evals",
        str(REPO / "data" / "evals" / f"{skill}.trigger.json"),
        "--backend",
        "anthropic",
        "--runs",
        "1",
        "--out",
        str(tmp_path / "report.json"),
        *extra,
    ]


def test_bare_name_trap_is_reported_and_nothing_leaks(
    tmp_path: Path, mock: MockAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = ["--catalog", str(REPO / "data" / "catalog")]
    code = main(args(tmp_path, "sql-query-reviewer", *catalog))
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["harness"]["name"] == "replay" and report["harness"]["claude_code_request"]
    assert report["listing"]["target"] == "name-only"
    assert report["listing"]["shown"] == "- sql-query-reviewer"
    assert "'sql-query-reviewer' was listed by name only" in " ".join(err.split())
    assert "listing: target listed by name only" in " ".join(out.split())
    assert any("was listed by name only" in w for w in report["warnings"])
    assert len(report["catalog"]["skills"]) == 20
    # the mock parsed Claude Code's listing: catalog skills with descriptions, never the target
    routed = [r for r in mock.requests if r.path.startswith("/v1/messages")]
    assert routed and all("code-review" in r.skills_listed for r in routed)
    assert not any("sql-query-reviewer" in r.skills_listed for r in routed)
    # the key is in no file written (templates, call cache, report) and not printed
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in out + err
    # a re-run is served by the call cache and the stored template: no request at all
    before = len(mock.requests)
    main(args(tmp_path, "sql-query-reviewer", *catalog))
    capsys.readouterr()
    assert len(mock.requests) == before


def test_without_catalog_the_target_is_listed_in_full(
    tmp_path: Path, mock: MockAnthropic, capsys: pytest.CaptureFixture[str]
) -> None:
    main(args(tmp_path, "sql-query-reviewer"))
    _, err = capsys.readouterr()
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["catalog"]["source"] == "none" and report["catalog"]["skills"] == []
    assert report["listing"]["target"] == "full"
    assert "LISTING" not in err
    assert report["summary"]["recall"]["value"] > 0
