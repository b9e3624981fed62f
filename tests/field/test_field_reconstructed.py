"""The pieces the Gemini CLI and opencode importers share to rebuild a turn's `offered` and
read its tool calls (`field/reconstructed.py`)."""

from __future__ import annotations

from pathlib import Path

from skillbench.field.reconstructed import ModelCalls, folder_skills, reconstructed_fields
from skillbench.field.records import Invocation, Offered


def test_skill_folders_are_listed_root_by_root_each_name_once(tmp_path: Path) -> None:
    project, user = tmp_path / "project", tmp_path / "user"
    for root, name in [(project, "zeta"), (project, "alpha"), (user, "alpha"), (user, "beta")]:
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text("---\nname: x\n---\n")
    (user / "notes").mkdir()  # no SKILL.md: not a skill
    assert folder_skills([project, tmp_path / "missing", user]) == ["alpha", "zeta", "beta"]


def test_a_turns_calls_keep_the_first_tool_and_each_invoked_skill_once() -> None:
    made = ModelCalls()
    for name, skill in [("shell", None), ("skill", "pdf"), ("skill", "csv"), ("skill", "pdf")]:
        made.add(name, skill)
    fields = reconstructed_fields(["pdf", "csv"], made)
    assert (fields["first_tool"], fields["first_skill"]) == ("shell", None)
    assert fields["invoked"] == [
        Invocation(skill="pdf", by="model"),
        Invocation(skill="csv", by="model"),
    ]
    assert fields["offered"] == [
        Offered(skill="pdf", listing="full"),
        Offered(skill="csv", listing="full"),
    ]
    assert fields["offered_source"] == "reconstructed"
