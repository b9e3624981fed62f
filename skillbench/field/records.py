"""The field record: one JSON object per user turn of a real session (`FIELD.jsonl`).

Privacy by default: a prompt is kept as its SHA-256 and its length; its text only when imported
with `--with-text`, and then passed through the redactor. Session and project are hashes.
"""

from __future__ import annotations

import hashlib
from typing import ClassVar, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from skillbench.schemas.base import Document

Listing = Literal["full", "name-only"]
"""How a skill was offered: with its description, or by bare name (the description shed)."""
InvokedBy = Literal["model", "user-slash", "nested"]
"""Who invoked a skill: the model on its own, the user typing `/skill`, or another skill."""
OfferedSource = Literal["transcript", "reconstructed"]
"""Where `offered` comes from: the listing the session recorded, or rebuilt from skill folders."""


def short_hash(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of `text` (sessions and projects)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def text_hash(text: str) -> str:
    """The full SHA-256 of a prompt's text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class PromptFields(TypedDict):
    """A record's prompt fields (`prompt_fields`)."""

    prompt_sha256: str
    prompt_chars: int
    text: str | None


def prompt_fields(text: str, *, with_text: bool) -> PromptFields:
    """A record's prompt fields: its hash and length always, its text (redacted) only when
    asked (`--with-text`); the one privacy rule every importer follows."""
    from skillbench.redaction import redact

    return {
        "prompt_sha256": text_hash(text),
        "prompt_chars": len(text),
        "text": redact(text) if with_text else None,
    }


class Offered(BaseModel):
    """One skill in the listing the turn's model saw."""

    model_config = ConfigDict(frozen=True)

    skill: str
    listing: Listing
    description: str | None = Field(
        default=None,
        description="the description as listed, redacted (--with-text, a full listing the "
        "session recorded); left out of the file when None",
    )

    @model_serializer(mode="wrap")
    def _without_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        if data.get("description") is None:
            data.pop("description", None)
        return data


class Invocation(BaseModel):
    """One skill invoked during the turn, in order."""

    model_config = ConfigDict(frozen=True)

    skill: str
    by: InvokedBy


class Followed(BaseModel):
    """What came after the turn's first move."""

    attributed_turns: dict[str, int] = Field(
        default_factory=dict, description="assistant messages attributed to each skill"
    )
    slash_later: list[str] = Field(
        default_factory=list,
        description="skills offered here, not invoked, that the user slashed within "
        "`LATE_SLASH_TURNS` turns after this one (same session)",
    )


LATE_SLASH_TURNS = 3
"""How many turns after a miss a `/skill` of the same skill still counts as a late slash."""


class FieldRecord(Document):
    """One user turn of one real session."""

    omit_if_none: ClassVar[frozenset[str]] = frozenset({"text", "command", "entrypoint"})

    agent: str
    agent_version: str | None
    entrypoint: str | None = Field(
        default=None,
        description="how the agent ran, as it says (Claude Code: sdk-cli = print mode)",
    )
    session: str = Field(description="hash of the session id")
    project: str = Field(description="hash of the project folder")
    turn: str = Field(description="the agent's id of this turn (Claude Code: promptId)")
    index: int = Field(ge=0, description="position of the turn in its session, from 0")
    time: str | None = Field(description="the turn's timestamp as the agent wrote it")
    prompt_sha256: str
    prompt_chars: int = Field(ge=0)
    text: str | None = Field(default=None, description="the prompt, redacted (--with-text only)")
    command: str | None = Field(default=None, description="a slash command typed as the prompt")
    offered: list[Offered]
    offered_source: OfferedSource
    invoked: list[Invocation]
    first_tool: str | None = Field(description="the first tool the model called in the turn")
    first_skill: str | None = Field(description="the skill, when the first tool was the skill tool")
    followed: Followed = Field(default_factory=Followed)

    def offered_map(self) -> dict[str, Listing]:
        """Skill → how it was listed."""
        return {o.skill: o.listing for o in self.offered}

    def invoked_by(self, by: InvokedBy) -> list[str]:
        """The skills invoked this way, in order."""
        return [i.skill for i in self.invoked if i.by == by]


def fill_late_slashes(turns: list[FieldRecord]) -> None:
    """Set `followed.slash_later` of each turn of ONE session (in order) from the turns after it."""
    for i, turn in enumerate(turns):
        offered = turn.offered_map()
        mine = {inv.skill for inv in turn.invoked}
        later: list[str] = []
        for nxt in turns[i + 1 : i + 1 + LATE_SLASH_TURNS]:
            for skill in nxt.invoked_by("user-slash"):
                if skill in offered and skill not in mine and skill not in later:
                    later.append(skill)
        turn.followed.slash_later = later


class ImportCounts(BaseModel):
    """What one import read and what it skipped (printed and stored beside the output)."""

    files: int = 0
    files_unchanged: int = 0
    lines: int = 0
    bytes: int = 0
    malformed_lines: int = 0
    truncated_tails: int = 0
    turns: int = 0
    turns_before_since: int = 0
