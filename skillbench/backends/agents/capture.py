"""Capture an agent CLI's own first request for a skill set, once, as an `AgentTemplate`.

The pinned CLI runs once, non-interactively, in a throwaway project (the skills installed under
the agent's `skills_dir` as whole folders, `claude_cli.install`), with an isolated HOME, a dummy
key and the agent's base URL pointing at a loopback capture server (`AgentCaptureServer`) that
answers as the agent says (`Agent.capture_reply`). The first request the agent calls its own
(`Agent.is_agent_request`) is the template: path, the kept headers, the body normalised
(`Agent.normalise`: the throwaway folder made stable, ids dropped), with a sentinel where the
query goes. Templates are stored beside the call cache like Claude Code's (`TemplateStore`),
keyed by agent, skill set, model, CLI version and the settings that change the request.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, Field, PrivateAttr

from skillbench.backends.agent_cli import AgentCall, spawn_options
from skillbench.backends.agents.agent import SENTINEL, Agent, Listing
from skillbench.backends.anthropic.capture import (
    CAPTURE_TIMEOUT,
    TemplateStore,
    _edit,
    _paths_where,
    skill_set_hash,
)
from skillbench.backends.base import SkillEntry
from skillbench.backends.proctree import kill_tree, unwatch, watch
from skillbench.backends.replay.capture_server import CaptureServer
from skillbench.backends.scratch import make_scratch
from skillbench.backends.skill_install import install_skills
from skillbench.errors import BackendError
from skillbench.redaction import redact

AGENT_TEMPLATE_FORMAT = 1


class AgentTemplate(BaseModel):
    """One agent's captured request, normalised, with the sentinel where the query goes."""

    format: int = AGENT_TEMPLATE_FORMAT
    agent: str
    key: str
    model: str
    cli_version: str
    path: str = Field(description="request path the CLI used, e.g. /v1/messages")
    headers: dict[str, str] = Field(description="the agent's kept headers only")
    body: dict[str, Any]
    settings: dict[str, str] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list, description="skill folders installed")
    listing: dict[str, Any] = Field(
        default_factory=dict, description="what the model sees of the skills (`Listing`)"
    )

    _sentinel_at: tuple[str | int, ...] | None = PrivateAttr(default=None)
    _dated_at: list[tuple[str | int, ...]] | None = PrivateAttr(default=None)

    def view(self) -> Listing:
        """The listing as captured."""
        data = self.listing or {}
        return Listing(
            shown=dict(data.get("shown") or {}),
            chars=int(data.get("chars") or 0),
            budget=data.get("budget"),
        )

    def sentinel_count(self) -> int:
        """How many strings of the body hold the sentinel (1 for a well-formed capture)."""
        return json.dumps(self.body, ensure_ascii=False).count(SENTINEL)

    def body_for(
        self, agent: Agent, query: str, today: datetime.date | None = None
    ) -> dict[str, Any]:
        """The body the agent would send for `query` on `today`: the one string holding the
        sentinel swapped (`Agent.swap_query`; only string values are touched, so a query cannot
        break the document) and, when `today` is given, the agent's date texts set to it. Only
        the containers on the way to an edited string are copied."""
        if self._sentinel_at is None:
            found = _paths_where(self.body, lambda text: SENTINEL in text)
            if len(found) != 1 or not found[0]:
                raise BackendError(
                    f"the {self.agent} template holds the sentinel {len(found)} times (expected once)"
                )
            self._sentinel_at = found[0]
        if self._dated_at is None:
            self._dated_at = _paths_where(self.body, agent.dated)
        root = dict(self.body)
        _edit(root, self._sentinel_at, lambda text: agent.swap_query(text, query))
        if today is not None:
            for path in self._dated_at:
                _edit(root, path, lambda text: agent.swap_day(text, today))
        return root

    def content_hash(self) -> str:
        """SHA-256 of path, headers and body."""
        blob = json.dumps(
            {"p": self.path, "h": self.headers, "b": self.body}, sort_keys=True, ensure_ascii=False
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def request_hash(path: str, headers: Mapping[str, str], body: dict[str, Any]) -> str:
    """SHA-256 of one replayed request as sent (the call cache's key for it)."""
    blob = json.dumps(
        {"p": path, "h": dict(headers), "b": body}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def agent_template_key(
    agent: Agent,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    model: str,
    cli_version: str,
    settings: Mapping[str, str],
) -> str:
    """The store key: agent, skill set content, model, CLI version and settings."""
    fields = {
        "format": AGENT_TEMPLATE_FORMAT,
        "agent": agent.name,
        "skills_dir": agent.skills_dir,
        "skills": skill_set_hash(target, catalog),
        "model": model,
        "cli": cli_version,
        "settings": dict(sorted(settings.items())),
    }
    blob = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


# -- the capture server ------------------------------------------------------------------------


class AgentCaptureServer(CaptureServer):
    """The capture server answering as `agent` (`Agent.capture_reply`)."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent)
        self.agent = agent


# -- capture -----------------------------------------------------------------------------------


_versions: dict[tuple[str, str, int], str] = {}


def cli_version(agent: Agent, binary: Path) -> str:
    """The CLI's version (asked once per binary file: run in a throwaway HOME, nothing but PATH
    passed on)."""
    try:
        stamp = os.stat(binary).st_mtime_ns
    except OSError:
        stamp = 0
    memo = (agent.name, os.fspath(binary), stamp)
    if memo not in _versions:
        _versions[memo] = _ask_version(agent, binary)
    return _versions[memo]


def _ask_version(agent: Agent, binary: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="skillbench-agent-v-") as tmp:
        env = {k: os.environ[k] for k in ("PATH", "LANG", "TMPDIR") if k in os.environ}
        env.update(HOME=tmp, XDG_CONFIG_HOME=str(Path(tmp) / ".config"))
        try:
            done = subprocess.run(
                agent.version_call(binary),
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendError(f"cannot run {binary}: {exc}; {agent.install_hint()}") from None
    words = (done.stdout or "").split()
    if done.returncode != 0 or not words:
        raise BackendError(f"{binary} --version failed (exit {done.returncode})")
    return words[-1] if words[-1][:1].isdigit() else words[0]


def run_until_captured(
    agent: Agent,
    call: AgentCall,
    cwd: Path,
    env: dict[str, str],
    server: AgentCaptureServer,
    timeout: float,
) -> tuple[int | None, str]:
    """Run the capture CLI (`agent_cli` rules: prompt on stdin, its process group dies with
    skillbench) until the agent's own request has arrived or the CLI exits; then its whole
    process tree is ended (the turns after the first request are not needed). Returns the exit
    code (None: ended by skillbench) and the tail of what it wrote. BackendError when it cannot
    start or neither happens within `timeout`."""
    with tempfile.TemporaryFile() as output:
        try:
            proc = subprocess.Popen(
                call.argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=output,
                stderr=subprocess.STDOUT,
                **spawn_options(),
            )
        except OSError as exc:
            raise BackendError(
                f"cannot run {call.argv[0]}: {exc}; {agent.install_hint()}"
            ) from None
        watch(proc.pid)
        try:
            assert proc.stdin is not None
            try:
                proc.stdin.write(call.stdin)
                proc.stdin.close()
            except OSError:
                pass  # it exited before reading: its exit code says why
            waited = 0.0
            while proc.poll() is None:
                if server.wait_for_agent_request(0.2):
                    break
                waited += 0.2
                if waited >= timeout:
                    raise BackendError(
                        f"capturing {agent.title}'s request timed out after {timeout:g} s"
                    )
            code = proc.poll()
        finally:
            kill_tree(proc.pid)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            unwatch(proc.pid)
        output.seek(0)
        tail = output.read()[-2000:].decode("utf-8", "replace")
    return code, tail


def capture_template(
    agent: Agent,
    binary: Path,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    *,
    model: str,
    cli_version: str,
    settings: Mapping[str, str] | None = None,
    timeout: float = CAPTURE_TIMEOUT,
) -> AgentTemplate:
    """Run the agent's CLI once against the capture server; the normalised template.

    BackendError when the CLI fails, times out or never sends its own request."""
    settings = dict(settings or {})
    key = agent_template_key(agent, target, catalog, model, cli_version, settings)
    root = make_scratch("capture").resolve()
    try:
        project, home = root / "project", root / "home"
        project.mkdir()
        home.mkdir()
        names = install_skills(project, target, catalog, agent.skills_dir)
        with AgentCaptureServer(agent) as server:
            agent.prepare(project, home, server.base_url, model)
            env = agent.capture_env(home, server.base_url, settings)
            call = agent.capture_call(binary, model, SENTINEL)
            code, said = run_until_captured(agent, call, project, env, server, timeout)
            found = server.agent_request()
        if found is None:
            raise BackendError(
                f"the {agent.binary} CLI (exit {code}) made no request of its own; cannot "
                f"capture a replay template. CLI said: {redact(said.strip()[-400:])!r}"
            )
        path, headers, body = found
        kept = agent.normalise(body, str(root))
        template = AgentTemplate(
            agent=agent.name,
            key=key,
            model=model,
            cli_version=cli_version,
            path=path,
            headers=headers,
            body=kept,
            settings=settings,
            skills=names,
            listing=agent.listing(kept).as_dict(),
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if template.sentinel_count() != 1:
        raise BackendError(
            f"the captured {agent.title} request holds the sentinel query "
            f"{template.sentinel_count()} times (expected once): this CLI version is not "
            "supported by the replay"
        )
    return template


class AgentTemplateStore(TemplateStore):
    """Agent templates on disk beside the call cache (`capture.templates_dir`), captured on a
    miss; one failed capture per skill set, not one per run."""

    template_class = AgentTemplate
    template_format = AGENT_TEMPLATE_FORMAT

    def __init__(self, agent: Agent, folder: str | os.PathLike[str] | None = None) -> None:
        super().__init__(folder)
        self.agent = agent

    def agent_lookup(
        self,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> AgentTemplate | None:
        """The stored template, or None (never captured here)."""
        key = agent_template_key(self.agent, target, catalog, model, cli_version, settings)
        with self._lock:
            found = cast("AgentTemplate | None", self.load(key))
            return found

    def agent_get(
        self,
        binary: Path,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> AgentTemplate:
        """The template for this skill set (captured once)."""
        key = agent_template_key(self.agent, target, catalog, model, cli_version, settings)
        with self._lock:
            found = cast("AgentTemplate | None", self.load(key))
            if found is not None:
                return found
            if key in self._failed:
                raise BackendError(self._failed[key])
            self.captures += 1
            try:
                template = capture_template(
                    self.agent,
                    binary,
                    target,
                    catalog,
                    model=model,
                    cli_version=cli_version,
                    settings=settings,
                )
            except BackendError as exc:
                self._failed[key] = str(exc)
                raise
            self.save(template)  # type: ignore[arg-type]
            return template
