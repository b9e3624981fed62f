"""Benchmark library validation: one process validates 1,800 generated skills in ≤ 3 s.

Generates a library shaped like the public ones (``skills/*``, ``.claude/skills/*``,
``.gemini/skills/*`` whose SKILL.md links to ``commands/*.md``, ``plugins/*/skills/*``; reference
files, scripts, some README.md files, some invalid frontmatter, a ``.git`` and a
``node_modules`` that must be skipped), then times ``skillbench validate LIB --json`` as one
fresh process (interpreter start, imports, discovery, validation, JSON output) and, for the
record, the in-process `validate_library` call alone.

Run: .venv/bin/python benchmarks/bench_validate_library.py
(writes benchmarks/results/bench_validate_library.json; exit 1 when the target is missed)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from skillbench.io import write_json

RESULTS = Path(__file__).parent / "results" / "bench_validate_library.json"
SKILLS = 1800
TARGET_SECONDS = 3.0
REPEATS = 3
ROOT = Path(__file__).resolve().parent.parent

BODY = "# {name}\n\n## Steps\n\n" + "".join(
    f"{i}. Do step {i} with [the reference](references/guide.md).\n" for i in range(1, 60)
)


class ValidateLibraryBench(BaseModel):
    """Figures of one benchmark run."""

    skills: int
    found: int
    invalid: int
    with_warnings: int
    linked_skill_md: int
    process_seconds: list[float]
    process_best_seconds: float
    in_process_seconds: float
    per_skill_ms: float
    target_seconds: float
    ratio_to_target: float
    met: bool


def _frontmatter(name: str, index: int) -> str:
    kind = index % 20
    if kind == 0:
        return f"name: {name}\ndescription: Formats files. No trigger words.\n"
    if kind == 1:
        return f"name: {name.upper()}\ndescription: Use when <angle> brackets appear.\n"
    if kind == 2:
        return f"name: {name}\ndescription: [unclosed\n"
    if kind == 3:
        return ""
    extra = "allowed-tools: Read Grep\nlicense: MIT\nwhen_to_use: files\n" if kind % 2 else ""
    return f"name: {name}\ndescription: Tidies data for skill {index}. Use when asked.\n{extra}"


def _write_skill(folder: Path, name: str, index: int) -> None:
    folder.mkdir(parents=True)
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("# Guide\n" * 20)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.py").write_text("print('ok')\n")
    if index % 15 == 0:
        (folder / "README.md").write_text("# readme\n")
    text = f"---\n{_frontmatter(name, index)}---\n{BODY.format(name=name)}"
    (folder / "SKILL.md").write_text(text)


def build_library(root: Path, count: int) -> int:
    """Write `count` skills under `root` in several layouts; returns how many SKILL.md are links."""
    linked = 0
    for index in range(count):
        name = f"skill-{index:04d}"
        layout = index % 4
        if layout == 0:
            _write_skill(root / "skills" / name, name, index)
        elif layout == 1:
            _write_skill(root / ".claude" / "skills" / name, name, index)
        elif layout == 2:
            _write_skill(root / "plugins" / f"p{index % 7}" / "skills" / name, name, index)
        else:
            commands = root / "commands"
            commands.mkdir(exist_ok=True)
            text = f"---\n{_frontmatter(name, index)}---\n{BODY.format(name=name)}"
            (commands / f"{name}.md").write_text(text)
            folder = root / ".gemini" / "skills" / name
            folder.mkdir(parents=True)
            (folder / "SKILL.md").symlink_to(f"../../../commands/{name}.md")
            linked += 1
    for skipped in (".git/skills/hidden", "node_modules/pkg/skills/dep"):
        _write_skill(root / skipped, "skipped", 5)
    return linked


def time_process(root: Path) -> tuple[float, list[dict[str, object]]]:
    """Wall time of one fresh `skillbench validate ROOT --json` process, and its output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from skillbench.cli import main; sys.exit(main(sys.argv[1:]))"
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code, "validate", str(root), "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"validate failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return seconds, json.loads(proc.stdout)


def main() -> int:
    """Build the library, time it, write the figures; exit 1 when over the target."""
    from skillbench.validate.rules import validate_library

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "library"
        linked = build_library(root, SKILLS)
        timings = []
        data: list[dict[str, object]] = []
        for _ in range(REPEATS):
            seconds, data = time_process(root)
            timings.append(round(seconds, 3))
        start = time.perf_counter()
        reports = validate_library(root)
        in_process = time.perf_counter() - start
    best = min(timings)
    result = ValidateLibraryBench(
        skills=SKILLS,
        found=len(data),
        invalid=sum(not r.valid for r in reports),
        with_warnings=sum(bool(r.warnings) for r in reports),
        linked_skill_md=linked,
        process_seconds=timings,
        process_best_seconds=best,
        in_process_seconds=round(in_process, 3),
        per_skill_ms=round(1000 * in_process / SKILLS, 3),
        target_seconds=TARGET_SECONDS,
        ratio_to_target=round(best / TARGET_SECONDS, 3),
        met=best <= TARGET_SECONDS and len(data) == SKILLS,
    )
    write_json(RESULTS, result)
    print(
        f"{result.found} skills ({linked} linked SKILL.md, {result.invalid} invalid): one process "
        f"{best:.2f} s (runs {timings}), validation alone {in_process:.2f} s "
        f"({result.per_skill_ms:.2f} ms/skill); target ≤ {TARGET_SECONDS} s: "
        f"{'met' if result.met else 'MISSED'} (ratio {result.ratio_to_target})"
    )
    return 0 if result.met else 1


if __name__ == "__main__":
    raise SystemExit(main())
