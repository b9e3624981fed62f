"""`--project DIR`: capture Claude Code's request as it would be inside the user's repository.

Run in a repository, Claude Code 2.1.197 sends what it reads there: the CLAUDE.md files, the
project settings (`.claude/settings*.json`), rules, agents and commands, and a git status block
(current branch, main branch, `git user.name`, `git status --short`, the last 5 commits of
`git log --oneline`). The capture must see the same, but may never write into DIR.

`snapshot` reads DIR (read-only: `git --no-optional-locks`, no lock, no index refresh) into a
`ProjectSnapshot`; `materialise` rebuilds that view in the capture's throwaway project: the files
copied, and for a git repository a shallow fetch of HEAD (5 commits) with the same branch, the
same `origin` main branch, the same user name and abbreviation length, and the uncommitted
changes replayed so that `git status --short` prints what it prints in DIR (`replay.gitcopy`,
shared with the other agents' `--project`). The copy then loses whatever could run a command in
the CLI (`project_config`: settings, `.mcp.json`, agents), and git reads DIR without running any
command its config names (`gitcopy.GIT_SAFE`). The snapshot's `key` (files' content, the git
texts and `COPY_RULES`, never the path) is part of the template key.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from skillbench.backends.anthropic.project_config import (
    sanitise_mcp,
    sanitise_settings,
    strip_agent_commands,
)
from skillbench.backends.replay.gitcopy import (
    clone_head,
    exclude_from_status,
)
from skillbench.backends.replay.gitcopy import git as _git
from skillbench.backends.replay.gitcopy import replay_changes as _replay_changes
from skillbench.errors import InputError

#: What Claude Code reads from the project folder at start (relative paths; folders whole).
PROJECT_FILES = (
    ".mcp.json",
    "CLAUDE.md",
    "CLAUDE.local.md",
    ".claude/CLAUDE.md",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
PROJECT_FOLDERS = (".claude/rules", ".claude/agents", ".claude/commands")
#: The project settings files; copied as `project_config.sanitise_settings` keeps them.
SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json")
MCP_FILE = ".mcp.json"
AGENTS_FOLDER = ".claude/agents"
LOG_COMMITS = 5
#: The rules by which the copy is made, part of `ProjectSnapshot.key` (a template captured under
#: other rules is captured again): 2, nothing that can run is copied (`project_config`); before,
#: only `hooks` and the CLI's command settings were left out.
COPY_RULES = 2


class ProjectSnapshot(BaseModel):
    """What the CLI would read from a project folder (no file content: hashes only)."""

    path: str = Field(description="the project folder, as resolved")
    files: dict[str, str] = Field(default_factory=dict, description="relative path -> sha256")
    skills: dict[str, str] = Field(
        default_factory=dict,
        description="the project's own skills: `.claude/skills/<folder>` -> sha256 of its "
        "SKILL.md (the CLI lists them beside the skills under test)",
    )
    git: bool = False
    commit: str | None = None
    branch: str | None = None
    main_branch: str | None = None
    user_name: str = ""
    abbrev: int | None = None
    status: str = ""
    log: str = ""

    def key(self) -> str:
        """SHA-256 of everything that reaches the request (the path excluded) and the rules
        of the copy (`COPY_RULES`)."""
        fields = {**self.model_dump(exclude={"path"}), "copy_rules": COPY_RULES}
        blob = json.dumps(fields, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def label(self) -> str:
        """`DIR @ <commit>` (with `+ uncommitted changes`), or `DIR (not a git repository)`."""
        if not self.git:
            return f"{self.path} (not a git repository)"
        dirty = " + uncommitted changes" if self.status else ""
        return f"{self.path} @ {self.commit or 'no commit'}{dirty}"


def _files(root: Path) -> list[str]:
    """The relative paths of the files the CLI reads from `root`."""
    found = [rel for rel in PROJECT_FILES if (root / rel).is_file()]
    for rel in PROJECT_FOLDERS:
        folder = root / rel
        if folder.is_dir():
            found += sorted(
                p.relative_to(root).as_posix() for p in folder.rglob("*") if p.is_file()
            )
    return found


def _skills(root: Path) -> dict[str, str]:
    """The project's own skills as the CLI finds them: each `.claude/skills/<folder>/SKILL.md`
    (its listing depends on the folder name and that file only) -> the file's sha256."""
    folder = root / ".claude" / "skills"
    if not folder.is_dir():
        return {}
    return {
        child.name: hashlib.sha256((child / "SKILL.md").read_bytes()).hexdigest()
        for child in sorted(folder.iterdir())
        if (child / "SKILL.md").is_file()
    }


