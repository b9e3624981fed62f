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
