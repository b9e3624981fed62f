"""What a pull request asks the gate to check: its base commit (fetched when the clone lacks it)
and the skill folders whose SKILL.md it changes. Fails closed: a base that cannot be found or
fetched, a `git diff` that fails, or a folder name no CI output can carry safely is an
InputError naming it, never an empty list that gates nothing.
"""

from __future__ import annotations

import posixpath
import subprocess
import unicodedata
from pathlib import Path

from skillbench.errors import InputError
from skillbench.gate.baseref import default_base, repo_root, resolve_commit
from skillbench.gitinfo import run_git

SKILL_FILE = "SKILL.md"
FETCH_TIMEOUT = 300.0
"""Seconds for fetching the base from the remote."""


def _git(root: Path, *args: str, what: str, timeout: float = 60) -> str:
    """Stdout of `git ARGS`; InputError saying `what` failed, with git's own message."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"{what} failed: {exc}", path="base") from None
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[:500] or f"exit code {done.returncode}"
        raise InputError(f"{what} failed: {said}", path="base")
    return done.stdout


def fetch_base(root: Path, ref: str, remote: str = "origin") -> str:
    """The commit `ref` names, fetched from `remote` when the clone lacks it (a shallow clone
    fetches that one commit, depth 1); InputError naming the ref when it cannot be had."""
    if ref.startswith("-"):
        raise InputError("a git ref cannot start with '-'", path="base")
    try:
        return resolve_commit(root, ref)
    except InputError:
        pass
    shallow = (run_git(root, "rev-parse", "--is-shallow-repository") or "").strip() == "true"
    depth = ["--depth=1"] if shallow else []
    _git(root, "fetch", "--no-tags", "--quiet", *depth, remote, ref,
         what=f"fetching the base {ref!r} from {remote!r}", timeout=FETCH_TIMEOUT)  # fmt: skip
    try:
        return resolve_commit(root, ref)
    except InputError:
        return resolve_commit(root, "FETCH_HEAD")


def choose_base(root: Path, asked: str | None, pull_request_base: str | None) -> str:
    """The base commit: the ref asked for, else the pull request's base commit, else the merge
    base of HEAD with the default branch."""
    ref = asked or pull_request_base
    if ref:
        return fetch_base(root, ref)
    return default_base(root)


def unsafe_name(path: str) -> str | None:
    """Why `path` cannot be passed on as a skill folder (a control character, which no line
    of a CI file or log can hold as it is), or None."""
    for char in path:
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            return f"it holds the character U+{ord(char):04X}"
    return None


def changed_skills(root: Path, base: str, skills_path: str = ".") -> list[str]:
    """The folders (relative to `root`, sorted) under `skills_path` whose SKILL.md differs
    between `base` and HEAD, deleted ones included (the gate skips a skill it cannot find).
    InputError when the diff fails or a folder's name is unsafe."""
    out = _git(root, "--literal-pathspecs", "diff", "--name-only", "-z", "--no-renames", base, "HEAD", "--",
               skills_path, what=f"git diff of {base} and HEAD")  # fmt: skip
    folders = set()
    for path in filter(None, out.split("\0")):
        if posixpath.basename(path) != SKILL_FILE:
            continue
        folder = posixpath.dirname(path) or "."
        why = unsafe_name(folder)
        if why is not None:
            raise InputError(
                f"the changed skill folder {folder!r} cannot be gated: {why}", path=skills_path
            )
        folders.add(folder)
    return sorted(folders)


def gate_targets(
    cwd: str | Path, skills_path: str, asked: str | None, pull_request_base: str | None
) -> tuple[str, list[str]]:
    """(the base commit, the changed skill folders relative to the repository's top)."""
    root = repo_root(cwd)
    scope = (Path(cwd).resolve() / skills_path).resolve()
    if not scope.is_dir():  # a misspelt path would otherwise gate nothing and pass
        raise InputError("no such folder in the checkout", path=skills_path)
    base = choose_base(root, asked, pull_request_base)
    try:
        relative = scope.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        raise InputError(f"outside the repository {root}", path=skills_path) from None
    return base, changed_skills(root, base, relative)
