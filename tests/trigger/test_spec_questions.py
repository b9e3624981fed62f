"""The trigger and improve code asks a backend's spec, never its name (issue 22.2/22.3): a
backend that runs whole CLI sessions is reported as Claude Code's own request whatever its name,
and every offline backend improves with the heuristic proposer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skillbench.backends.spec import BackendSpec, register_backend, unregister_backend
from skillbench.improve.proposers import HeuristicProposer
from skillbench.improve.run import make_proposer
from skillbench.trigger.run import harness_info


class _Judge:
    def __init__(self, name: str) -> None:
        self.name = name
        self.is_proxy = False


@pytest.fixture
def toy_cli_backend() -> Iterator[str]:
    register_backend(BackendSpec(name="toy-sessions", summary="a toy CLI", sessions=True))
    yield "toy-sessions"
    unregister_backend("toy-sessions")


def test_a_sessions_backend_reports_claude_codes_request_by_its_spec(toy_cli_backend: str) -> None:
    info = harness_info(_Judge(toy_cli_backend))  # type: ignore[arg-type]
    assert info is not None and info.claude_code_request and info.name == toy_cli_backend
    assert harness_info(_Judge("scripted")) is None  # type: ignore[arg-type]
    claude = harness_info(_Judge("claude-code"))  # type: ignore[arg-type]
    assert claude is not None and claude.name == "claude-code" and claude.claude_code_request


@pytest.mark.parametrize("backend", ["local", "lexical"])
def test_every_offline_backend_improves_with_the_heuristic_proposer(backend: str) -> None:
    assert isinstance(make_proposer(backend, model=None, cache=None), HeuristicProposer)
