"""The Action fails closed (issue 38): its `run:` steps, run as GitHub runs them
(`tests/action_runner.py`), on a pull request adding skill folders with hostile names (one named
like a GitHub output delimiter, `base=evil`, `$(touch …)`, a leading dash, spaces, a newline),
and with a base commit the clone lacks or a ref that names nothing. No network: the remote a
shallow clone fetches its base from is a local bare repository (file://)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from action_runner import ROOT, fake_python, parse_outputs, run_action
from gate_fakes import git, write_skill

from skillbench.reports.ci import file_command_text

QUERIES = [
    {"query": "clean the broken quoting in this csv export", "should_trigger": True},
    {"query": "what is the capital of France", "should_trigger": False},
]
HOSTILE = [
    "SKILLBENCH_EOF",  # the old fixed delimiter: ended the list early
    "base=evil",  # the line after it then set the `base` output
    "$(touch pwned-subst)",
    "`touch pwned-tick`",
    "x; touch pwned-semicolon",
    "-rf",
    "--base=evil",
    "with space",
    "ghadelimiter_0123",
    "quote\"and'apostrophe",
]
GATED = ["$(touch pwned-subst)", "-rf"]  # given an eval set: the gate runs on them


def runner_env(tmp: Path) -> dict[str, str]:
    """A runner's environment: `python` of this checkout first on PATH (pip recorded)."""
    bin_dir = fake_python(tmp / "bin").parent
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG")}
    return {**keep, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT), "GITHUB_ACTIONS": "true",
            "FAKE_PIP_LOG": str(tmp / "pip.log")}  # fmt: skip


