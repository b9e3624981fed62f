"""What the replay harness keys its templates and its answers on (review of the merged replay
code): install precedence of same-named folders, the project's content, the template format."""

from __future__ import annotations

import subprocess
from pathlib import Path

from skillbench.backends.anthropic.capture import TEMPLATE_FORMAT, template_key
from skillbench.backends.anthropic.replay import ReplayJudge
from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.cache import cache_key
from skillbench.backends.replay.store import TemplateStore
from skillbench.backends.replay.template import ReplayTemplate

MODEL = "claude-haiku-4-5"
VERSION = "2.1.197"


def named_pdf(root: Path, library: str, description: str) -> SkillEntry:
    folder = root / library / "pdf"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: pdf\ndescription: {description}\n---\n# x\n")
    return SkillEntry("pdf", description, "# x\n", folder=str(folder))


def test_which_same_named_folder_is_installed_is_part_of_the_key(tmp_path: Path) -> None:
    merge = named_pdf(tmp_path, "libA", "Use when merging PDF files.")
    sheets = named_pdf(tmp_path, "libB", "Use for spreadsheets and CSV exports.")
    target = SkillEntry("target", "Use when rotating images.", "# t\n")
    # the first `pdf` of the catalog is installed, the second skipped: a different listing
    assert template_key(target, (merge, sheets), MODEL, VERSION, {}) != template_key(
        target, (sheets, merge), MODEL, VERSION, {}
    )
    # the target wins a clash with the catalog
    a = SkillEntry("pdf", "Use when merging PDF files.", "# x\n", folder=merge.folder)
    b = SkillEntry("pdf", "Use for spreadsheets.", "# x\n", folder=merge.folder)
    assert template_key(a, (b,), MODEL, VERSION, {}) != template_key(b, (a,), MODEL, VERSION, {})
    # the catalog's order among different names does not change what is installed
    other = SkillEntry("other", "Use for invoices.", "# o\n")
    assert template_key(target, (merge, other), MODEL, VERSION, {}) == template_key(
        target, (other, merge), MODEL, VERSION, {}
    )


def test_templates_of_either_format_2_are_not_loaded(tmp_path: Path) -> None:
    assert TEMPLATE_FORMAT == 3
    store = TemplateStore(tmp_path)
    old = ReplayTemplate(
        format=2,
        key="k",
        model=MODEL,
        cli_version=VERSION,
        path="/v1/messages",
        headers={},
        body={},
    )
    store.path("k").parent.mkdir(parents=True, exist_ok=True)
    store.path("k").write_text(old.model_dump_json())
    assert store.load("k") is None


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def test_replayed_answers_are_keyed_on_the_projects_content_not_its_label(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.name", "A")
    git(repo, "config", "user.email", "a@b")
    (repo / "CLAUDE.md").write_text("Always use the pdf-tools skill for documents.\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    cli = tmp_path / "claude"
    cli.write_text('#!/bin/sh\necho "2.1.197 (Claude Code)"\n')
    cli.chmod(0o755)

    def judge() -> ReplayJudge:
        return ReplayJudge(
            MODEL,
            api_key="sk-ant-test-0123456789",
            claude_bin=cli,
            template_dir=tmp_path / "t",
            project=repo,
        )

    (repo / "CLAUDE.md").write_text("Never use any skill.\n")  # dirty
    first = judge()
    (repo / "CLAUDE.md").write_text("Always answer in French and never call a tool.\n")
    second = judge()
    assert first.project is not None and second.project is not None
    assert first.project.label() == second.project.label()  # same commit, both dirty
    request = TriggerRequest(SkillEntry("pdf-tools", "Use for PDFs.", "# x\n"), (), "merge", 0)
    assert cache_key(first.identity(), request.cache_fields()) != cache_key(
        second.identity(), request.cache_fields()
    )


def test_a_project_run_never_looks_up_the_template_captured_without_it(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "CLAUDE.md").write_text("Never use any skill.\n")
    cli = tmp_path / "claude"
    cli.write_text('#!/bin/sh\necho "2.1.197 (Claude Code)"\n')
    cli.chmod(0o755)
    target = SkillEntry("pdf-tools", "Use for PDFs.", "# x\n")
    judge = ReplayJudge(
        MODEL, api_key="sk-ant-test-0123456789", claude_bin=cli, template_dir=tmp_path / "t"
    )
    plain = ReplayTemplate(
        key=template_key(target, (), MODEL, VERSION, judge.settings),
        model=MODEL,
        cli_version=VERSION,
        path="/v1/messages",
        headers={},
        body={},
    )
    judge.store.save(plain)
    assert judge.known_template(target, ()) is not None
    in_project = ReplayJudge(
        MODEL,
        api_key="sk-ant-test-0123456789",
        claude_bin=cli,
        template_dir=tmp_path / "t",
        project=repo,
    )
    assert in_project.known_template(target, ()) is None
