"""The test matrices `make test` thins to a diagonal; `make test-full` runs them whole.

A test marked `diagonal(axis)` runs on every value of `axis` (a Claude Code version) and on every
combination of its other parameters (a model, a CLI mode, a set of queries), but `make test`
keeps only one version per combination, turn about: the first combination on the first version,
the second on the second, and so on. Every version and every other value still runs in CI; the
rest of the product is marked `full` and deselected there (`-m "not full"`). A test with only
the version axis keeps every version.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import pytest

FULL = pytest.mark.full


def _others(item: pytest.Item, axis: str) -> tuple[tuple[str, int], ...]:
    """The item's place on every parameter axis but `axis`."""
    indices: dict[str, int] = item.callspec.indices  # type: ignore[attr-defined]
    return tuple(sorted((name, at) for name, at in indices.items() if name != axis))


def mark_off_diagonal(items: Sequence[pytest.Item]) -> int:
    """Mark `full` each `diagonal` item off its test's diagonal; the number marked."""
    groups: dict[tuple[str, str], list[pytest.Item]] = defaultdict(list)
    for item in items:
        marker = item.get_closest_marker("diagonal")
        callspec = getattr(item, "callspec", None)
        if marker is None or callspec is None or marker.args[0] not in callspec.indices:
            continue
        groups[(item.nodeid.split("[", 1)[0], marker.args[0])].append(item)
    marked = 0
    for (_, axis), members in groups.items():
        combinations = list(dict.fromkeys(_others(m, axis) for m in members))
        if len(combinations) < 2:
            continue
        versions = 1 + max(m.callspec.indices[axis] for m in members)  # type: ignore[attr-defined]
        for member in members:
            turn = combinations.index(_others(member, axis)) % versions
            if member.callspec.indices[axis] != turn:  # type: ignore[attr-defined]
                member.add_marker(FULL)
                marked += 1
    return marked
