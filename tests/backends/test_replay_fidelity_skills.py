"""Replay equals the REAL pinned CLI for skill folders as users have them (issue 21, items 4–7).

The CLI's own request is captured from the user's folders copied as they are into a throwaway
project (never through skillbench's installer, so a wrong install cannot agree with itself); the
replay harness's request for the same query goes to an httpx2 MockTransport. Both must be
identical byte for byte — body (key order included), betas, version header and path — after
normalising the throwaway folder (the top-level keys compared in sorted order: the SDK puts its
named parameters first). (The billing header's per-prompt `cc_version` suffix is masked
here: reproducing it is issue 21 item 3, handled on its own.) No network.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx2
import pytest
from real_cli import claude_versions, listing_rules, real_cli_skip_reason, replay_judge

from skillbench.backends.anthropic.capture import (
    CaptureServer,
    capture_env,
    normalise_body,
)
from skillbench.backends.anthropic.listing_rules import ListingRules
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.skill import load_as_claude_code
from skillbench.trigger.catalog import entry_for
from skillbench.trigger.evalset import EvalQuery
from skillbench.trigger.listing import estimate, listing_text, parse_listing
from skillbench.trigger.options import EvalContext, TriggerOptions
from skillbench.trigger.run import evaluate_skill, run_trigger_eval

pytestmark = [
    pytest.mark.needs_claude,
    pytest.mark.diagonal("claude_bin"),  # each combination on one version in `make test`
    pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason())),
]
CLAUDE: Path = REPO_CLAUDE


@pytest.fixture(autouse=True, params=claude_versions())
def claude_bin(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test runs on each pinned CLI (the pin and the current release beside it), where
    installed: the helpers read `CLAUDE`."""
    monkeypatch.setattr(sys.modules[__name__], "CLAUDE", request.param)
    return Path(request.param)


QUERY = "download this video from youtube and save it as mp4"


@pytest.fixture(scope="module")
def rules_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder of calibrations for the module (each CLI and model calibrated once)."""
    return tmp_path_factory.mktemp("listing-rules")


def rules_of(model: str, folder: Path) -> ListingRules:
    """The listing rules skillbench applies for the CLI under test and `model`."""
    return listing_rules(CLAUDE, model, folder)


def write_skill(root: Path, folder: str, frontmatter: str, body: str = "# Skill\n") -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\n{frontmatter}---\n\n{body}", encoding="utf-8")
    return path


def entry(folder: Path) -> SkillEntry:
    skill, _ = load_as_claude_code(folder)
    return entry_for(skill)


def cli_own_request(
    query: str, folders: list[Path], model: str
) -> tuple[str, dict[str, str], dict[str, Any]]:
    """The first Skill-offering request the real CLI sends with the user's folders as they are."""
    root = Path(tempfile.mkdtemp(prefix="skillbench-own-")).resolve()
    try:
        project, home = root / "project", root / "home"
        (home / ".claude").mkdir(parents=True)
        for folder in folders:
            shutil.copytree(folder, project / ".claude" / "skills" / folder.name, symlinks=True)
        with CaptureServer() as server:
            args = [str(CLAUDE), "-p", query, "--model", model]
            args += ["--output-format", "stream-json", "--verbose"]
            subprocess.run(
                args,
                cwd=project,
                env=capture_env(home, server.base_url, {}),
                capture_output=True,
                timeout=180,
                check=False,
            )
            found = server.skill_request()
        assert found is not None, "the CLI never offered the Skill tool"
        path, headers, body = found
        return path, headers, normalise_body(body, str(root))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def assert_identical(request: httpx2.Request, own: tuple[str, dict[str, str], dict[str, Any]]):
    path, headers, body = own
    replayed = json.loads(request.content)
    assert replayed.pop("stream") is True
    assert request.url.raw_path.decode() == path
    assert request.headers["anthropic-version"] == headers["anthropic-version"]
    assert request.headers["anthropic-beta"] == headers["anthropic-beta"]
    # every value byte for byte, nested key order included; only the order of the top-level
    # keys is the SDK's own (it serialises its named parameters first): JSON objects are
    # unordered to the API
    # (the billing header's per-query suffix included: replay computes it as the CLI does)
    mine = json.dumps(dict(sorted(replayed.items())), ensure_ascii=False)
    theirs = json.dumps(dict(sorted(body.items())), ensure_ascii=False)
    assert mine == theirs