def base_commit(repo: Path) -> str:
    git(repo, "init", "-q", "-b", "main")
    write_skill(repo / "untouched", "A skill the pull request leaves alone.", "untouched")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def hostile_repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose pull request adds a skill folder under each hostile name at its top
    (skills-path `.`, where a folder's name is the whole line the old step wrote)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    base = base_commit(repo)
    for name in [*HOSTILE, "plain-skill"]:
        folder = write_skill(repo / name, "Cleans csv exports: broken quoting.", "hostile-skill")
        if name in GATED:
            (folder / "evals").mkdir()
            (folder / "evals" / "trigger.json").write_text(json.dumps(QUERIES))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head: hostile folders")
    return repo, base


def pwned(*folders: Path) -> list[Path]:
    return [p for folder in folders for p in folder.rglob("pwned*")]


def test_hostile_folder_names_are_only_names(
    hostile_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = hostile_repo
    inputs = {"backend": "lexical", "runs": "1"}
    result = run_action(repo, tmp_path, inputs, runner_env(tmp_path), base)
    changed = result.step("changed")
    assert changed is not None and changed.code == 0, changed
    assert changed.outputs["base"] == base  # not `evil`
    assert json.loads(changed.outputs["skills"]) == sorted([*HOSTILE, "plain-skill"])
    assert set(changed.outputs) == {"base", "skills", "count"}
    assert not pwned(repo, tmp_path)  # no name was run as a command
    gate = result.step("gate")
    assert gate is not None and gate.code == 0, gate
    # the two with an eval set were gated, each into a report folder of its own
    reports = Path(result.context["steps.gate.outputs.report-dir"])
    assert sorted(p.name for p in reports.iterdir()) == ["-rf", "__touch_pwned-subst_"]
    for folder in reports.iterdir():
        doc = json.loads((folder / "gate_report.json").read_text(encoding="utf-8"))
        assert doc["verdict"] == "no base"  # new skills
    assert result.context["steps.gate.outputs.verdict"] == "no base"
    assert result.context["steps.gate.outputs.exit-code"] == "0"
    assert "title=skillbench gate::with space has no with space/evals/trigger.json" in gate.stdout
    assert result.steps[-1].code == 0 and not pwned(repo, tmp_path)


def test_a_folder_name_with_a_newline_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    base = base_commit(repo)
    write_skill(repo / "evil\nbase=evil", "Cleans csv exports.", "evil")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head: a newline in a folder name")
    result = run_action(repo, tmp_path, {"backend": "lexical"}, runner_env(tmp_path), base)
    changed = result.step("changed")
    assert changed is not None and changed.code == 2
    assert changed.outputs == {}
    assert "'evil\\nbase=evil' cannot be gated: it holds the character U+000A" in changed.stderr
    assert [s.id for s in result.steps] == ["install", "changed"]  # the job stops there


@pytest.mark.parametrize(
    ("pr_base", "base_input", "said"),
    [
        ("0" * 40, "", "fetching the base '0000000000000000000000000000000000000000' from "
         "'origin' failed: fatal: 'origin' does not appear to be a git repository"),
        ("", "no-such-branch", "fetching the base 'no-such-branch' from 'origin' failed"),
        ("", "--upload-pack=touch pwned-option", "a git ref cannot start with '-'"),
        ("", "", "no default branch found"),  # no pull request, no origin/HEAD, main or master
    ],
)  # fmt: skip
def test_a_base_that_cannot_be_had_fails_the_job_with_one_line(
    pr_base: str, base_input: str, said: str, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    base_commit(repo)
    if not pr_base and not base_input:
        git(repo, "branch", "-m", "main", "feature")
    write_skill(repo / "changed", "Cleans csv exports.", "changed")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    inputs = {"backend": "lexical", "base": base_input}
    result = run_action(repo, tmp_path, inputs, runner_env(tmp_path), pr_base)
    changed = result.step("changed")
    assert changed is not None and changed.code == 2, changed
    assert said in changed.stderr and len(changed.stderr.strip().splitlines()) == 1
    assert changed.outputs == {} and [s.id for s in result.steps] == ["install", "changed"]
    assert not pwned(repo, tmp_path)


def test_a_git_diff_that_fails_fails_the_job(tmp_path: Path) -> None:
    """The base exists but its tree is gone (a corrupt or partial clone): the old step gated
    nothing and exited 0; now the diff's failure stops the job."""
    repo = tmp_path / "repo"
    repo.mkdir()
    base = base_commit(repo)
    write_skill(repo / "changed", "Cleans csv exports.", "changed")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head")
    tree = git(repo, "rev-parse", f"{base}^{{tree}}").strip()
    obj = repo / ".git" / "objects" / tree[:2] / tree[2:]
    obj.chmod(0o644)
    obj.unlink()
    result = run_action(repo, tmp_path, {"backend": "lexical"}, runner_env(tmp_path), base)
    changed = result.step("changed")
    assert changed is not None and changed.code == 2, changed
    assert f"git diff of {base} and HEAD failed" in changed.stderr
    assert [s.id for s in result.steps] == ["install", "changed"]


def test_a_shallow_clone_fetches_the_base_it_lacks(tmp_path: Path) -> None:
    """actions/checkout's default depth 1: the pull request's base is not in the clone; the
    step fetches that one commit from origin (here a local bare repository) and goes on."""
    work = tmp_path / "work"
    work.mkdir()
    base = base_commit(work)
    write_skill(work / "changed", "Cleans csv exports.", "changed")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "head")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(clone))
    missing = subprocess.run(["git", "cat-file", "-e", base], cwd=clone, check=False)
    assert missing.returncode != 0  # not in the clone
    result = run_action(clone, tmp_path, {"backend": "lexical"}, runner_env(tmp_path), base)
    changed = result.step("changed")
    assert changed is not None and changed.code == 0, changed
    assert changed.outputs["base"] == base
    assert json.loads(changed.outputs["skills"]) == ["changed"]


@pytest.mark.parametrize(
    "value",
    ["plain", "", "line one\nline two", "ends with a delimiter\nghadelimiter_x\nbase=evil"],
)
def test_file_command_values_come_back_exactly(value: str, tmp_path: Path) -> None:
    """What `$GITHUB_OUTPUT` gets is read back by the runner's rules as the value given, and
    sets no other name."""
    path = tmp_path / "out.txt"
    path.write_text(file_command_text({"skills": value, "base": "abc"}), encoding="utf-8")
    assert parse_outputs(path) == {"skills": value, "base": "abc"}


def test_file_command_names_are_checked() -> None:
    with pytest.raises(ValueError, match="not an output or variable name"):
        file_command_text({"a\nb": "x"})


@pytest.mark.parametrize(("skills_path", "said"), [("skils", "skils: no such folder in the "
                         "checkout"), ("..", "..: outside the repository")])  # fmt: skip
def test_a_skills_path_that_cannot_hold_the_skills_fails_the_job(
    skills_path: str, said: str, hostile_repo: tuple[Path, str], tmp_path: Path
) -> None:
    """A misspelt `skills-path` used to match no file: nothing gated, the job green."""
    repo, base = hostile_repo
    inputs = {"backend": "lexical", "skills-path": skills_path}
    result = run_action(repo, tmp_path, inputs, runner_env(tmp_path), base)
    changed = result.step("changed")
    assert changed is not None and changed.code == 2 and said in changed.stderr, changed
    assert [s.id for s in result.steps] == ["install", "changed"]
