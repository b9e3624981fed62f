"""Which listed skill a Codex tool call opens: Codex has no skill tool, the model opens a skill by
reading its SKILL.md with a command (issue 32: "any command naming a SKILL.md" counted an `ls`
and a 3-line peek before the model turned to another skill).

The rule (`opened`):

1. A call's shell commands are read from its arguments: `exec_command`'s `cmd` (and `workdir`),
   a `shell` / `local_shell_call` argv (`bash -lc '<script>'` unwrapped), the `cmd:` strings of a
   responses-lite `exec` JavaScript cell, a session's `command_execution`. Each script is split
   into pipelines and simple commands (`;`, `&&`, `||`, `|`, newlines), `cd` followed.
2. A command **reads** a listed skill's SKILL.md when it prints its content to the model:
   `cat`, `bat`, `less`, `more`, `nl`, `tac`, `head`, `tail`, `sed`, `awk`, an interpreter
   (`python -c "open(…).read()"`), `Get-Content`, or `< SKILL.md` into any of those. Naming the
   file is not reading it: `ls`, `test -f`, `[ -f ]`, `stat`, `wc`, `file`, `grep` / `rg` (a
   search, not the instructions) and anything else do not count, nor does a read whose output
   goes to a file (`> out`) or into a pipe that does not show it (`| wc`, `| grep`, `| sha256sum`).
3. A read is **partial** when bounded to its first lines (`head -n 3`, `sed -n 1,3p`,
   `awk 'NR<=3'`, a frontmatter-only `sed -n '/^---/,/^---/p'`, or piped into such a bound); a
   partial read of at most `PEEK_LINES` lines is a **peek**.
4. The first read decides, except a peek followed in the same call by a read of another skill:
   the model looked at that skill's head and turned to the other one, which decides instead. A
   peek alone counts for its skill (the model began to read that skill's instructions).

Paths are matched to the listing's SKILL.md paths (roots expanded), relative ones against the
command's working folder, else by their `<folder>/SKILL.md` ending.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from skillbench.backends.codex.listing import ListedSkill

PEEK_LINES = 40
"""The most lines a bounded read may show and still be a peek (rule 4): a skill's frontmatter
and first lines, not its instructions (Codex reads a whole skill with `sed -n '1,200p'`)."""
SKILL_FILE = "SKILL.md"
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "pwsh", "powershell"})
READERS = frozenset(
    {"cat", "bat", "batcat", "less", "more", "most", "nl", "tac", "view", "strings", "type"}
    | {"Get-Content", "gc"}
)
INTERPRETERS = frozenset({"python", "python3", "node", "ruby", "perl", "deno", "bun"})
#: Pipe stages after which the content no longer reaches the model as text.
HIDING = frozenset(
    {"wc", "grep", "egrep", "fgrep", "rg", "ag", "md5sum", "sha1sum", "sha256sum", "cksum"}
    | {"shasum", "b2sum", "true", "false", "test", "["}
)
WRAPPERS = frozenset({"sudo", "command", "exec", "time", "nohup", "env", "nice", "stdbuf"})
_SEPARATORS = frozenset({";", "&&", "||", "&", "\n", "(", ")", ";;", "|&"})
_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", ">&", "<&"})
_NUMBER = re.compile(r"^-?\d+$")
_SED_RANGE = re.compile(r"^\s*(\d+)\s*(?:,\s*(\d+|\$)\s*)?p\s*$")
_SED_QUIT = re.compile(r"^\s*(\d+)\s*q\s*$")
_AWK_BOUND = re.compile(r"NR\s*(<=?)\s*(\d+)")
_JS_STRING = r"(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)"
_JS_CMD = re.compile(r"\bcmd\s*:\s*" + _JS_STRING, re.S)
_JS_WORKDIR = re.compile(r"\bworkdir\s*:\s*" + _JS_STRING, re.S)


@dataclass(frozen=True)
class Read:
    """One read of a listed skill's SKILL.md: the skill and how many lines it shows (None: the
    whole file)."""

    skill: ListedSkill
    lines: int | None

    @property
    def peek(self) -> bool:
        """At most `PEEK_LINES` lines from the top."""
        return self.lines is not None and self.lines <= PEEK_LINES


@dataclass(frozen=True)
class Script:
    """One shell script a call runs, and the folder it runs in (None: the project)."""

    text: str
    workdir: str | None = None


# -- what a call runs ----------------------------------------------------------------------------


def scripts(item: Mapping[str, Any]) -> list[Script]:
    """The shell scripts a Responses tool call item runs."""
    kind = item.get("type")
    if kind == "local_shell_call":
        action = item.get("action") or {}
        return _from_arguments(action) if isinstance(action, Mapping) else []
    for key in ("arguments", "input"):
        value = item.get(key)
        if isinstance(value, Mapping):
            return _from_arguments(value)
        if not isinstance(value, str):
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            return _from_javascript(value)
        if isinstance(parsed, Mapping):
            return _from_arguments(parsed)
        return []
    return []


def _from_arguments(args: Mapping[str, Any]) -> list[Script]:
    workdir = next(
        (args[k] for k in ("workdir", "working_directory", "cwd") if isinstance(args.get(k), str)),
        None,
    )
    found: list[Script] = []
    for key in ("cmd", "command", "script"):
        value = args.get(key)
        if isinstance(value, str):
            found.append(Script(_unwrap(shlex_split(value)) or value, workdir))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            found.append(Script(_unwrap(value) or shlex.join(value), workdir))
    return found


def _from_javascript(code: str) -> list[Script]:
    """The `cmd:` strings of a responses-lite `exec` cell (`tools.exec_command({cmd: …})`), each
    with the `workdir:` of the same object literal."""
    found: list[Script] = []
    for match in _JS_CMD.finditer(code):
        start = code.rfind("{", 0, match.start())
        end = code.find("}", match.end())
        span = code[start if start >= 0 else match.start() : end if end >= 0 else len(code)]
        workdir = _JS_WORKDIR.search(span)
        found.append(
            Script(
                _js_string(match.group(1)),
                _js_string(workdir.group(1)) if workdir is not None else None,
            )
        )
    return found


def _js_string(literal: str) -> str:
    if literal.startswith('"'):
        try:
            return str(json.loads(literal))
        except ValueError:
            pass
    body = literal[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def shlex_split(text: str) -> list[str]:
    """`shlex.split`, or the words by whitespace when the quoting is broken."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _unwrap(argv: Sequence[str]) -> str | None:
    """The script of `bash -lc '<script>'` (any shell, any `-c` flag group), else None."""
    if len(argv) >= 3 and posixpath.basename(argv[0]) in SHELLS:
        for index, flag in enumerate(argv[1:-1], start=1):
            if flag.startswith("-") and not flag.startswith("--") and "c" in flag[1:]:
                return argv[index + 1]
            if flag.lower() in ("-command", "-c"):
                return argv[index + 1]
    return None


