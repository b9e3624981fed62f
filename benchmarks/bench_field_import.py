"""Benchmark `skillbench field import claude` at 1 GB: throughput, peak memory, incremental cost.

1. Real transcripts: the real Claude Code CLIs (2.1.197 and 2.1.332, each in print and in
   interactive mode, those installed) run the field tests' three sessions against the loopback
   fake (tests/claude_field_runs.py): 12 session files, the lines the CLIs write.
2. Synthetic volume from those lines: each synthetic session file is one real session file
   written `REPEATS` times over, every id in it (session, line, prompt, leaf, tool-call and
   message ids) replaced by a fresh one, so no two files share an id; files are spread over
   `PROJECTS` project folders until `--mb` megabytes.
3. One fresh `skillbench field import claude` process over them, timed, its peak resident
   memory its own VmHWM (/proc/self/status at its end; wait4's ru_maxrss would count this
   parent's size at the fork): MB/s, turns/s, the peak against the 300 MB bound of issue 33; the
   turns imported must equal the turns the real sessions hold × the copies.
4. Incremental: `GROWN` of the files get one more copy of their session appended (same session
   id, fresh line ids) and `ADDED` new files appear; a second import process must read exactly
   the appended bytes (the state's byte count) and emit exactly the new turns; then a third
   import with nothing new.

The synthetic data is written under a temporary folder and deleted at the end; nothing is
committed but the figures. The page cache holds the files (this measures parsing, not the disk).

Run: nice -n 10 .venv/bin/python benchmarks/bench_field_import.py [--mb 1024]
(writes benchmarks/results/bench_field_import.json; exit 1 when a bound or a count is missed)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from skillbench.io import write_json

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "bench_field_import.json"
MEMORY_BOUND_MB = 300
REPEATS = 8
"""Copies of a real session written one after the other into one synthetic session file."""
PROJECTS = 40
GROWN = 0.10
"""The share of files a turn-bearing copy is appended to before the incremental import."""
ADDED = 0.01
"""New files, as a share of the first import's, before the incremental import."""
_IDS = re.compile(
    rb"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|(?:toolu|msg)_mock_[0-9a-f]{12})"
)
"""Every id of a transcript line: uuids (session, line, parent, prompt, leaf, message, request)
and the fake's tool-call and message ids."""


class ImportRun(BaseModel):
    """One `field import` process."""

    seconds: float
    peak_rss_mb: float
    bytes_read: int
    turns: int


class FieldImportBench(BaseModel):
    """Figures of one benchmark run."""

    real_sessions: list[str]
    real_session_files: int
    real_turns_per_copy: int
    transcript_mb: float
    files: int
    turns: int
    expected_turns: int
    seconds: float
    mb_per_second: float
    turns_per_second: float
    peak_rss_mb: float
    memory_bound_mb: int
    peak_share_of_bound: float
    incremental_appended_mb: float
    incremental_grown_files: int
    incremental_new_files: int
    incremental_bytes_read_mb: float
    incremental_reads_only_new_bytes: bool
    incremental_turns: int
    incremental_expected_turns: int
    incremental_seconds: float
    incremental_mb_per_second: float
    incremental_peak_rss_mb: float
    unchanged_seconds: float
    unchanged_peak_rss_mb: float
    cpus: int
    load_average_at_start: float
    missed: list[str]


@dataclass
class Template:
    """One real session file, split around its ids."""

    session: bytes
    pieces: list[bytes]  # text, id, text, id, …, text
    turns: int

    def copy(self, session: str) -> bytes:
        """The session written again, every id fresh, its session id `session`."""
        fresh = {self.session: session.encode()}
        out = []
        for i, piece in enumerate(self.pieces):
            if i % 2 and piece not in fresh:
                fresh[piece] = _fresh_like(piece)
            out.append(fresh[piece] if i % 2 else piece)
        return b"".join(out)


def _fresh_like(old: bytes) -> bytes:
    if old.startswith((b"toolu_", b"msg_")):
        prefix = old[: old.rindex(b"_") + 1]
        return prefix + random.randbytes(6).hex().encode()
    return str(uuid.uuid4()).encode()


