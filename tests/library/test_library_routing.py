"""Library routing: one call per query-run, the confusion matrix equal to the judge's decisions,
per-skill recall / precision / steals with Wilson intervals, confused pairs, eval discovery."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from library_fakes import RouterJudge, q, small_library, write_skill

from skillbench import stats
from skillbench.errors import InputError
from skillbench.library.discover import load_library
from skillbench.library.document import ERROR, NONE, UNDECIDED, LibraryReport
from skillbench.library.run import run_library
from skillbench.reports.header import header_lines
from skillbench.trigger.options import TriggerOptions

SCRIPT = {
    "a1": ["alpha", "alpha", "beta"],
    "a2": ["alpha", "beta", "beta"],
    "a3": ["alpha", "", "?"],
    "n1": ["", "gamma", "!"],
    "b1": ["beta", "beta", "beta"],
    "b2": ["beta", "alpha", "beta"],
}


async def _route(root: Path, judge: RouterJudge, **options: Any) -> LibraryReport:
    options.setdefault("runs", 3)
    return await run_library(load_library(root), judge, TriggerOptions(**options), embedder=None)


async def test_one_call_per_query_run_and_the_matrix_is_the_judges_decisions(
    tmp_path: Path,
) -> None:
    judge = RouterJudge(SCRIPT)
    report = await _route(small_library(tmp_path), judge)
    assert len(judge.requests) == 6 * 3  # queries × runs, not skills × queries × runs
    # every request holds the whole library: the query's own skill as target, the rest as catalog
    for request in judge.requests:
        assert {request.target.name, *(e.name for e in request.catalog)} == {
            "alpha",
            "beta",
            "gamma",
        }
    m = report.matrix
    assert m.rows == ["alpha", "beta", NONE]
    assert m.columns == ["alpha", "beta", "gamma", NONE, UNDECIDED, ERROR]
    expected: dict[str, dict[str, int]] = {}
    for query, fired in SCRIPT.items():
        row = "beta" if query.startswith("b") else ("alpha" if query.startswith("a") else NONE)
        for name in fired:
            column = {"": NONE, "?": UNDECIDED, "!": ERROR}.get(name, name)
            expected.setdefault(row, {}).setdefault(column, 0)
            expected[row][column] += 1
    for i, row in enumerate(m.rows):
        assert {c: n for c, n in zip(m.columns, m.counts[i], strict=True) if n} == expected[row]
    assert report.calls == 18 and report.cache_hits == 0
    assert report.untested == ["gamma"]
    assert any("gamma" in w and "untested" in w for w in report.warnings)


async def test_recall_precision_and_steals_with_wilson_intervals_over_queries(
    tmp_path: Path,
) -> None:
    """Every interval counts queries (docs/statistics.md), each query reduced by `trigger`'s
    rule first: over runs alpha's recall was 4 of 8 runs (0.5, Wilson(4, 8))."""
    report = await _route(small_library(tmp_path), RouterJudge(SCRIPT))
    skills = {s.name: s for s in report.per_skill}
    alpha, beta, gamma = skills["alpha"], skills["beta"], skills["gamma"]
    # alpha's should-trigger queries: a1 fired it 2/3 (pass), a2 1/3 (fail), a3 1/2 (pass;
    # one run undecided); the run counts stay beside the rates
    assert alpha.runs == 8 and (alpha.recall.value, alpha.recall.n) == (round(2 / 3, 4), 3)
    low, high = stats.wilson_interval(2, 3)
    assert (alpha.recall.low, alpha.recall.high) == (round(low, 4), round(high, 4))
    # the queries firing alpha in at least half their runs: a1 and a3, both its own
    assert alpha.fires == 5 and (alpha.precision.value, alpha.precision.n) == (1.0, 2)
    assert (alpha.passed, alpha.failed, alpha.failing) == (3, 1, ["a2"])  # n1 passes
    assert [(f.skill, f.runs, f.rate.n, f.rate.value) for f in alpha.stolen_by] == [
        ("beta", 3, 3, round(2 / 3, 4))  # 3 runs, on 2 of alpha's 3 queries
    ]
    assert [(f.skill, f.runs) for f in alpha.steals_from] == [("beta", 1)]
    assert (beta.recall.value, beta.precision.value) == (1.0, round(2 / 3, 4))  # a2 fired beta
    assert (beta.passed, beta.failed) == (2, 0)
    assert gamma.recall.n == 0 and gamma.recall.value is None  # untested: no recall, never 0
    assert gamma.passed is None and gamma.failed is None
    assert [(f.skill, f.runs) for f in gamma.steals_from] == [(NONE, 1)]
    pair = report.pairs[0]
    assert (pair.a, pair.b, pair.a_to_b, pair.b_to_a, pair.runs) == ("alpha", "beta", 3, 1, 14)
    assert (pair.queries, pair.rate.n, pair.rate.value) == (3, 5, 0.6)  # a1, a2, b2 of 5
    assert pair.examples[0] == "a2"  # the query that crossed most comes first


