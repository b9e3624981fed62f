"""The claude-code backend in interactive mode: the CLI users type into, one pty per run.

`claude_code_judge` is the backend's trigger judge (its spec's `judge`): `cli_mode="interactive"`
(the default) or `"print"` (`claude -p`, headless and SDK users: `session.ClaudeCodeJudge`).
The two modes send different requests (`claude_cli.interactive`), so the mode is part of the
judge's identity (cache key) and of every report (`versions()`, `describe`).

An interactive run starts the real CLI in a pseudo-terminal with the query as its initial
prompt, in the same isolated project and HOME as print mode (the candidate installed as a real
skill, the key forwarder's dummy key), after `interactive.seed_config` has answered its
first-run dialogs (onboarding, theme, the dummy key approved, the project trusted), exactly as
the interactive capture does. `--permission-mode dontAsk` keeps a permission prompt from ever
waiting for a user: what print mode would be allowed runs (a `Skill` call, a `Read` in the
project), what it would be refused is refused, and the first request is byte-identical to the
default mode's (measured on 2.1.197 and 2.1.332, tests/backends/test_claude_code_interactive_real.py).
`--session-id` names the session, so its transcript (`transcript.TranscriptParser`) is followed
until the outcome is decided: the target fired (the process group is then killed), or the
turn ended (the CLI waits for the next prompt). `max_turns` is applied to the transcript, as
print mode's `--max-turns`. A timeout, a CLI that exits before its turn ended, an API error, a
turn without a model reply, or the turn limit reached without any skill is an error outcome,
never "not triggered". Usage is summed from the replies in the transcript and priced from the
price table (an interactive session reports no cost of its own).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Unpack

from skillbench.backends.base import TriggerOutcome, TriggerRequest
from skillbench.backends.claude_cli.env import KEY_VARS
from skillbench.backends.claude_cli.interactive import (
    DEFAULT_CLI_MODE,
    CliMode,
    check_cli_mode,
    interactive_argv,
    read_terminal,
    screen_tail,
    seed_config,
    start_in_pty,
    stop_in_pty,
)
from skillbench.backends.claude_cli.session import (
    ClaudeCodeJudge,
    JudgeOptions,
    StopRule,
    redact,
    resolved_invocations,
    routing_outcome,
    session_detail,
    streamed_usage,
)
from skillbench.backends.claude_cli.transcript import TranscriptParser, TranscriptTail
from skillbench.backends.proctree import kill_tree
from skillbench.backends.skill_install import CliSkill, install_skills
from skillbench.errors import BackendError, InputError

__all__ = ["INTERACTIVE_FLAGS", "InteractiveClaudeCodeJudge", "claude_code_judge"]

INTERACTIVE_FLAGS = ("--permission-mode", "dontAsk")
"""Every interactive run's flags before the model: no permission prompt ever waits."""
INTERACTIVE_HARNESS = "Claude Code CLI, interactive (a pseudo-terminal, its session transcript)"
POLL_SECONDS = 0.1
LISTING_GRACE_SECONDS = 2.0
"""How long a decided session is kept for its skill listing, when the CLI has not written it."""


def claude_code_judge(
    model: str | None = None,
    *,
    cli_mode: str = DEFAULT_CLI_MODE,
    **options: Any,
) -> ClaudeCodeJudge:
    """The claude-code backend's trigger judge: the interactive CLI in a pty
    (`cli_mode="interactive"`, the default: what users type into) or `claude -p` (`"print"`);
    InputError naming `--cli-mode` for any other mode. `options` are `ClaudeCodeJudge`'s."""
    mode = check_cli_mode(cli_mode)
    judge_class = InteractiveClaudeCodeJudge if mode == "interactive" else ClaudeCodeJudge
    return judge_class(model, **options)


@dataclass
class InteractiveRun:
    """What one interactive session did. `decided`: stopped because the target fired;
    `exited`: the CLI ended (or could not start) before the turn did; `screen`: the last
    characters it showed, escapes removed and secrets redacted."""

    parser: TranscriptParser
    exit_code: int | None
    timed_out: bool
    exited: bool
    decided: bool
    duration_seconds: float
    screen: str = ""


