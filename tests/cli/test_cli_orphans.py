"""A `kill -9` of skillbench leaves no CLI session running and no scratch folder behind (issue 27).

A real `skillbench trigger` / `skillbench run` process (`python -m skillbench`) starts a fake
`claude` session that never ends (with a child of its own); skillbench is killed with SIGKILL
mid-session. The session must die with it, and the scratch folder it leaves must be removed by
the next skillbench start (and only then: a live owner's folder is kept).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "tests" / "fake_claude" / "claude"
FAKE_AGENT = ROOT / "tests" / "fake_claude_agent" / "claude"
FAKE_INTERACTIVE = ROOT / "tests" / "fake_claude_interactive" / "claude"
SKILL_MD = "---\nname: pdf-tools\ndescription: Use when merging PDF files.\n---\n# PDF\n"


def gone(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().split(") ")[1].startswith("Z")
    except (OSError, IndexError):
        return True


def wait_for(path: Path, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"skillbench exited ({proc.returncode}) before the session started")
        if time.monotonic() > deadline:
            pytest.fail("the fake session never started")
        time.sleep(0.1)
    time.sleep(0.2)  # the pid file is written whole


def setup(tmp_path: Path, command: str) -> tuple[list[str], dict[str, str], Path]:
    skill = tmp_path / "pdf-tools"
    skill.mkdir()
    (skill / "SKILL.md").write_text(SKILL_MD)
    record = tmp_path / "record"
    record.mkdir()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC_BASE"))}
    env.update(
        TMPDIR=str(scratch),
        ANTHROPIC_API_KEY="sk-ant-dummy",
        SKILLBENCH_CACHE=str(tmp_path / "cache.sqlite"),
        PYTHONPATH=str(ROOT),
    )
    base = [sys.executable, "-m", "skillbench", command, str(skill)]
    if command.startswith("trigger"):
        base[3] = "trigger"
        evals = tmp_path / "evals.json"
        evals.write_text(json.dumps([{"query": "merge pdfs", "should_trigger": True}]))
        interactive = command == "trigger-interactive"  # the CLI in a pty, not `claude -p`
        env.update(
            SKILLBENCH_CLAUDE_BIN=str(FAKE_INTERACTIVE if interactive else FAKE),
            FAKE_CLAUDE_SCENARIO="hang",
            FAKE_CLAUDE_SKILL="pdf-tools",
            FAKE_CLAUDE_RECORD=str(record),
        )
        args = [*base, "--evals", str(evals), "--backend", "claude-code", "--workers", "1"]
        args += ["--cli-mode", "interactive" if interactive else "print"]
    else:
        (skill / "evals").mkdir()
        expect = [{"criterion": "c", "description": "d", "required": True}]
        cases = {"cases": [{"id": "one", "prompt": "merge a.pdf", "expectations": expect}]}
        (skill / "evals" / "evals.json").write_text(json.dumps(cases))
        env.update(
            SKILLBENCH_CLAUDE_BIN=str(FAKE_AGENT),
            FAKE_AGENT_SCENARIO="hang",
            FAKE_AGENT_SKILL="",
            FAKE_AGENT_RECORD=str(record),
        )
        args = [*base, "--backend", "claude-code", "--configs", "baseline", "--runs", "1"]
    return args, env, record


@pytest.mark.parametrize("command", ["trigger", "trigger-interactive", "run"])
def test_kill_9_of_skillbench_ends_the_session_and_the_next_start_sweeps(
    tmp_path: Path, command: str
) -> None:
    args, env, record = setup(tmp_path, command)
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)  # fmt: skip
    try:
        pid_file = record / "cli.pid"
        wait_for(pid_file, proc)
        info = json.loads(pid_file.read_text())
        cli = int(info["pid"])
        child = int(info["child"]) if "child" in info else int((record / "child.pid").read_text())
        folder = Path(info["cwd"]).parent  # <tmp>/skillbench-cc-<pid>-*/project
        assert folder.name.startswith(f"skillbench-cc-{proc.pid}-")
        assert not gone(cli) and not gone(child)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not (gone(cli) and gone(child)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(cli), "the CLI session outlived skillbench"
        assert gone(child), "the session's own child outlived skillbench"
        assert folder.is_dir()  # nobody could remove it: SIGKILL
        # the next start (a trigger that fails fast on bad input still makes no folder, so
        # start a real one: the same command, which sweeps before its first session)
        nxt = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while folder.exists() and time.monotonic() < deadline and nxt.poll() is None:
                time.sleep(0.1)
            assert not folder.exists(), "the next start left the stale folder"
        finally:
            nxt.kill()
            nxt.wait()
            for leftover in (tmp_path / "tmp").iterdir():  # the second run's own, killed too
                shutil.rmtree(leftover, ignore_errors=True)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()  # else: ResourceWarning, unclosed file (the pipe nobody read)
        kill_recorded(record)


def kill_recorded(record: Path) -> None:
    """Kill what the fake recorded, should the test fail with it still running."""
    pids: list[int] = []
    if (record / "cli.pid").exists():
        info = json.loads((record / "cli.pid").read_text())
        pids += [int(info[key]) for key in ("pid", "child") if key in info]
    if (record / "child.pid").exists():
        pids.append(int((record / "child.pid").read_text()))
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


HANGING_CLI = """#!{python}
import json, os, subprocess, sys, time
if sys.argv[1:] == ["--version"]:
    print("2.1.197 (Claude Code)")
    sys.exit(0)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
info = {{"pid": os.getpid(), "child": child.pid, "cwd": os.getcwd(), "stdin": sys.stdin.read()}}
with open({record!r} + ".tmp", "w") as handle:
    json.dump(info, handle)
os.replace({record!r} + ".tmp", {record!r})
time.sleep(120)
"""

CAPTURE = """
from pathlib import Path
from skillbench.backends.base import SkillEntry
from skillbench.backends.anthropic.capture import capture_template
target = SkillEntry("pdf-tools", "Use when merging PDF files.", "# PDF\\n")
capture_template(Path({cli!r}), target, (), model="claude-sonnet-4-5", cli_version="2.1.197")
"""


def test_kill_9_during_replay_capture_ends_the_capture_cli(tmp_path: Path) -> None:
    """The replay capture's CLI (and its child) dies with skillbench instead of running on until
    its timeout; its scratch folder is swept by the next start."""
    cli = tmp_path / "claude"
    record = tmp_path / "record"
    record.mkdir()
    cli.write_text(HANGING_CLI.format(python=sys.executable, record=str(record / "cli.pid")))
    cli.chmod(0o755)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", CAPTURE.format(cli=str(cli))], env=env)
    try:
        wait_for(record / "cli.pid", proc)
        info = json.loads((record / "cli.pid").read_text())
        assert "SKILLBENCH_REPLAY_SENTINEL" in info["stdin"]  # the query came on stdin
        folder = Path(info["cwd"]).parent
        assert folder.name.startswith(f"skillbench-capture-{proc.pid}-")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not (gone(info["pid"]) and gone(info["child"])) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(info["pid"]) and gone(info["child"])
        sweep = "from skillbench.backends.scratch import make_scratch; make_scratch('capture')"
        subprocess.run([sys.executable, "-c", sweep], env=env, check=True)
        assert not folder.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        kill_recorded(record)
