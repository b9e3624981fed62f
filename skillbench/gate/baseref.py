"""The skill as it is at a git ref, materialised from git into a scratch folder.

The user's working tree is never touched: `git archive` streams the skill's folder at the
commit, and it is unpacked into a `skillbench-gate-base-<pid>-*` scratch folder removed when the
process exits. Members that would land outside the folder (absolute paths, `..`, links leading
out) are left out, as `tarfile`'s data filter refuses them.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from skillbench.backends.scratch import scratch_until_exit
from skillbench.errors import InputError
from skillbench.gitinfo import run_git

#: Branches tried, in order, as the default branch when `origin/HEAD` is not set.
DEFAULT_BRANCHES = ("origin/main", "origin/master", "main", "master")


@dataclass(frozen=True)
class BaseSkill:
    """The base side: the ref asked for, its commit, and the skill's folder at it (None when
    the skill did not exist there: a new skill)."""

    ref: str
    commit: str
    folder: Path | None


def repo_root(path: str | Path) -> Path:
    """The top of the git work tree holding `path` (InputError when there is none)."""
    folder = Path(path)
    top = run_git(folder if folder.is_dir() else folder.parent, "rev-parse", "--show-toplevel")
    if top is None:
        raise InputError("not inside a git repository: the gate needs git history", path=path)
    return Path(top.strip())


def default_branch(root: Path) -> str | None:
    """The repository's default branch: `origin/HEAD`'s target, else the first of
    DEFAULT_BRANCHES that exists."""
    head = run_git(root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if head and head.strip():
        return head.strip().removeprefix("refs/remotes/")
    for name in DEFAULT_BRANCHES:
        if run_git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}") is not None:
            return name
    return None


def default_base(root: Path) -> str:
    """The merge base of HEAD with the default branch (what a pull request is compared with)."""
    branch = default_branch(root)
    if branch is None:
        raise InputError(
            "no default branch found (origin/HEAD, main or master): name the base with --base",
            path="--base",
        )
    base = run_git(root, "merge-base", "HEAD", branch)
    if base is None:
        raise InputError(f"no merge base of HEAD and {branch}: name one with --base", path="--base")
    return base.strip()


def resolve_commit(root: Path, ref: str) -> str:
    """The commit `ref` names (InputError naming --base when it names none)."""
    if ref.startswith("-"):
        raise InputError("a git ref cannot start with '-'", path="--base")
    sha = run_git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if sha is None:
        raise InputError(f"{ref!r} names no commit in {root}", path="--base")
    return sha.strip()


def head_state(root: Path, skill_dir: Path) -> tuple[str | None, bool | None]:
    """(HEAD commit, whether the skill folder differs from it, untracked files included)."""
    commit = run_git(root, "rev-parse", "HEAD")
    status = run_git(skill_dir, "status", "--porcelain", "--", ".")
    return (
        None if commit is None else commit.strip(),
        None if status is None else bool(status.strip()),
    )


def materialise(skill_dir: str | Path, ref: str | None = None) -> BaseSkill:
    """The skill folder `skill_dir` as it is at `ref` (default: the merge base with the default
    branch), unpacked into a scratch folder under the same folder name."""
    folder = Path(skill_dir).resolve()
    root = repo_root(folder)
    name = ref or default_base(root)
    commit = resolve_commit(root, name)
    relative = folder.relative_to(root.resolve()).as_posix()
    listed = run_git(root, "ls-tree", "-d", "--name-only", commit, "--", relative or ".")
    if not listed or not listed.strip():
        return BaseSkill(name, commit, None)
    try:
        done = subprocess.run(
            ["git", "archive", "--format=tar", commit, "--", relative],
            cwd=root,
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"git archive failed: {exc}", path="--base") from exc
    if done.returncode != 0:
        raise InputError(f"git archive of {relative} at {name} failed", path="--base")
    target = scratch_until_exit("gate-base")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        archive.extractall(target, filter=_inside)
    return BaseSkill(name, commit, target / relative)


def _inside(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's data filter, a refused member left out instead of failing the whole base."""
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None
