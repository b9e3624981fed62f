"""The diagonal `make test` keeps of a version matrix (tests/matrix.py): every version and every
other value runs, each combination once; a version-only test keeps every version."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from matrix import mark_off_diagonal


@dataclass
class Spec:
    indices: dict[str, int]


@dataclass
class Item:
    nodeid: str
    callspec: Spec
    diagonal: str | None = "claude"
    marks: list[Any] = field(default_factory=list)

    def get_closest_marker(self, name: str) -> Any:
        return pytest.mark.diagonal(self.diagonal).mark if self.diagonal else None

    def add_marker(self, mark: Any) -> None:
        self.marks.append(mark.mark.name)


def grid(test: str, versions: int, models: int) -> list[Item]:
    return [
        Item(f"t.py::{test}[{v}-{m}]", Spec({"claude": v, "model": m}))
        for m in range(models)
        for v in range(versions)
    ]


def kept(items: list[Item]) -> set[tuple[int, int]]:
    return {
        (i.callspec.indices["claude"], i.callspec.indices["model"]) for i in items if not i.marks
    }


def test_each_combination_runs_on_one_version_turn_about() -> None:
    items = grid("a", 2, 3)
    assert mark_off_diagonal(items) == 3  # type: ignore[arg-type]
    assert kept(items) == {(0, 0), (1, 1), (0, 2)}
    assert all(
        i.marks == ["full"]
        for i in items
        if (i.callspec.indices["claude"], i.callspec.indices["model"]) not in kept(items)
    )


def test_a_version_only_test_and_an_unmarked_one_keep_everything() -> None:
    alone = [Item(f"t.py::b[{v}]", Spec({"claude": v})) for v in range(2)]
    plain = grid("c", 2, 2)
    for item in plain:
        item.diagonal = None
    assert mark_off_diagonal([*alone, *plain]) == 0  # type: ignore[list-item]


def test_two_tests_are_thinned_apart() -> None:
    items = [*grid("d", 2, 2), *grid("e", 2, 1)]
    assert mark_off_diagonal(items) == 2  # type: ignore[arg-type]
    assert kept(items[:4]) == {(0, 0), (1, 1)} and kept(items[4:]) == {(0, 0), (1, 0)}
