"""Hostile input through the CLI: one line naming the option or file, exit 2, fast, nothing
half-written; control characters never reach the terminal raw."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.improve.plots import word_diff_html

BACKEND = "hostile-test"


def make_skill(root: Path) -> Path:
    folder = root / "pdf-maker"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: pdf-maker\ndescription: Makes PDF files.\n---\n# pdf\nBody.\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def judges(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[ScriptedJudge]]:
    made: list[ScriptedJudge] = []

    def factory(**options: object) -> ScriptedJudge:
        judge = ScriptedJudge({"make a pdf": "T"})
        made.append(judge)
        return judge

    registry.register_judge(BACKEND, factory)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    yield made
    registry.unregister(BACKEND)


def trigger(skill: Path, evals: Path | str, *extra: str) -> int:
    return main(["trigger", str(skill), "--evals", str(evals), "--backend", BACKEND, *extra])


def write_evals(tmp_path: Path, items: list[dict[str, object]]) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


GOOD = [{"query": "make a pdf", "should_trigger": True}, {"query": "x", "should_trigger": False}]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--runs", "100000000"], "argument --runs: expected an integer from 1 to 100"),
        (["--timeout", "nan"], "argument --timeout: expected a finite number"),
        (["--timeout", "inf"], "argument --timeout: expected a finite number"),
        (["--threshold", "nan"], "argument --threshold: expected a finite number in [0, 1]"),
        (["--confidence", "1"], "argument --confidence"),
        (["--workers", "100000"], "argument --workers: expected an integer from 1 to 64"),
        (["--seed", "9" * 5000], "argument --seed: expected an integer"),
    ],
)
def test_numbers_are_validated_before_any_call(
    judges: list[ScriptedJudge],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    named: str,
) -> None:
    assert trigger(make_skill(tmp_path), write_evals(tmp_path, GOOD), *extra) == 2
    assert named in capsys.readouterr().err
    assert not any(j.requests for j in judges)


def test_improve_split_nan_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path)
    argv = ["improve", str(skill), "--evals", str(write_evals(tmp_path, GOOD))]
    assert main([*argv, "--split", "nan,0.5,0.5", "--out", str(tmp_path / "o")]) == 2
    assert "--split: every split fraction must be a finite number" in capsys.readouterr().err


def test_out_under_a_file_fails_before_the_first_call(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    code = trigger(
        make_skill(tmp_path), write_evals(tmp_path, GOOD), "--out", str(blocker / "r.json")
    )
    assert code == 2
    assert "(--out)" in capsys.readouterr().err
    assert not any(j.requests for j in judges)  # checked before any model call


@pytest.mark.parametrize("kind", ["corrupt", "folder"])
def test_unusable_cache_fails_before_the_first_call(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    cache = tmp_path / "bad-cache"
    if kind == "folder":
        cache.mkdir()
    else:
        cache.write_bytes(b"\x00garbage" * 512)
    code = trigger(make_skill(tmp_path), write_evals(tmp_path, GOOD), "--cache", str(cache))
    err = capsys.readouterr().err
    assert code == 2 and "--cache" in err and "Traceback" not in err
    assert not any(j.requests for j in judges)


def test_missing_catalog_fails_before_the_first_call(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = trigger(
        make_skill(tmp_path), write_evals(tmp_path, GOOD), "--catalog", str(tmp_path / "none")
    )
    assert code == 2 and "catalog folder not found" in capsys.readouterr().err
    assert not any(j.requests for j in judges)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[" * 10_000 + "]" * 10_000, "nested deeper than 100 levels"),
        ('[{"query": "q", "should_trigger": ' + "9" * 5000 + "}]", "more than 4300 digits"),
        ('[{"query": "q \\ud800", "should_trigger": true}]', "[0].query: contains a lone"),
    ],
)
def test_hostile_eval_files_are_one_line(
    judges: list[ScriptedJudge],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str,
    message: str,
) -> None:
    evals = tmp_path / "evals.json"
    evals.write_text(content)
    assert trigger(make_skill(tmp_path), evals) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_dev_zero_and_fifo_are_refused_at_once(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    skill = make_skill(tmp_path)
    assert trigger(skill, "/dev/zero") == 2
    assert trigger(skill, fifo) == 2
    err = capsys.readouterr().err
    assert "is a device" in err and "is a FIFO" in err


def test_control_characters_never_reach_the_terminal_raw(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [
        {"query": "make a pdf", "should_trigger": True},
        {"query": "clear\x1b[2J screen\x07 \u202eevil\x9b", "should_trigger": False},
    ]
    assert trigger(make_skill(tmp_path), write_evals(tmp_path, items)) == 0
    out = capsys.readouterr()
    for raw in ("\x1b", "\x07", "\u202e", "\x9b"):
        assert raw not in out.out and raw not in out.err
    assert "\\x1b" in out.out


def test_json_output_escapes_terminal_controls(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [*GOOD, {"query": "weather \x1b\x9b\u202e", "should_trigger": False}]
    assert trigger(make_skill(tmp_path), write_evals(tmp_path, items), "--json") == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out
    assert json.loads(out)["results"][2]["query"] == "weather \x1b\x9b\u202e"


def test_html_stays_escaped() -> None:
    html = word_diff_html("<b>old</b>", "<script>alert(1)</script> new")
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_large_eval_sets_print_a_capped_table_failing_rows_first(
    judges: list[ScriptedJudge], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli.trigger_cmd import MAX_TABLE_ROWS

    items = [{"query": f"filler {i}", "should_trigger": False} for i in range(MAX_TABLE_ROWS + 50)]
    items.append({"query": "the one failing query", "should_trigger": True})
    out_file = tmp_path / "all.json"
    assert trigger(make_skill(tmp_path), write_evals(tmp_path, items), "--out", str(out_file)) == 1
    out = capsys.readouterr().out
    assert "the one failing query" in out
    assert "51 more queries not shown" in out
    assert out.count("filler ") == MAX_TABLE_ROWS - 1
    assert len(json.loads(out_file.read_text())["results"]) == len(items)


@pytest.mark.parametrize("under", [True, False])
def test_run_workspace_that_is_a_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], under: bool
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    workspace = blocker / "ws" if under else blocker
    assert main(["run", str(make_skill(tmp_path)), "--workspace", str(workspace)]) == 2
    assert "(--workspace)" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--description", "--model"])
def test_undecodable_option_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    argv = ["trigger", str(make_skill(tmp_path)), "--evals", "e.json", option, "abc\udcff"]
    assert main(argv) == 2
    assert f"argument {option}: is not valid UTF-8 text" in capsys.readouterr().err
