"""`skillbench library` and money: --max-cost refuses before any call (exit 3), errored runs are
never cached so a re-run after a failure or a kill makes only the missing calls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cost_fakes import flat_factory
from library_fakes import RouterJudge, small_library

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.cost.estimate import register_estimator, unregister_estimator
from skillbench.library.run import route_library_sync
from skillbench.trigger.options import TriggerOptions

BACKEND = "libfake"
GOOD = {"a1": ["alpha"], "a2": ["alpha"], "a3": ["alpha"], "b1": ["beta"], "b2": ["beta"]}


class Fake:
    def __init__(self) -> None:
        self.script: dict[str, list[str]] = dict(GOOD)
        self.judges: list[RouterJudge] = []

    def __call__(self, **_: object) -> RouterJudge:
        self.judges.append(RouterJudge(self.script, name=BACKEND))
        return self.judges[-1]

    def calls(self) -> list[str]:
        return [r.query for j in self.judges for r in j.requests]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Fake]:
    made = Fake()
    registry.register_judge(BACKEND, made)
    register_estimator(BACKEND, flat_factory(BACKEND))
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    yield made
    registry.unregister(BACKEND)
    unregister_estimator(BACKEND)


def test_max_cost_refuses_before_any_call(fake: Fake, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    library = small_library(tmp_path / "lib")
    args = ["library", str(library), "--backend", BACKEND, "--runs", "3"]
    assert main([*args, "--max-cost", "0.001"]) == 3  # 18 calls at $0.001 each
    assert fake.calls() == []
    assert main([*args, "--dry-run"]) == 0
    assert "6 queries × 3 runs = 18 calls (0 in the call cache)" in capsys.readouterr().out


def test_a_re_run_makes_only_the_calls_that_failed(fake: Fake, tmp_path: Path) -> None:
    library = small_library(tmp_path / "lib")
    fake.script["a2"] = ["!"]  # every run of a2 errors, as after a kill or an outage
    first = route_library_sync(library, TriggerOptions(backend=BACKEND, runs=3), embedder=None)
    assert first.calls == 18 and next(q for q in first.queries if q.query == "a2").errors == 3
    fake.script["a2"] = ["alpha"]
    again = route_library_sync(library, TriggerOptions(backend=BACKEND, runs=3), embedder=None)
    assert fake.judges[-1].requests and {r.query for r in fake.judges[-1].requests} == {"a2"}
    assert (again.calls, again.cache_hits) == (3, 15)
    assert next(s for s in again.per_skill if s.name == "alpha").recall.value == 1.0


def test_a_cached_library_report_states_what_its_calls_cost_when_first_paid(
    fake: Fake, tmp_path: Path
) -> None:
    """Issue 31: a library report served from the call cache says what its answers cost when
    first paid, as a trigger report does — never just "$0.0000: 0 calls"."""
    from skillbench.schemas.cost import cost_summary

    library = small_library(tmp_path / "lib")
    options = TriggerOptions(backend=BACKEND, runs=3)
    first = route_library_sync(library, options, embedder=None)
    again = route_library_sync(library, options, embedder=None)
    paid, cached = first.cost, again.cost
    assert paid is not None and cached is not None
    assert paid.calls == 18 and paid.dollars == 0.018 and paid.first_paid_dollars is None
    assert (cached.calls, cached.cache_hits, cached.dollars) == (0, 18, 0.0)
    assert cached.first_paid_dollars == paid.dollars
    assert cached.lines[0].first_paid_dollars == paid.dollars
    assert "18 answer(s) served from the call cache, first paid $0.0180" in cost_summary(cached)
