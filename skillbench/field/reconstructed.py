"""What the importers of agents whose sessions do not record the listing share (Gemini CLI,
opencode): the skills the agent would list, found in its skill folders (`folder_skills`), and a
record's `offered` rebuilt from them with the turn's tool calls (`ModelCalls`: the first tool,
the skills the model invoked) as `reconstructed_fields`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypedDict

from skillbench.field.records import Invocation, Offered

__all__ = ["ModelCalls", "ReconstructedFields", "folder_skills", "reconstructed_fields"]


def folder_skills(roots: Iterable[Path]) -> list[str]:
    """The skill folders (holding a SKILL.md) under `roots`, in the order of the roots, by
    name: each name once (the first root holding it wins)."""
    found: list[str] = []
    for root in roots:
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir()):
            if (folder / "SKILL.md").is_file() and folder.name not in found:
                found.append(folder.name)
    return found


@dataclass
class ModelCalls:
    """A turn's tool calls as its record keeps them: the first one (`first_tool`, the skill it
    names: `first_skill`) and the skills the model invoked, each once, in order."""

    invoked: list[Invocation] = field(default_factory=list)
    first_tool: str | None = None
    first_skill: str | None = None

    def add(self, name: str, skill: str | None) -> None:
        """One tool call: the tool `name`, the skill it invokes (None: none)."""
        if self.first_tool is None:
            self.first_tool, self.first_skill = name, skill
        if skill and all(i.skill != skill for i in self.invoked):
            self.invoked.append(Invocation(skill=skill, by="model"))


class ReconstructedFields(TypedDict):
    """A record's listing and first-move fields (`reconstructed_fields`)."""

    offered: list[Offered]
    offered_source: Literal["reconstructed"]
    invoked: list[Invocation]
    first_tool: str | None
    first_skill: str | None


def reconstructed_fields(offered: Sequence[str], calls: ModelCalls) -> ReconstructedFields:
    """A record's `offered`, rebuilt from the skills in the agent's folders (each as listed in
    full) and marked `reconstructed`, and its tool-call fields from `calls`."""
    return {
        "offered": [Offered(skill=s, listing="full") for s in offered],
        "offered_source": "reconstructed",
        "invoked": calls.invoked,
        "first_tool": calls.first_tool,
        "first_skill": calls.first_skill,
    }
