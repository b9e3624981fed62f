"""Overfitting analysis: per-round frames, warning signs, the paired verdict, many runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skillbench.errors import InputError
from skillbench.improve import overfit
from skillbench.io import write_json
from skillbench.schemas.loop import LoopIteration, LoopQueryResult, LoopSummary


def iteration(
    round_no: int,
    train: list[bool],
    test: list[bool],
    selection: list[bool] | None = None,
    errors: int = 0,
) -> LoopIteration:
    selection = selection if selection is not None else [True, False]
    results = [
        LoopQueryResult(
            query=f"{split} q{i}",
            split=split,
            should_trigger=True,
            trigger_rate=1.0 if ok else 0.0,
            triggers=1 if ok else 0,
            runs=1,
            passed=ok,
        )
        for split, flags in (("train", train), ("selection", selection), ("test", test))
        for i, ok in enumerate(flags)
    ]
    fields: dict[str, object] = {}
    for split, flags in (("train", train), ("selection", selection), ("test", test)):
        fields.update(
            {
                f"{split}_passed": sum(flags),
                f"{split}_total": len(flags),
                f"{split}_pass_rate": round(sum(flags) / len(flags), 4),
            }
        )
    everything = train + selection + test
    return LoopIteration(
        round=round_no,
        description=f"description {round_no}" + " x" * round_no,
        full_pass_rate=round(sum(everything) / len(everything), 4),
        full_passed=sum(everything),
        full_total=len(everything),
        errors=errors,
        results=results,
        **fields,
    )


def summary(its: list[LoopIteration], best: int | None = None, name: str = "s") -> LoopSummary:
    chosen = its[(best or its[-1].round) - 1]
    return LoopSummary(
        skill_name=name,
        original_description=its[0].description,
        iterations=its,
        best_iteration=chosen,
        final_description=chosen.description,
        total_rounds=len(its),
        selected_by="selection",
    )


T, F = True, False


def test_overfitting_sign_train_up_test_down() -> None:
    s = summary([iteration(1, [T, F, F], [T, T, T]), iteration(2, [T, T, T], [T, F, F])])
    signs = overfit.warnings_frame(s)
    row = signs[signs["sign"] == "overfitting"].iloc[0]
    assert row["rounds"] == "1→2" and "test fell" in row["explanation"]


def test_plateau_and_infrastructure_signs() -> None:
    its = [
        iteration(1, [T, T, F], [T, F], errors=0),
        iteration(2, [T, F, F], [T, F], errors=2),
        iteration(3, [T, T, F], [T, F], errors=5),
    ]
    signs = set(overfit.warnings_frame(summary(its))["sign"])
    assert signs == {"plateau", "infrastructure"}


def plateaus(its: list[LoopIteration]) -> list[tuple[str, str]]:
    frame = overfit.warnings_frame(summary(its))
    rows = frame[frame["sign"] == "plateau"]
    return list(zip(rows["rounds"], rows["explanation"], strict=True))


def test_plateau_when_the_last_rounds_stop_moving_after_an_early_gain() -> None:
    its = [
        iteration(1, [F, F, F, F], [F, F]),
        iteration(2, [T, T, F, F], [T, F]),  # better than the original
        iteration(3, [T, F, T, F], [F, T]),  # other queries, same count as round 2
    ]
    found = plateaus(its)
    assert [rounds for rounds, _ in found] == ["2→3"]
    assert "last 2 rounds (2–3)" in found[0][1]
    its.append(iteration(4, [F, T, T, F], [T, F]))
    assert [rounds for rounds, _ in plateaus(its)] == ["2→4"]
    assert "last 3 rounds (2–4)" in plateaus(its)[0][1]


def test_no_plateau_while_the_last_round_still_gains_a_query() -> None:
    its = [
        iteration(1, [F, F, F, F, F, F], [F, F]),
        iteration(2, [T, T, F, F, F, F], [F, F]),
        iteration(3, [T, T, T, F, F, F], [F, F]),  # 5/10 vs 4/10: one query is not "less than"
    ]
    assert plateaus(its) == []
    assert plateaus(its[:1]) == []  # one round: nothing to compare


def test_plateau_counts_queries_not_rounded_rates() -> None:
    # 7 queries: stored rates 0.1429 / 0.2857 differ by 0.1428 < 1/7, yet by exactly one query
    seven = [
        iteration(1, [F, F, F, F, F], [F], selection=[F]),
        iteration(2, [T, F, F, F, F], [F], selection=[F]),
        iteration(3, [T, T, F, F, F], [F], selection=[F]),
    ]
    assert [it.full_pass_rate for it in seven] == [0.0, 0.1429, 0.2857]
    assert plateaus(seven) == []


def test_no_plateau_once_every_query_passes() -> None:
    its = [
        iteration(1, [F, F], [F, F]),
        iteration(2, [T, T], [T, T], selection=[T]),
        iteration(3, [T, T], [T, T], selection=[T]),
    ]
    assert plateaus(its) == []


def test_flat_from_the_start_is_reported_once() -> None:
    its = [iteration(1, [T, F], [T, F]), iteration(2, [F, T], [F, T])]
    assert [rounds for rounds, _ in plateaus(its)] == ["1→2"]


def test_no_sign_on_a_clean_improvement() -> None:
    its = [iteration(1, [T, F, F], [T, F]), iteration(2, [T, T, F], [T, T])]
    assert overfit.warnings_frame(summary(its)).empty


def test_frames_are_tidy_with_intervals_and_gap() -> None:
    s = summary([iteration(1, [T, F, F, F], [T, T]), iteration(2, [T, T, T, F], [T, F])], best=1)
    rounds = overfit.rounds_frame(s)
    assert set(rounds["split"]) == {"train", "selection", "test", "full"}
    assert (rounds["low"] <= rounds["rate"]).all() and (rounds["rate"] <= rounds["high"]).all()
    gaps = overfit.gap_frame(s)
    assert gaps["train_test_gap"].tolist() == pytest.approx([0.25 - 1.0, 0.75 - 0.5])
    assert gaps["is_best"].tolist() == [True, False]


def test_verdict_small_n_says_too_small_to_tell() -> None:
    s = summary([iteration(1, [F, F], [F, F, T]), iteration(2, [T, T], [T, T, T])], best=2)
    v = overfit.verdict(s)
    assert (v.only_original, v.only_chosen, v.n_test) == (0, 2, 3)
    assert v.p_value == pytest.approx(0.5)
    assert "too small to tell" in v.conclusion
    assert "test queries" in v.power_hint
    assert v.chosen_low is not None and v.chosen_low < 1.0 == v.chosen_high


def test_verdict_significant_with_enough_test_queries() -> None:
    before = [F] * 12 + [T] * 8
    after = [T] * 20
    s = summary([iteration(1, [F], before), iteration(2, [T], after)], best=2)
    v = overfit.verdict(s)
    assert (v.only_original, v.only_chosen) == (0, 12)
    assert v.p_value == pytest.approx(2 * 0.5**12)
    assert "significantly better" in v.conclusion


def test_verdict_when_original_is_kept_and_when_worse() -> None:
    kept = overfit.verdict(summary([iteration(1, [F], [T]), iteration(2, [T], [F])], best=1))
    assert kept.p_value is None and "original" in kept.conclusion
    worse = overfit.verdict(
        summary([iteration(1, [F], [T] * 8), iteration(2, [T], [F] * 8)], best=2)
    )
    assert "WORSE" in worse.conclusion


def test_many_runs_from_a_folder_with_holm(tmp_path: Path) -> None:
    good = summary([iteration(1, [F], [F] * 10), iteration(2, [T], [T] * 10)], best=2, name="a")
    flat = summary([iteration(1, [F], [T, F]), iteration(2, [T], [F, T])], best=2, name="b")
    write_json(tmp_path / "a" / "loop_summary.json", good)
    write_json(tmp_path / "b" / "loop_summary.json", flat)
    loaded = overfit.load_summaries(tmp_path)
    assert [label for label, _ in loaded] == ["a", "b"]
    verdicts = overfit.verdict_frame(loaded)
    assert list(verdicts["run"]) == ["a", "b"]
    p_a = float(verdicts["p_value"].iloc[0])
    assert float(verdicts["p_holm"].iloc[0]) == pytest.approx(min(1.0, 2 * p_a))
    assert len(overfit.gap_frame(loaded)) == 4


def test_broken_summary_names_file_and_field(tmp_path: Path) -> None:
    bad = summary([iteration(1, [F], [T])]).to_json_dict()
    bad["iterations"][0]["train_passed"] = 5
    path = tmp_path / "run" / "loop_summary.json"
    path.parent.mkdir()
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(InputError) as err:
        overfit.load_summaries(tmp_path)
    assert "loop_summary.json" in str(err.value) and "train_passed" in str(err.value)
    with pytest.raises(InputError):
        overfit.load_summaries(tmp_path / "missing")
