"""Every seed example loads, is detected, validates and round-trips; every stated rule bites."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from seed_examples import all_examples, seed_examples, strip_comments

from skillbench.errors import InputError
from skillbench.schemas import check, detect, dump, from_data, json_schema, load, write
from skillbench.schemas.registry import ENTRIES
from skillbench.schemas.trigger import TriggerResult
from skillbench.schemas.writing_skills import WSEvals, WSGrading

EXAMPLES = {ex.name: ex for ex in all_examples()}
# Seed 001's Trigger Eval Output lists 2 of its 10 results ("summary.total": 10): an excerpt.
# Seed 004's grading example likewise counts 3 expectations and lists 2. Both load and
# round-trip like every other example; `check` adds a warning that they are partial.
ABBREVIATED = {"001-3-trigger-report", "004-2-grading"}


def sorted_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


def test_every_block_of_every_seed_is_extracted() -> None:
    names = [ex.name for ex in seed_examples()]
    assert len(names) == 18
    kinds = {(ex.kind, ex.dialect) for ex in all_examples()}
    assert kinds == {(e.kind, e.dialect) for e in ENTRIES}


def test_strip_comments_keeps_slashes_inside_strings() -> None:
    text = '{"url": "https://x.org/a//b", // note\n "p": "a\\"//b"} // end'
    assert json.loads(strip_comments(text)) == {"url": "https://x.org/a//b", "p": 'a"//b'}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_loads_detects_and_round_trips(name: str, tmp_path: Path) -> None:
    example = EXAMPLES[name]
    assert detect(example.data) == (example.kind, example.dialect)
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(example.data), encoding="utf-8")
    loaded = load(source)
    assert (loaded.kind, loaded.dialect) == (example.kind, example.dialect)
    assert sorted_json(dump(loaded.model)) == sorted_json(example.data)
    out = tmp_path / "out.json"
    write(loaded.model, out)
    assert sorted_json(json.loads(out.read_text(encoding="utf-8"))) == sorted_json(example.data)
    result = check(source)
    assert result.valid and result.errors == []
    assert bool(result.warnings) == (name in ABBREVIATED)


def test_abbreviated_trigger_report_still_enforces_its_counts() -> None:
    data = copy.deepcopy(EXAMPLES["001-3-trigger-report"].data)
    assert from_data(data, "report.json").model.soft_warnings()  # type: ignore[attr-defined]
    too_few = copy.deepcopy(data)
    too_few["summary"].update(passed=1, failed=1, total=2)  # both listed results pass
    with pytest.raises(InputError, match=r"summary.passed \(1\) does not match"):
        from_data(too_few, "report.json")
    too_many = copy.deepcopy(data)
    too_many["summary"].update(passed=1, failed=0, total=1)
    with pytest.raises(InputError, match=r"summary.total \(1\) is less than the number of results"):
        from_data(too_many, "report.json")
    complete = copy.deepcopy(data)
    complete["summary"].update(passed=2, failed=0, total=2)
    loaded = from_data(complete, "report.json")
    assert sorted_json(dump(loaded.model)) == sorted_json(complete)
    assert loaded.model.soft_warnings() == []  # type: ignore[attr-defined]


def test_file_name_only_breaks_ties_content_wins() -> None:
    data = EXAMPLES["002-0-evals"].data
    assert detect(data, "history.json") == ("evals", "writing-skills")


def test_unknown_document_names_closest_kind() -> None:
    with pytest.raises(InputError, match=r"closest kind is .*needs"):
        detect({"winner_strengths": []})
    with pytest.raises(InputError, match="not a skillbench document"):
        detect(42)


def test_unknown_keys_are_warnings_not_errors(tmp_path: Path) -> None:
    data = copy.deepcopy(EXAMPLES["004-3-metrics"].data)
    data["surprise"] = 1
    source = tmp_path / "metrics.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    result = check(source)
    assert result.valid
    assert result.warnings == ["surprise: unknown key (kept as is)"]
    assert dump(load(source).model)["surprise"] == 1


def test_upstream_grading_count_mismatch_is_a_warning(tmp_path: Path) -> None:
    source = tmp_path / "grading.json"
    source.write_text(json.dumps(EXAMPLES["004-2-grading"].data), encoding="utf-8")
    result = check(source)
    assert result.valid
    assert result.warnings == ["summary.total: 3 but 2 expectations are listed"]


Mutation = Callable[[Any], None]


def _set(path: str, value: Any) -> Mutation:
    def apply(data: Any) -> None:
        target = data
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        last = parts[-1]
        if last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value

    return apply


def _del(path: str) -> Mutation:
    def apply(data: Any) -> None:
        parts = path.split(".")
        target = data
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        del target[parts[-1]]

    return apply


def _dup_case(data: Any) -> None:
    data["cases"].append(copy.deepcopy(data["cases"][0]))


def _dup_eval(data: Any) -> None:
    data["evals"].append(copy.deepcopy(data["evals"][0]))


def _all_optional(data: Any) -> None:
    for expectation in data["cases"][0]["expectations"]:
        expectation["required"] = False


def _two_best(data: Any) -> None:
    data["iterations"][0]["is_current_best"] = True


NEGATIVE: list[tuple[str, str, Mutation, str, str]] = [
    # (id, example, mutation, JSON path named, rule named)
    (
        "ws-passed-with-score-2",
        "002-2-grading",
        _set("results.0.score", 2),
        "results[0].passed",
        "passed-derived-from-score",
    ),
    (
        "ws-score-6",
        "002-2-grading",
        _set("results.0.score", 6),
        "results[0].score",
        "less_than_equal",
    ),
    (
        "ws-overall-score-not-mean",
        "002-2-grading",
        _set("overall_score", 3.0),
        "overall_score",
        "overall-score-mean",
    ),
    (
        "ws-overall-fail-all-passed",
        "002-2-grading",
        _set("overall", "fail"),
        "overall",
        "overall-pass-rule",
    ),
    (
        "ws-convention-missing-key",
        "002-2-grading",
        _del("convention_compliance.type_alignment"),
        "convention_compliance.type_alignment",
        "missing",
    ),
    (
        "ws-convention-extra-key",
        "002-2-grading",
        _set("convention_compliance.style", {"passed": True, "details": ""}),
        "convention_compliance.style",
        "convention-keys",
    ),
    ("ws-duplicate-case-id", "002-0-evals", _dup_case, "cases[1].id", "unique-id"),
    (
        "ws-case-id-not-kebab",
        "002-0-evals",
        _set("cases.0.id", "Case_01"),
        "cases[0].id",
        "id-kebab-case",
    ),
    (
        "ws-no-required-expectation",
        "002-0-evals",
        _all_optional,
        "cases[0].expectations",
        "required-expectation",
    ),
    (
        "ws-required-not-bool",
        "002-0-evals",
        _set("cases.0.expectations.0.required", "yes"),
        "cases[0].expectations[0].required",
        "bool_type",
    ),
    (
        "ws-current-version-missing",
        "002-1-history",
        _set("current_version", 3),
        "current_version",
        "current-version-exists",
    ),
    ("ws-winner-c", "002-3-comparison", _set("winner", "C"), "winner", "literal_error"),
    (
        "ws-dimension-11",
        "002-3-comparison",
        _set("scores.token_efficiency.B", 11),
        "scores.token_efficiency.B",
        "less_than_equal",
    ),
    (
        "ws-dimension-float",
        "002-3-comparison",
        _set("scores.token_efficiency.A", 7.5),
        "scores.token_efficiency.A",
        "int_type",
    ),
    (
        "ws-suggestion-no-before",
        "002-4-analysis",
        _del("suggestions.0.before"),
        "suggestions[0].before",
        "missing",
    ),
    ("sc-duplicate-eval-id", "004-0-evals", _dup_eval, "evals[1].id", "unique-id"),
    (
        "sc-expectation-not-string",
        "004-0-evals",
        _set("evals.0.expectations.0", {"text": "x"}),
        "evals[0].expectations[0]",
        "string_type",
    ),
    ("sc-two-best", "004-1-history", _two_best, "iterations", "one-current-best"),
    (
        "sc-best-mismatch",
        "004-1-history",
        _set("current_best", "v1"),
        "current_best",
        "current-best-matches",
    ),
    (
        "sc-grading-result-unknown",
        "004-1-history",
        _set("iterations.1.grading_result", "draw"),
        "iterations[1].grading_result",
        "literal_error",
    ),
    (
        "sc-summary-counts-off",
        "004-2-grading",
        _set("summary.failed", 2),
        "summary.total",
        "summary-counts",
    ),
    (
        "sc-pass-rate-off",
        "004-2-grading",
        _set("summary.pass_rate", 0.5),
        "summary.pass_rate",
        "pass-rate",
    ),
    (
        "sc-metrics-total",
        "004-3-metrics",
        _set("total_tool_calls", 17),
        "total_tool_calls",
        "total-tool-calls",
    ),
    (
        "sc-embedded-metrics-total",
        "004-2-grading",
        _set("execution_metrics.total_tool_calls", 1),
        "execution_metrics.total_tool_calls",
        "total-tool-calls",
    ),
    (
        "sc-benchmark-pass-rate",
        "upstream-benchmark",
        _set("runs.0.result.pass_rate", 0.5),
        "runs[0].result.pass_rate",
        "pass-rate",
    ),
    ("sc-comparison-winner", "upstream-comparison", _set("winner", "C"), "winner", "literal_error"),
    (
        "v3-history-fraction",
        "001-4-improvement-history",
        _set("0.pass_rate", "11/10"),
        "[0].pass_rate",
        "pass-rate-fraction",
    ),
    (
        "v3-loop-rate-vs-counts",
        "001-5-loop-summary",
        _set("iterations.0.train_pass_rate", 0.9),
        "iterations[0].train_pass_rate",
        "rate-equals-counts",
    ),
    (
        "v3-loop-selection-counts",
        "001-5-loop-summary",
        lambda d: d["iterations"][0].update(
            selection_pass_rate=0.5, selection_passed=1, selection_total=3
        ),
        "iterations[0].selection_pass_rate",
        "rate-equals-counts",
    ),
    (
        "v3-dimension-0",
        "001-6-behavior-grading",
        _set("dimensions.efficiency.score", 0),
        "dimensions.efficiency.score",
        "greater_than_equal",
    ),
    (
        "v3-dimension-missing",
        "001-6-behavior-grading",
        _del("dimensions.error_handling"),
        "dimensions.error_handling",
        "missing",
    ),
    (
        "v3-trigger-query-empty",
        "001-0-trigger-evals",
        _set("0.query", ""),
        "[0].query",
        "query-non-empty",
    ),
    (
        "v3-validation-count",
        "001-7-validation",
        _set("summary.warning_count", 0),
        "summary.warning_count",
        "summary-counts",
    ),
]


@pytest.mark.parametrize(
    ("example", "mutate", "where", "rule"),
    [pytest.param(n, m, w, r, id=i) for i, n, m, w, r in NEGATIVE],
)
def test_broken_rule_is_rejected_naming_path_and_rule(
    example: str, mutate: Mutation, where: str, rule: str
) -> None:
    data = copy.deepcopy(EXAMPLES[example].data)
    mutate(data)
    with pytest.raises(InputError) as caught:
        from_data(data, "doc.json")
    error = caught.value
    assert error.path == "doc.json"
    assert error.field == where, str(error)
    assert error.rule == rule, str(error)


def _report(results: list[tuple[bool, int, int, bool]], threshold: float = 0.5) -> dict[str, Any]:
    rows = [
        {
            "query": f"q{i}",
            "should_trigger": should,
            "triggers": triggers,
            "runs": runs,
            "errors": 0,
            "trigger_rate": round(triggers / runs, 4),
            "pass": passed,
        }
        for i, (should, triggers, runs, passed) in enumerate(results)
    ]
    passed = sum(1 for r in rows if r["pass"])
    return {
        "skill_name": "s",
        "description": "d",
        "summary": {
            "passed": passed,
            "failed": len(rows) - passed,
            "total": len(rows),
            "threshold": threshold,
        },
        "results": rows,
    }


def test_trigger_rate_must_equal_triggers_over_runs() -> None:
    data = _report([(True, 2, 3, True)])
    data["results"][0]["trigger_rate"] = 0.5
    with pytest.raises(InputError, match=r"trigger_rate must equal triggers / runs"):
        from_data(data)


def test_pass_must_follow_threshold() -> None:
    from_data(_report([(True, 2, 3, True), (False, 1, 3, True)]))
    with pytest.raises(InputError, match=r"results\[1\]\.pass: .*pass must be false"):
        from_data(_report([(True, 2, 3, True), (False, 2, 3, True)]))


def test_grading_check_against_evals_uses_required_flags() -> None:
    evals = WSEvals.model_validate(EXAMPLES["002-0-evals"].data)
    grading_data = copy.deepcopy(EXAMPLES["002-2-grading"].data)
    grading = WSGrading.model_validate(grading_data)
    assert grading.check_against(evals) == []
    # an optional criterion failing does not fail the case; a required one does
    grading_data["results"] = [
        {"criterion": "frontmatter", "score": 4, "passed": True, "reasoning": "ok"},
        {"criterion": "token-efficiency", "score": 1, "passed": False, "reasoning": "long"},
    ]
    grading_data["overall_score"] = 2.5
    grading_data["required_score"] = 4.0
    grading_data["overall"] = "pass"
    assert WSGrading.model_validate(grading_data).check_against(evals) == []
    grading_data["overall"] = "fail"
    errors = WSGrading.model_validate(grading_data).check_against(evals)
    assert errors == [
        'overall: must be "pass": "pass" only when every required criterion passed '
        "[overall-pass-rule]"
    ]
    grading_data["overall"] = "pass"
    grading_data["required_score"] = 2.5
    errors = WSGrading.model_validate(grading_data).check_against(evals)
    assert errors == [
        "required_score: must be the mean of required scores = 4.0, got 2.5 [required-score-mean]"
    ]


def test_loop_summary_skillbench_fields_round_trip_and_none_is_omitted() -> None:
    data = copy.deepcopy(EXAMPLES["001-5-loop-summary"].data)
    iteration = data["iterations"][0]
    iteration.update(
        selection_pass_rate=0.5,
        selection_passed=1,
        selection_total=2,
        errors=0,
        train_ci=[0.44, 0.97],
        selection_ci=[0.09, 0.91],
        test_ci=[0.3, 0.95],
    )
    data["selected_by"] = "selection"
    data["split"] = {
        "seed": 42,
        "fractions": {"train": 0.5, "selection": 0.25, "test": 0.25},
        "train": [{"query": "a", "should_trigger": True}],
        "selection": [{"query": "b", "should_trigger": False}],
        "test": [{"query": "c", "should_trigger": True}],
    }
    loaded = from_data(data)
    assert sorted_json(dump(loaded.model)) == sorted_json(data)
    plain = from_data(EXAMPLES["001-5-loop-summary"].data)
    assert "selection_pass_rate" not in dump(plain.model)["iterations"][0]
    assert "split" not in dump(plain.model)
    data["iterations"][0]["test_ci"] = [0.9, 0.1]
    with pytest.raises(InputError) as caught:
        from_data(data)
    assert caught.value.field == "iterations[0].test_ci"


def test_load_reports_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON"):
        load(bad)


@pytest.mark.parametrize(("dialect", "kind"), sorted({(e.dialect, e.kind) for e in ENTRIES}))
def test_json_schema_exists_and_matches_export(dialect: str, kind: str) -> None:
    schema = json_schema(kind, dialect)
    assert schema["title"] == f"{dialect} {kind}"
    exported = (
        Path(__file__).resolve().parents[2] / "docs" / "schemas" / f"{dialect}.{kind}.schema.json"
    )
    assert json.loads(exported.read_text(encoding="utf-8")) == schema, "run `make schemas`"


def test_json_schema_unknown_kind() -> None:
    with pytest.raises(InputError, match="no 'metrics' document in dialect 'writing-skills'"):
        json_schema("metrics", "writing-skills")


def test_added_trigger_fields_are_checked_against_the_counts() -> None:
    good = {
        "query": "q",
        "should_trigger": True,
        "triggers": 2,
        "runs": 3,
        "errors": 0,
        "trigger_rate": 0.6667,
        "pass": True,
        "ci_low": 0.2077,
        "ci_high": 0.9385,
        "flaky": True,
    }
    TriggerResult.model_validate(good)
    with pytest.raises(ValidationError, match=r"must lie in \[0, 1\]"):
        TriggerResult.model_validate({**good, "ci_low": 0.9})
    with pytest.raises(ValidationError, match="runs that disagree"):
        TriggerResult.model_validate(
            {**good, "triggers": 3, "trigger_rate": 1.0, "ci_low": 0.4385, "ci_high": 1.0}
        )


def test_omitted_keys_are_worked_out_once_per_class(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library report dumps ~100,000 documents: the keys a class omits when None (by name and
    by alias) are computed once for the class, and again only when its `omit_if_none` changes."""
    from typing import ClassVar

    from pydantic import Field

    from skillbench.schemas import base

    class Sample(base.Document):
        omit_if_none: ClassVar[frozenset[str]] = frozenset({"dropped"})
        dropped: str | None = Field(default=None, alias="droppedAlias")
        kept: str | None = None

    looked: list[str] = []
    real = type(Sample).__getattribute__

    def counting(cls: type, name: str) -> Any:
        if cls is Sample and name == "model_fields":
            looked.append(name)
        return real(cls, name)

    monkeypatch.setattr(type(Sample), "__getattribute__", counting)
    dumps = [Sample().model_dump(by_alias=True) for _ in range(5)]
    assert dumps == [{"kept": None}] * 5
    assert len(looked) <= 1
    Sample.omit_if_none = frozenset()
    assert Sample().model_dump(by_alias=True) == {"droppedAlias": None, "kept": None}
