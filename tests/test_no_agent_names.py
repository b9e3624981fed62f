"""No module outside `skillbench/backends/` names an agent (issue 37): what an agent is — its
validator profile, its place among the agents, the reference pair, where `--escalate` goes, its
install line, its prices — is declared by its `BackendSpec`, so adding one is its package plus its
entry point. `tests/test_no_backend_names.py` covers comparisons with any backend's name; this
test covers every string literal spelling an agent or an agent backend's name in code (defaults,
tables, arguments). Docstrings and the prose of f-strings are text, not code. The field
importers (`skillbench/field/<agent>.py`) read each agent's own transcript files, one reader per
agent: they are that agent's file format, and are left out; which agents `field import` reads is
declared by their specs (`BackendSpec.transcripts`), as a fifth agent's is
(tests/backends/test_fifth_agent.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from skillbench.backends.spec import entry_point_specs

PACKAGE = Path(__file__).resolve().parents[1] / "skillbench"
LEFT_OUT = ("backends",)
TRANSCRIPT_READERS = {"field/claude.py", "field/codex.py", "field/gemini.py", "field/opencode.py"}

ALLOWED: dict[tuple[str, str], str] = {
    ("cli/helptext.py", "anthropic"): "an example value in `--backend`'s help, not a choice",
    ("library/verdict.py", "claude_code"): "the key under which stored reports keep the Claude "
    "Code CLI's version (`backend.versions`), a file format read back",
    ("trigger/verdict.py", "claude_code"): "the same stored-report key",
    ("improve/loop.py", "claude_code"): "the same stored-report key",
    ("reports/manifest.py", "anthropic"): "the Anthropic SDK's PyPI package, whose version a "
    "report's manifest records",
    ("validate/rules.py", "claude"): "the reserved words a skill's name may not start with "
    "(NAME_RESERVED_PREFIX), not an agent",
    ("validate/rules.py", "anthropic"): "the same reserved words",
}
"""(module under skillbench/, literal) → why it stays."""


def agent_names() -> set[str]:
    """Every agent and every backend that is not an offline proxy, with their aliases."""
    names: set[str] = set()
    for spec in entry_point_specs():
        if spec.agent is not None:
            names |= {spec.agent, *spec.agent_aliases}
        if not spec.offline:
            names |= {spec.name, *spec.aliases}
    return names


def literals(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) of each string literal in code that is exactly an agent's name (trimmed,
    any case); docstrings and f-string text are left out."""
    tree = ast.parse(source)
    prose: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            prose.add(id(node.value))  # a docstring, or a string standing alone
        elif isinstance(node, ast.JoinedStr):
            prose |= {id(part) for part in node.values}
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in prose
        and node.value.strip().lower() in names
    )


def test_the_scanner_sees_a_name_in_code_not_in_prose() -> None:
    source = (
        '"""The claude-code backend."""\n'
        "DEFAULT = 'claude-code'\n"
        "pair = ('anthropic', 'x')\n"
        "f(backend='Codex')\n"
        "text = f'through the {x} claude-code backend'\n"
        "'gemini'\n"
        "m = {'opencode': 1}\n"
    )
    found = literals(source, {"claude-code", "anthropic", "codex", "gemini", "opencode"})
    assert found == [(2, "claude-code"), (3, "anthropic"), (4, "Codex"), (7, "opencode")]


def test_no_agent_named_outside_backends() -> None:
    names = agent_names()
    assert {"anthropic", "claude-code", "codex", "gemini", "opencode", "claude"} <= names
    found: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in LEFT_OUT or rel.as_posix() in TRANSCRIPT_READERS:
            continue
        for line, value in literals(path.read_text(encoding="utf-8"), names):
            key = (rel.as_posix(), value.strip().lower())
            if key in ALLOWED:
                used.add(key)
            else:
                found.append(f"skillbench/{rel.as_posix()}:{line}: {value!r}")
    assert not found, "declare it in the agent's BackendSpec, ask the registry:\n" + "\n".join(
        found
    )
    assert used == set(ALLOWED), f"allowed but gone (drop them): {sorted(set(ALLOWED) - used)}"
