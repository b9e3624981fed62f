"""The `lexical` offline proxy: word overlap decides, runs reproduce, nothing heavy loads."""

from __future__ import annotations

import subprocess
import sys

import pytest

from skillbench.backends.base import SkillEntry, TriggerRequest
from skillbench.backends.offline.lexical import LexicalJudge, words
from skillbench.backends.registry import get_judge
from skillbench.errors import InputError

PDF = SkillEntry("pdf-tools", "Merge, split and fill PDF forms and pages.")
CSV = SkillEntry("csv-cleaner", "Clean messy CSV exports: delimiters, headers, duplicates.")


def rate(judge: LexicalJudge, query: str, runs: int = 40) -> float:
    hits = [judge.decide(TriggerRequest(PDF, (CSV,), query, i)).triggered for i in range(runs)]
    return sum(hits) / runs


def test_overlapping_words_trigger_and_others_do_not() -> None:
    judge = LexicalJudge()
    assert rate(judge, "merge these two pdf forms into one") > 0.8
    assert rate(judge, "clean the headers of this csv export") < 0.2
    assert rate(judge, "what is the weather tomorrow") < 0.2


def test_runs_reproduce_and_vary_with_the_seed() -> None:
    request = TriggerRequest(PDF, (CSV,), "a pdf question", 0)
    assert LexicalJudge().decide(request) == LexicalJudge().decide(request)
    assert LexicalJudge(seed=1).identity() != LexicalJudge().identity()


def test_words_drop_stopwords_and_plurals() -> None:
    assert words("Use this to merge PDFs and forms") == {"merge", "pdf", "form"}


def test_by_name_without_a_model() -> None:
    assert isinstance(get_judge("lexical"), LexicalJudge)
    with pytest.raises(InputError, match="--model"):
        get_judge("lexical", model="claude-x")


def test_importing_it_loads_no_heavy_module() -> None:
    code = (
        "import sys, skillbench.backends.offline.lexical; "
        "print(sorted(m for m in ('numpy','torch','anthropic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _drawn_from_probabilities(judge: LexicalJudge, request: TriggerRequest) -> str | None:
    """The draw over the whole distribution, skill by skill (the judge's sparse draw must agree)."""
    import random

    names, probs = judge.probabilities(request)
    u = random.Random(judge._draw_seed(request)).random()
    cumulative = 0.0
    for name, p in zip(names, probs, strict=False):
        cumulative += p
        if u < cumulative:
            return name
    return None


def test_the_sparse_draw_agrees_with_the_whole_distribution() -> None:
    import random

    rng = random.Random(7)
    vocab = ["pdf", "merge", "csv", "clean", "header", "form", "sql", "docker", "regex", "notes"]
    for trial in range(60):
        skills = tuple(
            SkillEntry(f"s{i}-{rng.choice(vocab)}", " ".join(rng.sample(vocab, rng.randint(0, 4))))
            for i in range(rng.randint(1, 30))
        )
        judge = LexicalJudge(temperature=rng.choice([0.02, 0.5]), bias=rng.choice([0.07, 1.0]))
        for run in range(20):
            query = " ".join(rng.sample(vocab, rng.randint(0, 4)))
            request = TriggerRequest(skills[0], skills[1:], query, run, trial)
            assert judge.decide(request).fired == _drawn_from_probabilities(judge, request)


def test_a_catalog_is_indexed_once_for_every_query(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillbench.backends.offline import lexical

    built: list[int] = []
    original = lexical.SkillIndex.__init__

    def counting(self: lexical.SkillIndex, skills: list[SkillEntry]) -> None:
        built.append(len(skills))
        original(self, skills)

    monkeypatch.setattr(lexical.SkillIndex, "__init__", counting)
    catalog = tuple(SkillEntry(f"skill-{i}", f"Handles topic {i} files.") for i in range(500))
    judge = LexicalJudge()
    for i in range(50):
        judge.decide(TriggerRequest(PDF, catalog, f"topic {i} files please", i))
    assert built == [501]  # one index for 50 queries, not one per query


def test_the_runs_of_a_query_share_one_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library runs each query 3 times in a row: the word scores are computed once for the
    three, and each run still draws its own skill from the same distribution."""
    from skillbench.backends.offline import lexical

    scored: list[frozenset[str]] = []
    original = lexical.SkillIndex.scores

    def counting(self: lexical.SkillIndex, query_words: set[str]) -> dict[int, float]:
        scored.append(frozenset(query_words))
        return original(self, query_words)

    monkeypatch.setattr(lexical.SkillIndex, "scores", counting)
    judge, fresh, catalog = LexicalJudge(), LexicalJudge(), (CSV,)
    for query in ("merge pdf forms", "clean csv headers"):
        for run in range(3):
            request = TriggerRequest(PDF, catalog, query, run)
            assert judge.decide(request) == fresh.decide(request)
            fresh._last_weights = None
    assert len(scored) == 2 + 6  # `judge` once per query; `fresh`, forgetting, once per run