async def _await_listing(tail: TranscriptTail, parser: TranscriptParser) -> None:
    """After the decision, at most `LISTING_GRACE_SECONDS` for the turn's skill listing when it
    is not in yet: under load the CLI (2.1.197) wrote a turn's listing after its Skill call."""
    deadline = time.monotonic() + LISTING_GRACE_SECONDS
    while not parser.listed and time.monotonic() < deadline:
        for line in tail.lines():
            parser.listing_only(line)
        if not parser.listed:
            await asyncio.sleep(POLL_SECONDS)


async def follow_session(
    argv: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    tail: TranscriptTail,
    parser: TranscriptParser,
    stop: StopRule | None,
    timeout: float,
    running: set[Any],
) -> InteractiveRun:
    """Run `argv` in a pty and feed its transcript to `parser` until `stop(session)` is True
    (decided), the turn ends, the CLI exits or `timeout` seconds pass; then kill its whole
    process tree. The terminal is read all along, so the CLI never blocks on its output. The
    process is in `running` while it runs (the judge's `aclose` kills what is left)."""
    loop = asyncio.get_running_loop()
    started = time.monotonic()
    try:
        proc, master = start_in_pty(argv, cwd, env)
    except BackendError as exc:
        return InteractiveRun(parser, None, False, True, False, 0.0, str(exc))
    running.add(proc)
    screen = bytearray()
    closed = asyncio.Event()

    def on_output() -> None:
        if not read_terminal(master, screen):
            loop.remove_reader(master)
            closed.set()

    loop.add_reader(master, on_output)
    decided = timed_out = exited = False

    def read() -> bool:
        """Feed the new transcript lines; True once decided (the lines after it are not read)."""
        lines = tail.lines()
        for index, line in enumerate(lines):
            parser.feed(line)
            if stop is not None and not parser.done and stop(parser.session):
                for later in lines[index + 1 :]:  # a listing written after the decision
                    parser.listing_only(later)
                return True
        return False

    try:
        async with asyncio.timeout(timeout):
            while not parser.done:
                if read():
                    decided = True
                    await _await_listing(tail, parser)
                    break
                if parser.done:
                    break
                if closed.is_set() or proc.poll() is not None:
                    decided = read()  # what it wrote before it ended
                    exited = not (decided or parser.done)
                    break
                await asyncio.sleep(POLL_SECONDS)
    except TimeoutError:
        timed_out = True
    finally:
        loop.remove_reader(master)
        stop_in_pty(proc, master)
        running.discard(proc)
    return InteractiveRun(
        parser=parser,
        exit_code=proc.returncode if exited else None,
        timed_out=timed_out,
        exited=exited,
        decided=decided,
        duration_seconds=time.monotonic() - started,
        screen=screen_tail(screen),
    )


def run_error(run: InteractiveRun, timeout: float) -> str | None:
    """Why an interactive run gave no outcome (None when it did). Order: timeout, failed login,
    API error, a CLI that ended before its turn, a turn without a model reply."""
    parser = run.parser
    if run.timed_out:
        return f"timeout: the turn did not end within {timeout:g} s (process group killed)"
    if "authentication_failed" in parser.session.assistant_errors:
        return "authentication_failed: the CLI is not logged in or the API key was rejected"
    if parser.api_errors:
        return f"API error: {parser.api_errors[0][:300]}"
    if run.exited:
        code = f"code {run.exit_code}" if run.exit_code is not None else "it could not start"
        return f"the interactive CLI ended ({code}) before its turn did; it showed: {run.screen!r}"
    if parser.turns == 0 and not run.decided:
        return "the turn ended without a model reply"
    return None


