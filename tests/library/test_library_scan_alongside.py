"""The library summary's ``Scan: …`` line is made by a child process while the library is
routed (issue 38: the scan is a third of a 10,000-skill run): the same line as made in-process,
and a scan that fails in the child fails in the caller with the caller's own error."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from skillbench.cli.library_cmd import _scan_alongside, _scan_line
from skillbench.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"


def test_the_child_gives_the_line_made_in_process() -> None:
    expected = _scan_line(str(SAMPLE))
    assert expected.startswith("Scan: ")
    with _scan_alongside(str(SAMPLE), wanted=True) as scan:
        assert scan() == expected
    with _scan_alongside(str(SAMPLE), wanted=False) as scan:
        assert scan() == expected


def test_a_scan_failing_in_the_child_raises_the_callers_error(tmp_path: Path) -> None:
    empty = tmp_path / "no-skills"
    empty.mkdir()
    with _scan_alongside(str(empty), wanted=True) as scan, pytest.raises(InputError) as caught:
        scan()
    assert "no skill folders" in str(caught.value)


def test_routing_that_fails_stops_the_child() -> None:
    with pytest.raises(RuntimeError), _scan_alongside(str(SAMPLE), wanted=True):
        assert len(multiprocessing.active_children()) == 1
        raise RuntimeError("routing failed")
    assert not multiprocessing.active_children()  # stopped and reaped, no orphan left
