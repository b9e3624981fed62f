"""A skill folder: SKILL.md parsed (frontmatter, body, files), content hash, description rewrite.

Reading is defensive: the SKILL.md must be a regular file (a symlink is followed to one inside the
skill folder, and to one elsewhere inside the root (`link_root`: the library being read, else the
enclosing git repository, else the skill folder's parent: `linked_outside`, a warning for the
validator); one leading out of the root is refused, SKILL_MD_LINK_OUTSIDE, so a shared skill
cannot make skillbench read, send or store a file elsewhere; a dangling link names its target),
at most `MAX_SKILL_MD_BYTES`; the
frontmatter is at most `MAX_FRONTMATTER_CHARS`, nested at most `MAX_YAML_DEPTH` deep and, with
aliases expanded, at most `MAX_YAML_NODES` nodes (so a "billion laughs" document is refused before
it is built).

Every problem raises `InputError` whose ``rule`` is the seed-001 validation code it corresponds to
(SKILL_DIR_MISSING, SKILL_PATH_NOT_DIR, SKILL_MD_MISSING, FRONTMATTER_PARSE, FRONTMATTER_INVALID, ...),
so the validator reports exactly what `Skill.load` would refuse.
"""

from __future__ import annotations

import copy
import dataclasses
import errno
import hashlib
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from skillbench.errors import InputError
from skillbench.io import atomic_write_bytes

SKILL_MD = "SKILL.md"
MAX_SKILL_MD_BYTES = 16 * 1024 * 1024
MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_YAML_DEPTH = 32
MAX_YAML_NODES = 100_000
MAX_FILES = 10_000
IGNORED_NAMES = frozenset({".git", "__pycache__", ".DS_Store"})
BOM = b"\xef\xbb\xbf"

_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CLOSING = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_OPENING = re.compile(r"---[ \t]*\r?(?:\n|\Z)")

ProblemCode = Literal["FRONTMATTER_PARSE", "FRONTMATTER_INVALID"]


class YamlBoundError(ValueError):
    """The YAML exceeds a size, depth or alias-expansion bound."""


class FrontmatterProblem(NamedTuple):
    """Why the frontmatter is unusable: the validation code and a short message."""

    code: ProblemCode
    message: str


class Frontmatter(NamedTuple):
    """Result of `parse_frontmatter`: the mapping (None when unusable), the body, the problem."""

    mapping: dict[str, Any] | None
    body: str
    problem: FrontmatterProblem | None


def blank(value: object) -> bool:
    """A frontmatter value that says nothing: null, or a string of whitespace."""
    return value is None or (isinstance(value, str) and not value.strip())


def wrong_type(
    frontmatter: Mapping[str, Any], key: str, kinds: type | tuple[type, ...], what: str
) -> str | None:
    """The finding when `key` is present in the frontmatter with a value not of `kinds`."""
    value = frontmatter.get(key)
    if key in frontmatter and not isinstance(value, kinds):
        return f"{key} must be {what}, found {shorten(value)}"
    return None


def shorten(value: object, limit: int = 60) -> str:
    """A brief repr of `value` for messages; long values are cut (never dump a 5 MB string)."""
    text = value if isinstance(value, str) else type(value).__name__
    if isinstance(value, str):
        text = repr(value[: limit + 1])
        if len(value) > limit:
            text = text[:-1] + f"…' ({len(value)} chars)"
    elif isinstance(value, int | float | bool) or value is None:
        text = repr(value)[:limit]
    return text


# ---------------------------------------------------------------------------------------------
# Splitting and parsing


def frontmatter_span(text: str) -> tuple[int, int, int] | FrontmatterProblem:
    """Offsets in `text` (BOM already removed): YAML start, YAML end, body start; or a problem.

    Line 1 must be ``---`` and a later line ``---`` closes the frontmatter; CRLF is accepted.
    """
    if not text.strip():
        return FrontmatterProblem("FRONTMATTER_PARSE", "SKILL.md is empty")
    opening = _OPENING.match(text)
    if opening is None:
        first = text.split("\n", 1)[0][:40]
        return FrontmatterProblem(
            "FRONTMATTER_PARSE", f"line 1 must be '---' to open the frontmatter, found {first!r}"
        )
    start = opening.end()
    closing = _CLOSING.search(text, start)
    if closing is None:
        return FrontmatterProblem(
            "FRONTMATTER_PARSE", "no closing '---' line after the frontmatter"
        )
    end = closing.start()
    if end - start > MAX_FRONTMATTER_CHARS:
        return FrontmatterProblem(
            "FRONTMATTER_INVALID",
            f"frontmatter is {end - start} characters, over the {MAX_FRONTMATTER_CHARS} limit",
        )
    body_start = closing.end()
    if text.startswith("\n", body_start):
        body_start += 1
    return start, end, body_start


