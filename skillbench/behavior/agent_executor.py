"""`AgentSessionExecutor`: a behavior run as a real agentic session of another agent's CLI
(Codex CLI, Gemini CLI, opencode; a spec's `agent-cli-session` executor), built on
`backends.agent_session.AgentSessionRunner`.

Each run gets a scratch project holding the skill where that agent loads skills (its
`skills_dir`, `.agents/skills/<folder name>/`; nothing for a baseline) and the case's input
files, and an isolated HOME holding the agent's configuration; the CLI runs once on the case
prompt (on stdin) with an allowlisted environment, a dummy key and the runner's loopback key
forwarder. A case's `environment` block builds a `hermetic.World` around the session: the fakes
first on PATH and checked in the agent's own shell (`BASH_ENV`), the git rewrite, the fake MCP
servers in the agent's own MCP configuration, the network namespace. Files the session created
or changed become the run's outputs; its JSON events the transcript; its token counts the usage,
priced with the dollars the CLI states (opencode) or from the price table (`Agent.price`).
On a Ray cluster (`--cluster`) the executor travels to a node and runs there as its `on_node`
copy: that node's CLI, its key forwarder forwarding to the node's proxy (`cluster.remote`).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any, Self

from skillbench.backends.agent_session import (
    AgentSessionRunner,
    McpCommand,
    ScriptedReply,
    SessionCli,
    SessionLog,
    SessionRun,
)
from skillbench.backends.base import CallUsage, public_endpoint
from skillbench.backends.skill_copy import DEFAULT_MAX_COPY
from skillbench.behavior.executors import (
    CopyLimits,
    RunTask,
    collect_outputs,
    failed_result,
    install_project,
)
from skillbench.behavior.run_files import (
    TOOL_TEXT_LIMIT,
    ExecutionResult,
    make_timing,
    output_chars,
    scrub_outputs,
)
from skillbench.errors import BackendError
from skillbench.hermetic.agent_wiring import agent_env, mcp_commands
from skillbench.hermetic.world import World
from skillbench.limits import AGENT_SESSION_TIMEOUT, DEFAULT_MAX_OUTPUT
from skillbench.redaction import redact, redact_data
from skillbench.schemas.skill_creator import SCMetrics
from skillbench.timestamps import utc_timestamp

__all__ = ["AgentSessionExecutor", "render_agent_transcript"]


class AgentSessionExecutor(CopyLimits):
    """Executor running another agent's CLI agentically, one isolated project per run."""

    mode = "behavior-agent"

    def __init__(
        self,
        cli: SessionCli,
        model: str | None = None,
        *,
        binary: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        max_concurrency: int | None = 2,
        max_copy: int = DEFAULT_MAX_COPY,
        max_output: int = DEFAULT_MAX_OUTPUT,
        check_key: bool = True,
    ) -> None:
        """`check_key`: BackendError now when the provider key is not set (a dry run's plan
        builds the executor only for its identity, with False)."""
        self.runner = AgentSessionRunner(
            cli,
            model,
            binary=binary,
            timeout=AGENT_SESSION_TIMEOUT if timeout is None else timeout,
            max_concurrency=max_concurrency,
        )
        if check_key:
            cli.keys()
        self.cli = cli
        self.name = cli.name
        self.model: str | None = self.runner.model
        self.max_copy = max_copy
        self.max_output = max_output
        self.notes: list[str] = []
        self.own_dirs = frozenset(cli.config_dirs)

    def version(self) -> str:
        """The CLI's version (`--version`, asked once)."""
        return self.runner.version()

    def api_upstream(self) -> str:
        """The provider base URL its sessions call (the key forwarder's upstream)."""
        return self.cli.upstream()

    def on_node(self, api_url: str, versions: MutableMapping[str, str]) -> Self:
        """A copy running its sessions on this machine (`placement.NodeSessions`): the
        runner's `on_node` (this machine's CLI, its key forwarder forwarding to `api_url`)."""
        local = copy.copy(self)
        local.notes = []
        local.runner = self.runner.on_node(api_url, versions)
        return local

    def identity(self) -> dict[str, Any]:
        """Backend, mode, model, CLI version and flags, the agent's settings, the provider's
        endpoint (no credentials) and the install mode; the copy and output limits when not
        the defaults (`limit_fields`)."""
        return {
            "backend": self.name,
            "mode": self.mode,
            "model": self.model,
            "cli_version": self.version(),
            "flags": self.runner.flags(),
            "settings": self.cli.settings(),
            "endpoint": public_endpoint(self.cli.upstream()),
            "skill_install": f"{self.cli.skills_dir} without-evals",
            **self.limit_fields(),
        }

    async def execute(self, task: RunTask) -> ExecutionResult:
        """One agentic session; files created or changed in the project become outputs."""
        started_at = utc_timestamp()
        calls: list[dict[str, Any]] = []
        answers: list[dict[str, Any]] = []
        hermetic: dict[str, Any] | None = None
        try:
            api_url = self.runner.forwarder().url
        except BackendError as exc:
            return failed_result(str(exc), task.prompt)
        with self.runner.workdir() as (root, project, home):
            before = install_project(
                task,
                project,
                max_copy=self.max_copy,
                note=self._note,
                skills_dir=self.cli.skills_dir,
                is_config=self.cli.config_path,
                own_dirs=self.own_dirs,
            )
            env = {**self.cli.session_env(home, api_url), **self.runner.forwarder().session_keys()}
            if task.environment is None:
                self.cli.configure(project, home, api_url, str(self.model), {})
                run = await self.runner.run(task.prompt, project, env)
                spooled, over_cap = collect_outputs(project, before, self.max_output, self.own_dirs)
            else:
                with World(task.environment, root) as world:
                    mcp: dict[str, McpCommand] = mcp_commands(world)
                    self.cli.configure(project, home, api_url, str(self.model), mcp)
                    try:
                        prefix = world.launch_prefix(api_url)
                    except BackendError as exc:
                        return failed_result(str(exc), task.prompt)
                    inside = agent_env(world, env)
                    run = await self.runner.run(task.prompt, project, inside, prefix)
                    if task.environment.answers:
                        run = await self._answer_replies(run, world, project, inside, prefix)
                    spooled, over_cap = collect_outputs(
                        project, before, self.max_output, self.own_dirs
                    )
                    deleted = [rel for rel in before if not (project / rel).exists()]
                    calls, answers, hermetic = world.run_logs(deleted, self.runner.secrets())
        return self._result(task, run, spooled, over_cap, started_at, calls, answers, hermetic)

    async def _answer_replies(
        self,
        run: SessionRun,
        world: World,
        project: Path,
        env: dict[str, str],
        prefix: Sequence[str],
    ) -> SessionRun:
        """The session resumed while its turn ends with a question a scripted answer fits
        (`ReplyAnswerer`: at most four times, each question logged in `answers.jsonl`), within
        the runner's timeout for the whole session; a turn that failed ends it."""
        answerer = world.reply_answerer()
        spent = run.duration_s
        while run.error(self.runner.timeout) is None:
            left = self.runner.timeout - spent
            resumable = run.log.session_id is not None and left > 0  # as claude-code's rule
            reply = run.log.texts[-1] if run.log.texts else ""
            answer = answerer(reply, resumable)
            if answer is None:
                break
            run.log.reply(answer)
            run = await self.runner.run(answer, project, env, prefix, resume=run.log, timeout=left)
            spent += run.duration_s
            run = dataclasses.replace(run, duration_s=spent)
        return run

    def _result(
        self,
        task: RunTask,
        run: SessionRun,
        spooled: Any,
        over_cap: str | None,
        started_at: str,
        calls: list[dict[str, Any]],
        answers: list[dict[str, Any]],
        hermetic: dict[str, Any] | None,
    ) -> ExecutionResult:
        secrets = self.runner.secrets()
        outputs, redacted, withheld = scrub_outputs(spooled, secrets)
        log = run.log
        events: list[dict[str, Any]] = redact_data(log.events, secrets)
        md = render_agent_transcript(task.prompt, log, secrets)
        usage = self.usage(log)
        error = run.error(self.runner.timeout)
        if over_cap is not None:
            error = f"{error}; {over_cap}" if error else over_cap
        final = redact(log.texts[-1] if log.texts else "", secrets)
        return ExecutionResult(
            status="error" if error else "ok",
            final_text=final,
            events=events,
            transcript_md=md,
            outputs=outputs,
            metrics=agent_metrics(log, outputs, md, error),
            timing=make_timing(usage, run.duration_s, started_at, utc_timestamp()),
            usage=usage,
            duration_s=run.duration_s,
            error=error,
            redacted_outputs=redacted,
            withheld_outputs=withheld,
            calls=calls,
            answers=answers,
            hermetic=hermetic,
        )

    def usage(self, log: SessionLog) -> CallUsage:
        """The session's tokens and dollars: the cost the CLI stated, else the price table's
        (`Agent.price`; 0 and a note for a model it has no price for)."""
        usage = CallUsage(**log.usage.tokens.model_dump())
        if log.reported_cost is not None:
            usage.cost_usd = round(log.reported_cost, 6)
            return usage
        dollars, note = self.cli.agent.price(log.model or str(self.model), usage)
        if note is not None:
            self._note([note])
        usage.cost_usd = dollars
        return usage

    async def aclose(self) -> None:
        """End running sessions, stop the key forwarder."""
        await self.runner.aclose()


