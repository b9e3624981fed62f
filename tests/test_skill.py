"""Skill loading, hashing, candidate descriptions and byte-preserving description writes."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import yaml
from validate_helpers import GOOD_DESCRIPTION, make_skill

from skillbench.errors import InputError
from skillbench.skill import Skill, parse_frontmatter, replace_description, write_description

NEW = "Tidies CSV files: headers, quoting, # and 'quotes'. Use when a CSV is messy."


def test_load_fields(tmp_path: Path) -> None:
    path = make_skill(tmp_path, files={"scripts/run.py": "print(1)\n", "__pycache__/x.pyc": "b"})
    skill = Skill.load(path)
    assert skill.name == "csv-tidy"
    assert skill.description == GOOD_DESCRIPTION
    assert skill.body == "# CSV tidy\n\nSteps.\n"
    assert skill.files == ("SKILL.md", "scripts/run.py")
    assert skill.text[slice(*skill.frontmatter_span)].startswith("name: csv-tidy")
    assert Skill.load(path / "SKILL.md").content_hash == skill.content_hash


def test_content_hash_tracks_every_file(tmp_path: Path) -> None:
    path = make_skill(tmp_path, files={"ref/a.md": "one"})
    before = Skill.load(path).content_hash
    assert Skill.load(path).content_hash == before
    (path / "ref/a.md").write_text("two")
    assert Skill.load(path).content_hash != before
    (path / "ref/a.md").write_text("one")
    assert Skill.load(path).content_hash == before
    (path / "ref/b.md").write_text("")
    assert Skill.load(path).content_hash != before


@pytest.mark.parametrize(
    ("frontmatter", "rule"),
    [
        ("- a\n", "FRONTMATTER_INVALID"),
        ("name: x\n", "DESCRIPTION_EMPTY"),
        ("description: [1]\n", "DESCRIPTION_TYPE"),
    ],
)
def test_load_rejects_unusable(tmp_path: Path, frontmatter: str, rule: str) -> None:
    with pytest.raises(InputError) as info:
        Skill.load(make_skill(tmp_path, frontmatter=frontmatter))
    assert info.value.rule == rule
    assert "SKILL.md" in str(info.value)


def test_load_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        Skill.load(tmp_path / "nope")
    assert info.value.rule == "SKILL_DIR_MISSING"


def test_name_defaults_to_folder(tmp_path: Path) -> None:
    skill = Skill.load(
        make_skill(tmp_path, "my-tool", frontmatter=f"description: {GOOD_DESCRIPTION}\n")
    )
    assert skill.name == "my-tool"


def test_with_description_is_in_memory(tmp_path: Path) -> None:
    path = make_skill(tmp_path, files={"a.txt": "x"})
    before = (path / "SKILL.md").read_bytes()
    skill = Skill.load(path)
    candidate = skill.with_description(NEW)
    assert candidate.description == NEW
    assert candidate.body == skill.body and candidate.name == skill.name
    assert candidate.content_hash != skill.content_hash
    assert (path / "SKILL.md").read_bytes() == before
    write_description(path, NEW)
    assert Skill.load(path).content_hash == candidate.content_hash
    assert Skill.load(path).raw == candidate.raw


CRLF_BOM = (
    b"\xef\xbb\xbf---\r\n# leading comment\r\nname: csv-tidy   # the name\r\n"
    b"description: Old text. Use when old.\r\nlicense: MIT\r\n---\r\n# Body\r\n\r\nText.\r\n"
)
LITERAL = (
    b"---\nname: csv-tidy\ndescription: |\n    Old line one.\n    Old line two.\n\n"
    b"# between\nmetadata:\n  a: 1\n---\nbody\n"
)
FOLDED = (
    b"---\nname: csv-tidy\ndescription: > # keep me\n  Old folded\n  text.\nlicense: MIT\n---\nbody"
)
QUOTED = b'---\nname: csv-tidy\ndescription: "Old \\"quoted\\""\nallowed-tools: [Read]\n---\n'
MULTILINE_PLAIN = (
    b"---\nname: csv-tidy\ndescription: Old plain\n  continued here\nmodel: opus\n---\nbody\n"
)


OLD_VALUES = {
    CRLF_BOM: b"Old text. Use when old.",
    LITERAL: b"|\n    Old line one.\n    Old line two.",
    FOLDED: b"> # keep me\n  Old folded\n  text.",
    QUOTED: b'"Old \\"quoted\\""',
    MULTILINE_PLAIN: b"Old plain\n  continued here",
}


@pytest.mark.parametrize("raw", [CRLF_BOM, LITERAL, FOLDED, QUOTED, MULTILINE_PLAIN])
@pytest.mark.parametrize(
    "new", [NEW, "Line one.\nLine two. Use when asked.", "  padded  ", "x: y", "true", "é ✓ 😀"]
)
def test_write_description_preserves_every_other_byte(tmp_path: Path, raw: bytes, new: str) -> None:
    path = make_skill(tmp_path, raw=raw)
    (path / "SKILL.md").chmod(0o640)
    write_description(path, new)
    out = (path / "SKILL.md").read_bytes()
    mapping, body, problem = parse_frontmatter(out.decode("utf-8"))
    assert problem is None and mapping is not None
    assert mapping["description"] == new
    old_mapping, old_body, _ = parse_frontmatter(raw.decode("utf-8"))
    assert old_mapping is not None
    assert list(mapping) == list(old_mapping)
    assert {k: v for k, v in mapping.items() if k != "description"} == {
        k: v for k, v in old_mapping.items() if k != "description"
    }
    assert body == old_body
    # Only the description value changed: every byte before and after it is identical.
    old_value = OLD_VALUES[raw]
    i = raw.index(old_value)
    j = i + len(old_value)
    assert out.startswith(raw[:i])
    assert out.endswith(raw[j:])
    assert stat.S_IMODE((path / "SKILL.md").stat().st_mode) == 0o640
    if raw is CRLF_BOM:
        assert out.startswith(
            b"\xef\xbb\xbf---\r\n# leading comment\r\nname: csv-tidy   # the name\r\n"
        )
        assert out.endswith(b"\r\nlicense: MIT\r\n---\r\n# Body\r\n\r\nText.\r\n")
        assert b"\n" not in out.replace(b"\r\n", b"")


def test_exact_bytes_for_common_styles() -> None:
    assert replace_description(CRLF_BOM, "New. Use when new.") == CRLF_BOM.replace(
        b"Old text. Use when old.", b"New. Use when new."
    )
    assert replace_description(LITERAL, "A\nB") == LITERAL.replace(
        b"|\n    Old line one.\n    Old line two.", b"|-\n    A\n    B"
    )
    assert replace_description(FOLDED, "Short.") == FOLDED.replace(
        b"> # keep me\n  Old folded\n  text.", b">- # keep me\n  Short."
    )
    assert replace_description(QUOTED, 'say "hi"') == QUOTED.replace(
        b'"Old \\"quoted\\""', b'"say \\"hi\\""'
    )


def test_missing_description_is_appended() -> None:
    raw = b"---\nname: csv-tidy\nlicense: MIT\n---\nbody\n"
    assert (
        replace_description(raw, "Use when x.")
        == b"---\nname: csv-tidy\nlicense: MIT\ndescription: Use when x.\n---\nbody\n"
    )


def test_failed_write_leaves_file_untouched(tmp_path: Path) -> None:
    raw = b"---\nname: csv-tidy\ndescription: a\ndescription: b\n---\n"
    path = make_skill(tmp_path, raw=raw)
    with pytest.raises(InputError, match="more than once"):
        write_description(path, NEW)
    assert (path / "SKILL.md").read_bytes() == raw
    assert sorted(p.name for p in path.iterdir()) == ["SKILL.md"]
    with pytest.raises(InputError):
        write_description(path, "\ud800")


def test_write_through_symlink_keeps_the_link(tmp_path: Path) -> None:
    path = make_skill(tmp_path)
    (path / "real.md").write_bytes((path / "SKILL.md").read_bytes())
    (path / "SKILL.md").unlink()
    (path / "SKILL.md").symlink_to("real.md")
    write_description(path, NEW)
    assert (path / "SKILL.md").is_symlink()
    assert Skill.load(path).description == NEW


def test_second_bom_agrees_with_the_validator(tmp_path: Path) -> None:
    """A U+FEFF after the byte-order mark is skipped by the validator; loading and rewriting
    must accept the same file (they raised AssertionError), with offsets into `text`."""
    raw = (
        b"\xef\xbb\xbf\xef\xbb\xbf---\nname: csv-tidy\ndescription: Old. Use when old.\n---\nbody\n"
    )
    path = make_skill(tmp_path, raw=raw)
    skill = Skill.load(path)
    assert skill.description == "Old. Use when old."
    assert skill.text[slice(*skill.frontmatter_span)].startswith("name: csv-tidy")
    write_description(path, "New. Use when new.")
    assert (path / "SKILL.md").read_bytes() == raw.replace(
        b"Old. Use when old.", b"New. Use when new."
    )


def test_description_added_to_an_empty_frontmatter(tmp_path: Path) -> None:
    path = make_skill(tmp_path, frontmatter="")
    new = replace_description((path / "SKILL.md").read_bytes(), NEW)
    assert parse_frontmatter(new.decode()).mapping == {"description": NEW}


def test_a_skill_md_linking_out_of_its_folder_is_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27 (review): a catalog skill whose SKILL.md linked to a file elsewhere (here a
    private note; it could be ~/.aws/credentials) had that file sent to the model and stored.
    Loading refuses it, naming the link; a trigger eval with that catalog exits 2 before any
    call."""
    from skillbench.cli import main

    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.md").write_text(
        f"---\nname: notes\ndescription: {GOOD_DESCRIPTION} VICTIMSECRET\n---\nbody\n"
    )
    catalog = tmp_path / "catalog"
    (catalog / "helper").mkdir(parents=True)
    (catalog / "helper" / "SKILL.md").symlink_to(victim / "notes.md")
    with pytest.raises(InputError) as info:
        Skill.load(catalog / "helper")
    assert info.value.rule == "SKILL_MD_LINK_OUTSIDE"
    assert str(catalog / "helper" / "SKILL.md") in str(info.value)
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / "report.json"
    code = main(["trigger", str(root / "data" / "skills" / "csv-cleanup"), "--evals",
                 str(root / "data" / "evals" / "csv-cleanup.trigger.json"), "--backend",
                 "lexical", "--runs", "1", "--catalog", str(catalog), "--no-cache",
                 "--out", str(out)])  # fmt: skip
    assert code == 2
    assert "outside the skill folder" in capsys.readouterr().err
    assert not out.exists()


