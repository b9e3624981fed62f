"""No backend-name comparison outside `skillbench/backends/`: callers ask the backend's spec
(`registry.backend_spec(name).offline`, `.sessions`, `.executor`, …), never its name, so adding
a backend touches only its own package and entry point (issue 22)."""

from __future__ import annotations

import ast
from pathlib import Path

from skillbench.backends.spec import entry_point_specs

PACKAGE = Path(__file__).resolve().parents[1] / "skillbench"


def builtin_names() -> set[str]:
    """The installed backends' names and aliases (the built-ins register by entry point)."""
    return {n for s in entry_point_specs() for n in (s.name, *s.aliases)}


def _names_in(node: ast.AST, names: set[str]) -> list[str]:
    """Backend names a comparison operand spells: a string, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in names else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [n for item in node.elts for n in _names_in(item, names)]
    return []


def name_comparisons(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, backend name) of every `==`, `!=`, `in`, `not in` and `match`/`case` against a
    backend name in `source`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            ops = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)
            if any(isinstance(op, ops) for op in node.ops):
                for operand in (node.left, *node.comparators):
                    found += [(node.lineno, n) for n in _names_in(operand, names)]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, n) for n in _names_in(node.value, names)]
    return found


def offenders(root: Path, names: set[str]) -> list[str]:
    """`path:line: 'name'` for every comparison with a backend name outside `backends/`."""
    lines: list[str] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "backends":
            continue
        text = path.read_text(encoding="utf-8")
        for line, name in name_comparisons(text, names):
            lines.append(f"skillbench/{rel.as_posix()}:{line}: {name!r}")
    return lines


def test_the_scanner_sees_every_comparison_form() -> None:
    names = {"local", "claude-code"}
    source = (
        "a == 'local'\n"
        "'claude-code' != b\n"
        "c in ('x', 'local')\n"
        "d not in {'claude-code'}\n"
        "match e:\n    case 'local':\n        pass\n"
        "f == 'localhost'\n"
        "g = {'local': 1}\n"
    )
    assert [line for line, _ in name_comparisons(source, names)] == [1, 2, 3, 4, 6]


def test_no_backend_name_comparison_outside_backends() -> None:
    names = builtin_names()
    assert {"local", "anthropic", "claude-code", "lexical"} <= names
    found = offenders(PACKAGE, names)
    assert not found, "ask the backend's spec, not its name:\n" + "\n".join(found)
