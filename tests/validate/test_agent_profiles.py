"""The validator's agent profiles come from the agents' own specs (`BackendSpec.skill_limits`):
adding an agent is its package and its entry point, no table in validate/ (issue 37)."""

from __future__ import annotations

import ast
from pathlib import Path

from skillbench.backends.spec import agent_skill_limits, all_specs
from skillbench.validate.rules import AGENT_LIMITS, AGENT_PROFILES, PROFILES

VALIDATE = Path(__file__).resolve().parents[2] / "skillbench" / "validate"


def test_the_profiles_are_the_agents_declared_limits() -> None:
    declared = agent_skill_limits()
    assert {"codex", "gemini", "opencode"} <= set(declared)
    assert declared == AGENT_LIMITS and tuple(declared) == AGENT_PROFILES
    assert ("agentskills", "claude-code", *declared) == PROFILES
    assert all(all_specs()[name].skill_limits is limits for name, limits in declared.items())


def test_validate_names_no_agent_backend() -> None:
    agents = set(agent_skill_limits())
    found = [
        f"{path.name}:{node.lineno}: {node.value!r}"
        for path in sorted(VALIDATE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in agents
    ]
    assert not found, "declare an agent's limits in its spec:\n" + "\n".join(found)
