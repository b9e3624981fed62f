"""The codex backend's `session` harness: the real `codex exec` per query-run, for when Codex's
captured request cannot be replayed through OpenAI's public Responses API (its default model's
"responses-lite" shape is unverified there; docs/agents.md).

Each run gets a throwaway project holding the skill set (as the capture installs it) and an
isolated HOME whose `config.toml` names the provider: the judge's key forwarder
(`backends.key_forwarder`) on loopback, which holds the real key and forwards only to the
provider (the judge's `base_url`, else `OPENAI_BASE_URL`, else OpenAI's); the session's
environment is the capture's allowlist (`Agent.base_env`) with a random dummy key;
the same flags as the capture plus `--json`, the query on stdin (`agent_cli`). The CLI's JSONL
events are read as they come: the first tool item (`item.started`: a `command_execution` that
cats a listed SKILL.md is that skill's invocation) decides, and the CLI's whole process tree is
ended at once; `turn.completed` with messages only is a text answer (no trigger);
`turn.failed` / `error`, or an exit without either, is an error (never a miss). The captured
template still gives the listing (which skills Codex shows, and how) and the cache key's skill
set: a capture is a local CLI run against a loopback server, no model call.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from pathlib import Path
from typing import Any

from skillbench.backends.agent_cli import spawn_options
from skillbench.backends.base import TriggerRequest
from skillbench.backends.codex.agent import CAPTURE_KEY_VARIABLE, CODEX, capture_config
from skillbench.backends.codex.judge import CodexJudge
from skillbench.backends.codex.listing import parse_listing
from skillbench.backends.codex.stream import CodexFold
from skillbench.backends.key_forwarder import KeyForwarder
from skillbench.backends.proctree import kill_tree, unwatch, watch
from skillbench.backends.replay.move import ERROR, Move
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.backends.scratch import make_scratch
from skillbench.backends.skill_install import install_skills
from skillbench.errors import BackendError, InputError
from skillbench.io import atomic_write_text
from skillbench.schemas.trigger import HarnessInfo

SESSION = "session"
NOT_TOOLS = ("agent_message", "reasoning", "todo_list", "error")


def as_response_event(event: dict[str, Any]) -> dict[str, Any] | None:
    """One `codex exec --json` event as the Responses event `CodexFold` reads, or None: a tool
    item (started or completed) is a finished tool call whose input is everything it says; a
    message a message; `turn.completed` / `turn.failed` / `error` the reply's end."""
    kind = event.get("type")
    item = event.get("item") or {}
    if kind in ("item.started", "item.completed") and item.get("type") not in NOT_TOOLS:
        said = {k: v for k, v in item.items() if k not in ("id", "aggregated_output", "status")}
        tool = {"type": "custom_tool_call", "name": str(item.get("type"))}
        return {"type": "response.output_item.done", "item": {**tool, "input": json.dumps(said)}}
    if kind == "item.completed" and item.get("type") == "agent_message":
        content = [{"type": "output_text", "text": str(item.get("text") or "")}]
        return {
            "type": "response.output_item.done",
            "item": {"type": "message", "content": content},
        }
    if kind == "turn.completed":
        usage = event.get("usage") or {}
        cached = int(usage.get("cached_input_tokens") or 0)
        return {
            "type": "response.completed",
            "response": {
                "status": "completed",
                "usage": {
                    "input_tokens": int(usage.get("input_tokens") or 0),
                    "input_tokens_details": {"cached_tokens": cached},
                    "output_tokens": int(usage.get("output_tokens") or 0),
                },
            },
        }
    if kind in ("turn.failed", "error"):
        return {"type": "error"}
    return None


