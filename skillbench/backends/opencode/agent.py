"""opencode 1.18.33 (npm `opencode-ai`) as the replay sees it (measured against a loopback
server, FIELD-NOTES §9):

- skills are read from `.opencode/skills`, `.claude/skills` and `.agents/skills` (walking up);
  the capture installs them under `.agents/skills`;
- `opencode run -m anthropic/<model> --format json` reads the prompt from stdin (never argv);
  with `ANTHROPIC_BASE_URL` it speaks the Anthropic Messages API (through `@ai-sdk/anthropic`,
  streaming, `cache_control` on the system block and the query);
- request 1 is a title generator (no tools); request 2, the first offering the `skill` tool
  (one of 10), is the agent's own: the template;
- the listing is `<available_skills><skill><name/><description/><location/></skill>…` at the
  end of the one system block, the built-in `customize-opencode` included (a competitor users
  get); a trigger is a `tool_use` of `skill` with `{"name": <skill>}`;
- the system block holds the day as `Today's date: Thu Nov 26 2026` (JavaScript's
  `toDateString`), swapped per day like Claude Code's.

The capture disables what would reach another host: the models.dev fetch, the auto-updater,
sharing, LSP downloads and the default plugins. With all of those off, 1.18.33 still opens a
connection to registry.npmjs.org at start (measured through a loopback proxy), so every other
host is routed to a dead loopback proxy (`NULL_PROXY`: nothing listens there, the attempt fails
at once); the capture server itself is reached directly (`NO_PROXY`). The request is the same.
"""

from __future__ import annotations

import datetime
import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.anthropic.capture import text_reply_stream
from skillbench.backends.anthropic.first_turn import FirstTurn, MessagesAgent
from skillbench.backends.anthropic.sdk import DEFAULT_ENDPOINT
from skillbench.backends.opencode.config import (
    CODE_PATHS,
    CONFIG_FILES,
    PROJECT_INSTRUCTIONS,
    PROJECT_SKILL_DIRS,
    USER_INSTRUCTIONS,
    USER_LEFT_OUT,
    USER_SKILL_DIRS,
    config_instructions,
    sanitise,
)
from skillbench.backends.replay.agent import Listing
from skillbench.backends.skill_install import CliSkill

VERSION = "1.18.33"
SKILL_TOOL = "skill"
_DAY = re.compile(r"(Today's date: )(Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} \d{2} \d{4}")
_LISTING = re.compile(r"<available_skills>.*?</available_skills>", re.S)
_SKILL = re.compile(r"<skill>\s*<name>(.*?)</name>\s*(?:<description>(.*?)</description>)?", re.S)
#: Environment variables that change opencode's request (passed to the capture, in the key).
SETTINGS = (
    "OPENCODE_PERMISSION",
    "OPENCODE_EXPERIMENTAL",
    "OPENCODE_EXPERIMENTAL_PLAN_MODE",
    "OPENCODE_ENABLE_EXA",
    "OPENCODE_ENABLE_QUESTION_TOOL",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT",
    "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS",
)
#: Every host but loopback goes to this proxy, where nothing listens (port 9, "discard").
NULL_PROXY = "http://127.0.0.1:9"
#: Set for every capture: nothing but the capture server is contacted.
OFFLINE = {
    "HTTPS_PROXY": NULL_PROXY,
    "HTTP_PROXY": NULL_PROXY,
    "ALL_PROXY": NULL_PROXY,
    "NO_PROXY": "127.0.0.1,localhost",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
}


def to_date_string(day: datetime.date) -> str:
    """JavaScript's `Date.prototype.toDateString` (`Thu Nov 26 2026`)."""
    return day.strftime("%a %b %d %Y")


