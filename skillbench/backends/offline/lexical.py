"""The offline `lexical` backend: a word-overlap router, a second proxy beside `local`.

No model, no key, no network, nothing heavy to import. A skill's score is the overlap of the
query's words with the words of its description and name (cosine over word sets, common words
left out); scores become a distribution over the skills plus a "no skill" option (a softmax with
a temperature; "no skill" scores a fixed bias), and each run draws from it with a RNG seeded by
sha256(query, target, description, run index, seeds): runs vary, yet reproduce exactly.

It exists so that comparisons between two backends (`skillbench agreement`) have an offline pair
that disagrees for real reasons (words versus meaning). It is a proxy (`is_proxy = True`), not a
measurement of how Claude routes.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skillbench.backends.base import (
    CallUsage,
    SkillEntry,
    TriggerOutcome,
    TriggerRequest,
    listing_request_fields,
)
from skillbench.errors import InputError

ROUTER_VERSION = "lexical-v1"
DEFAULT_TEMPERATURE = 0.02
DEFAULT_BIAS = 0.07
MAX_INDEXES = 4
"""Skill sets whose word index a judge keeps (one per target and catalog in use; an index of
10,000 skills is a few MB, so only the last few: an improvement loop makes a new target a round)."""
_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "this",
        "to",
        "use",
        "used",
        "user",
        "uses",
        "using",
        "want",
        "wants",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
        "skill",
    ]
)


def words(text: str) -> frozenset[str]:
    """Lower-case words of `text` (3+ characters, stopwords out, a plural `s` dropped)."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 3 or word in STOPWORDS:
            continue
        found.add(
            word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word
        )
    return frozenset(found)


def overlap(query: frozenset[str], skill: frozenset[str]) -> float:
    """Cosine similarity of two word sets (0 when either is empty)."""
    if not query or not skill:
        return 0.0
    return len(query & skill) / math.sqrt(len(query) * len(skill))


class SkillIndex:
    """The word bags of a skill set (target first, then the catalog, names deduplicated) as an
    inverted index: a query is scored against the skills sharing a word with it, not all."""

    def __init__(self, skills: Sequence[SkillEntry]) -> None:
        self.names = [s.name for s in skills]
        self.sizes: list[int] = []
        postings: dict[str, list[int]] = {}
        for i, skill in enumerate(skills):
            bag = words(f"{skill.description} {skill.name.replace('-', ' ')}")
            self.sizes.append(len(bag))
            for word in bag:
                postings.setdefault(word, []).append(i)
        self.postings = postings

    def scores(self, query: frozenset[str]) -> dict[int, float]:
        """`overlap(query, bag)` of every skill whose bag shares a word with `query` (every
        other skill scores 0)."""
        shared: dict[int, int] = {}
        for word in query:
            for i in self.postings.get(word, ()):
                shared[i] = shared.get(i, 0) + 1
        return {i: n / math.sqrt(len(query) * self.sizes[i]) for i, n in shared.items()}


@dataclass(frozen=True)
class Weights:
    """A softmax over the skills and "no skill", kept sparse: `matched` the weight of each skill
    (by position) sharing a word with the query, `other` that of every other skill (score 0),
    `none` that of "no skill"; `total` their sum."""

    names: list[str]
    matched: dict[int, float]
    other: float
    none: float
    total: float

    def draw(self, u: float) -> str | None:
        """The skill at which the cumulative probability, in order, first exceeds `u` (None:
        "no skill"), found in time proportional to the matched skills, not all of them."""
        goal = u * self.total
        cumulative = 0.0
        after = 0  # the first position not yet passed
        for position, weight in [*self.matched.items(), (len(self.names), 0.0)]:
            gap = position - after  # unmatched skills before this position, `other` each
            if gap and cumulative + gap * self.other > goal:
                skipped = int((goal - cumulative) / self.other) if self.other > 0 else 0
                return self.names[after + min(max(skipped, 0), gap - 1)]
            cumulative += gap * self.other
            if position == len(self.names):
                break
            cumulative += weight
            if goal < cumulative:
                return self.names[position]
            after = position + 1
        return None


