"""The validator's agent profiles come from the agents' own specs (`BackendSpec.skill_keys`,
`skill_limits`, `default_profile`): adding an agent is its package and its entry point, no table
in validate/ (issue 37)."""

from __future__ import annotations

import ast
from pathlib import Path

from skillbench.backends.spec import agent_skill_limits, all_specs, skill_profiles
from skillbench.validate.rules import STANDARD, profiles

VALIDATE = Path(__file__).resolve().parents[2] / "skillbench" / "validate"


def test_the_profiles_are_the_agents_declared_ones() -> None:
    declared = agent_skill_limits()
    assert {"codex", "gemini", "opencode"} <= set(declared)
    table = profiles()
    assert table.limits == declared
    assert table.names == (STANDARD, *skill_profiles()) == (STANDARD, "claude-code", *declared)
    assert all(all_specs()[name].skill_limits is limits for name, limits in declared.items())
    assert table.default == "claude-code" and all_specs()["claude-code"].default_profile


def test_validate_names_no_agent_backend() -> None:
    agents = set(skill_profiles())
    found = [
        f"{path.name}:{node.lineno}: {node.value!r}"
        for path in sorted(VALIDATE.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and node.value in agents
    ]
    assert not found, "declare an agent's profile in its spec:\n" + "\n".join(found)
