"""Hostile SKILL.md input: always a finding, never a traceback, fast and bounded."""

from __future__ import annotations

import builtins
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.schemas.validation import ValidationReport
from skillbench.validate.rules import validate_skill

LIMIT_S = 2.0


@contextmanager
def time_bound() -> Iterator[None]:
    start = time.perf_counter()
    yield
    assert time.perf_counter() - start < LIMIT_S


def only_error(report: ValidationReport) -> tuple[str, str]:
    assert not report.valid
    assert len(report.errors) == 1, report
    return report.errors[0].code, report.errors[0].message


def check(path: Path, code: str, fragment: str) -> None:
    with time_bound():
        report = validate_skill(path)
    got_code, message = only_error(report)
    assert got_code == code
    assert fragment in message
    assert len(message) < 300


def test_empty_file(tmp_path: Path) -> None:
    check(make_skill(tmp_path, raw=b""), "FRONTMATTER_PARSE", "empty")


def test_binary_with_nul(tmp_path: Path) -> None:
    check(
        make_skill(tmp_path, raw=b"---\nname: x\x00\n---\n" + os.urandom(2000)),
        "FRONTMATTER_PARSE",
        "binary",
    )


def test_non_utf8(tmp_path: Path) -> None:
    raw = "---\nname: caf\u00e9\n---\n".encode("latin-1")
    check(make_skill(tmp_path, raw=raw), "FRONTMATTER_PARSE", "not UTF-8")


def test_billion_laughs(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{','.join(['*' + prev] * 9)}]")
    fm = "\n".join(lines) + "\nname: csv-tidy\n"
    check(make_skill(tmp_path, frontmatter=fm), "FRONTMATTER_INVALID", "alias")


def test_recursive_alias(tmp_path: Path) -> None:
    check(make_skill(tmp_path, frontmatter="a: &a [*a]\n"), "FRONTMATTER_INVALID", "alias")


def test_deep_nesting_does_not_crash(tmp_path: Path) -> None:
    fm = "a: " + "[" * 20000 + "]" * 20000 + "\n"
    check(make_skill(tmp_path, frontmatter=fm), "FRONTMATTER_INVALID", "nested")


def test_five_megabyte_body(tmp_path: Path) -> None:
    body = ("word [link](ok.md) " * 20 + "\n") * 13000  # ~5 MB, 13k lines
    assert len(body) > 4_900_000
    path = make_skill(tmp_path, body=body)
    with time_bound():
        report = validate_skill(path)
    assert report.valid
    assert [f.code for f in report.warnings] == ["SKILL_MD_TOO_LONG"]


def test_five_megabyte_single_line_of_brackets(tmp_path: Path) -> None:
    path = make_skill(tmp_path, body="[" * 5_000_000 + "](" * 10 + "\n")
    with time_bound():
        report = validate_skill(path)
    assert report.valid


def test_five_megabyte_description(tmp_path: Path) -> None:
    fm = f"name: csv-tidy\ndescription: Use when {'x' * 5_000_000}\n"
    check(make_skill(tmp_path, frontmatter=fm), "FRONTMATTER_INVALID", "limit")


@pytest.mark.parametrize(
    "frontmatter",
    [
        "a: 2024-13-45\n",
        "? [a, b]\n: c\n",
        "a: \x07\n",
        f"n: {'9' * 5000}\n",
        "a: !!python/object:os.system x\n",
    ],
)
def test_construction_errors_are_findings(tmp_path: Path, frontmatter: str) -> None:
    check(make_skill(tmp_path, frontmatter=frontmatter), "FRONTMATTER_INVALID", "YAML")


def test_symlink_leaving_the_skill_folder_is_an_error(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "shared.md"
    outside.parent.mkdir()
    outside.write_text(f"---\nname: csv-tidy\ndescription: {GOOD_DESCRIPTION}\n---\n")
    library = tmp_path / "library"
    folder = library / "csv-tidy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(outside)
    with time_bound():
        report = validate_skill(folder)
    assert not report.valid, report
    assert [f.code for f in report.errors] == ["SKILL_MD_LINK_OUTSIDE"]
    assert "shared.md" in report.errors[0].message


def test_symlink_inside_the_folder_is_followed(tmp_path: Path) -> None:
    folder = make_skill(tmp_path)
    (folder / "real.md").write_bytes((folder / "SKILL.md").read_bytes())
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to("real.md")
    assert validate_skill(folder).valid


def test_fifo_is_not_opened(tmp_path: Path) -> None:
    folder = tmp_path / "csv-tidy"
    folder.mkdir()
    os.mkfifo(folder / "SKILL.md")
    check(folder, "SKILL_MD_MISSING", "not a regular file")


def test_dangling_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "csv-tidy"
    folder.mkdir()
    (folder / "SKILL.md").symlink_to("../gone/missing.md")
    check(folder, "SKILL_MD_MISSING", "symlink to '../gone/missing.md', which does not exist")


def test_looping_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "csv-tidy"
    folder.mkdir()
    (folder / "SKILL.md").symlink_to("SKILL.md")
    check(folder, "SKILL_MD_MISSING", "symlink to 'SKILL.md', which cannot be followed")


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = make_skill(tmp_path)
    real_open = builtins.open

    def deny(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file).endswith("SKILL.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", deny)
    check(path, "SKILL_MD_MISSING", "Permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files regardless of mode")
def test_unreadable_file_by_mode(tmp_path: Path) -> None:
    path = make_skill(tmp_path)
    (path / "SKILL.md").chmod(0)
    try:
        check(path, "SKILL_MD_MISSING", "cannot be read")
    finally:
        (path / "SKILL.md").chmod(0o644)


def test_wrong_case_file_name_hint(tmp_path: Path) -> None:
    folder = tmp_path / "csv-tidy"
    folder.mkdir()
    (folder / "skill.md").write_text("---\nname: csv-tidy\n---\n")
    if (folder / "SKILL.md").exists():
        pytest.skip("case-insensitive file system")
    check(folder, "SKILL_MD_MISSING", "must be named SKILL.md")


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (b"name: x\n---\n", "line 1"),
        (b"---\nname: x\n", "no closing"),
        (b"---\nname: x\n---", None),
    ],
)
def test_delimiters(tmp_path: Path, raw: bytes, fragment: str | None) -> None:
    path = make_skill(tmp_path, folder="x", raw=raw)
    if fragment is None:
        report = validate_skill(path)
        assert report.valid, report
    else:
        check(path, "FRONTMATTER_PARSE", fragment)
