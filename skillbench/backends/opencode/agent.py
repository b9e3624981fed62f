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

import asyncio
import datetime
import html
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from skillbench.backends.agent_cli import AgentCall
from skillbench.backends.agents.agent import (
    ERROR,
    OTHER_SKILL,
    OTHER_TOOL,
    TARGET,
    TEXT,
    Agent,
    Listing,
    Move,
)
from skillbench.backends.anthropic.capture import text_reply_stream
from skillbench.backends.anthropic.first_turn import FirstTurn
from skillbench.backends.anthropic.replay import DRAIN_SECONDS
from skillbench.backends.base import CallUsage, public_endpoint
from skillbench.backends.limiter import Failure
from skillbench.backends.skill_install import CliSkill

VERSION = "1.18.33"
SKILL_TOOL = "skill"
DEFAULT_ENDPOINT = "https://api.anthropic.com"
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


class OpencodeAgent(Agent):
    """opencode with an Anthropic model (see the module docstring)."""

    name = "opencode"
    title = f"opencode {VERSION}"
    binary = "opencode"
    package = f"opencode-ai@{VERSION}"
    bin_variable = "SKILLBENCH_OPENCODE_BIN"
    skills_dir = ".agents/skills"
    default_model = "claude-haiku-4-5"
    key_variable = "ANTHROPIC_API_KEY"
    sdk = "anthropic"
    kept_headers = ("anthropic-version", "anthropic-beta")
    request_settings = SETTINGS
    skill_tool = SKILL_TOOL

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

    def client(
        self, *, api_key: str, base_url: str | None, timeout: float | None, http_client: Any
    ) -> Any:
        """`anthropic.AsyncAnthropic`, its own retries off (the limiter retries)."""
        import anthropic

        options: dict[str, Any] = {"max_retries": 0, "timeout": timeout}
        if http_client is not None:
            options["http_client"] = http_client
        return anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, **options)

    def endpoint(self, base_url: str | None) -> str:
        """The Anthropic base URL in use, without credentials."""
        url = base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ENDPOINT
        return public_endpoint(url) or DEFAULT_ENDPOINT

    def call_arguments(
        self, path: str, headers: Mapping[str, str], body: dict[str, Any]
    ) -> dict[str, Any]:
        """`beta.messages.create` arguments sending `body` as opencode sent it: the betas as a
        list, the captured `anthropic-version`, fields the SDK does not name in `extra_body`."""
        rest = dict(body)
        arguments: dict[str, Any] = {
            "model": rest.pop("model"),
            "max_tokens": rest.pop("max_tokens"),
            "messages": rest.pop("messages"),
            "stream": True,
            "extra_body": rest,
        }
        betas = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
        if betas:
            arguments["betas"] = betas
        if headers.get("anthropic-version"):
            arguments["extra_headers"] = {"anthropic-version": headers["anthropic-version"]}
        if "beta=true" in path:
            arguments["extra_query"] = {"beta": "true"}
        return arguments

    async def first_move(
        self,
        client: Any,
        path: str,
        headers: Mapping[str, str],
        body: dict[str, Any],
        *,
        target: str,
        skills: Sequence[CliSkill],
        stop_when_decided: bool,
    ) -> Move:
        """Stream the reply and fold it (`first_turn.FirstTurn` with opencode's `skill` tool
        and `name` argument); opencode has no disabled skills."""
        listed = [replace(skill, disabled=False) for skill in skills]
        fold = FirstTurn(target, listed, skill_tool=SKILL_TOOL, name_keys=("name",))
        stream = await client.beta.messages.create(**self.call_arguments(path, headers, body))
        events = stream.__aiter__()
        try:
            async for event in events:
                if fold.feed(event) and stop_when_decided:
                    # the rest of a decided message is read for at most DRAIN_SECONDS (its
                    # closing events: the real output count, and the connection goes back to
                    # the pool); a reply still going after that is cut off
                    if not await _drain(events, fold):
                        fold.close_early()
                    break
        finally:
            await stream.close()
        d = fold.finish()
        kind = {"target": TARGET, "other-skill": OTHER_SKILL, "other-tool": OTHER_TOOL}.get(
            str(d.kind), TEXT if d.kind == "text" else ERROR
        )
        usage = CallUsage(
            input_tokens=d.usage.input_tokens,
            output_tokens=d.usage.output_tokens,
            cache_read_input_tokens=d.usage.cache_read_input_tokens,
            cache_creation_input_tokens=d.usage.cache_creation_input_tokens,
        )
        return Move(
            kind=kind,
            fired=d.fired,
            tool=d.tool,
            error_kind=d.error_kind,
            stop_reason=d.stop_reason,
            text=d.text,
            usage=usage,
            closed_early=d.closed_early,
            output_estimated=d.output_estimated,
        )

    def classify_failure(self, exc: BaseException) -> Failure | None:
        """The Anthropic SDK's failures, as the Claude replay classifies them."""
        from skillbench.backends.anthropic.sdk import classify_failure

        return classify_failure(exc)

    def price(self, model: str, usage: CallUsage) -> tuple[float, str | None]:
        """The Anthropic price table's."""
        from skillbench.backends.anthropic.sdk import price

        return price(model, usage)


async def _drain(events: Any, fold: FirstTurn) -> bool:
    """Read the decided message to its end within `DRAIN_SECONDS`; False if it went on, broke
    off or failed (the move stands either way)."""
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            async for event in events:
                fold.feed(event)
    except Exception:
        return False
    return True


OPENCODE = OpencodeAgent()
