"""Real Claude Code sessions for the field tests and the field-import benchmark.

`write_claude_transcripts(claude, mode, root)` runs the real CLI (either pinned version) through
the script `SESSIONS` in an isolated HOME against the loopback fake Messages API
(tests/mock_anthropic_sse.py), which decides, for each request, which listed skill fires:

- `print`: one `claude -p` process per prompt (`--session-id`, then `--resume`), as headless and
  SDK users run it;
- `interactive`: one CLI process per session in a pseudo-terminal, every prompt TYPED into its
  prompt as a user does (`~/.claude.json` pre-seeded by `interactive.seed_config`: onboarding
  done, the key approved, the project trusted; and the Skill tool allowed in the user's
  settings, as "don't ask again" leaves it: a skill the fake picks may otherwise stop at a
  permission dialog), each typed once the previous turn's `turn_duration` line is in the
  transcript; the process is killed after the last turn, as a session still open is (no
  closing line written).

Every request the fake answered is kept per prompt, so a test can compare each imported record
with what the fake was sent (the listing) and decided (the skill it made the model invoke).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mock_anthropic_sse import MockAnthropic, RecordedRequest

from skillbench.backends.claude_cli.interactive import TERMINAL_SIZE, screen_tail, seed_config
from skillbench.backends.proctree import child_options, kill_tree

SKILLS = {
    "tidy-csv": "Use when cleaning spreadsheet csv tables with duplicate rows.",
    "pdf-tools": "Use when merging or rotating pdf documents.",
}
NAME_ONLY_BUDGET = "120"
"""A listing budget so small that the project's skills are listed by name only."""
SESSIONS: list[tuple[str, dict[str, str], list[str]]] = [
    (
        "11111111-1111-4111-8111-111111111111",
        {},
        [
            "clean my spreadsheet csv duplicate rows",
            "merge my pdf documents please",
            "hello there friend",
            "/tidy-csv",
        ],
    ),
    (
        "22222222-2222-4222-8222-222222222222",
        {"SLASH_COMMAND_TOOL_CHAR_BUDGET": NAME_ONLY_BUDGET},
        ["clean my spreadsheet csv duplicate rows", "/pdf-tools"],
    ),
    ("33333333-3333-4333-8333-333333333333", {}, ["what is the weather"]),
]
"""(session id, extra environment, prompts in order): three sessions, seven user turns."""
API_KEY = "sk-ant-dummy-offline"
TURN_SECONDS = 60
"""How long one turn (or the interactive CLI's start) may take before the run is an error."""


@dataclass
class Prompt:
    """One prompt of a session: its session, text, and every request the fake answered for it."""

    session_id: str
    query: str
    requests: list[RecordedRequest] = field(default_factory=list)

    def fired(self) -> list[str]:
        """The skills the fake made the model invoke, in order."""
        return [r.answered_skill for r in self.requests if r.answered_skill]

    def listed_full(self) -> set[str]:
        """The skills some request of this prompt listed with their description."""
        return {name for r in self.requests for name, _ in r.listing}


@dataclass
class Transcripts:
    """The sessions one CLI version wrote in one mode."""

    home: Path
    projects: Path
    prompts: list[Prompt]
    version: str = ""
    mode: str = "print"


def make_project(root: Path) -> Path:
    """`root/proj` with the two `SKILLS` under `.claude/skills/`."""
    project = root / "proj"
    for name, description in SKILLS.items():
        folder = project / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        text = f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n"
        (folder / "SKILL.md").write_text(text)
    return project


def _sent(mock: MockAnthropic, seen: int) -> list[RecordedRequest]:
    return [r for r in mock.requests[seen:] if r.path.startswith("/v1/messages")]


