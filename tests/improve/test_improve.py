"""The improvement loop with a keyword judge and a recording text model (no network, no model)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from improve_fakes import BASE, KeywordJudge, RecordingTextModel, learner, sample_queries, tagged

from skillbench.backends.base import TextRequest
from skillbench.improve.loop import (
    HeldOutGuard,
    LeakError,
    LoopResult,
    build_iteration,
    candidate_problems,
    check_view,
    choose_best,
    history_entry,
    repair_description,
    run_improve_loop,
    train_attempt,
)
from skillbench.improve.options import ImproveOptions
from skillbench.improve.prompt import TrainView
from skillbench.improve.proposers import HeuristicProposer, ModelProposer
from skillbench.improve.splits import stratified_split
from skillbench.schemas.loop import LoopIteration, LoopSummary
from skillbench.trigger.options import EvalContext, TriggerOptions


async def run(model: RecordingTextModel, *, rounds: int) -> tuple[LoopResult, KeywordJudge]:
    queries = sample_queries()
    judge = KeywordJudge()
    result = await run_improve_loop(
        "tidy",
        BASE,
        queries,
        judge,
        ModelProposer(model),
        options=ImproveOptions(trigger=TriggerOptions(runs=1), rounds=rounds),
        context=EvalContext(body="# tidy\nBody."),
    )
    return result, judge


async def test_no_held_out_query_ever_reaches_a_prompt() -> None:
    model = RecordingTextModel(learner)
    result, _ = await run(model, rounds=4)
    split = result.split
    assert model.requests, "the loop sent no prompt: the test would prove nothing"
    held_out = [*split.selection, *split.test]
    for request in model.requests:
        for text in held_out:
            assert text not in request.prompt and text not in request.system
        held_words = {t.split()[-1] for t in held_out} - {"clean"}  # "clean" is in BASE
        assert not held_words & set(re.findall(r"\w+", request.prompt))
    assert any(t in model.requests[0].prompt for t in split.train if "sort out" in t)
    assert result.prompts == [r.prompt for r in model.requests]
    # the improver learned train words only: held-out positives never gain their word
    final = result.summary.iterations[-1].description
    for text in held_out:
        word = text.split()[-1]
        if word != "clean":
            assert word not in final.split()


async def test_guard_blocks_a_prompt_with_a_held_out_query() -> None:
    guard = HeldOutGuard(RecordingTextModel(lambda r: ""), ["unrelated request about taxes"])
    with pytest.raises(LeakError):
        await guard.complete(TextRequest(prompt="see: unrelated request about taxes"))
    assert (await guard.complete(TextRequest(prompt="fine"))).text == ""


async def test_check_view_rejects_a_non_train_query() -> None:
    result, _ = await run(RecordingTextModel(learner), rounds=1)
    split = result.split
    leaky = train_attempt(
        1, result.reports[0], split.model_copy(update={"train": split.train + split.test})
    )
    with pytest.raises(LeakError):
        check_view(TrainView("tidy", "", current=leaky), split)


async def test_round_one_is_the_original_and_outputs_are_consistent() -> None:
    result, judge = await run(RecordingTextModel(learner), rounds=3)
    summary = result.summary
    assert summary.iterations[0].description == BASE
    assert summary.iterations[0].round == 1
    assert summary.total_rounds == len(summary.iterations) == len(result.reports)
    assert summary.selected_by == "selection"
    assert summary.final_description == result.best.description
    assert summary.split is not None and summary.split.seed == 0
    LoopSummary.model_validate(summary.to_json_dict())
    for it, entry in zip(summary.iterations, result.history.root, strict=True):
        assert entry.split == "train"
        assert entry.pass_rate == f"{it.train_passed}/{it.train_total}"
        assert it.full_total == 20 and it.results is not None
        train = [r for r in it.results if r.split == "train"]
        assert entry.under_triggers == sum(r.should_trigger and not r.passed for r in train)
        assert it.train_ci is not None and it.train_pass_rate is not None
        assert it.train_ci[0] <= it.train_pass_rate <= it.train_ci[1]
    # every evaluation covered all queries once (runs=1)
    assert len(judge.requests) == 20 * len(summary.iterations)


async def test_train_improves_and_loop_stops_when_train_all_pass() -> None:
    result, _ = await run(RecordingTextModel(learner), rounds=5)
    its = result.summary.iterations
    assert its[-1].train_passed == its[-1].train_total
    assert (its[-1].train_passed or 0) > (its[0].train_passed or 0)
    assert result.summary.stop_reason == "all train queries pass"


async def test_stops_when_a_proposal_repeats() -> None:
    result, _ = await run(RecordingTextModel(lambda r: tagged(BASE)), rounds=5)
    assert result.summary.total_rounds == 1
    assert "repeats round 1" in (result.summary.stop_reason or "")


async def test_stops_at_the_round_limit() -> None:
    counter = iter(range(100))
    model = RecordingTextModel(lambda r: tagged(f"{BASE} variant{next(counter)}."))
    result, _ = await run(model, rounds=3)
    assert result.summary.total_rounds == 3
    assert result.summary.stop_reason == "round limit reached (3 evaluations)"


async def test_invalid_candidate_is_retried_with_validator_messages() -> None:
    def reply(request: TextRequest) -> str:
        if request.run_index == 0:
            return tagged("Use when <tags> appear in the file clean alpha.")
        return tagged(f"{BASE} alpha bravo.")

    model = RecordingTextModel(reply)
    result, _ = await run(model, rounds=2)
    assert "DESCRIPTION_" in model.requests[1].prompt  # the validator's code reached the retry
    evaluated = result.summary.iterations[1].description
    assert "<" not in evaluated and evaluated.endswith("alpha bravo.")


async def test_invalid_retry_is_repaired_never_evaluated_as_is() -> None:
    long = f"{BASE} " + "word " * 300 + "<b>"
    result, judge = await run(RecordingTextModel(lambda r: tagged(long)), rounds=2)
    evaluated = {r.target.description for r in judge.requests}
    assert all(len(d) <= 1024 and "<" not in d for d in evaluated)
    assert "repaired" in (result.summary.iterations[1].proposal_note or "")


def test_repair_description_cuts_and_cleans() -> None:
    text = repair_description("A <b>bold</b> skill. " * 80)
    assert len(text) <= 1024 and "<" not in text and ">" not in text
    assert candidate_problems(text, "x")[0] == []


def _iteration(round_no: int, description: str, sel: int, test: int) -> LoopIteration:
    return LoopIteration(
        round=round_no,
        description=description,
        full_pass_rate=0.5,
        selection_pass_rate=sel / 4,
        selection_passed=sel,
        selection_total=4,
        test_pass_rate=test / 4,
        test_passed=test,
        test_total=4,
    )


def test_best_is_chosen_on_selection_never_test() -> None:
    its = [_iteration(1, "original text", 2, 4), _iteration(2, "candidate", 3, 0)]
    assert choose_best(its).round == 2
    tie = [_iteration(1, "a longer text here", 3, 4), _iteration(2, "short", 3, 0)]
    assert choose_best(tie).round == 2  # shorter wins the tie
    same = [_iteration(1, "abcde", 3, 0), _iteration(2, "fghij", 3, 4)]
    assert choose_best(same).round == 1  # then the earlier round


async def test_heuristic_proposer_runs_the_loop_offline() -> None:
    queries = sample_queries()
    result = await run_improve_loop(
        "tidy",
        BASE,
        queries,
        KeywordJudge(),
        HeuristicProposer(),
        options=ImproveOptions(trigger=TriggerOptions(runs=1), rounds=3),
    )
    assert result.prompts == []
    assert result.summary.settings is not None and result.summary.settings.proposer_is_heuristic
    its = result.summary.iterations
    assert (its[-1].train_passed or 0) >= (its[0].train_passed or 0)


async def test_given_split_must_match_the_eval_set() -> None:
    from skillbench.errors import InputError

    queries = sample_queries()
    split = stratified_split(queries[:-1], seed=1)
    with pytest.raises(InputError, match="split"):
        await run_improve_loop(
            "tidy",
            BASE,
            queries,
            KeywordJudge(),
            HeuristicProposer(),
            options=ImproveOptions(split_from=split),
        )


def test_history_entry_counts_train_only() -> None:
    queries = sample_queries()
    split = stratified_split(queries, seed=3)
    import asyncio

    from skillbench.trigger.run import run_trigger_eval

    report = asyncio.run(
        run_trigger_eval("tidy", BASE, queries, KeywordJudge(), options=TriggerOptions(runs=1))
    )
    it = build_iteration(1, report, split)
    entry = history_entry(it)
    assert entry.passed_total == (it.train_passed, len(split.train))


async def test_split_seed_draws_the_split_and_seed_drives_the_backend() -> None:
    queries = sample_queries()
    result = await run_improve_loop(
        "tidy",
        BASE,
        queries,
        KeywordJudge(),
        HeuristicProposer(),
        options=ImproveOptions(trigger=TriggerOptions(seed=0), rounds=1, split_seed=6),
    )
    assert result.split == stratified_split(queries, seed=6)
    assert result.summary.split is not None and result.summary.split.seed == 6
    assert result.summary.settings is not None and result.summary.settings.seed == 0


def test_check_out_dir_accepts_folders_to_be_and_refuses_files(tmp_path: Path) -> None:
    from skillbench.errors import InputError
    from skillbench.improve.run import check_out_dir

    assert check_out_dir(tmp_path) == tmp_path
    assert check_out_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert not (tmp_path / "a").exists()  # checking creates nothing
    (tmp_path / "file").write_text("x", encoding="utf-8")
    for bad in (tmp_path / "file", tmp_path / "file" / "sub" / "deeper"):
        with pytest.raises(InputError) as err:
            check_out_dir(bad, label="--out")
        assert err.value.path == "--out"
