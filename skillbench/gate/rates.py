"""The per-query pass rates a power plan starts from: the skill's trigger runs in the call
cache, an earlier trigger or gate report, or a stated prior for every query."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillbench.errors import InputError
from skillbench.io import read_json
from skillbench.limits import MAX_RUNS
from skillbench.trigger.evalset import EvalQuery


def rates_from_report(path: str | Path) -> dict[tuple[str, bool], tuple[int, int]]:
    """(query, should_trigger) → (passing runs, runs) from a trigger report or a gate report
    (its base side)."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError("not a trigger or gate report", path=path)
    found: dict[tuple[str, bool], tuple[int, int]] = {}
    if isinstance(data.get("queries"), list) and "base" in data:  # a gate report
        for row in data["queries"]:
            pairs = int(row.get("pairs") or 0)
            if pairs and row.get("base_rate") is not None:
                passed = round(float(row["base_rate"]) * pairs)
                found[(str(row["query"]), bool(row["should_trigger"]))] = (passed, pairs)
        return found
    results = data.get("results")
    if not isinstance(results, list):
        raise InputError("no results: not a trigger or gate report", path=path, field="results")
    for row in results:
        try:
            runs, triggers = int(row["runs"]), int(row["triggers"])
            should = bool(row["should_trigger"])
            key = (str(row["query"]), should)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError("a result lacks query/should_trigger/runs/triggers", path=path,
                             field="results") from exc  # fmt: skip
        if runs:
            found[key] = (triggers if should else runs - triggers, runs)
    return found


def query_rates(
    queries: Sequence[EvalQuery], observed: dict[tuple[str, bool], tuple[int, int]], prior: float
) -> tuple[list[float], int]:
    """One pass rate per query: observed ones shrunk by half a run each way ((k + ½)/(n + 1),
    never exactly 0 or 1), `prior` for the others; and how many were observed."""
    rates, seen = [], 0
    for q in queries:
        hit = observed.get((q.text, q.should_trigger))
        if hit is None:
            rates.append(prior)
        else:
            seen += 1
            rates.append((hit[0] + 0.5) / (hit[1] + 1))
    return rates, seen


def rates_from_cache(
    skill_dir: str | Path,
    queries: Sequence[EvalQuery],
    *,
    backend: str | None = None,
    model: str | None = None,
    cache_path: str | Path | None = None,
    backend_options: dict[str, Any] | None = None,
    catalog_dir: str | Path | None = None,
    seed: int = 0,
    max_runs: int = MAX_RUNS,
) -> tuple[dict[tuple[str, bool], tuple[int, int]], list[str]]:
    """(query, should_trigger) → (passing runs, runs) from the call cache: the trigger runs of
    the skill as it is in `skill_dir` with these options (the keys `skillbench trigger` and
    the gate use, run 0, 1, … up to the first run not cached); no model call, nothing created.
    Also the notes (no cache, a backend whose keys cannot be known before a call)."""
    from skillbench.backends.base import TriggerOutcome
    from skillbench.backends.registry import resolve_backend_name
    from skillbench.cost.plan import existing_cache, key_judge
    from skillbench.gate.run import _side
    from skillbench.trigger.catalog import resolve_catalog
    from skillbench.trigger.cost import trigger_requests

    side, _ = _side(Path(skill_dir))
    catalog, _info = resolve_catalog(catalog_dir, exclude=side.name)
    cache = existing_cache(cache_path)
    if cache is None:
        return {}, ["no call cache yet: no rates from it"]
    found: dict[tuple[str, bool], tuple[int, int]] = {}
    try:
        name = resolve_backend_name(backend)
        keys, note = key_judge(name, model=model, cache=cache, options=dict(backend_options or {}))
        if keys is None:
            return {}, [note or f"backend {name}: cache keys unknown, no rates from the cache"]
        for query in queries:
            passed = runs = 0
            for request in trigger_requests(
                side.name, side.description, [query], body=side.body, catalog=catalog,
                runs_per_query=max_runs, seed=seed, folder=side.folder,
                content_hash=side.content_hash,
            ):  # fmt: skip
                key = keys.key(request)
                data = None if key is None else cache.get(key)
                if data is None:
                    break
                outcome = TriggerOutcome.from_cache(data)
                if outcome.error is not None or outcome.undecided is not None:
                    continue
                runs += 1
                passed += outcome.triggered is query.should_trigger
            if runs:
                found[(query.text, query.should_trigger)] = (passed, runs)
    finally:
        cache.close()
    return found, []
