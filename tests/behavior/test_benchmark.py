"""benchmark.json: explicit delta sign, paired statistics, matrix, flags, CLI exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grade_fixtures import GOOD, UNTITLED, RunSpec, make_run, make_skill, standard_workspace

from skillbench.behavior.benchmark import (
    RunNumbers,
    build_benchmark,
    choose_pair,
    newcombe_interval,
    paired_differences,
    variance_split,
    write_benchmark,
)
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.workspace import Workspace
from skillbench.cli import main
from skillbench.errors import InputError
from skillbench.schemas import load


def numbers(case: str, config: str, run: int, passed: int, total: int = 2) -> RunNumbers:
    return RunNumbers(case, config, run, passed, total, 0, 1.0, 10, 1, 0)


def test_delta_is_candidate_minus_baseline_not_alphabetical(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    _doc, path = write_benchmark(skill)
    loaded = load(path)
    assert loaded.kind == "benchmark" and loaded.dialect == "skill-creator"
    data = json.loads(path.read_text())
    # "baseline" sorts before "with_skill": the reference would compute baseline − with_skill
    assert data["run_summary"]["delta"]["pass_rate"] == "+0.62"
    assert data["run_summary"]["delta"]["tokens"] == "+400"
    assert data["comparison"] == {
        "candidate": "with_skill",
        "baseline": "baseline",
        "delta": "with_skill - baseline",
    }
    assert list(data["run_summary"])[:2] == ["with_skill", "baseline"]
    # reversing the roles flips the sign
    flipped = build_benchmark(skill, candidate="baseline", baseline="with_skill")
    assert flipped.run_summary["delta"] == {
        "pass_rate": "-0.62",
        "time_seconds": "-5.0",
        "tokens": "-400",
    }


def test_paired_differences_average_runs_within_case_first() -> None:
    runs = [
        numbers("a", "new", 1, 2),
        numbers("a", "new", 2, 2),
        numbers("a", "new", 3, 2),
        numbers("a", "old", 1, 0),
        numbers("b", "new", 1, 1),
        numbers("b", "old", 1, 1),
        numbers("b", "old", 2, 0),
    ]
    paired = paired_differences(runs, "new", "old")
    by_case = {c["case_id"]: c for c in paired["cases"]}
    assert by_case["a"]["difference"] == 1.0  # 1.0 − 0.0, not weighted by 3 runs vs 1
    assert by_case["b"]["difference"] == 0.25  # 0.5 − 0.25
    assert paired["mean_difference"] == pytest.approx(0.625)
    low, high = paired["bootstrap_ci"]
    assert low <= 0.625 <= high
    t_low, t_high = paired["t_ci"]
    assert t_low < 0.625 < t_high and t_high - t_low > high - low


def test_variance_split_separates_between_and_within() -> None:
    same_within = [
        numbers("a", "x", 1, 2),
        numbers("a", "x", 2, 2),
        numbers("b", "x", 1, 0),
        numbers("b", "x", 2, 0),
    ]
    split = variance_split(same_within)
    assert split["stddev_within_case"] == 0.0
    assert split["stddev_between_cases"] == pytest.approx(0.7071, abs=1e-4)
    noisy = [
        numbers("a", "x", 1, 2),
        numbers("a", "x", 2, 0),
        numbers("b", "x", 1, 2),
        numbers("b", "x", 2, 0),
    ]
    split = variance_split(noisy)
    assert split["stddev_between_cases"] == 0.0 and split["stddev_within_case"] == pytest.approx(
        0.7071, abs=1e-4
    )


def test_matrix_non_discriminating_and_flaky(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    doc = build_benchmark(skill)
    extra = doc.model_extra or {}
    matrix = {(r["case_id"], r["expectation"]): r["results"] for r in extra["expectation_matrix"]}
    made = matrix[("case-one", "summary.md is created")]
    assert made["with_skill"] == {"passed": 2, "graded": 2, "ungraded": 0}
    assert made["baseline"] == {"passed": 1, "graded": 2, "ungraded": 0}
    assert (
        matrix[("case-one", "The summary is written in a neutral tone")]["baseline"]["ungraded"]
        == 2
    )
    flaky = {(f["case_id"], f["expectation"], f["configuration"]) for f in extra["flaky"]}
    assert ("case-one", "summary.md is created", "baseline") in flaky
    assert not any(f["configuration"] == "with_skill" for f in extra["flaky"])
    assert extra["non_discriminating"] == []


def test_non_discriminating_found(tmp_path: Path) -> None:
    skill = make_skill(tmp_path)
    space = Workspace.for_skill(skill)
    for config in ("with_skill", "baseline"):
        for run in (1, 2):
            make_run(
                space,
                RunSpec(config, "case-one", run, GOOD if config == "with_skill" else UNTITLED),
            )
            make_run(space, RunSpec(config, "case-two", run, final_text="done"))
    grade_workspace_sync(skill)
    extra = build_benchmark(skill).model_extra or {}
    always = {(r["expectation"], r["always"]) for r in extra["non_discriminating"]}
    assert ("summary.md is created", "pass") in always and ("The reply says done", "pass") in always
    assert ("summary.md starts with a Markdown title", "pass") not in always


def test_choose_pair_defaults_and_errors() -> None:
    assert choose_pair(["baseline", "with_skill"], None, None) == ("with_skill", "baseline")
    assert choose_pair(["v0", "v1", "v10", "v2"], None, None) == ("v10", "v2")
    assert choose_pair(["v0", "v1"], "v1", "v0") == ("v0", "v1")
    with pytest.raises(InputError):
        choose_pair(["with_skill"], None, None)
    with pytest.raises(InputError):
        choose_pair(["v1", "v2"], "v1", "v1")


def test_ungraded_run_is_a_clear_input_error(tmp_path: Path) -> None:
    skill, _space = standard_workspace(tmp_path)
    with pytest.raises(InputError, match="not graded"):
        build_benchmark(skill)


def test_cli_grade_and_benchmark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill, _space = standard_workspace(tmp_path)
    assert main(["grade", str(skill)]) == 1  # baseline runs fail graded expectations
    out = capsys.readouterr().out
    assert "4 UNGRADED" in out
    target = tmp_path / "bench.json"
    assert main(["benchmark", str(skill), "--out", str(target)]) == 0
    assert load(target).kind == "benchmark"
    assert (
        main(["benchmark", str(skill), "--candidate", "baseline", "--baseline", "with_skill"]) == 1
    )
    assert main(["benchmark", str(skill), "--candidate", "v9"]) == 2


def test_newcombe_interval_matches_the_published_example() -> None:
    # Newcombe (1998), Stat Med 17:873, example (a): 56/70 − 48/80, method 10: 0.0524 to 0.3339
    low, high = newcombe_interval(56, 70, 48, 80)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)
    assert newcombe_interval(10, 10, 0, 10)[1] == 1.0  # clipped to the possible range


def test_paired_cases_carry_their_own_interval() -> None:
    runs = [
        numbers("a", "new", 1, 2),
        numbers("a", "new", 2, 2),
        numbers("a", "old", 1, 0),
        numbers("a", "old", 2, 1),
        numbers("b", "new", 1, 1),
        numbers("b", "old", 1, 1),
    ]
    paired = paired_differences(runs, "new", "old")
    by_case = {c["case_id"]: c for c in paired["cases"]}
    a = by_case["a"]
    assert (a["candidate_passed"], a["candidate_graded"]) == (4, 4)
    assert (a["baseline_passed"], a["baseline_graded"]) == (1, 4)
    low, high = a["ci"]
    assert low < a["pooled_difference"] == 0.75 < high
    assert [low, high] == [round(x, 4) for x in newcombe_interval(4, 4, 1, 4)]
    b_low, b_high = by_case["b"]["ci"]
    assert b_low < 0 < b_high  # 1/2 vs 1/2: no difference shown
    assert paired["rough"] is True and "newcombe" in paired["case_ci_method"]


def test_cli_headline_is_the_t_interval_and_says_rough(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, _space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    capsys.readouterr()
    assert main(["benchmark", str(skill)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "mean over n=2 cases: +0.62, 95% t interval" in out
    assert "ROUGH: only 2 cases (< 10)" in out
    assert "bootstrap" not in out
    assert "case-one: +0.75 (95% Newcombe" in out


def test_unknown_candidate_names_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    assert main(["benchmark", str(skill), "--candidate", "v7"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--candidate: configuration 'v7' has no runs in" in err and "<input>" not in err
    assert str(space.runs_dir) in err


def test_paired_frame_and_lines_show_each_cases_interval(tmp_path: Path) -> None:
    from skillbench.behavior.benchmark import paired_lines
    from skillbench.behavior.grade_frames import paired_frame

    skill, _space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    doc, _path = write_benchmark(skill)
    paired = (doc.model_extra or {})["paired"]
    frame = paired_frame(doc)
    for row, case in zip(frame.itertuples(), paired["cases"], strict=True):
        assert [row.ci_low, row.ci_high] == case["ci"]
        assert row.ci_low <= row.difference <= row.ci_high
    lines = paired_lines(paired)
    assert "t interval" in lines[0] and f"n={paired['n_cases']}" in lines[0]
    assert "ROUGH" in lines[0]  # fewer than 10 cases
    assert all("Newcombe" in line for line in lines[1:]) and len(lines) == 1 + len(frame)


def test_malformed_timing_file_is_an_input_error(tmp_path: Path) -> None:
    skill, space = standard_workspace(tmp_path)
    grade_workspace_sync(skill)
    run = next(iter(space.iter_runs()))
    grading = json.loads(run.grading_path.read_text())
    grading.pop("timing", None)
    run.grading_path.write_text(json.dumps(grading), encoding="utf-8")
    run.timing_path.write_text('{"total_tokens": "many"}', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        build_benchmark(skill)
    assert caught.value.path == str(run.timing_path)
    assert caught.value.field == "total_tokens"


def test_delta_of_a_side_with_no_graded_run_is_not_a_number() -> None:
    """0 − 0 from two empty sides is no measurement: the seed's delta string says n/a."""
    from skillbench.behavior.benchmark import config_summary, delta

    graded = config_summary([numbers("a", "new", 1, 2)])
    ungraded = config_summary([numbers("a", "old", 1, 0, total=0)])  # 0 graded: no pass rate
    assert delta(graded, ungraded)["pass_rate"] == "n/a"
    assert delta(graded, config_summary([]))["pass_rate"] == "n/a"
    assert delta(graded, graded)["pass_rate"] == "+0.00"