def _yaml_message(exc: Exception, line_offset: int = 1) -> str:
    """One short line describing a YAML error, with its SKILL.md line number where known."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        where = f" (line {mark.line + 1 + line_offset}, column {mark.column + 1})"
        return f"invalid YAML: {(exc.problem or 'syntax error')[:120]}{where}"
    if isinstance(exc, RecursionError):
        return "invalid YAML: nested too deeply"
    return f"invalid YAML: {type(exc).__name__}: {str(exc)[:120]}"


def _depth_problem(yaml_text: str) -> str | None:
    """Scan the event stream (cheap, iterative) and stop as soon as nesting exceeds the bound."""
    loader = _FAST_LOADER(yaml_text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    return f"frontmatter is nested more than {MAX_YAML_DEPTH} levels deep"
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError as exc:  # PyYAML >= 6.0.3 enforces a nesting limit of its own
        if "nesting depth" in str(exc):
            return f"frontmatter is nested more than {MAX_YAML_DEPTH} levels deep"
        raise
    finally:
        loader.dispose()
    return None


def _expanded_size(root: Node, limit: int) -> int:
    """Number of nodes with every alias expanded, counting stops just past `limit` (cycles too)."""
    count = 0
    stack: list[Node] = [root]
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        if isinstance(node, SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)
    return count


_PARSED: dict[str, Any] = {}
"""Frontmatter YAML already parsed in this process (text -> value), for a library's skills:
each SKILL.md is read by the library's entries, by the listing (`cli_skills`) and by the
install; the second and third parse are a copy of the first. Failures are never kept."""
_PARSED_CHARS_LIMIT = 32 * 1024 * 1024
_parsed_chars = 0


def load_yaml_bounded(yaml_text: str) -> Any:
    """`yaml.safe_load` with bounds on size, nesting depth and alias expansion.

    Raises YamlBoundError (a bound), a yaml.YAMLError or a construction error (ValueError...);
    callers turn all of them into findings. A text parsed before in this process is not parsed
    again: the caller gets a deep copy of the first value (so it may change it freely).
    """
    global _parsed_chars
    if yaml_text in _PARSED:
        return copy.deepcopy(_PARSED[yaml_text])
    value = _load_yaml_bounded(yaml_text)
    if _parsed_chars + len(yaml_text) <= _PARSED_CHARS_LIMIT:
        _PARSED[yaml_text] = copy.deepcopy(value)
        _parsed_chars += len(yaml_text)
    return value


def _load_yaml_bounded(yaml_text: str) -> Any:
    """`load_yaml_bounded` without the memo."""
    if len(yaml_text) > MAX_FRONTMATTER_CHARS:
        raise YamlBoundError(f"YAML is over the {MAX_FRONTMATTER_CHARS} character limit")
    problem = _depth_problem(yaml_text)
    if problem:
        raise YamlBoundError(problem)
    loader = _FAST_LOADER(yaml_text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, MAX_YAML_NODES) > MAX_YAML_NODES:
            raise YamlBoundError(
                f"aliases expand beyond {MAX_YAML_NODES} nodes (an alias bomb?); refused"
            )
        return loader.construct_document(node)
    finally:
        loader.dispose()


def parse_frontmatter(text: str) -> Frontmatter:
    """Split SKILL.md text into its frontmatter mapping and body, bounded and never raising.

    Returns ``(mapping, body, None)`` or ``(None, body_or_text, problem)``; the problem's code is
    FRONTMATTER_PARSE only when the opening or closing ``---`` is missing, and FRONTMATTER_INVALID
    for everything between them that is not a mapping (YAML syntax or construction errors, a
    bound exceeded, a list or a scalar), as the v3 reference validator reports them. An empty
    block is an empty mapping.
    """
    return _split_frontmatter(text)[0]


def _split_frontmatter(text: str) -> tuple[Frontmatter, tuple[int, int] | None]:
    """`parse_frontmatter` plus the YAML's (start, end) offsets in `text` as given (a leading
    U+FEFF included), or None when the delimiters are missing."""
    stripped = text.removeprefix("\ufeff")
    span = frontmatter_span(stripped)
    if isinstance(span, FrontmatterProblem):
        return Frontmatter(None, stripped, span), None
    start, end, body_start = span
    body = stripped[body_start:]
    shift = len(text) - len(stripped)
    offsets = (start + shift, end + shift)
    try:
        data = load_yaml_bounded(stripped[start:end])
    except YamlBoundError as exc:
        problem = FrontmatterProblem("FRONTMATTER_INVALID", str(exc))
        return Frontmatter(None, body, problem), offsets
    except Exception as exc:  # any YAML or construction failure is a finding, never a traceback
        problem = FrontmatterProblem("FRONTMATTER_INVALID", _yaml_message(exc))
        return Frontmatter(None, body, problem), offsets
    if data is None:  # an empty block (or only comments): an empty mapping, as the reference
        data = {}
    if not isinstance(data, dict):
        problem = FrontmatterProblem(
            "FRONTMATTER_INVALID",
            f"frontmatter is a {type(data).__name__}, expected a mapping of keys",
        )
        return Frontmatter(None, body, problem), offsets
    return Frontmatter(data, body, None), offsets


def _usable_frontmatter(text: str, path: str | Path) -> tuple[dict[str, Any], str, tuple[int, int]]:
    """The frontmatter mapping, the body and the YAML's offsets in `text`; InputError (the
    validation code as ``rule``) when the frontmatter is unusable."""
    (mapping, body, problem), offsets = _split_frontmatter(text)
    if problem is not None or mapping is None or offsets is None:
        problem = problem or FrontmatterProblem("FRONTMATTER_INVALID", "unusable frontmatter")
        raise InputError(problem.message, path=path, rule=problem.code)
    return mapping, body, offsets


# ---------------------------------------------------------------------------------------------
# Locating, reading, decoding


def locate_skill_md(folder: str | Path, root: str | Path | None = None) -> Path:
    """The folder's SKILL.md, checked to be (or to link to) a regular file (never read here).

    A symlink is followed when its target (all links resolved) is inside the skill folder or,
    elsewhere, inside `link_root(folder, root)` (a library sharing one SKILL.md between
    `.gemini/skills/x` and `skills/x`: Claude Code and Gemini CLI load it); one leading out of
    the root raises SKILL_MD_LINK_OUTSIDE naming the link, its target and the root (a skill
    from someone else must not make skillbench read a file elsewhere, send it to a model and
    store it). A dangling or looping link raises one SKILL_MD_MISSING naming the link and its
    target.
    """
    base = Path(folder)
    if not os.path.lexists(base):
        raise InputError("skill folder does not exist", path=base, rule="SKILL_DIR_MISSING")
    if not base.is_dir():
        raise InputError("not a directory", path=base, rule="SKILL_PATH_NOT_DIR")
    skill_md = base / SKILL_MD
    if not os.path.lexists(skill_md):
        message = "no SKILL.md in the skill folder"
        try:
            near = [n for n in os.listdir(base)[:MAX_FILES] if n.lower() == "skill.md"]
        except OSError:
            near = []
        if near:
            message += f" (found {near[0]!r}; the file must be named SKILL.md)"
        raise InputError(message, path=base, rule="SKILL_MD_MISSING")
    if skill_md.is_symlink():
        _check_link(skill_md)
        _check_inside(skill_md, base, root)
    try:
        info = skill_md.stat()
    except OSError as exc:
        raise InputError(
            f"SKILL.md cannot be opened: {exc.strerror or 'broken symlink'}",
            path=skill_md,
            rule="SKILL_MD_MISSING",
        ) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError("SKILL.md is not a regular file", path=skill_md, rule="SKILL_MD_MISSING")
    if info.st_size > MAX_SKILL_MD_BYTES:
        raise InputError(
            f"SKILL.md is {info.st_size} bytes, over the {MAX_SKILL_MD_BYTES} byte limit",
            path=skill_md,
            rule="FRONTMATTER_PARSE",
        )
    return skill_md


def _check_link(skill_md: Path) -> None:
    """InputError (SKILL_MD_MISSING) naming the link and its target when it cannot be followed."""
    try:
        target = os.readlink(skill_md)
    except OSError:
        target = "?"
    try:
        skill_md.stat()
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            why = "which does not exist"
        else:
            why = f"which cannot be followed: {exc.strerror or exc}"
        raise InputError(
            f"SKILL.md is a symlink to {target!r}, {why}", path=skill_md, rule="SKILL_MD_MISSING"
        ) from None


def find_link_root(folder: str | Path) -> Path:
    """Where a skill's linked SKILL.md may lead when no library root is given: the enclosing
    git repository's top folder (the nearest ancestor of the folder, itself included, holding
    a `.git` folder or file; git itself is not run), else the skill folder's parent."""
    start = Path(os.path.abspath(folder))
    for candidate in (start, *start.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return start.parent


def link_root(folder: str | Path, root: str | Path | None = None) -> Path:
    """The root a linked SKILL.md may lead to: `root` (the library being read) when given,
    else `find_link_root(folder)`."""
    return Path(os.path.abspath(root)) if root is not None else find_link_root(folder)


def _inside(path: str, folder: str | Path) -> bool:
    boundary = os.path.realpath(folder)
    return path == boundary or Path(path).is_relative_to(boundary)


def linked_outside(folder: str | Path) -> str | None:
    """The link text of the folder's SKILL.md when it resolves outside the (resolved) skill
    folder, else None (no link, or a link within the folder)."""
    skill_md = Path(folder) / SKILL_MD
    if not skill_md.is_symlink() or _inside(os.path.realpath(skill_md), folder):
        return None
    return os.readlink(skill_md)


def _check_inside(skill_md: Path, folder: Path, root: str | Path | None) -> None:
    """InputError (SKILL_MD_LINK_OUTSIDE) when the linked SKILL.md resolves outside both
    `folder` and the root (`link_root`)."""
    target = os.path.realpath(skill_md)
    if _inside(target, folder):
        return
    boundary = link_root(folder, root)
    if _inside(target, boundary):
        return
    raise InputError(
        f"SKILL.md is a symlink to {os.readlink(skill_md)!r}, outside the skill folder and "
        f"outside {boundary} (the library or repository it belongs to): not read (copy the "
        "file into the folder)",
        path=skill_md,
        rule="SKILL_MD_LINK_OUTSIDE",
    )


def _skill_folder(path: str | Path) -> Path:
    """The skill folder for `path`, which may name the folder or its SKILL.md."""
    folder = Path(path)
    return folder.parent if folder.name == SKILL_MD and folder.is_file() else folder


def read_skill_md(folder: str | Path, root: str | Path | None = None) -> tuple[Path, bytes]:
    """Locate and read SKILL.md (bounded; a link may lead anywhere inside `link_root(folder,
    root)`); InputError with the validation code as ``rule``."""
    skill_md = locate_skill_md(folder, root)
    try:
        with open(skill_md, "rb") as handle:
            raw = handle.read(MAX_SKILL_MD_BYTES + 1)
    except OSError as exc:
        raise InputError(
            f"SKILL.md cannot be read: {exc.strerror or exc}",
            path=skill_md,
            rule="SKILL_MD_MISSING",
        ) from None
    if len(raw) > MAX_SKILL_MD_BYTES:
        raise InputError(
            f"SKILL.md is over the {MAX_SKILL_MD_BYTES} byte limit",
            path=skill_md,
            rule="FRONTMATTER_PARSE",
        )
    return skill_md, raw


def decode_skill_md(raw: bytes, path: str | Path = SKILL_MD) -> tuple[bool, str]:
    """(had a UTF-8 BOM, text without it); binary or non-UTF-8 bytes → InputError."""
    has_bom = raw.startswith(BOM)
    data = raw[len(BOM) :] if has_bom else raw
    if b"\x00" in data:
        raise InputError(
            "SKILL.md is binary (contains NUL bytes), expected UTF-8 text",
            path=path,
            rule="FRONTMATTER_PARSE",
        )
    try:
        return has_bom, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"SKILL.md is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start + len(BOM) * has_bom} ({exc.reason})",
            path=path,
            rule="FRONTMATTER_PARSE",
        ) from None


