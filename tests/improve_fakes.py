"""Deterministic fakes for the improvement loop: a keyword judge and a recording text model."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from skillbench.backends.base import (
    CallUsage,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
)
from skillbench.trigger.evalset import EvalQuery


class KeywordJudge:
    """Fires the target when the query's LAST word appears in its description (no randomness):
    a description improves exactly by gaining the words of the queries it should catch."""

    name = "keyword"
    model: str | None = "kw-1"
    is_proxy = False

    def __init__(self) -> None:
        self.requests: list[TriggerRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    def versions(self) -> dict[str, str]:
        return {"keyword": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.requests.append(request)
        key = request.query.split()[-1].lower()
        words = {w.strip(".,").lower() for w in request.target.description.split()}
        fired = key in words
        return TriggerOutcome(
            fired, fired=request.target.name if fired else None, usage=CallUsage(1, 1)
        )

    async def aclose(self) -> None:
        return None


Reply = Callable[[TextRequest], str]


class RecordingTextModel:
    """Records every request; answers with `reply(request)`."""

    name = "recording"
    model: str | None = "rec-1"

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[TextRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        self.requests.append(request)
        return TextResponse(text=self.reply(request), usage=CallUsage(5, 5))

    async def aclose(self) -> None:
        return None


BASE = "Tidies messy exports. Use when a user hands over a file to clean"


def sample_queries() -> list[EvalQuery]:
    """10 positives (last word a distinct token) and 10 negatives, with families."""
    positives = [
        EvalQuery(f"please sort out the {w}", True, f"fam{i % 3}")
        for i, w in enumerate(
            [
                "clean",
                "alpha",
                "bravo",
                "charlie",
                "delta",
                "echo",
                "foxtrot",
                "golf",
                "hotel",
                "india",
            ]
        )
    ]
    negatives = [
        EvalQuery(f"unrelated request about {w}", False, f"neg{i % 2}")
        for i, w in enumerate(
            [
                "weather",
                "poems",
                "taxes",
                "recipes",
                "football",
                "music",
                "travel",
                "gardens",
                "movies",
                "jokes",
            ]
        )
    ]
    return positives + negatives


def tagged(text: str) -> str:
    return f"Here you go.\n<new_description>{text}</new_description>"


MISSED = re.compile(r'- "please sort out the (\w+)"')


def learner(request: TextRequest) -> str:
    """A fake improver that adds the last word of every missed query listed in the prompt."""
    section = request.prompt.split("Queries that SHOULD have triggered")[1].split("Queries that")[0]
    current = request.prompt.split("<current_description>\n")[1].split("\n</current_description>")[
        0
    ]
    words = MISSED.findall(section)
    return tagged(f"{current} {' '.join(words)}." if words else current)