class InteractiveClaudeCodeJudge(ClaudeCodeJudge):
    """`ClaudeCodeJudge` driving the interactive CLI in a pty (see the module docstring): the
    same skills, isolation, stop rule and outcome fields; the mode and `max_turns` keyed."""

    cli_mode: ClassVar[CliMode] = "interactive"

    def __init__(self, model: str | None = None, **options: Unpack[JudgeOptions]) -> None:
        """`ClaudeCodeJudge`'s options; InputError naming `--cli-mode` off POSIX or without an
        isolated HOME."""
        super().__init__(model, **options)
        if os.name != "posix":
            raise InputError(
                "the interactive CLI is driven in a POSIX pseudo-terminal; use --cli-mode print",
                path="--cli-mode",
            )
        if not self.isolate_home:
            raise InputError(
                "the interactive CLI needs an isolated HOME (its first-run answers are written "
                "into the config there, never into the caller's)",
                path="--cli-mode",
            )
        self._ptys: set[Any] = set()

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a Ray task gets a copy): no running terminal."""
        state = super().__getstate__()
        state["_ptys"] = set()
        return state

    def flags(self) -> list[str]:
        """The CLI flags every run uses (the session id and the query are added per run)."""
        return self.with_model_and_extra_args(list(INTERACTIVE_FLAGS))

    def identity(self) -> dict[str, Any]:
        """`ClaudeCodeJudge`'s identity with the mode and the turn limit (print mode's is in
        its flags): an interactive run is never served a print run's answer."""
        return {**super().identity(), "cli_mode": self.cli_mode, "max_turns": self.max_turns}

    def versions(self) -> dict[str, str]:
        """`ClaudeCodeJudge`'s versions, the mode and how the CLI was driven (the report
        header's harness)."""
        return {**super().versions(), "cli_mode": self.cli_mode, "harness": INTERACTIVE_HARNESS}

    def lacks_credentials(self, env: dict[str, str]) -> bool:
        """Whether a run in `env` would reach the Anthropic API without a key, token or login
        (print mode then fails at once; the interactive CLI would show its login screen)."""
        anthropic = self.provider() == "anthropic" and self.login is None
        return anthropic and not any(env.get(name) for name in KEY_VARS)

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """Type the query into a fresh interactive CLI (isolated project and HOME), until the
        target fires or the turn ends."""
        skills, stop = self.skills_and_stop(request)
        with self.workdir() as (root, project, home):
            assert home is not None  # isolate_home is required
            env = self.build_env(home)
            if self.lacks_credentials(env):
                return TriggerOutcome(
                    triggered=False,
                    fired=None,
                    error="authentication_failed: no API key or token for the CLI (the "
                    "interactive CLI would wait at its login screen)",
                    detail={"cli_mode": self.cli_mode},
                )
            install_skills(project, request.target, request.catalog)
            seed_config(env, project)
            session_id = str(uuid.uuid4())
            argv = interactive_argv(
                self.claude_bin, [*self.flags(), "--session-id", session_id], request.query
            )
            tail = TranscriptTail(Path(env["CLAUDE_CONFIG_DIR"]) / "projects", session_id)
            parser = TranscriptParser(self.max_turns)
            async with self._slot():
                run = await follow_session(
                    argv, project, env, tail, parser, stop, self.timeout, self._ptys
                )
            run.screen = redact(run.screen, self.secrets())
            return self._interactive_outcome(request, run, root, skills)

    def _interactive_outcome(
        self,
        request: TriggerRequest,
        run: InteractiveRun,
        root: Path,
        skills: Sequence[CliSkill],
    ) -> TriggerOutcome:
        parser = run.parser
        session = parser.session
        target = request.target.name
        invoked, refused = resolved_invocations(session, target, skills)
        turns = {
            "num_turns": parser.turns,
            "duration_ms": parser.turn_ms,
            "turn_ended": parser.turn_ended,
            "max_turns_reached": parser.over_turns,
        }
        shared = session_detail(session, invoked, turns, run.exit_code, run.decided)
        usage, known = streamed_usage(session, shared["model"] or self.model)
        detail = {"cli_mode": self.cli_mode, **shared, "cost_known": known}
        detail = self._noted(detail, refused, root)
        if run.decided and target in invoked:
            self.ended_early += 1
            return routing_outcome(target, invoked, usage, run.duration_seconds, detail)
        error = run_error(run, self.timeout)
        if error is None and parser.over_turns and not invoked:
            error = f"error_max_turns: {self.max_turns} replies without any skill called"
        if error is not None:
            detail["screen_tail"] = run.screen
        return routing_outcome(target, invoked, usage, run.duration_seconds, detail, error)

    async def aclose(self) -> None:
        """Kill interactive sessions still running, then what `ClaudeCodeJudge` closes."""
        for proc in list(self._ptys):
            kill_tree(proc.pid)
        self._ptys.clear()
        await super().aclose()
