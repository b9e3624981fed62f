"""Symlinks and big files in behavior runs (issue 27): a session's project receives links as links,
never a link out of the skill folder, and at most `--max-copy` bytes; a snapshot refuses a skill
folder over the limit, before copying anything. Big files are sparse (`truncate`): nothing is
written unless a copy writes it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from skillbench.backends.skill_copy import DEFAULT_MAX_COPY, copy_tree, parse_size
from skillbench.behavior.executors import ClaudeCodeExecutor, RunTask, SkillSource
from skillbench.behavior.workspace import Workspace, init_workspace, snapshot
from skillbench.cli import main
from skillbench.errors import InputError

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"
SKILL_MD = "---\nname: pdf-tools\ndescription: Use when merging PDF files.\n---\n# PDF\n"
GIB = 1 << 30


def make_skill(root: Path) -> Path:
    folder = root / "pdf-tools"
    (folder / "refs").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "refs" / "a.md").write_text("notes\n")
    return folder


def sparse(path: Path, size: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def disk_bytes(folder: Path) -> int:
    """Bytes really allocated under `folder` (links not followed)."""
    total = 0
    for current, _, names in os.walk(folder):
        for name in names:
            total += os.lstat(os.path.join(current, name)).st_blocks * 512
    return total


def task(folder: Path, files: tuple[tuple[str, Path], ...] = ()) -> RunTask:
    source = SkillSource("pdf-tools", folder, SKILL_MD, "# PDF\n", "hash")
    return RunTask("one", "merge", "with_skill", 0, 1, source, files)


def executor(max_copy: int = DEFAULT_MAX_COPY) -> ClaudeCodeExecutor:
    return ClaudeCodeExecutor(claude_bin=FAKE_AGENT, max_copy=max_copy)


def test_links_stay_links_and_none_leads_out(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    (folder / "loop").symlink_to(".")  # a loop: followed, it copies the folder without end
    (folder / "refs" / "back").symlink_to("..")  # another loop, one level down
    (folder / "up").symlink_to("..")  # out of the skill folder
    (folder / "etc").symlink_to("/etc")
    (folder / "abs").symlink_to(folder / "refs" / "a.md")  # absolute, but inside
    project = tmp_path / "project"
    project.mkdir()
    runner = executor()
    runner._prepare(task(folder), project)
    installed = project / ".claude" / "skills" / "pdf-tools"
    assert os.readlink(installed / "loop") == "."
    assert os.readlink(installed / "refs" / "back") == ".."
    # re-aimed relative: an agent writing through it writes the copy, not the original
    assert os.readlink(installed / "abs") == "refs/a.md"
    assert (installed / "abs").read_text() == "notes\n"
    assert not os.path.lexists(installed / "up") and not os.path.lexists(installed / "etc")
    assert any("up: a link leading out" in note for note in runner.notes)
    assert any("etc: a link leading out" in note for note in runner.notes)
    assert (installed / "SKILL.md").read_text() == SKILL_MD
    assert disk_bytes(project) < 1 << 20


def test_a_big_sparse_file_is_left_out_with_a_warning(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    sparse(folder / "data" / "big.bin", GIB)
    (folder / "data" / "small.csv").write_text("a,b\n")
    big_input = sparse(folder / "evals" / "files" / "huge.csv", 2 * GIB)
    small_input = folder / "refs" / "a.md"
    project = tmp_path / "project"
    project.mkdir()
    runner = executor()
    files = (("evals/files/huge.csv", big_input), ("inputs/a.md", small_input))
    runner._prepare(task(folder, files), project)
    installed = project / ".claude" / "skills" / "pdf-tools"
    assert (installed / "data" / "small.csv").is_file()
    assert not (installed / "data" / "big.bin").exists()
    assert not (project / "evals" / "files" / "huge.csv").exists()
    assert (project / "inputs" / "a.md").is_file()
    assert disk_bytes(project) < 1 << 20
    assert any(
        "pdf-tools/data/big.bin (1.0 GiB)" in note and "--max-copy" in note for note in runner.notes
    )
    assert any("input file evals/files/huge.csv (2.0 GiB)" in note for note in runner.notes)


def test_the_limit_is_the_total_and_can_be_raised(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    for index in range(4):
        sparse(folder / "data" / f"part{index}.bin", 300)
    plan = copy_tree(folder, tmp_path / "out", max_bytes=1000)
    assert plan.total <= 1000 and len(plan.skipped) == 1  # 3 x 300 fit, the 4th would not
    assert len(copy_tree(folder, tmp_path / "out2", max_bytes=10_000).skipped) == 0


def test_a_snapshot_over_the_limit_is_refused_before_any_copy(tmp_path: Path) -> None:
    """(Small sizes and limit here: a skill is hashed whole when loaded, and reading a 1 GiB
    sparse file takes seconds.)"""
    folder = make_skill(tmp_path)
    sparse(folder / "data" / "big.bin", 4 << 20)
    space = Workspace.for_skill(folder)
    with pytest.raises(InputError, match=r"big\.bin") as info:
        init_workspace(folder, max_copy=1 << 20)
    assert "--max-copy" in str(info.value) and "4.0 MiB" in str(info.value)
    assert not space.version_dir(0).exists()
    init_workspace(folder, max_copy=8 << 20)  # a raised limit lets it through
    assert (space.version_dir(0) / "data" / "big.bin").stat().st_size == 4 << 20
    sparse(folder / "data" / "bigger.bin", 6 << 20)
    with pytest.raises(InputError, match=r"bigger\.bin"):
        snapshot(folder, max_copy=8 << 20)
    assert not space.version_dir(1).exists()


def test_a_snapshot_keeps_a_link_loop_as_a_link(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    (folder / "loop").symlink_to(".")
    space = init_workspace(folder).workspace
    assert os.readlink(space.version_dir(0) / "loop") == "."


def test_cli_run_and_snapshot_name_the_file_and_take_max_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE_AGENT))
    folder = make_skill(tmp_path)
    cases = [{"id": "one", "prompt": "merge", "expectations": []}]
    cases[0]["expectations"] = [{"criterion": "c", "description": "d", "required": True}]
    (folder / "evals").mkdir()
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": cases}))
    sparse(folder / "data" / "big.bin", DEFAULT_MAX_COPY + 1)
    code = main(["run", str(folder), "--backend", "claude-code", "--runs", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "big.bin" in err and "--max-copy" in err
    assert not Workspace.for_skill(folder).root.exists()
    assert main(["snapshot", str(folder), "--max-copy", "lots"]) == 2
    assert "--max-copy" in capsys.readouterr().err
    shutil.rmtree(folder / "data")
    assert main(["init", str(folder), "--max-copy", "1M"]) == 0


@pytest.mark.parametrize(
    ("text", "size"), [("500M", 500 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29), ("4096", 4096)]
)
def test_sizes_parse(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_the_agent_never_sees_the_expectations_it_is_graded_on(tmp_path: Path) -> None:
    """A with-skill session gets the skill without its `evals/` (the expectations and their
    inputs would tell the agent what the grader looks for); a run made before this rule is not
    reused from the cache (the executor's identity says how it installs)."""
    folder = make_skill(tmp_path)
    (folder / "evals").mkdir()
    (folder / "evals" / "evals.json").write_text('{"evals": [{"expectations": ["secret"]}]}')
    (folder / "refs" / "evals").mkdir()  # only the top-level eval folder is the eval set
    (folder / "refs" / "evals" / "e.md").write_text("kept\n")
    project = tmp_path / "project"
    project.mkdir()
    runner = executor()
    runner._prepare(task(folder), project)
    installed = project / ".claude" / "skills" / "pdf-tools"
    assert not (installed / "evals").exists()
    assert (installed / "refs" / "evals" / "e.md").read_text() == "kept\n"
    assert runner.identity()["skill_install"] == "without-evals"


def test_a_snapshot_holds_the_text_of_a_skill_md_linked_within_the_repository(
    tmp_path: Path,
) -> None:
    """Issue 32 item 7: a SKILL.md shared inside the repository (`SKILL.md ->
    ../shared/x.md`) is snapshotted as its text, not as a link that dangles in `v0/`."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    folder = make_skill(repo / "skills")
    shared = repo / "shared" / "csv-tidy.md"
    shared.parent.mkdir()
    shutil.move(folder / "SKILL.md", shared)
    (folder / "SKILL.md").symlink_to("../../shared/csv-tidy.md")
    space = init_workspace(folder).workspace
    copied = space.version_dir(0) / "SKILL.md"
    assert not copied.is_symlink()
    assert copied.read_bytes() == shared.read_bytes()
