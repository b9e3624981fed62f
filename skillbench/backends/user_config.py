"""`--as-user`: the user's own agent configuration, read-only, copied into a capture's HOME.

A capture runs the agent's CLI with an isolated HOME, so by default it sees none of what the
user configured. With `--as-user [HOME]` the capture's HOME is seeded with what of the user's
configuration changes the agent's first request, taken by a per-agent declaration
(`AgentConfig`: one `Take` per kind of thing, each a reader; `Leave` for what is declared left
out and why). The Claude Code declaration is `backends/anthropic/as_user.py`; another agent
declares its own the same way.

Reading is read-only: files are opened for reading only (`io.read_input_bytes`: regular files,
bounded), nothing is created, locked or rewritten under the user's HOME. What was read is kept in
memory as the exact bytes the isolated HOME gets, so the seed is what was hashed; a secret still
in a taken file (a key pasted into CLAUDE.md) is redacted first, as in every file skillbench
writes. A path the
seed must hold where the isolated HOME is (a plugin's install path) is written with `HOME_MARK`,
replaced by the isolated HOME when seeded (`UserConfig.seed`).

`UserConfig` is the record: each file taken (kind, where it came from, where it goes, the
SHA-256 of what was written), each thing left out with why. Its `key()` (what reaches the
isolated HOME and `COPY_RULES`, never the user's path) is part of the capture's template key,
so a changed configuration means a new capture; reports print its `lines()`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field, PrivateAttr

from skillbench.errors import BackendError, InputError
from skillbench.schemas.common import Doc

#: The rules by which the copy is made, part of `UserConfig.key` (bump when they change).
COPY_RULES = 1
#: Stands for the isolated HOME in a seeded file (replaced, JSON-escaped, by `seed`).
HOME_MARK = "@@SKILLBENCH_ISOLATED_HOME@@"
#: The most a single taken file may hold (a configuration file, not a data set).
MAX_FILE_BYTES = 4 * 1024 * 1024
OPTION = "--as-user"


@dataclass
class Found:
    """What one reader takes: destination (relative to the isolated HOME) -> content, the kind
    and source of each, and one note per thing left out."""

    files: dict[str, bytes] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    provided: set[str] = field(default_factory=set)
    """Skill folders of the user's (resolved paths) that the seed holds: a catalog entry from
    one of them is not installed again (`UserConfig.provides`)."""

    def add(self, dest: str, content: bytes, kind: str, source: str) -> None:
        """Take `content` (from `source`) to `dest`."""
        self.files[dest] = content
        self.kinds[dest] = kind
        self.sources[dest] = source

    def merge(self, other: Found) -> None:
        """Add what `other` took and left out."""
        self.files.update(other.files)
        self.kinds.update(other.kinds)
        self.sources.update(other.sources)
        self.notes += other.notes
        self.provided |= other.provided


@dataclass(frozen=True)
class UserHome:
    """The user's HOME as given to `--as-user`, and the folders an agent reads there by label
    (e.g. `~/.claude` -> `$CLAUDE_CONFIG_DIR` or `<home>/.claude`)."""

    home: Path
    roots: dict[str, Path] = field(default_factory=dict)

    def root(self, label: str) -> Path:
        """The folder of `label` (`~` is the HOME itself)."""
        return self.home if label == "~" else self.roots[label]


Reader = Callable[[UserHome], Found]


@dataclass(frozen=True)
class Take:
    """One kind of thing an agent's request depends on, and how it is read."""

    kind: str
    read: Reader


@dataclass(frozen=True)
class Leave:
    """Something of the user's configuration never taken, and why (stated in every record)."""

    path: str
    why: str


@dataclass(frozen=True)
class AgentConfig:
    """What `--as-user` takes for one agent: its readers and what it declares left out."""

    agent: str
    takes: tuple[Take, ...]
    leaves: tuple[Leave, ...] = ()
    roots: Callable[[Path], dict[str, Path]] = lambda home: {}