def _print_session(
    claude: Path, project: Path, env: dict[str, str], mock: MockAnthropic,
    session_id: str, queries: list[str],
) -> list[Prompt]:  # fmt: skip
    prompts = []
    for i, query in enumerate(queries):
        seen = len(mock.requests)
        resume = ["--session-id", session_id] if i == 0 else ["--resume", session_id]
        done = subprocess.run(
            [str(claude), "-p", *resume, "--output-format", "json"],
            input=query, capture_output=True, text=True, cwd=project, env=env,
            timeout=TURN_SECONDS, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        prompts.append(Prompt(session_id, query, _sent(mock, seen)))
    return prompts


class _Terminal:
    """The master side of the CLI's pty: kept drained, what it showed kept for messages."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.shown = bytearray()  # the last 64 KB it showed
        self.since = bytearray()  # what it showed since the last keys typed

    def wait(self, ready: Callable[[], bool], seconds: float, what: str) -> None:
        deadline = time.monotonic() + seconds
        while not ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} within {seconds:g} s; it showed: "
                                     f"{screen_tail(self.shown)!r}")  # fmt: skip
            if select.select([self.master], [], [], 0.1)[0]:
                with contextlib.suppress(OSError):
                    chunk = os.read(self.master, 65536)
                    self.shown += chunk
                    self.since += chunk
                    del self.shown[:-65536]

    def pause(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        self.wait(lambda: time.monotonic() >= end, seconds + 1, "paused")

    def type(self, text: str) -> None:
        """Type `text`, wait until the prompt shows it (keys and Enter read in one piece would
        be taken as a paste, not sent), then press Enter."""
        self.since = bytearray()
        os.write(self.master, text.encode())
        head = "".join(text.split())[:12]  # the screen moves the cursor over spaces

        def echoed() -> bool:
            return head in "".join(screen_tail(self.since, len(self.since)).split())

        self.wait(echoed, TURN_SECONDS, f"{text!r} not echoed")
        self.pause(0.3)
        os.write(self.master, b"\r")


def _prompt_ready(shown: bytes | bytearray) -> bool:
    """The prompt box is drawn: 2.1.197 shows `? for shortcuts`, 2.1.332 its `❯` prompt."""
    return b"shortcuts" in shown or "❯".encode() in shown


def _typed_session(
    claude: Path, project: Path, env: dict[str, str], mock: MockAnthropic,
    session_id: str, queries: list[str],
) -> list[Prompt]:  # fmt: skip
    import fcntl
    import struct
    import termios

    seed_config(env, project)
    settings = Path(env["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"permissions": {"allow": ["Skill"]}}))
    projects = Path(env["HOME"]) / ".claude" / "projects"

    def turns_over(count: int) -> Callable[[], bool]:
        """Whether the transcript holds `count` ended turns (`turn_duration` lines)."""

        def over() -> bool:
            found = next(projects.glob(f"*/{session_id}.jsonl"), None)
            ended = found.read_bytes().count(b'"subtype":"turn_duration"') if found else 0
            return ended >= count

        return over

    master, slave = os.openpty()
    rows, cols = TERMINAL_SIZE
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    child = subprocess.Popen(
        [str(claude), "--session-id", session_id], cwd=project,
        env={**env, "TERM": "xterm-256color"}, stdin=slave, stdout=slave, stderr=slave,
        **child_options(),
    )  # fmt: skip
    os.close(slave)
    terminal = _Terminal(master)
    prompts = []
    try:
        terminal.wait(lambda: _prompt_ready(terminal.shown), TURN_SECONDS, "no prompt drawn")
        for n, query in enumerate(queries, 1):
            seen = len(mock.requests)
            terminal.type(query)
            terminal.wait(turns_over(n), TURN_SECONDS, f"{query!r} unanswered")
            prompts.append(Prompt(session_id, query, _sent(mock, seen)))
    finally:
        kill_tree(child.pid)
        with contextlib.suppress(ProcessLookupError):
            child.kill()
        child.wait()
        os.close(master)
    return prompts


def write_claude_transcripts(claude: Path, mode: str, root: Path, version: str = "") -> Transcripts:
    """Run `SESSIONS` with the real CLI `claude` in `mode` (`print` or `interactive`) in an
    isolated HOME under `root`; the transcripts and what the fake decided per prompt."""
    home = root / "home"
    home.mkdir(parents=True)
    project = make_project(root)
    run = _typed_session if mode == "interactive" else _print_session
    prompts: list[Prompt] = []
    with MockAnthropic() as mock:
        base = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": mock.base_url,
            "ANTHROPIC_API_KEY": API_KEY,
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        for session_id, extra, queries in SESSIONS:
            prompts += run(claude, project, {**base, **extra}, mock, session_id, queries)
    return Transcripts(home, home / ".claude" / "projects", prompts, version, mode)
