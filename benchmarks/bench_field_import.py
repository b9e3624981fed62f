"""Benchmark `skillbench field import claude`: throughput and peak memory on synthetic volume.

Writes Claude Code transcripts shaped like the ones the pinned CLI 2.1.197 writes (the line
types and keys of the real sessions tests/field_sessions.py makes: user prompt, `skill_listing`
attachment of 30 skills, a `Skill` tool_use, its tool_result and the skill body, an attributed
answer, a 16 KB tool result as real sessions carry, `last-prompt`), 40 turns per session, until
`--mb` megabytes; then times one fresh `skillbench field import` process over them and a second
one (incremental: nothing new), with the peak resident memory of each (getrusage of the child).
The bound of issue 33 is 1 GB within 300 MB of memory; the default measures 200 MB on this shared
2-core machine and states the peak against that bound.

Run: .venv/bin/python benchmarks/bench_field_import.py [--mb 200]
(writes benchmarks/results/bench_field_import.json; exit 1 when the peak passes 300 MB)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from pydantic import BaseModel

from skillbench.io import write_json

RESULTS = Path(__file__).parent / "results" / "bench_field_import.json"
ROOT = Path(__file__).resolve().parent.parent
MEMORY_BOUND_MB = 300
TURNS = 40
SKILLS = [f"skill-{i:02d}" for i in range(30)]


class FieldImportBench(BaseModel):
    """Figures of one benchmark run."""

    transcript_mb: float
    files: int
    turns: int
    seconds: float
    mb_per_second: float
    turns_per_second: float
    peak_rss_mb: float
    memory_bound_mb: int
    peak_share_of_bound: float
    incremental_seconds: float
    incremental_peak_rss_mb: float


def _line(data: dict[str, object]) -> str:
    return json.dumps(data) + "\n"


def session_text(session: str) -> str:
    """One session of `TURNS` turns, as the CLI writes it."""
    base = {
        "sessionId": session,
        "version": "2.1.197",
        "cwd": "/home/u/proj",
        "userType": "external",
        "entrypoint": "sdk-cli",
        "isSidechain": False,
        "timestamp": "2026-12-01T10:00:00.000Z",
    }
    listing = "\n".join(
        f"- {s}: Use when the task is about topic {s} and its files." for s in SKILLS
    )
    out = [
        _line(
            {
                **base,
                "type": "attachment",
                "attachment": {"type": "skill_listing", "content": listing},
            }
        )
    ]
    for turn in range(TURNS):
        prompt_id = str(uuid.uuid4())
        skill = SKILLS[turn % len(SKILLS)]
        user = {
            **base,
            "type": "user",
            "promptId": prompt_id,
            "uuid": str(uuid.uuid4()),
            "message": {"role": "user", "content": f"please handle topic {skill} in file {turn}"},
        }
        tool = {
            "type": "tool_use",
            "id": f"toolu_{turn}",
            "name": "Skill",
            "input": {"skill": skill},
        }
        out += [
            _line(user),
            _line(
                {**base, "type": "assistant", "message": {"role": "assistant", "content": [tool]}}
            ),
            _line(
                {
                    **base,
                    "type": "user",
                    "promptId": prompt_id,
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"toolu_{turn}",
                                "content": f"Launching skill: {skill}",
                            }
                        ],
                    },
                }
            ),
            _line(
                {
                    **base,
                    "type": "user",
                    "promptId": prompt_id,
                    "isMeta": True,
                    "message": {"role": "user", "content": [{"type": "text", "text": "x" * 16384}]},
                }
            ),
            _line(
                {
                    **base,
                    "type": "assistant",
                    "attributionSkill": skill,
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Done."}],
                    },
                }
            ),
        ]
    out.append(_line({"type": "last-prompt", "sessionId": session}))
    return "".join(out)


def make_transcripts(root: Path, megabytes: float) -> tuple[int, int]:
    """Write sessions under `root/<slug>/` until `megabytes`; (files, bytes)."""
    folder = root / "-home-u-proj"
    folder.mkdir(parents=True)
    files = written = 0
    while written < megabytes * 1024 * 1024:
        session = str(uuid.uuid4())
        data = session_text(session).encode()
        (folder / f"{session}.jsonl").write_bytes(data)
        files += 1
        written += len(data)
    return files, written


def timed_import(projects: Path, out: Path) -> tuple[float, float]:
    """(seconds, peak RSS MB) of one fresh `skillbench field import` process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "skillbench",
        "field",
        "import",
        "claude",
        "--projects",
        str(projects),
        "--out",
        str(out),
    ]
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak, not the max of all
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"field import exited with {child.returncode}")
    peak = usage.ru_maxrss
    return seconds, peak / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=200.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-field-") as tmp:
        projects = Path(tmp) / "projects"
        files, size = make_transcripts(projects, args.mb)
        out = Path(tmp) / "field.jsonl"
        seconds, peak = timed_import(projects, out)
        turns = sum(1 for _ in out.open("rb"))
        again, again_peak = timed_import(projects, out)
    mb = size / 1024 / 1024
    result = FieldImportBench(
        transcript_mb=round(mb, 1),
        files=files,
        turns=turns,
        seconds=round(seconds, 2),
        mb_per_second=round(mb / seconds, 1),
        turns_per_second=round(turns / seconds),
        peak_rss_mb=round(peak, 1),
        memory_bound_mb=MEMORY_BOUND_MB,
        peak_share_of_bound=round(peak / MEMORY_BOUND_MB, 3),
        incremental_seconds=round(again, 2),
        incremental_peak_rss_mb=round(again_peak, 1),
    )
    write_json(RESULTS, result)
    print(result.model_dump_json(indent=2))
    return 0 if peak <= MEMORY_BOUND_MB else 1


if __name__ == "__main__":
    raise SystemExit(main())