class TakenFile(Doc):
    """One file the isolated HOME got."""

    kind: str = Field(description="what it is, e.g. `settings`, `personal skill`")
    source: str = Field(description="where it came from, `~`-relative")
    copy_path: str = Field(description="where it went, relative to the isolated HOME")
    sha256: str = Field(description="SHA-256 of what was written (before the HOME is filled in)")


class UserConfig(Doc):
    """What `--as-user` took from the user's HOME into a capture's isolated HOME."""

    agent: str
    home: str = Field(description="the user's HOME as given (never part of the key)")
    copy_rules: int = COPY_RULES
    taken: list[TakenFile] = Field(default_factory=list)
    left_out: list[str] = Field(
        default_factory=list, description="one note per thing left out: `<file>: <what> (<why>)`"
    )
    _files: dict[str, bytes] = PrivateAttr(default_factory=dict)
    _provided: frozenset[str] = PrivateAttr(default_factory=frozenset)

    def key(self) -> str:
        """SHA-256 of what reaches the isolated HOME (each destination and its hash) and the
        rules of the copy; the user's path and the notes are not part of it."""
        fields = {
            "agent": self.agent,
            "copy_rules": self.copy_rules,
            "files": sorted((t.copy_path, t.sha256) for t in self.taken),
        }
        blob = json.dumps(fields, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def kinds(self) -> dict[str, int]:
        """How many files of each kind were taken, in the order first taken."""
        counts: dict[str, int] = {}
        for item in self.taken:
            counts[item.kind] = counts.get(item.kind, 0) + 1
        return counts

    def summary(self) -> str:
        """One line: `as the user (~): settings, CLAUDE.md, 2 personal skills; 3 left out`."""
        kinds = self.kinds()
        taken = ", ".join(kind if n == 1 else f"{n} × {kind}" for kind, n in kinds.items())
        line = f"as the user ({self.home}): {taken or 'nothing to take'}"
        return line + (f"; {len(self.left_out)} left out" if self.left_out else "")

    def lines(self) -> list[str]:
        """Every file taken and every thing left out, one line each (for reports)."""
        taken = [f"taken: {t.source} ({t.kind})" for t in self.taken]
        return taken + [f"left out: {note}" for note in self.left_out]

    def provides(self, folder: str | os.PathLike[str] | None) -> bool:
        """Whether the skill folder `folder` is one of the user's that the seed already holds
        (a personal or plugin skill)."""
        if folder is None:
            return False
        try:
            return str(Path(folder).resolve()) in self._provided
        except OSError:
            return False

    def files(self) -> dict[str, bytes]:
        """Destination -> content, as read (with `HOME_MARK` where the isolated HOME goes)."""
        return dict(self._files)

    def seed(self, home: Path, skip: Callable[[str], bool] | None = None) -> list[str]:
        """Write the taken files under the isolated `home` (never anywhere else), `HOME_MARK`
        filled in; a destination `skip` refuses is not written. Returns the destinations
        skipped."""
        filled = json.dumps(str(home))[1:-1].encode("utf-8")
        skipped: list[str] = []
        for dest, content in sorted(self._files.items()):
            if skip is not None and skip(dest):
                skipped.append(dest)
                continue
            out = home / dest
            if not out.resolve().is_relative_to(home.resolve()):
                raise BackendError(f"{OPTION}: refusing to write outside the isolated HOME: {dest}")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(content.replace(HOME_MARK.encode("utf-8"), filled))
        return skipped


def user_home(path: str | os.PathLike[str] | None) -> Path:
    """The `--as-user` folder (default `~`), resolved; InputError naming the option when it is
    not a folder."""
    home = Path(path if path is not None else "~").expanduser()
    if not home.is_dir():
        raise InputError(f"not a folder: {home}", path=OPTION)
    return home.resolve()


def read_user_config(config: AgentConfig, path: str | os.PathLike[str] | None = None) -> UserConfig:
    """Read what `config` takes from the user's HOME (`path`, default `~`), read-only."""
    home = user_home(path)
    found = Found()
    where = UserHome(home, config.roots(home))
    for take in config.takes:
        found.merge(take.read(where))
    _redact_secrets(found)
    record = UserConfig(
        agent=config.agent,
        home=str(path) if path is not None else "~",
        taken=[
            TakenFile(
                kind=found.kinds[dest],
                source=found.sources[dest],
                copy_path=dest,
                sha256=hashlib.sha256(content).hexdigest(),
            )
            for dest, content in found.files.items()
        ],
        left_out=[*found.notes, *(f"{leave.path} ({leave.why})" for leave in config.leaves)],
    )
    record._files = dict(found.files)
    record._provided = frozenset(found.provided)
    return record


def _redact_secrets(found: Found) -> None:
    """Every secret a taken file still holds (a key in CLAUDE.md, in a permission rule)
    replaced by the redactor's mark, as every file skillbench writes is; a file that cannot be
    redacted (not text) left out with a note."""
    from skillbench.redaction import redact_bytes

    for dest, content in list(found.files.items()):
        clean = redact_bytes(content)
        if clean is None:
            found.notes.append(f"{found.sources[dest]}: left out (holds a secret)")
            del found.files[dest], found.kinds[dest], found.sources[dest]
        elif clean != content:
            found.notes.append(f"{found.sources[dest]}: a secret in it redacted")
            found.files[dest] = clean


def tilde(where: UserHome, path: Path) -> str:
    """`path` as the user would write it: `~/…` inside their HOME, else as it is."""
    try:
        return "~/" + path.relative_to(where.home).as_posix()
    except ValueError:
        return str(path)


def read_bytes(path: Path, where: UserHome, notes: list[str]) -> bytes | None:
    """A file's bytes (a regular file of at most `MAX_FILE_BYTES`, read-only); None with a
    note when it cannot be read."""
    from skillbench.io import read_input_bytes

    try:
        return read_input_bytes(path, limit=MAX_FILE_BYTES)
    except InputError as exc:
        notes.append(f"{tilde(where, path)}: left out ({exc.detail})")
        return None


def read_json_object(path: Path, where: UserHome, notes: list[str]) -> dict[str, object] | None:
    """A JSON object file (None, with a note, when missing parts make it unreadable)."""
    from skillbench.io import loads_json

    data = read_bytes(path, where, notes)
    if data is None:
        return None
    try:
        loaded = loads_json(data.decode("utf-8-sig"), path=path)
    except (InputError, UnicodeDecodeError):
        notes.append(f"{tilde(where, path)}: left out (not valid JSON)")
        return None
    if not isinstance(loaded, dict):
        notes.append(f"{tilde(where, path)}: left out (not a JSON object)")
        return None
    return loaded


Transform = Callable[[str, str], tuple[str | None, list[str]]]
"""(text, source) -> (the text to write, None to leave the file out; notes)."""


def files_under(
    kind: str,
    label: str,
    patterns: Iterable[str],
    dest: str,
    transform: Transform | None = None,
) -> Reader:
    """A reader taking the files matching `patterns` (globs) under the folder `label`, each to
    `dest/<its relative path>`; `transform(text, source)` may rewrite a text and name what it
    left out."""

    def read(where: UserHome) -> Found:
        found = Found()
        root = where.root(label)
        if not root.is_dir():
            return found
        matched: dict[str, Path] = {}
        for pattern in patterns:
            for path in sorted(root.glob(pattern)):
                if path.is_file():
                    matched.setdefault(path.relative_to(root).as_posix(), path)
        for rel, path in matched.items():
            data = read_bytes(path, where, found.notes)
            if data is None:
                continue
            source = tilde(where, path)
            if transform is not None:
                text, notes = transform(data.decode("utf-8", errors="replace"), source)
                found.notes += notes
                if text is None:
                    continue
                data = text.encode("utf-8")
            found.add(f"{dest}/{rel}", data, kind, source)
        return found

    return read
