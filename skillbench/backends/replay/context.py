"""`--project DIR` and `--as-user [HOME]` for the agents other than Claude Code (opencode, Gemini
CLI, Codex CLI): what of the user's project and HOME reaches a capture, read-only.

Each agent says what its CLI reads at start (`Agent` class attributes, measured per CLI in
`docs/agents.md`): the project's instruction files, skill folders and configuration files, the
code folders it loads, and in HOME its user-level instruction files and skill folders.

- `read_project` takes a `ProjectView` of DIR (content hashes, git facts; nothing written):
  the files the CLI reads, HEAD, branch and `git status`. `lay_project` rebuilds it in the
  capture's throwaway project: for a git repository a shallow copy of HEAD with the uncommitted
  changes replayed (`gitcopy`: the whole tree, as Gemini lists it), then the files the CLI reads
  copied over (ignored ones too). What could run a command is **stripped** from the copy, never
  refused: configuration files keep only the keys the agent's `sanitise_config` allows (MCP
  servers, hooks, plugins, shells, providers left out) and code folders are removed. Each thing
  left out is one note in the template's `project_differs`.
- `read_user` takes a `UserView` of HOME: the user-level instruction files and each user skill's
  SKILL.md (what the listing reads), by `Agent.user_files`. `lay_user` copies exactly those into
  the isolated HOME; nothing else is ever copied (no configuration, no credential), and HOME is
  only read. What changes the request in HOME but is not copied is listed (`left_out`).

A skill of the project or HOME with the name of a skill under test is removed from the copy
(`replace_clashes`): the one under test wins. A secret still in a copied file is redacted before
the capture's folder gets it (noted). Every file is read bounded and without blocking. Both views' `key()` (content hashes and
`COPY_RULES`, never a path) join the template key; without the options the key is as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field

from skillbench.backends.replay.gitcopy import clone_head, exclude_from_status, git, replay_changes
from skillbench.errors import BackendError, InputError

#: The rules by which the copies are made (part of both keys: a template made under other
#: rules is captured again).
COPY_RULES = 1
SKILL_FILE = "SKILL.md"


class Agent(Protocol):
    """What the views ask of an agent (`replay.agent.Agent`'s class attributes and hooks)."""

    @property
    def name(self) -> str: ...
    @property
    def skills_dir(self) -> str: ...
    @property
    def project_instructions(self) -> tuple[str, ...]: ...
    @property
    def project_skill_dirs(self) -> tuple[str, ...]: ...
    @property
    def config_files(self) -> tuple[str, ...]: ...
    @property
    def code_paths(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def user_skill_dirs(self) -> tuple[str, ...]: ...
    @property
    def user_left_out(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def reads_above(self) -> bool: ...
    @property
    def lists_tree(self) -> bool: ...

    def project_instruction_names(self, root: Path) -> list[str]: ...
    def project_files(self, root: Path) -> list[str]: ...
    def sanitise_config(self, rel: str, text: str) -> tuple[str | None, list[str]]: ...
    def user_files(self, home: Path) -> list[tuple[Path, str]]: ...


class ProjectView(BaseModel):
    """What an agent's CLI reads from a project folder, as hashes (no content), and its git
    facts."""

    agent: str
    path: str = Field(description="the project folder, as resolved (never in the key)")
    files: dict[str, str] = Field(
        default_factory=dict,
        description="what the CLI reads at start (instruction files, the SKILL.md of each "
        "project skill, configuration files): relative path -> sha256",
    )
    git: bool = False
    commit: str | None = None
    branch: str | None = None
    status: str = Field(default="", description="`git status --porcelain`, every untracked file")
    above: list[str] = Field(
        default_factory=list,
        description="files the CLI would read above a project outside git (not reproduced)",
    )

    def key(self) -> str:
        """SHA-256 of everything but the path, and `COPY_RULES`."""
        return _digest({**self.model_dump(exclude={"path"}), "copy_rules": COPY_RULES})

    def instructions(self, agent: Agent) -> list[str]:
        """The instruction files found (relative paths)."""
        return [
            rel for rel in self.files if rel in agent.project_instruction_names(Path(self.path))
        ]

    def skills(self) -> list[str]:
        """The project's own skills (`<skills folder>/<name>`)."""
        return [rel.rsplit("/", 1)[0] for rel in self.files if rel.endswith("/" + SKILL_FILE)]

    def label(self, agent: Agent) -> str:
        """`DIR @ <commit>` (or `(not a git repository)`), with the instruction files and
        skills it brings."""
        if not self.git:
            where = f"{self.path} (not a git repository)"
        else:
            dirty = " + uncommitted changes" if self.status else ""
            where = f"{self.path} @ {self.commit or 'no commit'}{dirty}"
        read = ", ".join(self.instructions(agent)) or "none"
        skills = ", ".join(self.skills()) or "none"
        return f"{where}; instruction files found: {read}; its own skills: {skills}"


class UserView(BaseModel):
    """What of a HOME an agent's capture takes (hashes only) and what it leaves out."""

    agent: str
    home: str = Field(description="the HOME read, as resolved (never in the key)")
    files: dict[str, str] = Field(
        default_factory=dict,
        description="copied into the isolated HOME: path there -> sha256 (instruction files, "
        "each user skill's SKILL.md)",
    )
    sources: dict[str, str] = Field(
        default_factory=dict, description="path in the isolated HOME -> the file read"
    )
    left_out: list[str] = Field(
        default_factory=list,
        description="what in HOME changes the request but is never copied, and why",
    )

    def key(self) -> str:
        """SHA-256 of the files taken and `COPY_RULES` (neither HOME's path nor the notes)."""
        return _digest({"agent": self.agent, "files": self.files, "copy_rules": COPY_RULES})

    def label(self) -> str:
        """`HOME: took …; left out …` for the report (`lines`, in one)."""
        took = ", ".join(f"~/{rel}" for rel in self.files) or "nothing"
        text = f"{self.home}: took {took}"
        if self.left_out:
            text += f"; left out: {'; '.join(self.left_out)}"
        return text

    def lines(self) -> list[str]:
        """Every file taken and every thing left out, one line each."""
        taken = [f"taken: ~/{rel}" for rel in self.files]
        return taken + [f"left out: {note}" for note in self.left_out]


def _digest(fields: object) -> str:
    blob = json.dumps(fields, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


#: The most one copied file may hold (an instruction file or a SKILL.md, not a data set).
MAX_FILE_BYTES = 4 * 1024 * 1024


def _read(path: Path) -> bytes:
    """A regular file's bytes, bounded (a FIFO cannot hang the read); InputError naming it."""
    from skillbench.io import read_input_bytes

    return read_input_bytes(path, limit=MAX_FILE_BYTES)


def _sha(path: Path) -> str:
    return hashlib.sha256(_read(path)).hexdigest()


def skill_files(root: Path, folders: Iterable[str], *, skip: Sequence[str] = ()) -> list[str]:
    """`<folder>/<skill>/SKILL.md` (relative to `root`) of every skill in `folders` of `root`,
    in folder order then by name (a folder named in `skip` left out)."""
    found: list[str] = []
    for folder in folders:
        base = root / folder
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir(), key=lambda p: p.name):
            if child.name not in skip and (child / SKILL_FILE).is_file():
                found.append(f"{folder}/{child.name}/{SKILL_FILE}")
    return found


# -- the project ---------------------------------------------------------------------------------


def read_project(folder: str | os.PathLike[str], agent: Agent) -> ProjectView:
    """A view of `folder` for `agent` (read-only). InputError naming `--project` when it is
    missing or is a folder inside a git repository rather than its top."""
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise InputError(f"project folder not found: {folder}", path="--project")
    root = root.resolve()
    files = {rel: _sha(root / rel) for rel in agent.project_files(root)}
    inside = git(root, "rev-parse", "--show-toplevel", check=False).strip()
    if not inside:
        return ProjectView(agent=agent.name, path=str(root), files=files, above=_above(root, agent))
    if Path(inside).resolve() != root:
        raise InputError(
            f"give the repository's top folder ({inside}), not a folder inside it",
            path="--project",
        )
    commit = git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).strip() or None
    branch = git(root, "rev-parse", "--abbrev-ref", "HEAD", check=False).strip() or None
    status = git(root, "status", "--porcelain=v1", "--untracked-files=all")
    return ProjectView(
        agent=agent.name,
        path=str(root),
        files=files,
        git=True,
        commit=commit,
        branch=branch,
        status=status.rstrip("\n"),
    )


def _above(root: Path, agent: Agent) -> list[str]:
    """Files the CLI reads above a project outside git (`Agent.reads_above`): each parent's
    instruction and configuration files."""
    if not agent.reads_above:
        return []
    found: list[str] = []
    for parent in root.parents:
        for rel in (*agent.project_instructions, *agent.config_files):
            if (parent / rel).is_file():
                found.append(str(parent / rel))
    return found


def lay_project(agent: Agent, view: ProjectView, dest: Path) -> list[str]:
    """Rebuild `view` in the empty folder `dest` (never writing into the project); returns
    what the copy leaves out or could not reproduce."""
    source = Path(view.path)
    dest.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    if view.git:
        clone_head(source, dest, view.commit, view.branch, depth=1)
        if view.commit is not None:
            replay_changes(source, dest)
        exclude_from_status(dest, f"/{agent.skills_dir}/")
    redacted: list[str] = []
    for rel, digest in view.files.items():
        said = _copy_checked(source / rel, dest, rel, digest)
        notes += said
        redacted += [rel] if said else []
    if view.git:
        listed = {line[3:] for line in view.status.splitlines()}
        for rel in view.files:  # copied but ignored in the project
            tracked = git(dest, "ls-files", "--", rel, check=False).strip()
            if rel not in listed and not tracked:
                exclude_from_status(dest, "/" + rel)
            elif tracked and rel in redacted and rel not in listed:
                git(dest, "update-index", "--assume-unchanged", "--", rel, check=False)
    notes += _strip(agent, view, dest)
    notes += [
        f"{path}: read by the CLI above a folder outside git, not reproduced" for path in view.above
    ]
    if not view.git and agent.lists_tree:
        notes.append(
            "directory tree: only the files the CLI reads were copied (not a git repository)"
        )
    if view.git:
        status = git(dest, "status", "--porcelain=v1", "--untracked-files=all", check=False)
        if status.rstrip("\n") != view.status:
            notes.append("git status")
    return notes


def _strip(agent: Agent, view: ProjectView, dest: Path) -> list[str]:
    """Cut what could run a command from the copy: configuration files as the agent's
    `sanitise_config` keeps them, code folders removed. A tracked file the project has
    unchanged stays out of the copy's `git status`."""
    notes: list[str] = []
    changed = {line[3:] for line in view.status.splitlines()}
    touched: list[str] = []
    for rel in agent.config_files:
        file = dest / rel
        if not file.is_file():
            continue
        text = _read(file).decode("utf-8", errors="replace")
        kept, removed = agent.sanitise_config(rel, text)
        if kept == text and not removed:
            continue
        notes += removed
        file.unlink()  # a symlink is replaced, never written through
        if kept is not None:
            file.write_text(kept, encoding="utf-8")
        touched.append(rel)
    for rel, why in agent.code_paths:
        path = dest / rel
        if not (path.exists() or path.is_symlink()):
            continue
        if view.git:
            touched += git(dest, "ls-files", "--", rel, check=False).splitlines()
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        notes.append(f"{rel}: left out ({why})")
    if view.git:
        for rel in touched:
            if rel not in changed:
                git(dest, "update-index", "--assume-unchanged", "--", rel, check=False)
    return notes


# -- the user's HOME -----------------------------------------------------------------------------


def read_user(home: str | os.PathLike[str], agent: Agent) -> UserView:
    """A view of `home` for `agent` (read-only). InputError naming `--as-user` when it is not a
    folder."""
    root = Path(home).expanduser()
    if not root.is_dir():
        raise InputError(f"HOME folder not found: {home}", path="--as-user")
    root = root.resolve()
    pairs = agent.user_files(root)
    files = {dest: _sha(source) for source, dest in pairs}
    sources = {dest: str(source) for source, dest in pairs}
    left_out = [f"~/{rel} ({why})" for rel, why in agent.user_left_out if (root / rel).exists()]
    return UserView(
        agent=agent.name, home=str(root), files=files, sources=sources, left_out=left_out
    )


def lay_user(view: UserView, dest: Path) -> list[str]:
    """Copy the view's files into the isolated HOME `dest` (nothing written in the user's);
    notes a secret redacted (what was left out is the view's own)."""
    dest.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    for rel, digest in view.files.items():
        notes += [f"~/{note}" for note in _copy_checked(Path(view.sources[rel]), dest, rel, digest)]
    return notes


# -- both ----------------------------------------------------------------------------------------


def replace_clashes(
    agent: Agent, project: Path, home: Path | None, names: Sequence[str]
) -> list[str]:
    """Remove from the copies every skill named like one under test (folder or frontmatter
    name), in the agent's project skill folders and, with `home`, its user skill folders (not
    the folder the skills under test are installed in: they are written after). Returns one note
    per skill removed."""
    from skillbench.skill import cli_frontmatter

    wanted = set(names)
    notes: list[str] = []
    places = [(project, folder, "the project's") for folder in agent.project_skill_dirs]
    if home is not None:
        places += [(home, folder, "the user's") for folder in agent.user_skill_dirs]
    for root, folder, whose in places:
        base = root / folder
        if not base.is_dir() or base.is_symlink():
            continue
        for child in sorted(base.iterdir(), key=lambda p: p.name):
            skill = child / SKILL_FILE
            named = child.name in wanted
            if not named and skill.is_file():
                try:
                    text = _read(skill).decode("utf-8", errors="replace")
                except InputError:
                    text = ""
                mapping, _, _ = cli_frontmatter(text)
                named = str(mapping.get("name") or "") in wanted
            if not named:
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
            shown = folder if root == project else f"~/{folder}"
            notes.append(f"{shown}/{child.name}: {whose} own replaced by the one under test")
    return notes


def _copy_checked(source: Path, dest_root: Path, rel: str, digest: str) -> list[str]:
    """Copy `source` to `dest_root/rel` as a plain file (a symlink on the way replaced by a
    folder, never written through), a secret in it redacted as in every file skillbench writes
    (noted); BackendError when its content changed since it was read (the template key would
    not be its)."""
    from skillbench.redaction import redact_bytes

    data = _read(source)
    if hashlib.sha256(data).hexdigest() != digest:
        raise BackendError(f"{source} changed while the capture was prepared; run again")
    clean = redact_bytes(data)
    notes = [] if clean == data else [f"{rel}: a secret in it redacted"]
    out = dest_root
    for part in Path(rel).parts[:-1]:
        out = out / part
        if out.is_symlink() or (out.exists() and not out.is_dir()):
            out.unlink()
        out.mkdir(exist_ok=True)
    out = out / Path(rel).name
    if out.is_symlink() or out.exists():
        out.unlink()
    if clean is None:  # not text, and holds a secret: left out
        return [f"{rel}: left out (holds a secret)"]
    out.write_bytes(clean)
    return notes