def test_a_skill_md_linking_inside_its_folder_is_read(tmp_path: Path) -> None:
    path = make_skill(tmp_path)
    (path / "docs").mkdir()
    (path / "docs" / "real.md").write_bytes((path / "SKILL.md").read_bytes())
    (path / "SKILL.md").unlink()
    (path / "SKILL.md").symlink_to("docs/real.md")
    assert Skill.load(path).skill_md == path / "SKILL.md"


def test_a_frontmatter_is_parsed_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library reads each SKILL.md's YAML for its entries, its listing and its install: the
    second read is a copy of the first parse, never a second run of the YAML loader."""
    import skillbench.skill as skill_module

    loaders: list[str] = []

    class Counting(skill_module._FAST_LOADER):  # type: ignore[misc,valid-type]
        def __init__(self, stream: str) -> None:
            loaders.append(stream)
            super().__init__(stream)

    monkeypatch.setattr(skill_module, "_FAST_LOADER", Counting)
    text = "name: parsed-once-a1\ndescription: Parses once.\ntags: [a, b]\n"
    first = skill_module.load_yaml_bounded(text)
    runs = len(loaders)
    second = skill_module.load_yaml_bounded(text)
    assert runs > 0 and len(loaders) == runs
    assert (
        first
        == second
        == {"name": "parsed-once-a1", "description": "Parses once.", "tags": ["a", "b"]}
    )
    second["tags"].append("c")  # each caller owns its value
    assert skill_module.load_yaml_bounded(text)["tags"] == ["a", "b"]
    assert first["tags"] == ["a", "b"]


def test_a_failed_parse_is_not_kept() -> None:
    from skillbench.skill import load_yaml_bounded

    for _ in range(2):
        with pytest.raises(yaml.YAMLError):
            load_yaml_bounded("name: [unclosed-a2\n")