# ---------------------------------------------------------------------------------------------
# Files and hashing


def iter_files(folder: str | Path, limit: int = MAX_FILES) -> Iterator[str]:
    """Relative POSIX paths of the files in `folder` (symlinks listed, never followed), unsorted.

    Skips `IGNORED_NAMES`; raises InputError past `limit` entries. Works on plain strings
    (it runs once or twice per skill when a library of thousands is validated).
    """
    root = os.fspath(folder)
    count = 0
    for current, dirs, files in os.walk(root, followlinks=False):
        prefix = os.path.relpath(current, root).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        linked_dirs = [d for d in dirs if os.path.islink(os.path.join(current, d))]
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_NAMES and d not in linked_dirs)
        for name in [*files, *linked_dirs]:
            if name in IGNORED_NAMES:
                continue
            count += 1
            if count > limit:
                raise InputError(f"more than {limit} files in the skill folder", path=root)
            yield prefix + name


def _file_digest(path: Path) -> str:
    """sha256 of a file's bytes, or of its link target for a symlink (never followed)."""
    digest = hashlib.sha256()
    if path.is_symlink():
        digest.update(b"symlink:" + os.fsencode(os.readlink(path)))
        return digest.hexdigest()
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path=path) from None
    return digest.hexdigest()


def _combined_hash(digests: dict[str, str]) -> str:
    """Stable hash over (relative path, file digest) pairs in sorted order."""
    total = hashlib.sha256()
    for rel in sorted(digests):
        total.update(f"{rel}\0{digests[rel]}\n".encode())
    return total.hexdigest()


