"""The README's "A short tour" runs as written from a folder outside the checkout (issue 31):
its commands are read from README.md's code block, so a changed flag, path or sample in the
README (or in the CLI) fails here. Offline: the default `local` backend, a temporary cache, home
and cwd; `skillbench` is this checkout's package (`python -m skillbench`). The same tour was run
by hand from an installed wheel (`pip wheel`, a fresh venv, `[all]`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
OK_CODES = {0, 1}
"""Exit 0 or 1 (a check failed: an invalid sample skill, a failing query): never 2 (bad input),
3 (cost cap) or a crash."""


def tour_commands() -> list[str]:
    """The tour's commands: its bash block, backslash continuations joined, comments dropped."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## A short tour", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None, "README: the tour has no ```bash block"
    joined = block.group(1).replace("\\\n", "")
    commands = []
    for line in joined.splitlines():
        command = re.sub(r"\s+#\s.*$", "", line).strip()  # no `#` inside the tour's arguments
        if command and not command.startswith("#"):
            commands.append(command)
    return commands


def test_the_tour_is_read_from_the_readme() -> None:
    commands = tour_commands()
    assert commands[0].startswith("skillbench samples ") and "cd tour" in commands[0]
    assert sum(c.startswith("skillbench ") for c in commands) >= 20
    assert any(c.startswith("skillbench gate ") for c in commands)
    assert not any("my-skill" in c for c in commands)  # no placeholder: every line runs


@pytest.mark.slow
def test_the_readme_tour_runs_as_written_outside_the_checkout(tmp_path: Path) -> None:
    commands = tour_commands()
    codes = tmp_path / "codes.txt"
    lines = [f'skillbench() {{ "{sys.executable}" -m skillbench "$@"; }}']
    for i, command in enumerate(commands):
        lines.append(f'{command}\necho "{i} $?" >> "{codes}"')
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "share"),
        "SKILLBENCH_CACHE": str(tmp_path / "cache.sqlite"),
        "GIT_AUTHOR_NAME": "tour", "GIT_AUTHOR_EMAIL": "tour@example.invalid",
        "GIT_COMMITTER_NAME": "tour", "GIT_COMMITTER_EMAIL": "tour@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
    }  # fmt: skip
    done = subprocess.run(
        ["bash", "-c", "\n".join(lines)], cwd=cwd, env=env, capture_output=True, text=True
    )
    ran = dict(line.split() for line in codes.read_text().splitlines())
    assert len(ran) == len(commands), done.stderr[-3000:]
    bad = {commands[int(i)]: int(rc) for i, rc in ran.items() if int(rc) not in OK_CODES}
    assert not bad, f"{bad}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    tour = cwd / "tour"
    assert (tour / "data" / "skills" / "csv-cleanup-workspace" / "benchmark.json").is_file()
    assert (tour / "data" / "skills" / "commit-message-writer" / "evals" / "trigger.json").is_file()
    assert (tour / "before.json").is_file() and (tour / "after.json").is_file()
    assert list((tour / "reports" / "trigger_eval").glob("*/index.html"))
    assert list((tmp_path / "share" / "skillbench" / "reports" / "gate").glob("*/gate_report.json"))
    assert not (ROOT / "data" / "skills" / "commit-message-writer" / "evals").exists()


def test_samples_copies_the_data_once_and_never_overwrites(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["samples", "tour/data"]) == 0
    copied = tmp_path / "tour" / "data"
    assert (copied / "skills" / "csv-cleanup" / "SKILL.md").is_file()
    assert (copied / "evals" / "csv-cleanup.trigger.json").is_file()
    assert not list(copied.rglob("*-workspace"))  # a checkout's tour leftovers stay behind
    (copied / "mine.txt").write_text("kept")
    capsys.readouterr()
    assert main(["samples", "tour/data"]) == 2
    assert "tour/data: already exists: nothing was copied" in capsys.readouterr().err
    assert (copied / "mine.txt").read_text() == "kept"
    assert sorted(p.name for p in (tmp_path / "tour").iterdir()) == ["data"]  # no partial left
