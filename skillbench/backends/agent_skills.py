"""Which installed skill a model's call names, for agents whose skill calls name a skill by its
folder name or its frontmatter name (Gemini's `activate_skill`, a Codex read of `<folder>/SKILL.md`)."""

from __future__ import annotations

from collections.abc import Sequence

from skillbench.backends.replay.move import OTHER_SKILL, TARGET
from skillbench.backends.skill_install import CliSkill


def resolve_skill(called: str, target: str, skills: Sequence[CliSkill]) -> tuple[str, str]:
    """(`target` | `other-skill`, the skill's name) for a call naming `called`: the target when
    `called` is the target's name, folder name or frontmatter name; another installed skill by
    its frontmatter name when it has one; else `called` itself (a built-in skill)."""
    if called == target:
        return TARGET, target
    for skill in skills:
        if called in (skill.name, skill.display_name):
            if skill.target:
                return TARGET, target
            return OTHER_SKILL, skill.display_name or skill.name
    return OTHER_SKILL, called