# ---------------------------------------------------------------------------------------------
# The Skill


@dataclass(frozen=True)
class Skill:
    """A skill folder as loaded: SKILL.md bytes, parsed frontmatter and body, file list, hash.

    `content_hash` is a sha256 over SKILL.md and every other file (sorted relative paths with
    their digests); `frontmatter_span` gives the YAML's character offsets in `text`.
    Treat `frontmatter` as read-only.
    """

    path: Path
    skill_md: Path
    raw: bytes
    frontmatter: dict[str, Any]
    frontmatter_span: tuple[int, int]
    body: str
    name: str
    description: str
    files: tuple[str, ...]
    file_digests: tuple[tuple[str, str], ...]
    content_hash: str
    root: Path | None = None
    """The library root it was loaded from (its SKILL.md may link anywhere inside), or None:
    the default root of `link_root`."""

    @property
    def text(self) -> str:
        """SKILL.md decoded, without a BOM."""
        return decode_skill_md(self.raw, self.skill_md)[1]

    def text_with_bom(self) -> str:
        """SKILL.md decoded as Claude Code reads it (a BOM kept as U+FEFF)."""
        return self.raw.decode("utf-8", errors="replace")

    @classmethod
    def load(cls, path: str | Path, root: str | Path | None = None) -> Skill:
        """Load a skill folder (or its SKILL.md path); InputError for unusable input. `root`:
        the library it belongs to (see `link_root`)."""
        folder = _skill_folder(path)
        skill_md, raw = read_skill_md(folder, root)
        digests = {
            rel: _file_digest(folder / rel) for rel in sorted(iter_files(folder)) if rel != SKILL_MD
        }
        skill = cls._build(folder, skill_md, raw, tuple(sorted(digests.items())))
        return skill if root is None else dataclasses.replace(skill, root=Path(root))

    @classmethod
    def _build(
        cls,
        folder: Path,
        skill_md: Path,
        raw: bytes,
        file_digests: tuple[tuple[str, str], ...],
    ) -> Skill:
        """Parse `raw` and assemble the Skill (shared by `load` and `with_description`)."""
        _, text = decode_skill_md(raw, skill_md)
        mapping, body, span = _usable_frontmatter(text, skill_md)
        name = mapping.get("name", os.path.basename(os.path.abspath(folder)))
        if not isinstance(name, str):
            raise InputError(
                f"must be a string, found {shorten(name)}",
                path=skill_md,
                field="name",
                rule="NAME_TYPE",
            )
        description = mapping.get("description")
        if description is None:
            raise InputError(
                "missing or empty", path=skill_md, field="description", rule="DESCRIPTION_EMPTY"
            )
        if not isinstance(description, str):
            raise InputError(
                f"must be a string, found {shorten(description)}",
                path=skill_md,
                field="description",
                rule="DESCRIPTION_TYPE",
            )
        digests = dict(file_digests)
        digests[SKILL_MD] = hashlib.sha256(raw).hexdigest()
        return cls(
            path=folder,
            skill_md=skill_md,
            raw=raw,
            frontmatter=mapping,
            frontmatter_span=span,
            body=body,
            name=name,
            description=description,
            files=tuple(sorted(digests)),
            file_digests=file_digests,
            content_hash=_combined_hash(digests),
        )

    def with_description(self, text: str) -> Skill:
        """A candidate Skill whose SKILL.md differs only in the description; disk untouched."""
        new_raw = replace_description(self.raw, text, path=self.skill_md)
        built = Skill._build(self.path, self.skill_md, new_raw, self.file_digests)
        return dataclasses.replace(built, root=self.root)


