"""A read-only copy of a git repository's working view, for a capture that must see a user's
project as the CLI would (`--project`: Claude Code's `anthropic.project`, the other agents'
`replay.context`).

The repository is only read: every git command runs without optional locks and without the
commands a repository's own config can name (`GIT_SAFE`). The copy is a shallow fetch of HEAD
(`clone_head`) with the uncommitted changes replayed on it (`replay_changes`), so that its work
tree, index and `git status` are the project's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from skillbench.errors import InputError

GIT_TIMEOUT = 60.0
#: How every git command here runs: no optional locks, and none of the commands a repository's
#: own config can name for `status` (`core.fsmonitor`) or `log` (`log.showSignature` runs
#: `gpg.program`) run.
GIT_SAFE = ("--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false")


def git(folder: Path, *args: str, check: bool = True, home: Path | None = None) -> str:
    """Output of a git command in `folder` (no optional locks); with `home`, git sees that HOME
    (no global config), as the capture's CLI does. InputError naming `--project` when it fails
    and `check` is set; "" when it fails otherwise."""
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    if home is not None:
        env["HOME"] = str(home)
        env.pop("XDG_CONFIG_HOME", None)
    done = subprocess.run(
        ["git", *GIT_SAFE, "-C", str(folder), *args],
        capture_output=True,
        text=True,
        timeout=GIT_TIMEOUT,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if check and done.returncode != 0:
        raise InputError(
            f"git {args[0]} failed in the project: {done.stderr.strip()[:200]}",
            path="--project",
        )
    return done.stdout if done.returncode == 0 else ""


def clone_head(
    source: Path, dest: Path, commit: str | None, branch: str | None, depth: int
) -> None:
    """A shallow copy of `source`'s HEAD (`depth` commits) in `dest`, on the same branch
    (detached when HEAD is); an empty repository on its unborn branch when `commit` is None."""
    git(dest, "init", "-q")
    if commit is not None:
        git(dest, "fetch", "-q", "--no-tags", f"--depth={depth}", source.as_uri(), "HEAD")
        if branch and branch != "HEAD":
            git(dest, "checkout", "-q", "-B", branch, "FETCH_HEAD")
        else:
            git(dest, "checkout", "-q", "--detach", "FETCH_HEAD")
    elif branch and branch != "HEAD":
        git(dest, "symbolic-ref", "HEAD", f"refs/heads/{branch}")


def replay_changes(source: Path, dest: Path) -> None:
    """Make `dest`'s index and work tree differ from HEAD as `source`'s do (content copied
    from the project's index and work tree; renames as delete + add)."""
    raw = git(source, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    entries = raw.split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        x, y, rel = entry[0], entry[1], entry[3:]
        if x in "RC":
            old = entries[index]
            index += 1
            if x == "R":
                git(dest, "rm", "-q", "--cached", "--", old, check=False)
                (dest / old).unlink(missing_ok=True)
            x = "A"
        target = dest / rel
        if x == "?":
            _copy_worktree(source / rel, target)
            continue
        if x in "MA":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_index_blob(source, rel))
            git(dest, "add", "-f", "--", rel, check=False)
        elif x == "D":
            git(dest, "rm", "-q", "--cached", "--", rel, check=False)
            target.unlink(missing_ok=True)
        if y == "M":
            _copy_worktree(source / rel, target)
        elif y == "D":
            target.unlink(missing_ok=True)


def exclude_from_status(dest: Path, *patterns: str) -> None:
    """Keep what the capture adds (the installed skills) out of the copy's `git status`."""
    info = dest / ".git" / "info"
    if not info.parent.is_dir():
        return
    info.mkdir(parents=True, exist_ok=True)
    with (info / "exclude").open("a", encoding="utf-8") as out:
        out.writelines(f"{pattern}\n" for pattern in patterns)


def _index_blob(source: Path, rel: str) -> bytes:
    done = subprocess.run(
        ["git", *GIT_SAFE, "-C", str(source), "show", f":{rel}"],
        capture_output=True,
        timeout=GIT_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return done.stdout


def _copy_worktree(src: Path, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    if src.is_symlink():
        out.unlink(missing_ok=True)
        os.symlink(os.readlink(src), out)
    elif src.is_file():
        shutil.copyfile(src, out)
