"""Old home of `backends.skill_install` (shared by every agent, so it moved to the backends'
ground); kept so that code importing it from here keeps working."""

from skillbench.backends.skill_install import (
    CLAUDE_SKILLS,
    CliSkill,
    cli_name,
    cli_skill,
    cli_skills,
    install_skill,
    install_skills,
    resolve_call,
    skill_md_bytes,
    usable_folder_name,
)

__all__ = [
    "CLAUDE_SKILLS",
    "CliSkill",
    "cli_name",
    "cli_skill",
    "cli_skills",
    "install_skill",
    "install_skills",
    "resolve_call",
    "skill_md_bytes",
    "usable_folder_name",
]