def write_description(path: str | Path, text: str) -> Path:
    """Rewrite only the description value in the skill's SKILL.md, atomically; returns its path.

    `path` is the skill folder or its SKILL.md. Every other byte (BOM, line endings, comments,
    key order, other keys, the body) is preserved, the file mode too; the new file re-parses to
    exactly `text` or nothing is written (InputError).
    """
    folder = _skill_folder(path)
    skill_md, raw = read_skill_md(folder)
    new_raw = replace_description(raw, text, path=skill_md)
    target = Path(os.path.realpath(skill_md))
    mode = stat.S_IMODE(target.stat().st_mode)
    atomic_write_bytes(target, new_raw)
    os.chmod(target, mode)
    return skill_md


def content_hash_without(skill: Skill, folder: str) -> str:
    """`skill.content_hash` with the files under `folder`/ left out (``evals/``: editing the
    evals is not a change of the skill)."""
    prefix = folder.rstrip("/") + "/"
    digests = {rel: digest for rel, digest in skill.file_digests if not rel.startswith(prefix)}
    digests[SKILL_MD] = hashlib.sha256(skill.raw).hexdigest()
    return _combined_hash(digests)


# ---------------------------------------------------------------------------------------------
# Reading a skill as Claude Code does (trigger, improve, agreement: never `validate`)

_CLI_BLOCK = re.compile(r"^---\s*\n([\s\S]*?)---\s*\n?")
_CLI_KEY_LINE = re.compile(r"^([a-zA-Z_-]+):\s+([^\n\r\u2028\u2029]+)\Z")
_CLI_NEEDS_QUOTES = re.compile(r"[{}\[\]*&#!|>%@`]|: ")
_CLI_LEADING_TABS = re.compile(r"^\t+", re.MULTILINE)
_JS_TRIM = re.compile(r"^[\s\ufeff]+|[\s\ufeff]+$")


def _cli_quote_lines(yaml_text: str) -> str:
    """Claude Code's retry after a YAML error (2.1.197): a `key: value` line whose unquoted value
    holds a YAML indicator (`[`, `*`, `: `, …) gets the value double-quoted; tabs that indent a
    line become two spaces each."""
    lines = []
    for line in yaml_text.split("\n"):
        match = _CLI_KEY_LINE.match(line)
        if match:
            key, value = match.groups()
            quoted = len(value) > 1 and value[0] == value[-1] and value[0] in "\"'"
            flow_list = False
            if value.startswith("[") and value.endswith("]"):
                try:
                    flow_list = isinstance(load_yaml_bounded(value), list)
                except Exception:
                    flow_list = False
            if not quoted and not flow_list and _CLI_NEEDS_QUOTES.search(value):
                escaped = value.replace("\\", "\\\\").replace('"', '\\"')
                line = f'{key}: "{escaped}"'
        lines.append(line)
    fixed = "\n".join(lines)
    return _CLI_LEADING_TABS.sub(lambda m: "  " * len(m.group(0)), fixed)


