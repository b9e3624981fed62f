"""Drive the interactive Claude Code CLI (the one users type into) in a pseudo-terminal.

`claude -p` (print mode, what headless and SDK users run) and the interactive CLI send different
first requests: another identity line, `cc_entrypoint=cli` instead of `sdk-cli`, three more tools
(AskUserQuestion, EnterPlanMode, ExitPlanMode), another system prompt and one more beta
(FIELD-NOTES §11). `CLI_MODES` names the two; `interactive` is what most users run.

The interactive CLI starts only once its first-run dialogs are answered: `seed_config` writes,
into the isolated config, onboarding done, a theme, the dummy key approved (its last 20
characters) and the project trusted. `run_interactive` then starts the CLI under a pty (its own
session, dying with skillbench: `agent_cli.spawn_options`) with the query as the initial prompt,
after `--` so it is never read as an option, keeps reading the terminal so the CLI never blocks,
and kills the whole process group once `done()` says the request it waited for has arrived.
The claude-code backend's interactive judge (`interactive_session`) seeds and starts its runs
the same way (`start_in_pty`, `read_terminal`, `stop_in_pty`).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from skillbench.backends.agent_cli import spawn_options
from skillbench.backends.proctree import kill_tree, unwatch, watch
from skillbench.errors import BackendError

CliMode = Literal["interactive", "print"]
CLI_MODES: tuple[str, ...] = ("interactive", "print")
DEFAULT_CLI_MODE: CliMode = "interactive"
TERMINAL_SIZE = (50, 200)  # rows, columns
_KEY_TAIL = 20  # the CLI remembers an approved key by its last 20 characters


def check_cli_mode(mode: str, flag: str = "--cli-mode") -> CliMode:
    """`mode` when it is one of `CLI_MODES`; otherwise an InputError naming `flag`."""
    from skillbench.errors import InputError

    if mode not in CLI_MODES:
        raise InputError(f"must be one of {', '.join(CLI_MODES)} (got {mode!r})", path=flag)
    return "interactive" if mode == "interactive" else "print"


def config_file(env: Mapping[str, str]) -> Path:
    """The `.claude.json` the CLI reads under `env`: `$CLAUDE_CONFIG_DIR/.claude.json`, else
    `$HOME/.claude.json`."""
    folder = env.get("CLAUDE_CONFIG_DIR") or env["HOME"]
    return Path(folder) / ".claude.json"


def seed_config(env: Mapping[str, str], project: Path) -> Path:
    """Write the isolated `.claude.json` so the interactive CLI asks nothing: onboarding done, a
    theme, the key in `env` approved (by its last 20 characters, as the CLI stores it) and
    `project` trusted and onboarded; fields already in the file (a copied login's account) are
    kept. Returns the file written (the key's tail is the only part of a key in it; `env` holds
    a dummy key, never the caller's)."""
    key = env.get("ANTHROPIC_API_KEY", "")
    path = config_file(env)
    config = _read_config(path)  # a copied login's account fields stay (`--auth login`)
    config |= {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [key[-_KEY_TAIL:]] if key else [], "rejected": []},
        "projects": {
            str(project): {
                "allowedTools": [],
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                # a CLAUDE.md importing files outside the project: the dialog counted as shown
                # and the imports not approved, as print mode never approves them (the
                # interactive CLI would otherwise wait on that dialog and send nothing)
                "hasClaudeMdExternalIncludesWarningShown": True,
                "hasClaudeMdExternalIncludesApproved": False,
            }
        },
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    return path


def _read_config(path: Path) -> dict[str, Any]:
    """The `.claude.json` already in the isolated config (a copied login's), else empty."""
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def interactive_argv(
    binary: str | os.PathLike[str], flags: Sequence[str], prompt: str
) -> list[str]:
    """`claude <flags> -- <prompt>`: the prompt is the initial prompt, after `--` so that a
    prompt beginning with `-` is never parsed as an option."""
    return [os.fspath(binary), *flags, "--", prompt]


def start_in_pty(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str]
) -> tuple[subprocess.Popen[bytes], int]:
    """Start `argv` in `cwd` with a pseudo-terminal of `TERMINAL_SIZE` as its stdin, stdout and
    stderr, in a session of its own that dies with skillbench (`agent_cli.spawn_options`,
    `proctree.watch`). Returns the process and the terminal's master side (close it with
    `stop_in_pty`). BackendError when it cannot start."""
    import fcntl  # POSIX only: imported here so that importing this module works everywhere
    import struct
    import termios

    master, slave = os.openpty()
    rows, cols = TERMINAL_SIZE
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    run_env = {**env, "TERM": env.get("TERM") or "xterm-256color"}
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=run_env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            **spawn_options(),
        )
    except OSError as exc:
        os.close(master)
        os.close(slave)
        raise BackendError(f"cannot run {argv[0]}: {exc}") from None
    os.close(slave)
    watch(proc.pid)
    return proc, master


def stop_in_pty(proc: subprocess.Popen[bytes], master: int) -> None:
    """Kill the process's whole tree (`proctree.kill_tree`), reap it and close the terminal."""
    kill_tree(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    unwatch(proc.pid)
    with contextlib.suppress(OSError):
        os.close(master)


def read_terminal(master: int, output: bytearray) -> bool:
    """Append what the terminal holds to `output` (its last 64 KiB kept); False once it is
    closed (the CLI exited)."""
    try:
        chunk = os.read(master, 65536)
    except OSError:  # the terminal closed: the CLI exited
        return False
    if not chunk:
        return False
    output += chunk
    del output[:-65536]
    return True


def run_interactive(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    done: Callable[[], bool],
    timeout: float,
) -> str:
    """Run `argv` under a pty until `done()` is true, then kill its process tree; returns what
    it printed (for error messages). BackendError when it cannot start, or exits or times out
    before `done()`."""
    import select

    proc, master = start_in_pty(argv, cwd, env)
    output = bytearray()
    try:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise BackendError(
                    f"the interactive claude CLI sent no request within {timeout:g} s; "
                    f"it showed: {screen_tail(output)!r}"
                )
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready and not read_terminal(master, output):
                if done():
                    break
                raise BackendError(
                    f"the interactive claude CLI exited (code {proc.poll()}) before sending "
                    f"its request; it showed: {screen_tail(output)!r}"
                )
    finally:
        stop_in_pty(proc, master)
    return output.decode("utf-8", "replace")


def screen_tail(output: bytes | bytearray, size: int = 400) -> str:
    """The last `size` characters the CLI printed, terminal escapes removed."""
    import re

    text = bytes(output).decode("utf-8", "replace")
    text = re.sub(r"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b.", "", text)
    return " ".join(text.split())[-size:]
