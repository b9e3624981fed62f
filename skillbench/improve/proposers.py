"""Proposers: given a `TrainView`, propose the next description.

`ModelProposer` asks a TextModel (the `anthropic` or `claude-code` backend) with the improver
prompt. `HeuristicProposer` is the `local` backend's offline, deterministic rewriter: it mines
wording from missed positives and false triggers. It is a heuristic, not a model, and says so.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from skillbench.backends.base import CallUsage, TextModel, TextRequest
from skillbench.improve.prompt import (
    MAX_DESCRIPTION_CHARS,
    TrainView,
    build_improver_prompt,
    build_shortening_prompt,
    parse_new_description,
)


@dataclass
class Proposal:
    """A proposed description and how it was obtained."""

    description: str | None
    prompts: list[str] = field(default_factory=list)
    usage: CallUsage = field(default_factory=CallUsage)
    note: str = ""


@runtime_checkable
class Proposer(Protocol):
    """Proposes the next description from train results only."""

    name: str
    is_heuristic: bool

    async def propose(self, view: TrainView, *, attempt: int = 0, feedback: str = "") -> Proposal:
        """`attempt` > 0 and `feedback` (validator messages) are used for a retry."""
        ...


class ModelProposer:
    """Ask a text model with the improver prompt; one shortening retry when too long."""

    is_heuristic = False

    def __init__(self, model: TextModel, *, max_tokens: int = 1024) -> None:
        self.model = model
        self.name = f"{model.name}:{model.model or 'default'}"
        self.max_tokens = max_tokens

    def with_model(self, model: TextModel) -> ModelProposer:
        """The same proposer asking another (e.g. a guarded) text model; the name is kept."""
        copy = ModelProposer(model, max_tokens=self.max_tokens)
        copy.name = self.name
        return copy

    async def propose(self, view: TrainView, *, attempt: int = 0, feedback: str = "") -> Proposal:
        prompt = build_improver_prompt(view)
        if feedback:
            prompt += f"\n\nYour previous answer was rejected by the validator: {feedback}"
        proposal = Proposal(description=None)
        reply = await self.model.complete(
            TextRequest(
                prompt=prompt, max_tokens=self.max_tokens, purpose="improve", run_index=attempt
            )
        )
        proposal.prompts.append(prompt)
        proposal.usage.add(reply.usage)
        text = parse_new_description(reply.text)
        if text is None:
            proposal.note = "reply had no <new_description> tags"
            return proposal
        if len(text) > MAX_DESCRIPTION_CHARS:
            shorten = build_shortening_prompt(text)
            reply = await self.model.complete(
                TextRequest(prompt=shorten, max_tokens=self.max_tokens, purpose="shorten")
            )
            proposal.prompts.append(shorten)
            proposal.usage.add(reply.usage)
            text = parse_new_description(reply.text) or text
            proposal.note = "shortened once"
        proposal.description = text
        return proposal


_WORD = re.compile(r"[a-z][a-z0-9+#.-]*[a-z0-9+#]|[a-z]")
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "please",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "hey",
        "hi",
        "thanks",
        "thank",
        "need",
        "needs",
        "want",
        "wants",
        "help",
        "me",
        "make",
        "get",
        "got",
        "let",
        "lets",
        "use",
        "using",
        "used",
        "like",
        "just",
        "one",
        "two",
        "also",
        "really",
        "pretty",
        "some",
        "something",
        "anything",
        "thing",
        "things",
        "way",
        "could",
        "can't",
        "don't",
        "i'm",
        "it's",
        "i've",
        "we're",
        "you're",
    ]
)


def content_words(text: str) -> list[str]:
    """Lower-case content words of a text, stopwords and very short tokens removed."""
    words = _WORD.findall(text.lower())
    return [w for w in words if len(w) >= 3 and w not in STOPWORDS]


CLAUSE_LEAD = "Also use when a request mentions"
NOT_LEAD = "Not for requests about"
_CLAUSE = re.compile(rf"\s*{CLAUSE_LEAD} ([^.]*)\.", re.IGNORECASE)
_NOT_CLAUSE = re.compile(rf"\s*{NOT_LEAD} ([^.]*)\.", re.IGNORECASE)


def split_heuristic_clauses(text: str) -> tuple[str, list[str], list[str]]:
    """(base text, use-when terms, not-for terms) of a description the heuristic may have
    extended; a description it never touched comes back whole with no terms."""
    terms: list[str] = []
    nots: list[str] = []
    for pattern, bucket in ((_CLAUSE, terms), (_NOT_CLAUSE, nots)):
        for match in pattern.finditer(text):
            bucket.extend(_terms(match.group(1)))
        text = pattern.sub("", text)
    return " ".join(text.split()), terms, nots


def _terms(body: str) -> list[str]:
    body = re.sub(r"\band\b", ",", body)
    return [t.strip() for t in body.split(",") if t.strip()]


class HeuristicProposer:
    """Offline, deterministic rewriter for the `local` backend (a heuristic, not a model).

    It keeps the description as written and maintains one added sentence, "Also use when a
    request mentions a, b and c.": each round it adds the words that missed train positives
    share and the description lacks (words the skill body uses first; words as frequent in train
    negatives as in the misses are never added), and drops
    earlier added words that now appear in false triggers more than in positives. With
    `not_for=True` it also lists words of false triggers in a "Not for requests about ..."
    sentence (off by default: an embedding router reads "not for X" as being about X). The
    same view always gives the same proposal.
    """

    name = "local:heuristic-rewriter"
    is_heuristic = True

    def __init__(self, *, max_terms: int = 4, max_total: int = 16, not_for: bool = False) -> None:
        self.max_terms = max_terms
        self.max_total = max_total
        self.not_for = not_for

    async def propose(self, view: TrainView, *, attempt: int = 0, feedback: str = "") -> Proposal:
        """A new description from the current one and its train failures, or None when the
        train failures give nothing new to add or drop."""
        current = view.current
        base, terms, nots = split_heuristic_clauses(current.description)
        present = set(content_words(base)) | set(terms) | set(content_words(view.skill_name))
        positives = Counter(
            w for r in current.results if r.should_trigger for w in set(content_words(r.query))
        )
        negatives = Counter(
            w for r in current.results if not r.should_trigger for w in set(content_words(r.query))
        )
        false_words = Counter(
            w for r in current.false_triggers for w in set(content_words(r.query))
        )
        dropped_before = {
            w for a in view.earlier for w in split_heuristic_clauses(a.description)[1]
        } - set(terms)

        missed = Counter(w for r in current.missed for w in set(content_words(r.query)))
        body = set(content_words(view.skill_body))
        gain = [
            w
            for w, _ in sorted(
                missed.items(),
                key=lambda kv: (kv[0] not in body, -(kv[1] - negatives[kv[0]]), -kv[1], kv[0]),
            )
            if w not in present
            and w not in dropped_before
            and _worth_adding(missed[w], negatives[w])
        ][: self.max_terms]
        drop = [t for t in terms if false_words[t] > positives[t]]
        kept = [t for t in terms if t not in drop]
        new_terms = (kept + gain)[-self.max_total :]
        new_nots = list(nots)
        if self.not_for:
            avoid = [
                w
                for w, _ in sorted(false_words.items(), key=lambda kv: (-kv[1], kv[0]))
                if w not in positives and w not in present and w not in nots
            ]
            new_nots = (nots + avoid[:3])[-8:]
        if new_terms == terms and new_nots == nots:
            return Proposal(description=None, note="heuristic: no train failure gives a new term")
        text = _compose(base, new_terms, new_nots)
        while len(text) > MAX_DESCRIPTION_CHARS and (new_terms or new_nots):
            if new_nots:
                new_nots = new_nots[1:]
            else:
                new_terms = new_terms[1:]
            text = _compose(base, new_terms, new_nots)
        return Proposal(
            description=text,
            note=f"heuristic (not a model): +{len(gain)} term(s) from missed positives"
            f"{', -' + str(len(drop)) + ' term(s) seen in false triggers' if drop else ''}",
        )


def _worth_adding(in_missed: int, in_negatives: int) -> bool:
    """A word is worth adding when missed positives use it more often than negatives do."""
    return in_missed > in_negatives


def _compose(base: str, terms: list[str], nots: list[str]) -> str:
    parts = [base.rstrip()]
    if parts[0] and parts[0][-1] not in ".!?":
        parts[0] += "."
    if terms:
        parts.append(f"{CLAUSE_LEAD} {_join(terms)}.")
    if nots:
        parts.append(f"{NOT_LEAD} {_join(nots)}.")
    return " ".join(parts).replace("<", "").replace(">", "")


def _join(terms: list[str]) -> str:
    if len(terms) == 1:
        return terms[0]
    return ", ".join(terms[:-1]) + f" and {terms[-1]}"
