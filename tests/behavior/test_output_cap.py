"""The output cap of a behavior run (issue 38): a session that writes more than `--max-output`
bytes of files is an error naming the cap and the option, and its run folder keeps only the
files that fit; a session's files past the cap are never read into memory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skillbench.behavior.executors import failed_result
from skillbench.behavior.records import read_run_record
from skillbench.behavior.run_files import cap_outputs
from skillbench.behavior.workspace import Workspace
from skillbench.cli import main

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"
SKILL_MD = "---\nname: pdf-tools\ndescription: Use when merging PDF files.\n---\n# PDF\n"
MIB = 1 << 20


def make_skill(root: Path) -> Path:
    folder = root / "pdf-tools"
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    case = {"id": "one", "prompt": "merge", "expectations": []}
    case["expectations"] = [{"criterion": "c", "description": "d", "required": True}]
    (folder / "evals" / "evals.json").write_text(json.dumps({"cases": [case]}))
    return folder


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_a_session_past_the_cap_is_an_error_and_keeps_at_most_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE_AGENT))
    monkeypatch.setenv("FAKE_AGENT_SKILL", "*")
    monkeypatch.setenv("FAKE_AGENT_WRITE", "5:300000")  # 1.5 MB of files against a 1 MiB cap
    folder = make_skill(tmp_path)
    argv = ["run", str(folder), "--backend", "claude-code", "--runs", "1", "--no-cache"]
    code = main([*argv, "--configs", "with_skill", "--max-output", "1M"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "output cap of 1.0 MiB (--max-output)" in err
    run_dir = Workspace.for_skill(folder).run_dir("with_skill", "one", 1)
    record = read_run_record(run_dir / "run.json")
    assert record.status == "error" and record.error is not None
    assert "left out 2: out/big-3.bin, out/big-4.bin" in record.error
    outputs = run_dir / "outputs"
    kept = sorted(p.name for p in (outputs / "out").iterdir())
    assert kept == ["big-0.bin", "big-1.bin", "big-2.bin", "summary.md"]
    assert folder_bytes(outputs / "out") <= MIB
    assert folder_bytes(run_dir) <= MIB + 64 * 1024  # plus run.json, transcripts, metrics
    metrics = json.loads((outputs / "metrics.json").read_text())
    assert "out/big-3.bin" not in metrics["files_created"]


def test_a_session_within_the_cap_is_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CLAUDE_BIN", str(FAKE_AGENT))
    monkeypatch.setenv("FAKE_AGENT_SKILL", "*")
    monkeypatch.setenv("FAKE_AGENT_WRITE", "5:300000")
    folder = make_skill(tmp_path)
    argv = ["run", str(folder), "--backend", "claude-code", "--runs", "1", "--no-cache"]
    assert main([*argv, "--configs", "with_skill", "--max-output", "2M"]) == 0
    run_dir = Workspace.for_skill(folder).run_dir("with_skill", "one", 1)
    assert len(list((run_dir / "outputs" / "out").iterdir())) == 6


def test_a_bad_cap_is_refused_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = make_skill(tmp_path)
    assert main(["run", str(folder), "--max-output", "lots"]) == 2
    assert "--max-output" in capsys.readouterr().err
    assert not Workspace.for_skill(folder).root.exists()


def test_any_executors_result_is_capped_in_name_order() -> None:
    """A plugin's executor or a result cached under a larger cap: the same rule."""
    result = failed_result("", "p")
    result.status, result.error = "ok", None
    result.outputs = {"b.bin": os.urandom(600), "a.bin": os.urandom(500), "c.md": b"x" * 10}
    capped = cap_outputs(result, 1000)
    assert capped.status == "error" and sorted(capped.outputs) == ["a.bin", "c.md"]
    assert "left out 1: b.bin" in str(capped.error) and "(--max-output)" in str(capped.error)
    assert capped.to_cache() is None  # an over-cap run is never cached
    small = failed_result("", "p")
    small.status, small.error, small.outputs = "ok", None, {"a": b"x"}
    assert cap_outputs(small, 1000).status == "ok"


def test_files_past_the_cap_are_never_read_into_memory(tmp_path: Path) -> None:
    """40 MiB of files against a 1 MiB cap: the collection holds at most about the cap (the
    old collection read every file whole). Sparse files: nothing is written to disk."""
    import tracemalloc

    from skillbench.behavior.executors import ClaudeCodeExecutor

    project = tmp_path / "project"
    (project / "out").mkdir(parents=True)
    for index in range(20):
        with (project / "out" / f"part-{index:02}.bin").open("wb") as handle:
            handle.truncate(2 * MIB)
    runner = ClaudeCodeExecutor(claude_bin=FAKE_AGENT, max_output=MIB)
    tracemalloc.start()
    try:
        outputs, error = runner._collect(project, {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outputs == {} and error is not None and "left out 20" in error
    assert peak < 3 * MIB, peak


def test_files_within_the_cap_are_streamed_to_the_run_folder(tmp_path: Path) -> None:
    """40 MiB of files within the cap: collected, redacted and written one file at a time
    (memory holds about one file, never all of them), and the spool is gone afterwards."""
    import pickle
    import tracemalloc

    from skillbench.behavior.executors import ClaudeCodeExecutor
    from skillbench.behavior.records import RunRecord
    from skillbench.behavior.run_files import write_run_folder
    from skillbench.behavior.spool import SpooledOutputs

    project = tmp_path / "project"
    (project / "out").mkdir(parents=True)
    for index in range(20):
        with (project / "out" / f"part-{index:02}.bin").open("wb") as handle:
            handle.truncate(2 * MIB)
    (project / "out" / "note.md").write_text("hello\n")
    runner = ClaudeCodeExecutor(claude_bin=FAKE_AGENT, max_output=64 * MIB)
    result = failed_result("", "p")
    record = RunRecord(
        case_id="one",
        config="baseline",
        version=None,
        run_number=1,
        prompt="p",
        backend="claude-code",
        model=None,
        status="ok",
        error=None,
        final_text="",
        started_at="2026-12-02T00:00:00Z",
        duration_s=1.0,
    )
    tracemalloc.start()
    try:
        outputs, error = runner._collect(project, {})
        result.outputs = outputs
        run_dir = write_run_folder(tmp_path / "run-1", record, result)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error is None and isinstance(outputs, SpooledOutputs) and len(outputs) == 21
    assert peak < 12 * MIB, peak  # one 2 MiB file and the redactor's copies (6 MiB), not 40
    written = run_dir / "outputs" / "out"
    assert sorted(p.name for p in written.iterdir())[:2] == ["note.md", "part-00.bin"]
    assert (written / "part-19.bin").stat().st_size == 2 * MIB
    assert (written / "note.md").read_text() == "hello\n"
    travelled = pickle.loads(pickle.dumps({"note.md": b"x"} | dict(outputs.items())))
    assert travelled["out/note.md"] == b"hello\n"
    assert pickle.loads(pickle.dumps(outputs)) == dict(outputs.items())  # a dict on the wire
    root = outputs.root
    del outputs, result
    import gc

    gc.collect()
    assert not root.exists()  # the spool goes with its object
