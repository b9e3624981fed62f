"""What a CI job reads: GitHub Actions workflow commands and JUnit XML, for any command.

A command turns its results into `CiCase`s (one per query, expectation or case: passed, failed,
error or skipped), then prints `github_lines(cases)` (`--format github`) and writes
`write_junit(path, suite, cases)` (`--junit FILE`). One writer, one escaper: `validate`'s
annotations use the same `escape_data` / `escape_property`.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from xml.etree import ElementTree as ET

from skillbench.io import atomic_write_text, terminal_safe

Outcome = Literal["passed", "failed", "error", "skipped"]

#: Characters XML 1.0 cannot hold at all (not even escaped): replaced by U+FFFD.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


@dataclass(frozen=True)
class CiCase:
    """One checked item: `group` is its JUnit classname (e.g. the skill, or config/case/run),
    `name` the item; `message` says why it failed, errored or was skipped; `file` and `line`
    point a GitHub annotation at the input that holds it; `warn` marks a passed case worth a
    look (a `::warning`, e.g. a drop too small to be significant)."""

    group: str
    name: str
    outcome: Outcome
    message: str = ""
    file: str | Path | None = None
    line: int | None = None
    seconds: float | None = None
    warn: bool = False


# ---------------------------------------------------------------------------------------------
# GitHub Actions workflow commands


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped as GitHub requires, then control
    characters shown as escapes and secrets redacted."""
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return terminal_safe(escaped)


def escape_property(text: str) -> str:
    """A workflow command's property value (`file=`, `title=`): also `:` and `,` escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


#: A step output's or environment variable's name, as `$GITHUB_OUTPUT` / `$GITHUB_ENV` take it.
_FILE_COMMAND_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def file_command_text(values: Mapping[str, str]) -> str:
    """`values` as `$GITHUB_OUTPUT` / `$GITHUB_ENV` lines: `name=value` for a one-line value,
    else a `name<<DELIMITER` block whose delimiter is random and absent from the value, so no
    value can end its block early or set another name. ValueError on a malformed name."""
    lines = []
    for name, value in values.items():
        if not _FILE_COMMAND_NAME.fullmatch(name):
            raise ValueError(f"not an output or variable name: {name!r}")
        if "\n" not in value and "\r" not in value:
            lines.append(f"{name}={value}\n")
            continue
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        while delimiter in value:  # pragma: no cover - 128 random bits
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(lines)


def append_file_command(variable: str, values: Mapping[str, str]) -> Path | None:
    """Append `values` to the file `$variable` names (`GITHUB_OUTPUT` or `GITHUB_ENV`): that
    path, or None when the variable is not set."""
    path = os.environ.get(variable)
    if not path:
        return None
    text = file_command_text(values)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
    return Path(path)


def relative_file(path: str | Path, cwd: str | Path | None = None) -> str:
    """`path` relative to `cwd` (default the working directory, the checkout in a CI job), in
    POSIX form, so GitHub places the annotation on the diff."""
    base = os.path.abspath(cwd or os.getcwd())
    return Path(os.path.relpath(os.path.abspath(path), base)).as_posix()


def annotation(
    level: Literal["error", "warning", "notice"],
    message: str,
    *,
    file: str | Path | None = None,
    line: int | None = None,
    title: str | None = None,
) -> str:
    """One `::error file=…,line=…,title=…::message` workflow command."""
    props = []
    if file is not None:
        props.append(f"file={escape_property(relative_file(file))}")
        if line is not None:
            props.append(f"line={line}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{level} {','.join(props)}" if props else f"::{level}"
    return f"{head}::{escape_data(message)}"


def github_lines(cases: Sequence[CiCase], *, title: str) -> list[str]:
    """An `::error` per failed or errored case (`::warning` per skipped or `warn` one), titled
    `title: group`."""
    levels = {"failed": "error", "error": "error", "skipped": "warning"}
    lines = []
    for case in cases:
        level = levels.get(case.outcome) or ("warning" if case.warn else None)
        if level is None:
            continue
        text = f"{case.name}: {case.message}" if case.message else case.name
        lines.append(
            annotation(
                "error" if level == "error" else "warning",
                text,
                file=case.file,
                line=case.line,
                title=f"{title}: {case.group}" if case.group else title,
            )
        )
    return lines


def line_of(path: str | Path, needle: str) -> int | None:
    """The 1-based line of `path` where `needle` first appears (None when it does not or the
    file cannot be read): where an annotation about an eval query or expectation points."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    at = text.find(needle)
    return None if at < 0 else text.count("\n", 0, at) + 1


# ---------------------------------------------------------------------------------------------
# JUnit XML


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def junit_xml(suite: str, cases: Sequence[CiCase]) -> str:
    """One `<testsuite>` (in a `<testsuites>`) with a `<testcase>` per case: a failure as
    `<failure>`, an error as `<error>`, a skipped case as `<skipped>`."""
    counts = {k: sum(1 for c in cases if c.outcome == k) for k in ("failed", "error", "skipped")}
    total_seconds = sum(c.seconds or 0.0 for c in cases)
    root = ET.Element(
        "testsuites",
        tests=str(len(cases)),
        failures=str(counts["failed"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
    )
    node = ET.SubElement(
        root,
        "testsuite",
        name=_xml_text(suite),
        tests=str(len(cases)),
        failures=str(counts["failed"]),
        errors=str(counts["error"]),
        skipped=str(counts["skipped"]),
        time=f"{total_seconds:.3f}",
    )
    tags = {"failed": "failure", "error": "error", "skipped": "skipped"}
    for case in cases:
        attrs = {"classname": _xml_text(case.group), "name": _xml_text(case.name)}
        if case.seconds is not None:
            attrs["time"] = f"{case.seconds:.3f}"
        if case.file is not None:
            attrs["file"] = _xml_text(relative_file(case.file))
            if case.line is not None:
                attrs["line"] = str(case.line)
        element = ET.SubElement(node, "testcase", attrs)
        tag = tags.get(case.outcome)
        if tag is not None:
            detail = ET.SubElement(element, tag, message=_xml_text(case.message))
            detail.text = _xml_text(case.message)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def write_junit(path: str | Path, suite: str, cases: Sequence[CiCase]) -> Path:
    """Write the JUnit XML of `cases` to `path` atomically (secrets redacted, as every write)."""
    return atomic_write_text(path, junit_xml(suite, cases))