class LexicalJudge:
    """Routes a query among the target skill and its catalog by word overlap."""

    name = "lexical"
    is_proxy = True

    def __init__(
        self,
        model: str | None = None,
        *,
        temperature: float = DEFAULT_TEMPERATURE,
        bias: float = DEFAULT_BIAS,
        seed: int = 0,
        **_ignored: Any,
    ) -> None:
        """`model` must be None (there is no model). Other options (`workers`, …) are
        accepted and ignored: the router is instantaneous."""
        if model is not None:
            raise InputError("the lexical backend has no model", path="--model")
        if temperature <= 0:
            raise InputError("must be positive", field="temperature")
        self.model: str | None = None
        self.temperature = temperature
        self.bias = bias
        self.seed = seed
        self._indexes: dict[tuple[int, int], tuple[SkillEntry, tuple[SkillEntry, ...], SkillIndex]]
        self._indexes = {}
        self._last_weights: tuple[SkillIndex, str, Weights] | None = None

    def identity(self) -> dict[str, Any]:
        """Router version and constants: everything that changes a decision."""
        return {
            "backend": self.name,
            "router": ROUTER_VERSION,
            "temperature": self.temperature,
            "bias": self.bias,
            "seed": self.seed,
        }

    def request_fields(self, request: TriggerRequest) -> dict[str, Any]:
        """What decides this judge's answer, its cache key: the query, run index, seed and each
        skill's name and description (not the body, not the rest of the skill folder)."""
        return listing_request_fields(request)

    def versions(self) -> dict[str, str]:
        """The router version."""
        return {"router": ROUTER_VERSION}

    def _index(self, request: TriggerRequest) -> SkillIndex:
        """The word index of the request's skills, built once per skill set (every run of an
        eval, every query of a library, shares one target and one catalog tuple)."""
        key = (id(request.target), id(request.catalog))
        memo = self._indexes.get(key)
        if memo is not None and memo[0] is request.target and memo[1] is request.catalog:
            return memo[2]
        skills = [request.target]
        seen = {request.target.name}
        for skill in request.catalog:
            if skill.name not in seen:
                seen.add(skill.name)
                skills.append(skill)
        index = SkillIndex(skills)
        if len(self._indexes) >= MAX_INDEXES:
            self._indexes.clear()
        self._indexes[key] = (request.target, request.catalog, index)
        return index

    def _weights(self, request: TriggerRequest) -> Weights:
        """The softmax weights of the request's skills and of "no skill" (see `Weights`)."""
        index = self._index(request)
        last = self._last_weights
        if last is not None and last[0] is index and last[1] == request.query:
            return last[2]  # the next run of the same query: the same distribution
        scores = index.scores(words(request.query))
        logits = {i: s / self.temperature for i, s in scores.items()}
        unmatched = len(index.names) - len(logits)
        none = self.bias / self.temperature
        top = max([*logits.values(), *([0.0] if unmatched else []), none])
        matched = {i: math.exp(v - top) for i, v in sorted(logits.items())}
        other = math.exp(0.0 - top)
        rest = math.exp(none - top)
        total = sum(matched.values()) + unmatched * other + rest
        weights = Weights(index.names, matched, other, rest, total)
        self._last_weights = (index, request.query, weights)
        return weights

    def probabilities(self, request: TriggerRequest) -> tuple[list[str], list[float]]:
        """(skill names, probabilities); the last probability is "no skill"."""
        w = self._weights(request)
        probs = [w.matched.get(i, w.other) / w.total for i in range(len(w.names))]
        return list(w.names), [*probs, w.none / w.total]

    def _draw_seed(self, request: TriggerRequest) -> int:
        blob = json.dumps(
            [
                request.query,
                request.target.name,
                request.target.description,
                request.run_index,
                request.seed,
                self.seed,
                ROUTER_VERSION,
            ],
            ensure_ascii=False,
        )
        return int.from_bytes(hashlib.sha256(blob.encode("utf-8")).digest()[:8], "big")

    def decide(self, request: TriggerRequest) -> TriggerOutcome:
        """One run: draw the fired skill (or none) from the routing distribution."""
        w = self._weights(request)
        u = random.Random(self._draw_seed(request)).random()
        fired = w.draw(u)
        return TriggerOutcome(
            triggered=fired == request.target.name,
            fired=fired,
            usage=CallUsage(),
            detail={
                "p_target": round(w.matched.get(0, w.other) / w.total, 6),
                "p_none": round(w.none / w.total, 6),
            },
        )

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """One run (instantaneous)."""
        return self.decide(request)

    async def aclose(self) -> None:
        """Nothing to release."""