# -- what a script reads --------------------------------------------------------------------------


@dataclass
class _Command:
    words: list[str]
    inputs: list[str]
    to_file: bool = False


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:  # broken quoting: words and separators by whitespace
        return re.findall(r"&&|\|\||[;|&()<>\n]|[^\s;|&()<>]+", text)


def _pipelines(text: str) -> list[list[_Command]]:
    """The script as pipelines of simple commands (words, input files, output to a file)."""
    pipelines: list[list[_Command]] = []
    current: list[_Command] = [_Command([], [])]
    tokens = _tokens(text)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        command = current[-1]
        if token in _SEPARATORS:
            pipelines.append(current)
            current = [_Command([], [])]
        elif token == "|":
            current.append(_Command([], []))
        elif token in _REDIRECTS:
            target = tokens[index + 1] if index + 1 < len(tokens) else ""
            index += 1
            fd = command.words.pop() if command.words and command.words[-1] in ("1", "2") else ""
            if token == "<":
                command.inputs.append(target)
            elif token in (">", ">>", ">|", "&>", "&>>") and fd != "2":
                command.to_file = command.to_file or target not in ("/dev/stdout", "/dev/tty")
        else:
            command.words.append(token)
        index += 1
    pipelines.append(current)
    return [[c for c in p if c.words or c.inputs] for p in pipelines if any(c.words for c in p)]


def _program(words: Sequence[str]) -> tuple[str, list[str]]:
    """The command's program (wrappers and variable assignments skipped) and its arguments."""
    index = 0
    while index < len(words) and (
        words[index] in WRAPPERS or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[index])
    ):
        index += 1
    if index >= len(words):
        return "", []
    return posixpath.basename(words[index]), list(words[index + 1 :])


def _line_count(args: Sequence[str], default: int | None) -> int | None:
    """`head` / `tail`'s line count: `-n N`, `-nN`, `-N`, `--lines=N`; bytes (`-c`) as one
    line; `-n -N` / `-n +N` (all but / from) as the whole file."""
    count = default
    index = 0
    while index < len(args):
        arg = args[index]
        value: str | None = None
        if arg in ("-n", "--lines", "-c", "--bytes") and index + 1 < len(args):
            value = args[index + 1]
            index += 1
            if arg in ("-c", "--bytes"):
                value = "1"
        elif arg.startswith("--lines="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-n") and len(arg) > 2:
            value = arg[2:]
        elif arg.startswith(("-c", "--bytes=")) and len(arg) > 2:
            value = "1"
        elif re.match(r"^-\d+$", arg):
            value = arg[1:]
        if value is not None:
            count = (
                None if value.startswith(("-", "+")) else int(value) if value.isdigit() else count
            )
        index += 1
    return count


def _sed_lines(args: Sequence[str]) -> int | None:
    """The lines a `sed` prints from the top: `-n 'A,Bp'` (B-A+1 from line A ≤ B), `'Nq'`;
    a pattern range under `-n` is a frontmatter-sized peek; anything else the whole file."""
    quiet = any(a in ("-n", "--quiet", "--silent") or re.match(r"^-[a-zA-Z]*n", a) for a in args)
    programs = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "--expression")]
    if not programs:
        programs = [a for a in args if not a.startswith("-")][:1]
    for program in programs:
        found = _SED_RANGE.match(program)
        if found and quiet:
            first, last = int(found.group(1)), found.group(2)
            return None if last == "$" else max(int(last or first) - first + 1, 1)
        found = _SED_QUIT.match(program)
        if found:
            return int(found.group(1))
        if quiet and "/" in program and program.rstrip().endswith("p"):
            return PEEK_LINES
    return None


