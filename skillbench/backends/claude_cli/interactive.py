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
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

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
    `project` trusted and onboarded; other keys the file already holds are kept. Returns the
    file written (the key's tail is the only part of a key in it; `env` holds the dummy capture
    key, never the caller's)."""
    key = env.get("ANTHROPIC_API_KEY", "")
    config = {
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
    path = config_file(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # what the isolated config already holds (`--as-user`'s usage history) is kept
        held = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        held = {}
    config = {**held, **config} if isinstance(held, dict) else config
    path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    return path


def interactive_argv(
    binary: str | os.PathLike[str], flags: Sequence[str], prompt: str
) -> list[str]:
    """`claude <flags> -- <prompt>`: the prompt is the initial prompt, after `--` so that a
    prompt beginning with `-` is never parsed as an option."""
    return [os.fspath(binary), *flags, "--", prompt]


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
    import fcntl  # POSIX only: imported here so that importing this module works everywhere
    import select
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
    output = bytearray()
    try:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise BackendError(
                    f"the interactive claude CLI sent no request within {timeout:g} s; "
                    f"it showed: {_screen_tail(output)!r}"
                )
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the terminal closed: the CLI exited
                    chunk = b""
                if not chunk:
                    if done():
                        break
                    raise BackendError(
                        f"the interactive claude CLI exited (code {proc.poll()}) before sending "
                        f"its request; it showed: {_screen_tail(output)!r}"
                    )
                output += chunk
                del output[:-65536]
    finally:
        kill_tree(proc.pid)
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait()
        unwatch(proc.pid)
        os.close(master)
    return output.decode("utf-8", "replace")


def _screen_tail(output: bytes | bytearray, size: int = 400) -> str:
    """The last `size` characters the CLI printed, terminal escapes removed."""
    import re

    text = bytes(output).decode("utf-8", "replace")
    text = re.sub(r"\x1b\[[0-9;?<>=]*[A-Za-z~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b.", "", text)
    return " ".join(text.split())[-size:]
