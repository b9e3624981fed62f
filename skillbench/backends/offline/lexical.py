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

    @staticmethod
    def _skills(request: TriggerRequest) -> list[SkillEntry]:
        skills = [request.target]
        seen = {request.target.name}
        for skill in request.catalog:
            if skill.name not in seen:
                seen.add(skill.name)
                skills.append(skill)
        return skills

    def probabilities(self, request: TriggerRequest) -> tuple[list[str], list[float]]:
        """(skill names, probabilities); the last probability is "no skill"."""
        skills = self._skills(request)
        query = words(request.query)
        scores = [
            overlap(query, words(f"{s.description} {s.name.replace('-', ' ')}")) for s in skills
        ]
        logits = [s / self.temperature for s in scores] + [self.bias / self.temperature]
        top = max(logits)
        weights = [math.exp(v - top) for v in logits]
        total = sum(weights)
        return [s.name for s in skills], [w / total for w in weights]

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
        names, probs = self.probabilities(request)
        u = random.Random(self._draw_seed(request)).random()
        fired: str | None = None
        cumulative = 0.0
        for name, p in zip(names, probs, strict=False):
            cumulative += p
            if u < cumulative:
                fired = name
                break
        return TriggerOutcome(
            triggered=fired == request.target.name,
            fired=fired,
            usage=CallUsage(),
            detail={"p_target": round(probs[0], 6), "p_none": round(probs[-1], 6)},
        )

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        """One run (instantaneous)."""
        return self.decide(request)

    async def aclose(self) -> None:
        """Nothing to release."""
