"""`make_executor`: the executor a backend's spec names (`BackendSpec.executor`), built with
the run's model, timeout, workers and copy/output limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from skillbench.backends.skill_copy import DEFAULT_MAX_COPY
from skillbench.backends.spec import (
    AGENT_CLI_SESSION,
    CLAUDE_SESSION,
    CONVERSATION,
    RECORDED_SAMPLES,
)
from skillbench.behavior.agent_executor import AgentSessionExecutor
from skillbench.behavior.executors import ClaudeCodeExecutor, Executor, TextModelExecutor
from skillbench.errors import BackendError
from skillbench.limits import DEFAULT_MAX_OUTPUT

__all__ = ["ExecutorFactory", "make_executor"]

ExecutorFactory = Callable[..., Executor]
"""A plugin's executor factory (`BackendSpec.executor` as `"module:attribute"`): called as
`factory(model, max_concurrency=…, timeout=…, max_copy=…)` (`timeout` only when given)."""


def make_executor(
    backend: str,
    *,
    model: str | None = None,
    timeout: float | None = None,
    workers: int = 2,
    max_copy: int = DEFAULT_MAX_COPY,
    max_output: int = DEFAULT_MAX_OUTPUT,
) -> Executor:
    """The executor the backend's spec names (`spec.executor`): a conversation with its text
    model, an agentic Claude Code session, another agent CLI's session (its `session_cli`), or
    a plugin's own factory. `max_copy` bounds what a session's project receives, `max_output`
    the files a session's run keeps (a plugin's results are capped by `execute_tasks`).
    BackendError when the backend has none (a backend replaying recorded samples has none
    either: `run_cases` replays them), or its CLI or key is missing."""
    from skillbench.backends.registry import backend_spec, get_text_model

    spec = backend_spec(backend)
    options: dict[str, Any] = {"max_concurrency": workers}
    if timeout is not None:
        options["timeout"] = timeout
    if spec.executor == CONVERSATION:
        return TextModelExecutor(get_text_model(spec.name, model=model, **options))
    if spec.executor == CLAUDE_SESSION:
        return ClaudeCodeExecutor(model, max_copy=max_copy, max_output=max_output, **options)
    if spec.executor == AGENT_CLI_SESSION:
        cli = spec.load("session_cli")
        return AgentSessionExecutor(cli, model, max_copy=max_copy, max_output=max_output, **options)
    if spec.executor is None or spec.executor == RECORDED_SAMPLES:
        why = " (it replays recorded sample runs)" if spec.executor else ""
        raise BackendError(f"backend {spec.name!r} has no executor{why}")
    factory: ExecutorFactory = spec.load("executor")
    return factory(model, max_copy=max_copy, **options)