def _main_branch(root: Path) -> str | None:
    """Claude Code's main branch: origin/HEAD's target if that ref exists, else origin/main or
    origin/master; None when it falls back to "main" without any origin ref."""
    target = _git(root, "symbolic-ref", "-q", "refs/remotes/origin/HEAD", check=False).strip()
    candidates = []
    if target.startswith("refs/remotes/origin/"):
        candidates.append(target.removeprefix("refs/remotes/origin/"))
    candidates += ["main", "master"]
    for name in candidates:
        if _git(root, "rev-parse", "-q", "--verify", f"refs/remotes/origin/{name}", check=False):
            return name
    return None


def snapshot(folder: str | os.PathLike[str]) -> ProjectSnapshot:
    """Read the project folder (read-only); InputError naming `--project` when it is missing."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise InputError("project folder not found", path="--project")
    root = root.resolve()
    files = {rel: hashlib.sha256((root / rel).read_bytes()).hexdigest() for rel in _files(root)}
    check_agents(root)
    skills = _skills(root)
    inside = _git(root, "rev-parse", "--show-toplevel", check=False).strip()
    if not inside:
        return ProjectSnapshot(path=str(root), files=files, skills=skills)
    if Path(inside).resolve() != root:
        raise InputError(
            f"give the repository's top folder ({inside}), not a folder inside it",
            path="--project",
        )
    commit = _git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).strip() or None
    branch = _git(root, "rev-parse", "--abbrev-ref", "HEAD", check=False).strip() or None
    short = _git(root, "rev-parse", "--short", "HEAD", check=False).strip()
    return ProjectSnapshot(
        path=str(root),
        files=files,
        skills=skills,
        git=True,
        commit=commit,
        branch=branch,
        main_branch=_main_branch(root),
        user_name=_git(root, "config", "user.name", check=False).strip(),
        abbrev=len(short) or None,
        status=_git(root, "status", "--short").rstrip("\n"),
        log=_git(root, "log", "--oneline", "-n", str(LOG_COMMITS), check=False).strip()
        if commit
        else "",
    )


def materialise(project: ProjectSnapshot, dest: Path) -> list[str]:
    """Rebuild the project's view in the empty folder `dest` (never writing into the project);
    returns what could not be reproduced (empty when `git status` and `git log` match)."""
    source = Path(project.path)
    dest.mkdir(parents=True, exist_ok=True)
    if project.git:
        _clone(project, source, dest)
    for rel in project.files:
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.is_symlink():  # checked out as a symlink: never written through
            out.unlink()
        shutil.copyfile(source / rel, out)
    if not project.git:
        _copy_skills(project, source, dest)
        return _sanitise(project, dest)
    if project.commit is not None:
        _replay_changes(source, dest)
    exclude_from_status(dest, "/.claude/skills/")
    for rel in project.files:  # copied but ignored in the project (e.g. by its own info/exclude)
        tracked = _git(dest, "ls-files", "--", rel, check=False).strip()
        if not tracked and f"?? {rel}" not in project.status.splitlines():
            exclude_from_status(dest, "/" + rel)
    _copy_skills(project, source, dest)
    differs = _sanitise(project, dest)
    with tempfile.TemporaryDirectory(prefix="skillbench-git-home-") as home:
        status = _git(dest, "status", "--short", check=False, home=Path(home))
        log = _git(dest, "log", "--oneline", "-n", str(LOG_COMMITS), check=False, home=Path(home))
    if status.rstrip("\n") != project.status:
        differs.append("git status")
    if log.strip() != project.log:
        differs.append("git log")
    return differs


def _copy_skills(project: ProjectSnapshot, source: Path, dest: Path) -> None:
    """The project's own skills the copy lacks (not a git repository, or ignored by git):
    their SKILL.md copied, which is all the listing reads."""
    for name in project.skills:
        out = dest / ".claude" / "skills" / name / "SKILL.md"
        if not out.is_file():
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / ".claude" / "skills" / name / "SKILL.md", out)


def replace_project_skills(dest: Path, names: list[str]) -> list[str]:
    """Remove the copy's own `.claude/skills/<name>` for each name about to be installed (the
    skill under test and the catalog win a folder-name clash); returns the names removed."""
    removed = []
    for name in names:
        folder = dest / ".claude" / "skills" / name
        if folder.is_symlink() or folder.is_file():
            folder.unlink()
            removed.append(name)
        elif folder.is_dir():
            shutil.rmtree(folder)
            removed.append(name)
    return removed


def _sanitise(project: ProjectSnapshot, dest: Path) -> list[str]:
    """Cut from the copy whatever would run a command in the CLI (`project_config`): its
    settings files, `.mcp.json` and agent files as they are in `dest` (copied or checked out).
    A tracked file the project has unchanged stays out of the copy's `git status`. Returns one
    note per thing left out."""
    notes: list[str] = []
    for rel in sanitised_files(dest):
        file = dest / rel
        text = file.read_text(encoding="utf-8", errors="replace")
        if rel == MCP_FILE:
            kept, removed = sanitise_mcp(text)
        elif rel in SETTINGS_FILES:
            try:
                data: object = json.loads(text)
            except ValueError:
                data = None
            settings, removed = sanitise_settings(data, rel)
            kept = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
        else:
            kept, removed = strip_agent_commands(text, rel)
        if not removed:
            continue
        notes += removed
        file.unlink()  # a symlink is replaced, never written through
        file.write_text(kept, encoding="utf-8")
        clean = not any(line[3:] == rel for line in project.status.splitlines())
        if project.git and clean:
            _git(dest, "update-index", "--assume-unchanged", "--", rel, check=False)
    return notes


def sanitised_files(root: Path) -> list[str]:
    """The files of `root` the CLI could run commands from: the settings files, `.mcp.json`
    and every agent file (relative paths)."""
    found = [rel for rel in (*SETTINGS_FILES, MCP_FILE) if (root / rel).is_file()]
    agents = root / AGENTS_FOLDER
    if agents.is_dir():
        found += sorted(p.relative_to(root).as_posix() for p in agents.rglob("*.md") if p.is_file())
    return found


def check_agents(root: Path) -> None:
    """InputError (naming the file and the key) for an agent file whose commands cannot be
    cut from the copy: checked when the project is read, before any capture."""
    agents = root / AGENTS_FOLDER
    if not agents.is_dir():
        return
    for file in sorted(agents.rglob("*.md")):
        if file.is_file():
            rel = file.relative_to(root).as_posix()
            strip_agent_commands(file.read_text(encoding="utf-8", errors="replace"), rel)


def _clone(project: ProjectSnapshot, source: Path, dest: Path) -> None:
    """A shallow copy of HEAD in `dest`: same branch, main-branch ref, user and abbreviation."""
    clone_head(source, dest, project.commit, project.branch, LOG_COMMITS)
    if project.commit is not None and project.main_branch:
        _git(dest, "update-ref", f"refs/remotes/origin/{project.main_branch}", "HEAD")
    if project.user_name:
        _git(dest, "config", "user.name", project.user_name)
    if project.abbrev:
        _git(dest, "config", "core.abbrev", str(project.abbrev))