def real_templates(work: Path) -> tuple[list[Template], list[str]]:
    """The real sessions each installed CLI version writes in each mode (tests/claude_field_runs)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from claude_field_runs import SESSIONS, write_claude_transcripts
    from real_cli import latest_claude, real_cli_skip_reason

    from skillbench.backends.claude_cli.session import REPO_CLAUDE
    from skillbench.backends.claude_cli.tested import CLAUDE_LATEST, CLAUDE_PIN

    versions = [(CLAUDE_PIN, REPO_CLAUDE), (CLAUDE_LATEST, latest_claude())]
    turns = {session: len(queries) for session, _, queries in SESSIONS}
    templates, used = [], []
    for version, binary in versions:
        reason = real_cli_skip_reason(binary)
        if reason is not None:
            print(f"skipping Claude Code {version}: {reason}", file=sys.stderr)
            continue
        for mode in ("print", "interactive"):
            made = write_claude_transcripts(binary, mode, work / f"{version}-{mode}", version)
            used.append(f"{version}-{mode}")
            for path in sorted(made.projects.glob("*/*.jsonl")):
                pieces = _IDS.split(path.read_bytes())
                templates.append(Template(path.stem.encode(), pieces, turns[path.stem]))
    if not templates:
        raise SystemExit("no Claude Code CLI can run here (make claude claude-latest)")
    return templates, used


def write_volume(
    root: Path, templates: list[Template], megabytes: float
) -> tuple[list[Path], int, int]:
    """Synthetic session files under `root/<project>/` until `megabytes`: (files, bytes, turns)."""
    folders = [root / f"-home-user-project-{i:02d}" for i in range(PROJECTS)]
    for folder in folders:
        folder.mkdir(parents=True)
    files: list[Path] = []
    written = turns = 0
    while written < megabytes * 1024 * 1024:
        template = templates[len(files) % len(templates)]
        session = str(uuid.uuid4())
        data = b"".join(template.copy(session) for _ in range(REPEATS))
        path = folders[len(files) % PROJECTS] / f"{session}.jsonl"
        path.write_bytes(data)
        files.append(path)
        written += len(data)
        turns += template.turns * REPEATS
    return files, written, turns


_IMPORT = """
import sys
from skillbench.cli import main
code = main(sys.argv[2:])
status = open("/proc/self/status").read()
open(sys.argv[1], "w").write(status.split("VmHWM:")[1].split()[0])
raise SystemExit(code)
"""
"""`skillbench field import` as `python -m skillbench` runs it, then its own peak resident memory
(VmHWM, kB) written to a file: wait4's ru_maxrss of a child counts the parent's size at the fork,
here hundreds of MB."""


def timed_import(projects: Path, out: Path) -> ImportRun:
    """One fresh `skillbench field import claude` process: its time, peak RSS, what it read."""
    state = out.with_name(out.name + ".state.json")
    before = json.loads(state.read_text())["counts"] if state.exists() else {"bytes": 0, "turns": 0}
    peak = out.with_name("peak.kb")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", _IMPORT, str(peak), "field", "import", "claude",
               "--projects", str(projects), "--out", str(out)]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"field import exited with {done.returncode}")
    after = json.loads(state.read_text())["counts"]
    return ImportRun(
        seconds=round(seconds, 2),
        peak_rss_mb=round(int(peak.read_text()) / 1024, 1),
        bytes_read=after["bytes"] - before["bytes"],
        turns=after["turns"] - before["turns"],
    )


def grow(files: list[Path], templates: list[Template], root: Path) -> tuple[int, int, int, int]:
    """Append one copy to `GROWN` of the files and add `ADDED` new ones:
    (grown files, new files, bytes appended, turns appended)."""
    by_name = {}
    for i, path in enumerate(files):
        by_name[path] = templates[i % len(templates)]
    chosen = random.sample(files, max(1, int(len(files) * GROWN)))
    appended = turns = 0
    for path in chosen:
        template = by_name[path]
        data = template.copy(path.stem)
        with path.open("ab") as handle:
            handle.write(data)
        appended += len(data)
        turns += template.turns
    added = max(1, int(len(files) * ADDED))
    folder = root / "-home-user-project-new"
    folder.mkdir()
    for i in range(added):
        template = templates[i % len(templates)]
        session = str(uuid.uuid4())
        data = b"".join(template.copy(session) for _ in range(REPEATS))
        (folder / f"{session}.jsonl").write_bytes(data)
        appended += len(data)
        turns += template.turns * REPEATS
    return len(chosen), added, appended, turns


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=1024.0, help="synthetic volume (default 1 GB)")
    args = parser.parse_args()
    random.seed(33)
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-field-") as tmp:
        work = Path(tmp)
        templates, used = real_templates(work / "real")
        projects = work / "projects"
        files, size, expected = write_volume(projects, templates, args.mb)
        out = work / "field.jsonl"
        first = timed_import(projects, out)
        grown, added, appended, new_turns = grow(files, templates, projects)
        second = timed_import(projects, out)
        third = timed_import(projects, out)
    mb = size / 1024 / 1024
    missed = []
    if first.peak_rss_mb > MEMORY_BOUND_MB:
        missed.append(f"peak RSS {first.peak_rss_mb} MB > {MEMORY_BOUND_MB} MB")
    if first.turns != expected:
        missed.append(f"imported {first.turns} turns, the sessions hold {expected}")
    if second.bytes_read != appended or second.turns != new_turns:
        missed.append(f"re-import read {second.bytes_read} B / {second.turns} turns, "
                      f"appended {appended} B / {new_turns} turns")  # fmt: skip
    if third.bytes_read != 0 or third.turns != 0:
        missed.append("a re-import with nothing new read something")
    result = FieldImportBench(
        real_sessions=used,
        real_session_files=len(templates),
        real_turns_per_copy=sum(t.turns for t in templates),
        transcript_mb=round(mb, 1),
        files=len(files),
        turns=first.turns,
        expected_turns=expected,
        seconds=first.seconds,
        mb_per_second=round(mb / first.seconds, 1),
        turns_per_second=round(first.turns / first.seconds),
        peak_rss_mb=first.peak_rss_mb,
        memory_bound_mb=MEMORY_BOUND_MB,
        peak_share_of_bound=round(first.peak_rss_mb / MEMORY_BOUND_MB, 3),
        incremental_appended_mb=round(appended / 1024 / 1024, 1),
        incremental_grown_files=grown,
        incremental_new_files=added,
        incremental_bytes_read_mb=round(second.bytes_read / 1024 / 1024, 1),
        incremental_reads_only_new_bytes=second.bytes_read == appended,
        incremental_turns=second.turns,
        incremental_expected_turns=new_turns,
        incremental_seconds=second.seconds,
        incremental_mb_per_second=round(appended / 1024 / 1024 / second.seconds, 1),
        incremental_peak_rss_mb=second.peak_rss_mb,
        unchanged_seconds=third.seconds,
        unchanged_peak_rss_mb=third.peak_rss_mb,
        cpus=os.cpu_count() or 0,
        load_average_at_start=round(load, 2),
        missed=missed,
    )
    write_json(RESULTS, result)
    print(result.model_dump_json(indent=2))
    return 0 if not missed else 1


if __name__ == "__main__":
    raise SystemExit(main())