def agent_metrics(
    log: SessionLog, outputs: Any, transcript_md: str, error: str | None
) -> SCMetrics:
    """Seed 004 metrics from a session's log: tool calls by name, steps (model turns), errors
    (failed tool calls, plus one for a failed session)."""
    counts: dict[str, int] = {}
    for call in log.tool_calls:
        counts[call.name] = counts.get(call.name, 0) + 1
    return SCMetrics(
        tool_calls=counts,
        total_tool_calls=len(log.tool_calls),
        total_steps=log.steps,
        files_created=sorted(outputs),
        errors_encountered=sum(c.error for c in log.tool_calls) + (1 if error else 0),
        output_chars=output_chars(outputs),
        transcript_chars=len(transcript_md),
    )


def _clip(text: str) -> str:
    extra = len(text) - TOOL_TEXT_LIMIT
    return text if extra <= 0 else text[:TOOL_TEXT_LIMIT] + f"\n… ({extra} more chars)"


def render_agent_transcript(prompt: str, log: SessionLog, secrets: Sequence[str] = ()) -> str:
    """A readable Markdown transcript: the prompt, each tool call with its result, the
    assistant's texts (redacted)."""
    lines = ["# Transcript", "", "## User", "", prompt.strip(), ""]
    for item in log.items:
        if isinstance(item, str):
            lines += ["## Assistant", "", item.strip(), ""]
            continue
        if isinstance(item, ScriptedReply):
            lines += ["## User (scripted answer)", "", item.text.strip(), ""]
            continue
        payload = json.dumps(item.input, ensure_ascii=False, indent=1)
        lines += [f"### Tool call: {item.name}", "", "```json", _clip(payload), "```", ""]
        label = "Tool error" if item.error else "Tool result"
        lines += [f"### {label}", "", "```", _clip(item.output), "```", ""]
    if log.error:
        lines += ["## Error", "", log.error, ""]
    return redact("\n".join(lines).rstrip() + "\n", secrets)
