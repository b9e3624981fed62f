"""Shared by the gemini and codex tests: one template folder for the session, so each real CLI
captures a skill set once however many tests replay it."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def agent_templates(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template folder every real-CLI test of tests/agents/ captures into."""
    return tmp_path_factory.mktemp("agent-templates")
