"""A session's hermetic world, built from a case's `environment` block in the session's
scratch folder: fake binaries first on PATH (and the guard checking that in the agent's own
shell), the git rewrite, the fake MCP servers, the network namespace. `World` is a context
manager; `record()`, `calls()` and `answers()` say what happened, for the run folder."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import Field

from skillbench.errors import BackendError
from skillbench.hermetic.answers import ANSWERS_FILE, AnswerRecord, ReplyAnswerer, read_answers
from skillbench.hermetic.calls import CallRecord, read_calls
from skillbench.hermetic.environment import Environment
from skillbench.hermetic.fakes import FakeSet, install_fakes
from skillbench.hermetic.gitworld import git_env
from skillbench.hermetic.mcp_fake import mcp_config
from skillbench.hermetic.netns import UnixBridge, loopback_port, namespace_prefix
from skillbench.redaction import redact_data
from skillbench.schemas.base import Document

__all__ = ["ENVIRONMENT_FILE", "HermeticRecord", "World"]

ENVIRONMENT_FILE = "environment.json"


class HermeticRecord(Document):
    """`environment.json` of a run folder: the world the run had and what its shell check saw."""

    network: str = Field(description='"none", "api-only" or "allow"')
    network_confined: bool = Field(description="the session ran in a network namespace")
    fakes: list[str] = Field(default_factory=list)
    mcp_servers: list[str] = Field(default_factory=list)
    git: bool = False
    answers: int = Field(default=0, description="scripted answers available")
    questions: int = Field(default=0, description="questions the agent asked (answers.jsonl)")
    unanswered: int = Field(default=0, description="of which nobody answered")
    shell_checked: bool = Field(
        default=False, description="the guard ran in the agent's own shell and found the fakes"
    )
    path_failures: list[str] = Field(default_factory=list)
    calls: int = 0
    refusals: int = 0
    deleted_inputs: list[str] = Field(default_factory=list)


class World:
    """The world of one session under `root` (its scratch folder)."""

    def __init__(self, environment: Environment, root: Path) -> None:
        self.environment = environment
        self.root = root
        self.fakes: FakeSet = install_fakes(environment, root)
        self.guard_file = root / "hermetic" / "guard.sh"
        self.guard_file.write_text(self.fakes.guard(), encoding="utf-8")
        self.git = git_env(environment.git, root / "hermetic" / "git") if environment.git else {}
        self.mcp_file: Path | None = None
        if environment.mcp:
            self.mcp_file = root / "hermetic" / "mcp.json"
            config = mcp_config(environment.mcp, root / "hermetic", self.fakes.log)
            self.mcp_file.write_text(json.dumps(config), encoding="utf-8")
        self.answers_log = root / "hermetic" / ANSWERS_FILE
        self.answers_log.touch()
        self._bridge: UnixBridge | None = None

    def reply_answerer(self) -> ReplyAnswerer:
        """The follow-up answering a turn that ended with a question (logged here)."""
        return ReplyAnswerer(self.environment.answers, self.fakes.log, self.answers_log)

    def session_env(self, env: dict[str, str]) -> dict[str, str]:
        """`env` with the fakes first on PATH and the git rewrite."""
        path = env.get("PATH", "")
        return {
            **env,
            **self.git,
            "PATH": f"{self.fakes.folder}:{path}" if path else str(self.fakes.folder),
        }

    def launch_prefix(self, api_url: str | None) -> list[str]:
        """The argv prefix confining the session's network (nothing under `allow`); under
        `api-only` the bridge to `api_url` (a loopback URL: the key forwarder) is started."""
        mode = self.environment.network
        if mode == "allow":
            return []
        if mode == "none":
            return namespace_prefix(None, None)
        port = loopback_port(api_url or "")
        if port is None:
            raise BackendError(
                "network api-only needs the model API behind skillbench's loopback key forwarder "
                "(an ANTHROPIC_API_KEY); this session reaches its provider itself"
            )
        self._bridge = UnixBridge(self.root / "hermetic" / "api.sock", port).start()
        return namespace_prefix(self._bridge.path, port)

    def calls(self) -> list[CallRecord]:
        """Every call of a fake so far, in order."""
        return read_calls(self.fakes.log)

    def answers(self) -> list[AnswerRecord]:
        """Every question the agent asked so far, in order."""
        return read_answers(self.answers_log)

    def run_logs(
        self, deleted_inputs: list[str], secrets: Sequence[str]
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
        """What a run folder keeps of the world, as JSON: its calls, its questions (redacted:
        an agent's question may quote a secret it found) and its record."""
        calls = [c.model_dump(mode="json") for c in self.calls()]
        answers = redact_data([a.model_dump(mode="json") for a in self.answers()], secrets)
        return calls, answers, self.record(deleted_inputs).model_dump(mode="json")

    def record(self, deleted_inputs: list[str] | None = None) -> HermeticRecord:
        """What the world was, and what its checks saw."""
        calls = self.calls()
        questions = self.answers()
        return HermeticRecord(
            network=self.environment.network,
            network_confined=self.environment.confined(),
            fakes=sorted(self.environment.fakes),
            mcp_servers=sorted(self.environment.mcp),
            git=self.environment.git is not None,
            answers=len(self.environment.answers),
            questions=len(questions),
            unanswered=sum(not q.answered for q in questions),
            shell_checked=self.fakes.shell_checked(),
            path_failures=self.fakes.path_failures(),
            calls=len(calls),
            refusals=sum(c.refused for c in calls),
            deleted_inputs=sorted(deleted_inputs or []),
        )

    def close(self) -> None:
        """Stop the bridge."""
        if self._bridge is not None:
            self._bridge.stop()
            self._bridge = None

    def __enter__(self) -> World:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