def _awk_lines(args: Sequence[str]) -> int | None:
    program = next((a for a in args if not a.startswith("-")), "")
    found = _AWK_BOUND.search(program)
    if found is not None:
        return int(found.group(2)) - (1 if found.group(1) == "<" else 0)
    return PEEK_LINES if "NR" in program else None


def _shown(program: str, args: Sequence[str]) -> tuple[bool, int | None]:
    """Whether `program` prints its input files to the model, and how many lines (None:
    all)."""
    if program in READERS:
        return True, None
    if program == "head":
        return True, _line_count(args, 10)
    if program == "tail":
        return True, _line_count(args, 10)
    if program == "sed":
        return True, _sed_lines(args)
    if program in ("awk", "gawk", "mawk"):
        return True, _awk_lines(args)
    return False, None


def _bound(lines: int | None, more: int | None) -> int | None:
    if lines is None:
        return more
    return lines if more is None else min(lines, more)


def _match(path: str, cwd: str | None, listed: Sequence[ListedSkill]) -> ListedSkill | None:
    """The listed skill whose SKILL.md `path` names (relative to `cwd`), or None."""
    if posixpath.basename(path) != SKILL_FILE or any(c in path for c in "*?["):
        return None
    full = posixpath.normpath(path if path.startswith(("/", "~")) or not cwd else f"{cwd}/{path}")
    for skill in listed:
        if posixpath.normpath(skill.file) == full:
            return skill
    tail = "/" + full
    for skill in listed:
        if tail.endswith(f"/{skill.folder}/{SKILL_FILE}"):
            return skill
    return None


def _interpreter_reads(
    args: Sequence[str], cwd: str | None, listed: Sequence[ListedSkill]
) -> list[Read]:
    found: list[Read] = []
    for arg in args:
        if "open" not in arg and "read" not in arg.lower():
            continue
        for path in re.findall(r"[^\s'\"`()]*" + re.escape(SKILL_FILE), arg):
            skill = _match(path, cwd, listed)
            if skill is not None:
                found.append(Read(skill, None))
    return found


def reads(script: Script, listed: Sequence[ListedSkill]) -> list[Read]:
    """The reads of listed skills' SKILL.md a script makes, in order (rules 1-3)."""
    found: list[Read] = []
    cwd = script.workdir
    for pipeline in _pipelines(script.text):
        stages = [_program(command.words) for command in pipeline]
        for index, (command, (program, args)) in enumerate(zip(pipeline, stages, strict=True)):
            if program == "cd" and len(pipeline) == 1:
                target = next((a for a in args if not a.startswith("-")), "")
                if target and not target.startswith(("~", "$")):
                    cwd = posixpath.normpath(
                        target if target.startswith("/") or not cwd else f"{cwd}/{target}"
                    )
                continue
            if program in INTERPRETERS:
                made = _interpreter_reads(args, cwd, listed)
            else:
                shows, lines = _shown(program, args)
                if not shows:
                    continue
                names = [*args, *command.inputs]
                made = [
                    Read(skill, lines)
                    for skill in (_match(name, cwd, listed) for name in names)
                    if skill is not None
                ]
            if not made:
                continue
            after = stages[index + 1 :]
            if command.to_file or any(p in HIDING for p, _ in after):
                continue
            if any(c.to_file for c in pipeline[index + 1 :]):
                continue
            more: int | None = None
            for later, later_args in after:
                passes, cut = _shown(later, later_args)
                if passes:
                    more = _bound(more, cut)
            found += [Read(r.skill, _bound(r.lines, more)) for r in made]
    return found


def opened(item: Mapping[str, Any], listed: Sequence[ListedSkill]) -> ListedSkill | None:
    """The listed skill a tool call opens (rule 4), or None: it reads none."""
    made = [read for script in scripts(item) for read in reads(script, listed)]
    for index, read in enumerate(made):
        turned = any(r.skill != read.skill for r in made[index + 1 :])
        if read.peek and turned:
            continue
        return read.skill
    return None
