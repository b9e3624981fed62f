"""Proposers: the offline heuristic rewriter and the model proposer (fake text model)."""

from __future__ import annotations

from improve_fakes import RecordingTextModel, tagged

from skillbench.improve.prompt import Attempt, QueryFeedback, TrainView, parse_new_description
from skillbench.improve.proposers import (
    CLAUSE_LEAD,
    HeuristicProposer,
    ModelProposer,
    split_heuristic_clauses,
)
from skillbench.validate.rules import validate_description

DESC = "Cleans CSV exports. Use when a user has a messy spreadsheet export."


def fb(query: str, should: bool, passed: bool) -> QueryFeedback:
    return QueryFeedback(query, should, 1.0 if should == passed else 0.0, passed, 3)


def view(description: str = DESC, results: tuple[QueryFeedback, ...] = ()) -> TrainView:
    results = results or (
        fb("fix the delimiter in invoices file", True, False),
        fb("the delimiter breaks my import", True, False),
        fb("tidy this export", True, True),
        fb("write a poem about delimiter", False, True),
        fb("plot revenue by month", False, False),
    )
    attempt = Attempt(1, description, sum(r.passed for r in results), len(results), results)
    return TrainView("csv-cleanup", "Detect the delimiter and fix the import.", current=attempt)


async def test_heuristic_adds_words_of_missed_positives_deterministically() -> None:
    proposer = HeuristicProposer()
    first = await proposer.propose(view())
    again = await proposer.propose(view())
    assert first.description == again.description
    assert first.description is not None and first.description.startswith(DESC)
    base, terms, _ = split_heuristic_clauses(first.description)
    assert base == DESC
    assert terms[:3] == ["delimiter", "fix", "import"]  # words the skill body uses come first
    assert "poem" not in terms and "write" not in terms  # only words of missed positives
    assert "heuristic" in first.note
    assert [f for f in validate_description(first.description) if f.level == "error"] == []


async def test_heuristic_never_adds_a_word_negatives_use_as_often() -> None:
    results = (fb("chart the revenue", True, False), fb("plot revenue by month", False, True))
    proposal = await HeuristicProposer().propose(view(results=results))
    assert proposal.description is not None
    assert split_heuristic_clauses(proposal.description)[1] == ["chart"]


async def test_heuristic_drops_added_words_that_cause_false_triggers() -> None:
    current = f"{DESC} {CLAUSE_LEAD} revenue and import."
    results = (
        fb("plot revenue by month", False, False),
        fb("fix my import", True, True),
    )
    proposal = await HeuristicProposer().propose(view(current, results))
    assert proposal.description is not None
    assert split_heuristic_clauses(proposal.description)[1] == ["import"]


async def test_heuristic_returns_none_when_nothing_to_learn() -> None:
    results = (fb("tidy this export", True, True), fb("plot revenue", False, True))
    proposal = await HeuristicProposer().propose(view(results=results))
    assert proposal.description is None and proposal.note


async def test_heuristic_stays_within_the_length_limit() -> None:
    long = "Cleans exports. " + "Handles messy files well. " * 38
    results = tuple(fb(f"word{i} term{i} thing{i} stuff{i}", True, False) for i in range(40))
    proposal = await HeuristicProposer(max_terms=40, max_total=200).propose(
        view(long.strip(), results)
    )
    assert proposal.description is not None and len(proposal.description) <= 1024


async def test_model_proposer_parses_tags_and_shortens_once() -> None:
    replies = iter([tagged("x " * 600), tagged("Short. Use when needed.")])
    model = RecordingTextModel(lambda r: next(replies))
    proposal = await ModelProposer(model).propose(view())
    assert proposal.description == "Short. Use when needed."
    assert [r.purpose for r in model.requests] == ["improve", "shorten"]
    assert proposal.note == "shortened once" and len(proposal.prompts) == 2


async def test_model_proposer_without_tags_gives_none() -> None:
    proposal = await ModelProposer(RecordingTextModel(lambda r: "no tags here")).propose(view())
    assert proposal.description is None and "tags" in proposal.note


def test_parse_new_description_takes_the_last_tag() -> None:
    assert (
        parse_new_description(
            "<new_description>a</new_description> <new_description> b\n c </new_description>"
        )
        == "b c"
    )
    assert parse_new_description("<new_description>  </new_description>") is None