async def replay_once(
    tmp_path: Path, model: str, target: SkillEntry, catalog: tuple[SkillEntry, ...], reply: str
) -> tuple[httpx2.Request, Any, Any]:
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, model, sent, reply, claude_bin=CLAUDE)
    outcome = await judge.judge(TriggerRequest(target, catalog, QUERY, 0))
    report = await run_trigger_eval(
        target.name,
        target.description,
        [EvalQuery(QUERY, True, None, (0,))],
        judge,
        options=TriggerOptions(runs=1),
        context=EvalContext(
            catalog=tuple(catalog),
            body=target.body,
            folder=target.folder,
            content_hash=target.content_hash,
        ),
    )
    await judge.aclose()
    return sent[0], outcome, report


def mismatch_library(root: Path) -> list[Path]:
    return [
        write_skill(
            root,
            "video-downloader",
            "name: youtube-downloader\ndescription: Download videos from YouTube and other "
            "sites as mp4 or audio.\n",
        ),
        # frontmatter names that sort differently from the folders (and one with spaces)
        write_skill(root, "a-notes", "name: Zeta Notes\ndescription: Take meeting notes.\n"),
        write_skill(root, "Zip_Tools", "name: aaa-zip\ndescription: Zip and unzip archives.\n"),
        write_skill(root, "pdf.tools", "name: pdf\ndescription: Merge PDF files.\n"),
    ]


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-sonnet-4-6", "claude-opus-4-8"])
async def test_folder_name_mismatch_is_listed_and_resolved_as_the_cli_does(
    tmp_path: Path, model: str, rules_folder: Path
) -> None:
    folders = mismatch_library(tmp_path / "lib")
    target, *rest = (entry(f) for f in folders)
    assert target.name == "youtube-downloader"
    # the model may call the skill by its frontmatter name: the CLI runs the folder's skill
    request, outcome, report = await replay_once(
        tmp_path, model, target, tuple(rest), "youtube-downloader"
    )
    assert outcome.error is None and outcome.triggered is True
    assert_identical(request, cli_own_request(QUERY, folders, model))
    text = listing_text(json.loads(request.content)) or ""
    # every skill is known by its folder, whatever the line shows beside it (2.1.332 lists a
    # valid frontmatter name unlike the folder as `folder (name)`)
    folder_names = [f.name for f in folders]
    names = [n for n, _ in parse_listing(text, folder_names)]
    assert names[:4] == ["a-notes", "pdf.tools", "video-downloader", "Zip_Tools"]
    # ... and the rules read from this CLI name each line as it does
    rules = rules_of(model, rules_folder)
    skills = rules.skills(target, rest)
    assert [n for n, _ in parse_listing(text)][:4] == rules.listed_names(skills)
    shown = rules.listed_names(skills)[[s.name for s in skills].index("video-downloader")]
    assert report.listing is not None and report.listing.target == "full"
    assert report.listing.shown is not None
    assert report.listing.shown.startswith(f"- {shown}: Download videos")


async def test_the_listing_names_the_folder_not_the_frontmatter_name(tmp_path: Path) -> None:
    folders = mismatch_library(tmp_path / "lib")
    folders = [f for f in folders if f.name != "a-notes"]  # no frontmatter name with spaces
    target, *rest = (entry(f) for f in folders)
    request, outcome, _ = await replay_once(
        tmp_path, "claude-haiku-4-5", target, tuple(rest), "video-downloader"
    )
    assert outcome.triggered is True
    assert_identical(request, cli_own_request(QUERY, folders, "claude-haiku-4-5"))


