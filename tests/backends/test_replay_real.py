"""The replayed request equals the REAL pinned CLI's own request for the same query.

For each case the pinned `claude` runs twice against loopback servers: once with the sentinel (the
capture the replay harness makes) and once with the real query (the request Claude Code itself
sends). The replay harness's request for that query, sent over an httpx2 MockTransport, must equal
the CLI's own after normalising (the throwaway folder, the per-request billing suffix). No network.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import httpx2
import pytest
from real_cli import real_cli_skip_reason, replay_judge

from skillbench.backends.anthropic.capture import (
    CaptureServer,
    capture_env,
    normalise_body,
    write_skills,
)
from skillbench.backends.anthropic.prompt_cache import mask_volatile
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.listing import estimate
from skillbench.trigger.options import EvalContext, TriggerOptions
from skillbench.trigger.run import run_trigger_eval

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]

QUERY = 'merge "q1.pdf" and q2.pdf, then rotate page 3 \\ done'
TARGET = SkillEntry("pdf-tools", "Use when merging, splitting or rotating PDF files.", "# PDF\n")
SMALL = (
    SkillEntry("csv-cleaner", "Use when cleaning spreadsheet CSV tables.", "# CSV\n"),
    SkillEntry("weather", "Use when the user asks about the weather forecast.", "# W\n"),
)


def big_catalog() -> tuple[SkillEntry, ...]:
    """25 skills whose long descriptions overflow the 8,000-character listing budget."""
    words = "with careful attention to formats, edge cases, validation and clear reporting"
    return tuple(
        SkillEntry(
            f"area-{i:02d}",
            f"Use when working on area {i} tasks: planning, drafting, reviewing and shipping "
            f"area {i} deliverables {words}, {words}, {words}, {words}.",
            "# body\n",
        )
        for i in range(25)
    )


def cli_own_request(
    query: str, target: SkillEntry, catalog: tuple[SkillEntry, ...], model: str
) -> tuple[dict[str, str], dict[str, Any]]:
    """The first Skill-offering request the real CLI sends for `query` (normalised)."""
    root = Path(tempfile.mkdtemp(prefix="skillbench-own-")).resolve()
    try:
        project, home = root / "project", root / "home"
        project.mkdir()
        (home / ".claude").mkdir(parents=True)
        write_skills(project, target, catalog)
        with CaptureServer() as server:
            args = [str(REPO_CLAUDE), "-p", query, "--model", model]
            subprocess.run(
                [*args, "--output-format", "stream-json", "--verbose"],
                cwd=project,
                env=capture_env(home, server.base_url, {}),
                capture_output=True,
                timeout=120,
                check=False,
            )
            found = server.skill_request()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert found is not None, "the CLI never offered the Skill tool"
    _, headers, body = found
    return headers, normalise_body(body, str(root))


@pytest.mark.parametrize(
    ("model", "catalog"),
    [
        ("claude-haiku-4-5", SMALL),
        ("claude-sonnet-4-6", SMALL),
        ("claude-haiku-4-5", big_catalog()),
    ],
    ids=["haiku-4-5-3-skills", "sonnet-4-6-3-skills", "haiku-4-5-26-skills"],
)
async def test_replayed_request_equals_the_clis_own(
    tmp_path: Path, model: str, catalog: tuple[SkillEntry, ...]
) -> None:
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, model, sent, TARGET.name)
    outcome = await judge.judge(TriggerRequest(TARGET, catalog, QUERY, 0))
    await judge.aclose()
    assert outcome.error is None and outcome.triggered is True
    (request,) = sent
    replayed = json.loads(request.content)
    assert replayed.pop("stream") is True
    own_headers, own = cli_own_request(QUERY, TARGET, catalog, model)
    assert request.url.params.get("beta") == "true"
    assert request.headers["anthropic-version"] == own_headers["anthropic-version"]
    assert request.headers["anthropic-beta"] == own_headers["anthropic-beta"]
    assert mask_volatile(replayed) == mask_volatile(own)
    # the template on disk holds no key and no path of the machine's temporary folders
    (stored,) = (tmp_path / "templates").glob("*.json")
    text = stored.read_text(encoding="utf-8")
    assert "sk-ant-dummy" not in text and "skillbench-capture-" not in text
    assert str(Path.home()) not in text or str(Path.home()) == "/"


async def test_over_budget_catalog_reports_the_target_listed_by_name_only(tmp_path: Path) -> None:
    # sorts after the catalog, and too long to fit what the catalog left of the budget
    target = SkillEntry("zz-pdf-tools", big_catalog()[0].description, TARGET.body)
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, "claude-haiku-4-5", sent, target.name)
    queries = [EvalQuery("merge two pdf files", True, None, (0,))]
    report = await run_trigger_eval(
        target.name,
        target.description,
        queries,
        judge,
        options=TriggerOptions(runs=1),
        context=EvalContext(catalog=tuple(big_catalog())),
    )
    await judge.aclose()
    assert report.listing is not None
    assert report.listing.target == "name-only" and report.listing.source == "captured-request"
    assert report.listing.budget_chars == 8000
    assert report.warnings is not None
    assert any("listed by name only" in w for w in report.warnings)
    assert report.harness is not None and report.harness.claude_code_request is True
    # the estimate used for the other harnesses agrees with what the CLI really did
    assert estimate(target, big_catalog(), "claude-haiku-4-5").target == "name-only"
    short = SkillEntry("zz-pdf-tools", TARGET.description, TARGET.body)
    assert estimate(short, big_catalog(), "claude-haiku-4-5").target == "full"


async def test_small_catalog_reports_the_full_listing(tmp_path: Path) -> None:
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, "claude-haiku-4-5", sent, TARGET.name)
    queries = [EvalQuery("merge two pdf files", True, None, (0,))]
    report = await run_trigger_eval(
        TARGET.name,
        TARGET.description,
        queries,
        judge,
        options=TriggerOptions(runs=1),
        context=EvalContext(catalog=tuple(SMALL)),
    )
    await judge.aclose()
    assert report.listing is not None and report.listing.target == "full"
    assert report.listing.shown == f"- {TARGET.name}: {TARGET.description}"
    assert not any("LISTING" in w for w in report.warnings or [])


async def test_budget_override_reaches_the_capture_and_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLASH_COMMAND_TOOL_CHAR_BUDGET", "30000")
    target = SkillEntry("zz-pdf-tools", big_catalog()[0].description, TARGET.body)
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, "claude-haiku-4-5", sent, target.name)
    assert judge.identity()["settings"]["SLASH_COMMAND_TOOL_CHAR_BUDGET"] == "30000"
    queries = [EvalQuery("merge two pdf files", True, None, (0,))]
    report = await run_trigger_eval(
        target.name,
        target.description,
        queries,
        judge,
        options=TriggerOptions(runs=1),
        context=EvalContext(catalog=tuple(big_catalog())),
    )
    await judge.aclose()
    assert report.listing is not None and report.listing.target == "full"
    assert report.listing.budget_chars == 30000
    assert report.listing.budget_source == "SLASH_COMMAND_TOOL_CHAR_BUDGET"