class CodexSessionJudge(CodexJudge):
    """TriggerJudge running the real `codex exec` per query-run (see the module docstring)."""

    harness = SESSION
    failure_kind = "session"  # the CLI could not run, or timed out
    default_max_concurrency = 4  # whole CLI processes, not HTTP calls

    def __init__(self, *args: Any, **options: Any) -> None:
        """The replay judge's options; `--project` and `--as-user` are the replay's only (each
        session runs in a bare project and HOME of its own)."""
        for name, flag in (("project", "--project"), ("as_user", "--as-user")):
            if options.get(name) is not None:
                raise InputError("applies to the codex backend's replay harness only", path=flag)
        options.pop("project", None)
        options.pop("as_user", None)
        super().__init__(*args, **options)

    def provider_url(self) -> str:
        """The Responses API the sessions talk to (as the replay's endpoint)."""
        return self.agent.provider_url(self._base_url) or self.agent.default_endpoint

    _forwarder: KeyForwarder | None = None
    _forwarder_lock = threading.Lock()

    def forwarder(self) -> KeyForwarder:
        """The key forwarder the sessions talk to (started on first use, stopped by
        `aclose`): the real key stays in this process."""
        with self._forwarder_lock:
            if self._forwarder is None:
                keys = {CAPTURE_KEY_VARIABLE: self._key}
                self._forwarder = KeyForwarder(self.provider_url(), keys).start()
            return self._forwarder

    async def aclose(self) -> None:
        """Stop the key forwarder, close the SDK client."""
        forwarder, self._forwarder = self._forwarder, None
        if forwarder is not None:
            forwarder.stop()
        await super().aclose()

    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "outcome": "first-move-of-session"}

    def request_fields(self, request: TriggerRequest) -> dict[str, Any] | None:
        """The cache key: the session mode, the skill set's template (its request: CLI,
        settings, model, listing), the query, the run index and the seed."""
        template = self.known_template(request.target, request.catalog)
        if template is None:
            return None
        return {
            "harness": SESSION,
            "template": template.key,
            "query": request.query,
            "run_index": request.run_index,
            "seed": request.seed,
        }

    async def send(self, template: ReplayTemplate, request: TriggerRequest) -> Move:
        """One `codex exec` session (bounded by the judge's timeout), ended once its first move
        is known; a session that failed is not retried."""
        return await self.limiter.run(lambda: self._session(request, template), lambda exc: None)

    def _folders(self, root: Path, request: TriggerRequest, url: str) -> tuple[Path, Path]:
        """The session's project (the skill set, a git repository) and isolated HOME (a
        `config.toml` whose provider is `url`, the key forwarder): blocking file work and
        `git init`, run off the event loop."""
        project, home = root / "project", root / "home"
        project.mkdir()
        home.mkdir()
        install_skills(project, request.target, request.catalog, CODEX.skills_dir)
        CODEX.prepare(project, home, "", str(self._model))
        config = capture_config(url, api_path="")
        atomic_write_text(home / ".codex" / "config.toml", config)
        return project, home

    async def _session(self, request: TriggerRequest, template: ReplayTemplate) -> Move:
        root = make_scratch("codex-session")
        forwarder = self.forwarder()
        try:
            project, home = await asyncio.to_thread(self._folders, root, request, forwarder.url)
            env = CODEX.capture_env(home, forwarder.url, self.settings)
            env.update(forwarder.session_keys())
            call = CODEX.capture_call(self.binary, str(self._model), request.query)
            argv = (*call.argv[:-1], "--json", call.argv[-1])
            fold = CodexFold(
                request.target.name, self._cli_skills(request), parse_listing(template.body)
            )
            async with asyncio.timeout(self._timeout):
                return await _run(argv, call.stdin, project, env, fold)
        finally:
            await asyncio.to_thread(shutil.rmtree, root, ignore_errors=True)

    def harness_info(self) -> HarnessInfo:
        return HarnessInfo(
            name=f"{self.name} session",
            claude_code_request=False,
            note=f"the real {self.agent.title} (`codex exec --json`) per query-run, ended at its "
            "first move; the listing is read from its captured request",
        )


async def _run(
    argv: tuple[str, ...], stdin: bytes, cwd: Path, env: dict[str, str], fold: CodexFold
) -> Move:
    """Run the CLI, fold its JSONL events until the move is known, end its process tree."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            **spawn_options(),
        )
    except OSError as exc:
        raise BackendError(f"cannot run {argv[0]}: {exc}; {CODEX.install_hint()}") from None
    watch(proc.pid)
    ended = False
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(stdin)
        await proc.stdin.drain()
        proc.stdin.close()
        async for line in proc.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            seen = as_response_event(event) if isinstance(event, dict) else None
            if seen is not None and (
                fold.feed(seen) or seen["type"] != "response.output_item.done"
            ):
                ended = True
                break
    finally:
        kill_tree(proc.pid)
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
        unwatch(proc.pid)
    move = fold.finish()
    if not ended and fold.move is None:
        move = Move(ERROR, error_kind="session-ended", stop_reason=f"exit {proc.returncode}")
    return move
