"""The per-query pass rates a power plan starts from: an earlier trigger or gate report, or a
stated prior for every query."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from skillbench.errors import InputError
from skillbench.io import read_json
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
