"""Fake binaries: one small shell script per faked command, each calling the router
(`router.py`) with the routes and the call log; and the guard that checks, inside the agent's
own shell, that every fake is the one PATH finds first."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from skillbench.hermetic import router
from skillbench.hermetic.calls import CALLS_FILE
from skillbench.hermetic.environment import Environment

__all__ = ["FAKES_DIR", "FakeSet", "install_fakes"]

FAKES_DIR = "skillbench-fakes"
ROUTER = Path(router.__file__)
#: Exit code of a shell command the guard stopped (a fake was not first on PATH).
GUARD_EXIT = 97


@dataclass(frozen=True)
class FakeSet:
    """The fakes of one session: their folder, the call log and the guard's marker files."""

    folder: Path
    log: Path
    commands: tuple[str, ...]
    checked: Path
    failures: Path

    def guard(self) -> str:
        """Shell code for the agent's own shell, run before each of its commands: put the fakes
        first on PATH, then check that `command -v` finds each fake there; stop the command
        (exit 97, a line on stderr, the name written to `failures`) when one is not."""
        folder = shlex.quote(str(self.folder))
        lines = [f'export PATH={folder}:"$PATH"']
        for name in self.commands:
            quoted = shlex.quote(name)
            expected = shlex.quote(str(self.folder / name))
            lines.append(
                f'if [ "$(command -v {quoted})" != {expected} ]; then '
                f"echo {quoted} >> {shlex.quote(str(self.failures))}; "
                f"echo 'skillbench: the fake {name} is not first on PATH' >&2; exit {GUARD_EXIT}; fi"
            )
        lines.append(f": > {shlex.quote(str(self.checked))}")
        return "\n".join(lines) + "\n"

    def shell_checked(self) -> bool:
        """True when the guard ran in the agent's shell and found every fake first."""
        return self.checked.exists()

    def path_failures(self) -> list[str]:
        """Commands the guard found shadowed (one per stopped command)."""
        if not self.failures.is_file():
            return []
        return self.failures.read_text(encoding="utf-8").split()


def install_fakes(environment: Environment, root: Path) -> FakeSet:
    """Write the fake binaries and the routes under `root` (a session's scratch folder)."""
    folder = root / FAKES_DIR
    state = root / "hermetic"
    folder.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    routes = state / "routes.json"
    data = {
        name: [route.model_dump(mode="json") for route in found]
        for name, found in environment.fakes.items()
    }
    routes.write_text(json.dumps(data), encoding="utf-8")
    log = state / CALLS_FILE
    log.touch()
    head = [sys.executable, "-I", str(ROUTER), str(routes), str(log)]
    for name in environment.fakes:
        script = folder / name
        call = " ".join(shlex.quote(part) for part in [*head, name])
        script.write_text(f'#!/bin/sh\nexec {call} "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    return FakeSet(
        folder=folder,
        log=log,
        commands=tuple(environment.fakes),
        checked=state / "shell-checked",
        failures=state / "path-failures",
    )
