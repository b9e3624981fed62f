"""The one way skillbench starts an agent CLI (`claude` today; the agents to come reuse it).

Three rules, each learnt the hard way (issue 27):

1. **The prompt is never an argument.** A query or case prompt comes from an eval set someone
   else may have written; as a positional argument, a prompt beginning `--settings={"hooks":…}`
   was parsed as an option and its SessionStart hook ran a shell command. The prompt goes to the
   CLI's stdin, where no option parser looks (verified on the pinned Claude Code 2.1.197: `claude
   -p` reads the prompt from stdin, byte for byte, and a prompt beginning with `-` runs as text).
   It also stays out of `ps` and is not bounded by the 128 KiB limit of one argument.
2. **The CLI dies with skillbench.** It runs in a session of its own (its whole group is killed
   at the end of a run, `proctree.kill_tree`) and with `PR_SET_PDEATHSIG` = SIGKILL on Linux, so
   a `kill -9` of skillbench ends the paid session at once (`proctree.die_with_parent`).
3. **Its scratch folder names its owner** (`scratch.make_scratch`): folders of dead skillbench
   processes are removed on the next start. It lies in a private 0700 folder none of whose
   parents holds agent configuration (a `CLAUDE.md` planted in a shared `/tmp` reached every
   run; issue 38).
4. **It holds no secret of the caller's** (issue 38): an allowlisted environment
   (`claude_cli.env.build_env`, `replay.agent.Agent.base_env`) and, instead of the provider key,
   a dummy key and the loopback `key_forwarder.KeyForwarder` that holds the real one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillbench.backends.proctree import child_options

__all__ = ["AgentCall", "print_call", "spawn_options"]


@dataclass(frozen=True)
class AgentCall:
    """What to start: `argv` (the binary and its flags, never the prompt) and the bytes to write
    to the CLI's stdin (the prompt), after which stdin is closed."""

    argv: tuple[str, ...]
    stdin: bytes


def print_call(binary: str | os.PathLike[str], flags: Sequence[str], prompt: str) -> AgentCall:
    """`claude -p <flags>` with `prompt` on stdin: the prompt can never be read as an option."""
    return AgentCall((os.fspath(binary), "-p", *flags), prompt.encode("utf-8"))


def spawn_options() -> dict[str, Any]:
    """Keyword arguments for `subprocess.Popen` / `asyncio.create_subprocess_exec` that make the
    child a session leader that dies with this process (see `proctree.child_options`)."""
    return child_options()
