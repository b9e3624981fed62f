"""The shared CI writers: GitHub workflow commands and JUnit XML."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from skillbench.reports.ci import CiCase, annotation, github_lines, junit_xml, write_junit

KEY = "sk-ant-api03-" + "Q" * 40


def test_annotations_escape_what_github_reads_as_syntax() -> None:
    line = annotation("error", "50% done\nnext: a,b", file="a,b:c.json", line=3, title="t: x")
    assert line == "::error file=a%2Cb%3Ac.json,line=3,title=t%3A x::50%25 done%0Anext: a,b"
    assert annotation("warning", f"key {KEY}").endswith("key [REDACTED]")
    cases = [
        CiCase("g", "ok", "passed"),
        CiCase("g", "bad", "failed", "why"),
        CiCase("g", "odd", "skipped", "undecided"),
    ]
    assert github_lines(cases, title="grade") == [
        "::error title=grade%3A g::bad: why",
        "::warning title=grade%3A g::odd: undecided",
    ]


def test_junit_holds_any_text_and_no_secret(tmp_path: Path) -> None:
    cases = [
        CiCase("skill", "a <b> & \x00 \x1b[31m", "failed", f"leaked {KEY}"),
        CiCase("skill", "fine", "passed", seconds=0.5),
        CiCase("skill", "broken", "error", "no run completed"),
        CiCase("skill", "maybe", "skipped", "UNGRADED"),
    ]
    assert "\x00" not in junit_xml("s", cases)
    path = write_junit(tmp_path / "out.xml", "trigger", cases)
    text = path.read_text(encoding="utf-8")
    assert KEY not in text and "[REDACTED]" in text
    suite = ET.fromstring(text).find("testsuite")
    assert suite is not None
    assert [suite.get(k) for k in ("tests", "failures", "errors", "skipped")] == [
        "4",
        "1",
        "1",
        "1",
    ]
    names = [c.get("name") for c in suite.iter("testcase")]
    assert names[0] == "a <b> & \ufffd \ufffd[31m"
    assert [p.name for p in tmp_path.iterdir()] == ["out.xml"]
