"""Claude Code's own rules for skill folders, offline (issue 21 items 4–7; the real-CLI checks
are in test_replay_fidelity_skills.py): names, order, resolution, disabled skills, the YAML
fallback, the listing rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillbench.backends.anthropic.first_turn import FirstTurn
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.session import resolved_invocations, target_fired
from skillbench.backends.claude_cli.stream_json import Session, ToolUse
from skillbench.backends.skill_install import (
    cli_name,
    cli_skills,
    collation_key,
    install_skills,
    resolve_call,
)
from skillbench.errors import InputError
from skillbench.skill import Skill, cli_frontmatter, load_as_claude_code
from skillbench.trigger.listing import (
    ENTRY_CAP,
    Listed,
    entry_text,
    estimate,
    render_listing,
    string_width,
)
from skillbench.trigger.options import TriggerOptions


def skill_folder(root: Path, folder: str, frontmatter: str, body: str = "# Body\n") -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(f"---\n{frontmatter}---\n\n{body}", encoding="utf-8")
    return path


def entry_of(folder: Path) -> SkillEntry:
    skill, _ = load_as_claude_code(folder)
    return SkillEntry(skill.name, skill.description, skill.body, str(skill.path))


# -- item 4: folder names -------------------------------------------------------------------


def test_skills_are_installed_and_named_by_their_folder(tmp_path: Path) -> None:
    video = entry_of(
        skill_folder(tmp_path, "video-downloader", "name: youtube-downloader\ndescription: d\n")
    )
    spaced = entry_of(skill_folder(tmp_path, "notes", "name: My Notes\ndescription: n\n"))
    assert video.name == "youtube-downloader" and cli_name(video) == "video-downloader"
    project = tmp_path / "project"
    assert install_skills(project, video, (spaced,)) == ["video-downloader", "notes"]
    assert (project / ".claude/skills/video-downloader/SKILL.md").is_file()
    assert (project / ".claude/skills/notes/SKILL.md").is_file()


def test_an_unusable_folder_name_is_still_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"target\.name"):
        install_skills(tmp_path, SkillEntry("../escape", "d"), ())


def test_listing_order_is_icu_collation_of_folder_names() -> None:
    names = ["b", "Ab", "aB", "ab", "a1", "a.b", "a-b", "a_b", "a b", "Zeta", "eta", "été"]
    assert sorted(names, key=collation_key) == [
        "a b",
        "a_b",
        "a-b",
        "a.b",
        "a1",
        "ab",
        "aB",
        "Ab",
        "b",
        "eta",
        "été",
        "Zeta",
    ]


def test_a_skill_call_resolves_by_folder_or_frontmatter_name(tmp_path: Path) -> None:
    target = entry_of(
        skill_folder(tmp_path, "video-downloader", "name: youtube-downloader\ndescription: d\n")
    )
    other = entry_of(skill_folder(tmp_path, "csv", "name: csv-cleaner\ndescription: c\n"))
    skills = cli_skills(target, (other,))
    assert [s.name for s in skills] == ["csv", "video-downloader"]
    for called in ("video-downloader", "youtube-downloader"):
        resolved = resolve_call(called, skills)
        assert resolved is not None and resolved.target
        fold = FirstTurn(target.name, skills)
        fold._tool_done("Skill", f'{{"skill": "{called}"}}')
        assert fold.decision.kind == "target" and fold.decision.fired == target.name
    fold = FirstTurn(target.name, skills)
    fold._tool_done("Skill", '{"skill": "csv-cleaner"}')
    assert fold.decision.kind == "other-skill" and fold.decision.fired == "csv"


# -- item 5: disable-model-invocation -----------------------------------------------------------


def disabled_target(tmp_path: Path) -> SkillEntry:
    return entry_of(
        skill_folder(
            tmp_path,
            "pdf-tools",
            "name: pdf-tools\ndescription: p\ndisable-model-invocation: true\n",
        )
    )


def test_a_call_to_a_disabled_skill_is_not_a_trigger_on_replay(tmp_path: Path) -> None:
    target = disabled_target(tmp_path)
    skills = cli_skills(target, ())
    assert skills[0].disabled
    fold = FirstTurn(target.name, skills)
    fold._tool_done("Skill", '{"skill": "pdf-tools"}')
    assert fold.decision.kind == "disabled-skill" and fold.decision.fired == "pdf-tools"


def test_a_call_to_a_disabled_skill_is_not_a_trigger_on_claude_code(tmp_path: Path) -> None:
    target = disabled_target(tmp_path)
    skills = cli_skills(target, ())
    session = Session(tool_uses=[ToolUse(id="t1", name="Skill", input={"skill": "pdf-tools"})])
    assert resolved_invocations(session, target.name, skills) == ([], ["pdf-tools"])
    assert target_fired(target.name, skills)(session) is False
    assert estimate(target, (), "claude-haiku-4-5").target == "absent"


# -- item 6: frontmatter the CLI accepts ------------------------------------------------------


def test_yaml_the_cli_repairs_loads_with_a_warning_and_validate_stays_strict(
    tmp_path: Path,
) -> None:
    folder = skill_folder(tmp_path, "wip", "name: wip\ndescription: [WIP] does things: really\n")
    with pytest.raises(InputError):
        Skill.load(folder)
    skill, warnings = load_as_claude_code(folder)
    assert skill.description == "[WIP] does things: really"
    assert len(warnings) == 1 and "FRONTMATTER_INVALID" in warnings[0]


def test_frontmatter_the_cli_cannot_read_either_falls_back_to_the_body() -> None:
    mapping, body, error = cli_frontmatter("---\ndescription: [a\n  - b: [\n---\n\n# Title\n")
    assert mapping == {} and error is not None and body.strip() == "# Title"


# -- item 7: the listing rule -------------------------------------------------------------------


def test_entry_text_appends_when_to_use_and_caps_in_utf16_units() -> None:
    assert entry_text("Does a.", "When b.") == "Does a. - When b."
    capped = entry_text("😀" * 1000)
    assert capped.endswith("…") and len(capped.encode("utf-16-le")) // 2 <= ENTRY_CAP
    assert string_width("日本") == 4 and string_width("a\nb") == 2


def test_the_greedy_rule_skips_a_long_description_and_keeps_a_later_short_one() -> None:
    entries = [
        Listed("a", "- a: " + "x" * 60),
        Listed("b", "- b: short"),
        Listed("c", "- c: " + "y" * 200, bundled=True),
    ]
    text = render_listing(entries, 240)
    assert text.split("\n") == ["- a", "- b: short", "- c: " + "y" * 200]


async def test_a_failed_capture_claims_no_listing(tmp_path: Path) -> None:
    import httpx2

    from skillbench.backends.anthropic.replay import ReplayJudge
    from skillbench.trigger.evalset import EvalQuery
    from skillbench.trigger.run import run_trigger_eval

    script = tmp_path / "claude"
    script.write_text(
        '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.1.197 (Claude Code)"; exit 0; fi\n'
        'echo "no skills here" >&2\nexit 3\n'
    )
    script.chmod(0o755)
    judge = ReplayJudge(
        "claude-haiku-4-5",
        api_key="sk-ant-test-key-0123456789",
        base_url="http://mock.local",
        claude_bin=script,
        template_dir=tmp_path / "templates",
        http_client=httpx2.AsyncClient(
            transport=httpx2.MockTransport(lambda r: httpx2.Response(500))
        ),
        max_retries=0,
    )
    report = await run_trigger_eval(
        "pdf-tools",
        "Merge PDFs.",
        [EvalQuery("merge", True, None, (0,))],
        judge,
        options=TriggerOptions(runs=1),
    )
    await judge.aclose()
    assert report.listing is None  # never "not listed [captured-request]": nothing was captured
    assert report.warnings is not None
    assert any("could not be captured" in w for w in report.warnings)


def test_after_a_bom_claude_code_sees_no_frontmatter(tmp_path: Path) -> None:
    folder = tmp_path / "bom"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"\xef\xbb\xbf---\nname: bom\ndescription: Real one.\n---\n")
    skill, warnings = load_as_claude_code(folder)
    assert skill.description == "Real one."  # skillbench's reading (validate) is unchanged
    assert len(warnings) == 1 and "byte order mark" in warnings[0] and "'---'" in warnings[0]
    (listed,) = cli_skills(SkillEntry(skill.name, skill.description, folder=str(folder)), ())
    assert listed.description == "---"


def test_a_skill_named_like_a_bundled_one_replaces_it_in_the_estimate() -> None:
    others = tuple(SkillEntry(f"s-{i:02d}", "x" * 150) for i in range(20))
    target = SkillEntry("zz", "z" * 700)
    assert estimate(target, others, "claude-haiku-4-5").target == "name-only"
    # the bundled code-review's 361 columns go to the user's skills: the target now fits
    mine = SkillEntry("code-review", "r")
    assert estimate(target, (*others, mine), "claude-haiku-4-5").target == "full"