async def test_a_disabled_target_is_absent_and_calling_it_is_not_a_trigger(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "lib"
    folders = [
        write_skill(
            lib,
            "pdf-tools",
            "name: pdf-tools\ndescription: Merge PDF files.\ndisable-model-invocation: true\n",
        ),
        write_skill(lib, "csv-cleaner", "name: csv-cleaner\ndescription: Clean CSV tables.\n"),
    ]
    target, other = entry(folders[0]), entry(folders[1])
    request, outcome, report = await replay_once(
        tmp_path, "claude-haiku-4-5", target, (other,), "pdf-tools"
    )
    assert_identical(request, cli_own_request(QUERY, folders, "claude-haiku-4-5"))
    # Claude Code answers this call with a tool_use_error: the skill never runs
    assert outcome.error is None and outcome.triggered is False and outcome.fired is None
    assert outcome.detail["outcome"] == "disabled-skill"
    assert report.listing is not None and report.listing.target == "absent"
    assert report.results[0].trigger_rate == 0.0
    assert estimate(target, (other,), "claude-haiku-4-5").target == "absent"


async def test_frontmatter_only_the_cli_reads_is_evaluated_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = tmp_path / "lib"
    wip = write_skill(lib, "wip-tool", "name: wip-tool\ndescription: [WIP] merges PDFs: fast\n")
    other = write_skill(lib, "csv-cleaner", "name: csv-cleaner\ndescription: Clean CSV.\n")
    skill, warnings = load_as_claude_code(wip)
    assert skill.description == "[WIP] merges PDFs: fast"
    assert warnings and "FRONTMATTER_INVALID" in warnings[0]
    request, outcome, _ = await replay_once(
        tmp_path, "claude-haiku-4-5", entry(wip), (entry(other),), "wip-tool"
    )
    assert outcome.triggered is True
    assert_identical(request, cli_own_request(QUERY, [wip, other], "claude-haiku-4-5"))
    # the whole trigger command path: a warning, not exit 2
    evals = tmp_path / "evals.json"
    evals.write_text(json.dumps([{"query": QUERY, "should_trigger": True}]), encoding="utf-8")
    sent: list[httpx2.Request] = []
    judge = replay_judge(tmp_path, "claude-haiku-4-5", sent, "wip-tool", claude_bin=CLAUDE)
    monkeypatch.setattr("skillbench.backends.registry.cached_judge", lambda *a, **k: judge)
    report = await evaluate_skill(
        wip, evals, options=TriggerOptions(backend="anthropic", runs=1, use_cache=False)
    )
    assert report.warnings is not None
    assert any("FRONTMATTER_INVALID" in w for w in report.warnings)


def long_library(root: Path, count: int, seed: int) -> list[Path]:
    """Skills with long descriptions (some with when_to_use, one past the 1,536 cap, wide
    characters) that overflow every model's budget."""
    folders = []
    for i in range(count):
        size = 120 + (i * 97 + seed * 31) % 900
        text = (f"Use for area {i} work " + "with careful checks " * 60)[:size].strip()
        lines = f"name: area-{i:02d}\ndescription: {text}\n"
        if i % 5 == 0:
            lines += f"when_to_use: When the user mentions area {i} or its 報告 reports.\n"
        if i == 3:
            lines = f"name: area-03\ndescription: {'x' * 1600}\n"
        folders.append(write_skill(root, f"area-{i:02d}", lines))
    return folders


@pytest.mark.parametrize(
    ("model", "count", "seed"),
    [
        ("claude-haiku-4-5", 30, 1),
        ("claude-sonnet-4-6", 24, 2),
        ("claude-opus-4-7", 18, 3),
        ("claude-opus-4-8", 40, 4),
    ],
)
async def test_over_budget_library_equals_the_cli_and_the_estimate_agrees(
    tmp_path: Path, model: str, count: int, seed: int, rules_folder: Path
) -> None:
    folders = long_library(tmp_path / "lib", count, seed)
    entries = [entry(f) for f in folders]
    target = entries[-1]
    request, _, report = await replay_once(
        tmp_path, model, target, tuple(entries[:-1]), target.name
    )
    assert_identical(request, cli_own_request(QUERY, folders, model))
    listing = report.listing
    assert listing is not None and listing.source == "captured-request"
    text = listing_text(json.loads(request.content)) or ""
    # the rules this CLI's listings are predicted by (its own, read by calibration; the table
    # for 2.1.197) know its budget for the model: the one it logs when a listing goes over
    rules = rules_of(model, rules_folder)
    assert rules.budget is not None
    if listing.budget_source == "logged by Claude Code during the capture":
        assert listing.budget_chars == rules.budget
    else:  # everything fit, so nothing was logged (2.1.332: opus-4-7 / opus-4-8 at 30,000)
        assert listing.budget_chars is None
        assert listing.listing_chars is not None and listing.listing_chars <= rules.budget
        assert all(d is not None for _, d in parse_listing(text))
    # the rules, applied without a capture, agree with the CLI on every skill
    shown = dict(parse_listing(text, [f.name for f in folders]))
    for index, skill in enumerate(entries):
        others = tuple(e for j, e in enumerate(entries) if j != index)
        guess = estimate(skill, others, model, rules=rules).target
        truth = shown[skill.name]
        if truth is None:
            assert guess == "name-only", skill.name
        else:
            assert guess == ("truncated" if truth.endswith("…") else "full"), skill.name


def listed_states(request: httpx2.Request, names: list[str]) -> dict[str, str]:
    """The state of every listed skill (the first entry of a name: user skills come first)."""
    states: dict[str, str] = {}
    for name, text in parse_listing(listing_text(json.loads(request.content)) or "", names):
        if name not in states:
            full = "truncated" if text is not None and text.endswith("…") else "full"
            states[name] = "name-only" if text is None else full
    return states


@pytest.mark.parametrize("model", ["claude-haiku-4-5", "claude-opus-4-8"])
async def test_the_repositorys_real_skills_equal_the_cli_and_the_estimate_agrees(
    tmp_path: Path, model: str, rules_folder: Path
) -> None:
    # 31 real skills: one with a UTF-8 BOM (the CLI sees no frontmatter: "---"), one named like
    # a bundled skill (code-review replaces it), one like a built-in (security-review, twice)
    data = Path(__file__).resolve().parents[2] / "data"
    folders = sorted(
        [*(data / "catalog").iterdir(), *(data / "skills").iterdir()], key=lambda p: p.name
    )
    folders = [f for f in folders if (f / "SKILL.md").is_file()]
    entries = [entry(f) for f in folders]
    target = entries[0]
    request, _, _ = await replay_once(tmp_path, model, target, tuple(entries[1:]), target.name)
    assert_identical(request, cli_own_request(QUERY, folders, model))
    names = [f.name for f in folders]
    states = listed_states(request, names)
    assert states.keys() >= set(names)
    rules = rules_of(model, rules_folder)
    for index, skill in enumerate(entries):
        others = tuple(e for j, e in enumerate(entries) if j != index)
        guess = estimate(skill, others, model, rules=rules).target
        assert guess == states[names[index]], skill.name
    # every line with a description shows the text the rules read: the BOM skill's (2.1.197:
    # no frontmatter, `---`; 2.1.332: its frontmatter description), `folder (name)`, the cap
    text = listing_text(json.loads(request.content)) or ""
    lines: dict[str, str | None] = {}
    for name, description in parse_listing(text, names):
        lines.setdefault(name, description)  # the user's skill, listed before a same-named CLI's
    skills = rules.skills(target, entries[1:])
    listed = dict(zip((s.name for s in skills), rules.listed_names(skills), strict=True))
    for skill in skills:
        if lines.get(skill.name) is not None:
            assert f"- {listed[skill.name]}: {lines[skill.name]}" in text, skill.name
            assert lines[skill.name] == rules.text(skill), skill.name


async def test_the_claude_code_backend_does_not_count_a_refused_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mock_anthropic_sse
    from mock_anthropic_sse import MockAnthropic

    from skillbench.backends.claude_cli.session import ClaudeCodeJudge

    lib = tmp_path / "lib"
    target = entry(
        write_skill(
            lib,
            "pdf-tools",
            "name: pdf-tools\ndescription: Merge PDF files.\ndisable-model-invocation: true\n",
        )
    )
    other = entry(write_skill(lib, "csv-cleaner", "name: csv-cleaner\ndescription: Clean CSV.\n"))
    # the model asks for the disabled target anyway; the real CLI refuses and the session goes on
    monkeypatch.setattr(mock_anthropic_sse, "route", lambda query, skills: "pdf-tools")
    with MockAnthropic() as mock:
        env = {"ANTHROPIC_BASE_URL": mock.base_url, "ANTHROPIC_API_KEY": "sk-ant-dummy-offline"}
        judge = ClaudeCodeJudge(claude_bin=CLAUDE, env=env, timeout=60)
        outcome = await judge.judge(TriggerRequest(target, (other,), "merge two pdf files", 0))
        await judge.aclose()
        calls = [r for r in mock.requests if r.path.startswith("/v1/messages")]
    assert outcome.error is None, outcome.detail
    assert outcome.triggered is False and outcome.fired is None
    assert outcome.detail["disabled_skill_calls"] == ["pdf-tools"]
    assert outcome.detail["ended_early"] is False  # the session went on after the refusal
    assert any(r.saw_tool_result for r in calls)