async def test_runs_auto_stops_a_query_once_its_own_skill_is_settled(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    write_skill(root, "alpha", "Alpha.", [q("steady"), q("mixed")])
    write_skill(root, "beta", "Beta.", None)
    judge = RouterJudge({"steady": ["alpha"], "mixed": ["alpha", "beta"]})
    report = await _route(root, judge, runs="auto", max_runs=10)
    runs = {r.query: r.runs for r in report.queries}
    assert runs["steady"] < runs["mixed"] and runs["mixed"] > 6  # unanimous stops early
    assert report.config.runs == "auto" and report.config.max_runs == 10


async def test_the_report_is_strict_json_and_its_header_names_the_library(tmp_path: Path) -> None:
    report = await _route(small_library(tmp_path), RouterJudge(SCRIPT))
    text = report.model_dump_json()

    def refuse(constant: str) -> None:
        raise AssertionError(f"non-standard JSON constant {constant}")

    data = json.loads(text, parse_constant=refuse)
    assert LibraryReport.model_validate(data).matrix == report.matrix
    from skillbench.library.verdict import library_header

    header = library_header(report)
    lines = "\n".join(header_lines(header))
    assert header.ok is False and "alpha ↔ beta" in header.verdict  # the worst pair first
    assert f"{tmp_path}: 3 skills, sha256 {report.library_sha256[:12]}" in lines
    assert "runs: 3 per query" in lines


def test_eval_sets_are_found_per_skill_and_untested_skills_are_named(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    write_skill(root, "one", "One.", [q("x")])  # evals/trigger.json
    write_skill(root, "two", "Two.", [q("y")], where="two.trigger.json")
    write_skill(root, "three", "Three.", [q("z")], where="evals/three.trigger.json")
    write_skill(root, "four", "Four.", None)
    evals = tmp_path / "evals"
    evals.mkdir()
    (evals / "four.trigger.json").write_text(json.dumps([q("w"), q("x", False)]))
    library = load_library(root)
    assert [e.name for e in library.evals if e.evals_file] == ["one", "three", "two"]
    assert library.untested == ["four"]
    with_dir = load_library(root, evals_dir=evals)
    assert with_dir.untested == []
    merged = {query.text: query for query in with_dir.queries}
    assert merged["x"].expected == "one" and merged["x"].sources == ["one:+", "four:-"]


def test_ambiguous_or_missing_eval_sets_are_input_errors(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    folder = write_skill(root, "one", "One.", [q("x")], where="a.trigger.json")
    (folder / "b.trigger.json").write_text(json.dumps([q("y")]))
    with pytest.raises(InputError, match="several trigger eval sets"):
        load_library(root)
    bare = tmp_path / "bare"
    write_skill(bare, "one", "One.", None)
    with pytest.raises(InputError, match="no skill of the library has a trigger eval set"):
        import asyncio

        asyncio.run(_route(bare, RouterJudge({})))
    with pytest.raises(InputError, match="library folder not found"):
        load_library(tmp_path / "missing")