class OpencodeAgent(MessagesAgent):
    """opencode with an Anthropic model (see the module docstring); replayed as any Messages
    API agent (`first_turn.MessagesAgent`), its skill tool `skill` naming the skill in `name`."""

    name = "opencode"
    title = f"opencode {VERSION}"
    binary = "opencode"
    package = f"opencode-ai@{VERSION}"
    bin_variable = "SKILLBENCH_OPENCODE_BIN"
    skills_dir = ".agents/skills"
    default_model = "claude-haiku-4-5"
    default_endpoint = DEFAULT_ENDPOINT  # opencode's Anthropic provider, as the SDK's
    request_settings = SETTINGS
    skill_tool = SKILL_TOOL
    name_keys = ("name",)
    # `--project`, `--as-user` (measured on 1.18.33; docs/agents.md)
    project_instructions = PROJECT_INSTRUCTIONS
    project_skill_dirs = PROJECT_SKILL_DIRS
    config_files = CONFIG_FILES
    code_paths = CODE_PATHS
    user_instructions = USER_INSTRUCTIONS
    user_skill_dirs = USER_SKILL_DIRS
    user_left_out = USER_LEFT_OUT
    reads_above = True

    def project_instruction_names(self, root: Path) -> list[str]:
        """AGENTS.md, CLAUDE.md, and the local files the project's configuration names under
        `instructions` (inside the project)."""
        return [*self.project_instructions, *config_instructions(root)]

    def sanitise_config(self, rel: str, text: str) -> tuple[str | None, list[str]]:
        """The configuration with only `KEPT` keys (`config.sanitise`)."""
        return sanitise(rel, text)

    def capture_call(self, binary: Path, model: str, prompt: str) -> AgentCall:
        """`opencode run -m anthropic/<model> --format json`, the prompt on stdin."""
        argv = (os.fspath(binary), "run", "-m", f"anthropic/{model}", "--format", "json")
        return AgentCall(argv, prompt.encode("utf-8"))

    def capture_env(self, home: Path, base_url: str, settings: Mapping[str, str]) -> dict[str, str]:
        """Isolated HOME, a dummy key, the capture server, no fetch, update or plugin."""
        env = self.base_env(home)
        env.update(OFFLINE)
        env.update(
            ANTHROPIC_API_KEY="sk-ant-skillbench-capture-dummy",
            ANTHROPIC_BASE_URL=f"{base_url}/v1",
        )
        env.update(settings)
        return env

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """A short streamed `end_turn` text for every Messages call; 404 otherwise."""
        if method == "POST" and path.split("?", 1)[0].endswith("/messages"):
            return 200, "text/event-stream", text_reply_stream(str(body.get("model") or "claude"))
        return 404, "application/json", b'{"type":"error","error":{"type":"not_found_error"}}'

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """The first Messages request offering the `skill` tool."""
        tools = body.get("tools") or []
        return any(isinstance(t, dict) and t.get("name") == SKILL_TOOL for t in tools)

    def normalise(self, body: dict[str, Any], root: str) -> dict[str, Any]:
        """Paths made stable; `stream` and `metadata` off (the SDK call sets the stream)."""
        kept = {k: v for k, v in body.items() if k not in {"stream", "metadata"}}
        return super().normalise(kept, root)

    def dated(self, text: str) -> bool:
        """Whether `text` holds opencode's `Today's date: …` line."""
        return bool(_DAY.search(text))

    def swap_day(self, text: str, today: datetime.date) -> str:
        """The `Today's date: …` line set to `today`."""
        return _DAY.sub(lambda m: m.group(1) + to_date_string(today), text)

    def listing(self, body: dict[str, Any]) -> Listing:
        """The `<available_skills>` block of the system prompt: every skill with its description
        as shown (no budget: opencode lists every description whole)."""
        system = body.get("system")
        texts = (
            [system]
            if isinstance(system, str)
            else [str(block.get("text") or "") for block in system or [] if isinstance(block, dict)]
        )
        shown: dict[str, str | None] = {}
        chars = 0
        for text in texts:
            for block in _LISTING.findall(text):
                chars += len(block)
                for name, description in _SKILL.findall(block):
                    shown[html.unescape(name.strip())] = (
                        None if description is None else html.unescape(description.strip())
                    )
        return Listing(shown=shown, chars=chars)

    # -- the replay ----------------------------------------------------------------------------

    def fold(self, target: str, skills: Sequence[CliSkill], body: dict[str, Any]) -> FirstTurn:
        """`FirstTurn` with opencode's `skill` tool and `name` argument; opencode has no
        disabled skills."""
        listed = [replace(skill, disabled=False) for skill in skills]
        return super().fold(target, listed, body)


OPENCODE = OpencodeAgent()