def _js_trim(text: str) -> str:
    """JavaScript's `trim()`: Unicode whitespace and U+FEFF off both ends."""
    return _JS_TRIM.sub("", text)


def cli_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(mapping, body, YAML error or None) of SKILL.md `text` as Claude Code 2.1.197 reads it:
    YAML first; on an error, once more after `_cli_quote_lines`; still failing, no frontmatter
    at all (the skill still loads, its description taken from the body). A UTF-8 BOM is not
    skipped: `---` must open the file, so after a BOM Claude Code sees no frontmatter at all.
    Never raises."""
    match = _CLI_BLOCK.match(text)
    if match is None:
        return {}, text, None
    yaml_text, body = match.group(1), text[match.end() :]
    error: str | None = None
    try:
        data = load_yaml_bounded(yaml_text)
    except Exception as exc:
        error = _yaml_message(exc)
        try:
            data = load_yaml_bounded(_cli_quote_lines(yaml_text))
        except Exception:
            return {}, body, error
    return (data if isinstance(data, dict) else {}), body, error


def cli_repaired(text: str) -> str | None:
    """SKILL.md `text` with its frontmatter as Claude Code's retry reads it (`_cli_quote_lines`),
    when the YAML fails and that retry parses; else None. A candidate description can then be
    written into valid YAML with the same meaning."""
    match = _CLI_BLOCK.match(text)
    if match is None:
        return None
    yaml_text = match.group(1)
    try:
        load_yaml_bounded(yaml_text)
        return None
    except Exception:
        fixed = _cli_quote_lines(yaml_text)
    try:
        load_yaml_bounded(fixed)
    except Exception:
        return None
    return f"---\n{fixed}---\n{text[match.end() :]}"


def cli_description(mapping: dict[str, Any], body: str) -> str:
    """The description Claude Code shows: the frontmatter's (trimmed; a number or a boolean as
    text), else the body's first non-empty line without its heading marks (at most 100
    characters), else "Skill"."""
    value = mapping.get("description")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str) and _js_trim(value):
        return _js_trim(value)
    for line in body.split("\n"):
        line = _js_trim(line)
        if line:
            heading = re.match(r"^#+\s+(.+)$", line)
            first = heading.group(1) if heading else line
            return first if len(first) <= 100 else first[:97] + "..."
    return "Skill"


def load_as_claude_code(
    path: str | Path, root: str | Path | None = None
) -> tuple[Skill, list[str]]:
    """The skill as Claude Code loads it, and the validation findings that `Skill.load` would
    refuse (as warnings): frontmatter that is not valid YAML but that Claude Code's fallback
    reads, or no usable description. Trigger, improve and agreement use this; `validate`
    stays strict. InputError only for what Claude Code cannot load either (no SKILL.md, …).
    `root`: the library it belongs to (see `link_root`)."""
    try:
        skill = Skill.load(path, root)
    except InputError as exc:
        if exc.rule not in {
            "FRONTMATTER_PARSE",
            "FRONTMATTER_INVALID",
            "DESCRIPTION_EMPTY",
            "DESCRIPTION_TYPE",
            "NAME_TYPE",
        }:
            raise
        where = f" ({exc.field})" if exc.field else ""
        finding = f"{exc.rule}{where}: {exc.detail}"
    else:
        if not skill.raw.startswith(BOM):
            return skill, []
        seen = cli_description(*cli_frontmatter(skill.text_with_bom())[:2])
        return skill, [
            f"{skill.skill_md}: starts with a UTF-8 byte order mark, after which Claude Code "
            f"2.1.197 finds no frontmatter: it lists this skill with the description {seen!r} "
            "and ignores its other keys (remove the BOM)"
        ]
    folder = _skill_folder(path)
    skill_md, raw = read_skill_md(folder, root)
    decode_skill_md(raw, skill_md)  # binary or non-UTF-8: refused as before
    mapping, body, _error = cli_frontmatter(raw.decode("utf-8", errors="replace"))
    digests = {
        rel: _file_digest(folder / rel) for rel in sorted(iter_files(folder)) if rel != SKILL_MD
    }
    name = mapping.get("name")
    if not isinstance(name, str) or not name.strip():
        name = os.path.basename(os.path.abspath(folder))
    all_digests = dict(digests)
    all_digests[SKILL_MD] = hashlib.sha256(raw).hexdigest()
    skill = Skill(
        path=folder,
        skill_md=skill_md,
        raw=raw,
        frontmatter=mapping,
        frontmatter_span=(0, 0),
        body=body,
        name=name,
        description=cli_description(mapping, body),
        files=tuple(sorted(all_digests)),
        file_digests=tuple(sorted(digests.items())),
        content_hash=_combined_hash(all_digests),
        root=None if root is None else Path(root),
    )
    warning = (
        f"{skill_md}: {finding} — `skillbench validate` refuses this, but Claude Code loads "
        "the skill anyway (its fallback frontmatter reading), so it is evaluated as Claude Code "
        "reads it"
    )
    return skill, [warning]


# ---------------------------------------------------------------------------------------------
# Description rewriting


_NON_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x85\u2028\u2029\ufeff]"
)
_SIMPLE_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_BLOCK_HEADER = re.compile(r"[|>][-+0-9]*(?P<comment>[ \t]+#[^\r\n]*)?[ \t]*")


def _double_quoted(text: str) -> str:
    """A YAML double-quoted scalar for any text (always valid, always one line)."""
    out = []
    for char in text:
        if char in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[char])
        elif _NON_PRINTABLE.match(char):
            code = ord(char)
            out.append(
                f"\\x{code:02x}"
                if code < 0x100
                else f"\\u{code:04x}"
                if code < 0x10000
                else f"\\U{code:08x}"
            )
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _single_line_ok(text: str) -> bool:
    return bool(text) and "\n" not in text and "\r" not in text and not _NON_PRINTABLE.search(text)


def _plain(text: str) -> str | None:
    return text if _single_line_ok(text) and text == text.strip() else None


def _single_quoted(text: str) -> str | None:
    return "'" + text.replace("'", "''") + "'" if _single_line_ok(text) else None


def _literal(text: str, indent: str, newline: str, comment: str) -> str | None:
    content = text.rstrip("\n")
    trailing = len(text) - len(content)
    if not content or trailing > 1 or "\r" in text or _NON_PRINTABLE.search(text):
        return None
    if content[0] in " \t":
        return None
    chomp = "-" if trailing == 0 else ""
    lines = [indent + line if line else "" for line in content.split("\n")]
    return f"|{chomp}{comment}{newline}" + newline.join(lines)


def _folded(text: str, indent: str, newline: str, comment: str) -> str | None:
    if not _single_line_ok(text) or text != text.strip():
        return None
    return f">-{comment}{newline}{indent}{text}"


def _description_nodes(yaml_text: str) -> tuple[MappingNode | None, list[tuple[ScalarNode, Node]]]:
    """The root mapping node (None for an empty frontmatter) and its `description` (key, value)
    pairs, with pure-Python marks."""
    loader = yaml.SafeLoader(yaml_text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    if root is None:
        return None, []
    if not isinstance(root, MappingNode):
        raise ValueError("frontmatter is not a mapping")
    pairs = [
        (key, value)
        for key, value in root.value
        if isinstance(key, ScalarNode) and key.value == "description"
    ]
    return root, pairs


def _same_except_description(old: dict[str, Any], new: dict[str, Any], text: str) -> bool:
    expected_keys = list(old) + ([] if "description" in old else ["description"])
    if list(new) != expected_keys or new.get("description") != text:
        return False
    return all(old[k] == new[k] or repr(old[k]) == repr(new[k]) for k in old if k != "description")


def _candidate_values(
    text: str, style: str | None, indent: str, newline: str, comment: str
) -> Iterator[str]:
    """Renderings of `text` in preference order: the original style first, double quotes last."""
    renderers = {
        None: [_plain(text), _single_quoted(text)],
        "'": [_single_quoted(text)],
        '"': [],
        "|": [_literal(text, indent, newline, comment)],
        ">": [_folded(text, indent, newline, comment), _literal(text, indent, newline, comment)],
    }
    for value in renderers.get(style, []):
        if value is not None:
            yield value
    yield _double_quoted(text) + (comment if style in ("|", ">") else "")


def replace_description(raw: bytes, text: str, *, path: str | Path = SKILL_MD) -> bytes:
    """SKILL.md bytes with only the description value replaced by `text` (exact round trip).

    Keeps the BOM, line endings, comments, key order and the body; keeps the value's style
    (plain, quoted, block) where it can express `text`, else falls back to double quotes. A
    missing description key is appended at the end of the frontmatter. InputError if the file
    cannot be rewritten safely (duplicate keys, unparseable frontmatter).
    """
    if not isinstance(text, str):
        raise InputError(
            f"new description must be a string, found {shorten(text)}",
            path=path,
            field="description",
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            "new description is not encodable as UTF-8 (lone surrogate)",
            path=path,
            field="description",
        ) from None
    has_bom, source = decode_skill_md(raw, path)
    old, _, (start, end) = _usable_frontmatter(source, path)
    yaml_text = source[start:end]
    newline = "\r\n" if "\r\n" in yaml_text else "\n"
    try:
        _, pairs = _description_nodes(yaml_text)
    except Exception as exc:
        raise InputError(_yaml_message(exc), path=path) from None
    if len(pairs) > 1:
        raise InputError(
            "description appears more than once; cannot rewrite it safely",
            path=path,
            field="description",
        )
    if pairs:
        key, value = pairs[0]
        v_start = value.start_mark.index
        v_end = value.end_mark.index
        style = value.style if isinstance(value, ScalarNode) else "?"
        if style in ("|", ">"):
            while v_end > v_start and yaml_text[v_end - 1] in " \t\r\n":
                v_end -= 1
            header = _BLOCK_HEADER.match(yaml_text, v_start)
            comment = (header.group("comment") or "") if header else ""
            body_lines = yaml_text[v_start:v_end].split("\n")[1:]
            first = next((ln for ln in body_lines if ln.strip()), None)
            indent = first[: len(first) - len(first.lstrip(" "))] if first else ""
        else:
            comment = ""
            indent = ""
        indent = indent or " " * (key.start_mark.column + 2)
        prefix, suffix = yaml_text[:v_start], yaml_text[v_end:]
        if v_start == v_end and prefix and prefix[-1] not in " \t":
            prefix += " "  # an empty value right after the colon
    else:
        style, comment, indent = None, "", "  "
        prefix, suffix = yaml_text, ""
    for rendered in _candidate_values(text, style, indent, newline, comment):
        if pairs:
            new_yaml = prefix + rendered + suffix
        else:
            new_yaml = prefix + ("" if not prefix or prefix.endswith("\n") else newline)
            new_yaml += f"description: {rendered}{newline}"
        new_source = source[:start] + new_yaml + source[end:]
        new, _, new_problem = parse_frontmatter(new_source)
        if new_problem is None and new is not None and _same_except_description(old, new, text):
            return (BOM if has_bom else b"") + new_source.encode("utf-8")
    raise InputError(
        "could not rewrite the description without changing other keys",
        path=path,
        field="description",
    )


SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        ".tox",
        ".cache",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
"""Folders `find_skills` never enters: version control, vendored packages, virtual environments
and tool caches. Other hidden folders (.claude, .gemini, .codex, …) are entered."""


WORKSPACE_MARKER = "history.json"
_VERSION_DIR = re.compile(r"v\d+")


def is_workspace(folder: str | Path) -> bool:
    """A behavior workspace (`skillbench init`'s ``<skill>-workspace/``: history.json beside
    ``v<N>/`` snapshots): its snapshot copies are not skills of the library."""
    path = os.fspath(folder)
    if not os.path.isfile(os.path.join(path, WORKSPACE_MARKER)):
        return False
    try:
        names = os.listdir(path)
    except OSError:
        return False
    return any(_VERSION_DIR.fullmatch(name) for name in names)


def _walk_skills(root: str | Path) -> list[str]:
    """Every folder under `root` holding a SKILL.md, links to skill folders included."""
    found: list[str] = []
    for current, dirs, files in os.walk(os.fspath(root), followlinks=False):
        if SKILL_MD in files or SKILL_MD in dirs:
            found.append(current)
        kept = []
        for name in dirs:
            if name in SKIPPED_DIRS:
                continue
            path = os.path.join(current, name)
            if os.path.islink(path):
                if os.path.lexists(os.path.join(path, SKILL_MD)):
                    found.append(path)
                continue
            if is_workspace(path):
                continue
            kept.append(name)
        dirs[:] = kept
    return sorted(found, key=lambda p: Path(p).as_posix())


def skill_aliases(root: str | Path) -> dict[Path, Path]:
    """Linked skill folders under `root` whose target is another listed skill folder (e.g.
    ``.codex/skills/x`` -> ``../../.claude/skills/x``), mapped to that folder: one skill, two
    paths. The real folder wins; between links, the first in sorted order."""
    return _aliases_of(_walk_skills(root))


def _aliases_of(paths: list[str]) -> dict[Path, Path]:
    canonical: dict[str, str] = {}
    aliases: dict[Path, Path] = {}
    for path in sorted(paths, key=lambda p: (os.path.islink(p), Path(p).as_posix())):
        real = os.path.realpath(path)
        if real in canonical:
            aliases[Path(path)] = Path(canonical[real])
        else:
            canonical[real] = path
    return aliases


def find_skills(root: str | Path) -> list[Path]:
    """Every skill folder under `root` (root included) holding a SKILL.md (a file or a link),
    each skill once, sorted.

    Hidden folders are entered (``.claude/skills``, ``.gemini/skills``, ``.codex/skills``),
    plugin layouts (``plugins/*/skills/*``) are found like any other; `SKIPPED_DIRS` and
    behavior workspaces (`is_workspace`) are not. A symlinked folder is listed when it holds a
    SKILL.md but never walked into (no loops), and only when its target is not listed already
    (`skill_aliases`).
    """
    paths = _walk_skills(root)
    aliases = _aliases_of(paths) if any(os.path.islink(p) for p in paths) else {}
    return [Path(p) for p in paths if Path(p) not in aliases]
