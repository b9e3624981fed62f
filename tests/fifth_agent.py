"""A fifth agent, as a plugin would ship it: one module holding its judge, its frontmatter
checks, its prices and its `BackendSpec` (tests/backends/test_fifth_agent.py registers the spec
in-process, as the plugin's `skillbench.backends` entry point would). Nothing outside this module
names it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skillbench.backends.base import CallUsage, TriggerOutcome, TriggerRequest
from skillbench.backends.spec import (
    MESSAGES_API,
    BackendSpec,
    SkillCheck,
    SkillCheckResult,
    SkillKeys,
    SkillLimits,
    cli_install_hint,
)
from skillbench.field.importers import ImportOptions
from skillbench.field.reader import FileState, JsonLines
from skillbench.field.records import (
    FieldRecord,
    ImportCounts,
    Invocation,
    Offered,
    prompt_fields,
    short_hash,
)
from skillbench.schemas.prices import ModelPrice, PriceTable, cost

NAME = "quill"
MODEL = "quill-large-1"
PACKAGE = "quill-cli@1.0.0"
TOKENS_PER_CALL = 100_000
"""Input tokens each call reports: $0.20 a call at the declared $2 per million."""

PRICES = PriceTable(
    models={MODEL: ModelPrice(input=2.0, output=8.0, cache_write_5m=2.5, cache_read=0.2)}
)
"""Quill's own prices (the shipped table has none)."""


def _mood(frontmatter: Mapping[str, Any]) -> SkillCheckResult:
    value = frontmatter.get("mood")
    if value is None or value in ("calm", "loud"):
        return None
    return f"mood must be calm or loud, found {value!r} (Quill 1.0 ignores it)"


CHECKS = (SkillCheck("QUILL_MOOD", "error", _mood, "mood is not calm or loud"),)


class QuillJudge:
    """Always fires; prices each call from the price table in use, as the built-in judges do."""

    name = NAME
    is_proxy = False

    def __init__(self, model: str | None = None, **options: Any) -> None:
        self.model = model or MODEL

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    def versions(self) -> dict[str, str]:
        return {"quill": "1.0.0"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        usage = CallUsage(input_tokens=TOKENS_PER_CALL, output_tokens=0)
        usage.cost_usd = cost(self.model, usage) or 0.0
        return TriggerOutcome(True, fired=request.target.name, usage=usage)

    async def aclose(self) -> None:
        pass


class QuillImporter:
    """Quill's session files (`*.quill.jsonl`, one turn a line: session, turn, prompt, the skills
    it offered, the skill it used): what `field import quill` reads."""

    agent = NAME

    def default_root(self) -> Path:
        """Where Quill keeps sessions."""
        return Path.home() / ".quill" / "sessions"

    def session_files(self, root: Path) -> Iterator[Path]:
        """Every session file, sorted."""
        yield from sorted(root.rglob("*.quill.jsonl"))

    def read(
        self, path: Path, state: FileState, options: ImportOptions, counts: ImportCounts
    ) -> Iterator[FieldRecord]:
        """Each line's turn, from where the last import stopped."""
        lines = JsonLines(path, state.offset, counts)
        for index, (_, line) in enumerate(lines):
            skill = line.get("skill")
            counts.turns += 1
            yield FieldRecord(
                agent=NAME,
                agent_version="1.0.0",
                session=short_hash(str(line["session"])),
                project=short_hash(str(path.parent)),
                turn=str(line["turn"]),
                index=index,
                time=None,
                **prompt_fields(str(line["prompt"]), with_text=options.with_text),
                offered=[Offered(skill=name, listing="full") for name in line["offered"]],
                offered_source="transcript",
                invoked=[Invocation(skill=skill, by="model")] if skill else [],
                first_tool="Skill" if skill else None,
                first_skill=skill,
            )
        state.offset = lines.position


IMPORTER = QuillImporter()


SPEC = BackendSpec(
    name=NAME,
    summary="Quill 1.0, a fifth agent (a test plugin)",
    judge=QuillJudge,
    estimator=MESSAGES_API,
    workers_option=None,
    agent=NAME,
    cli="quill",
    cli_package=PACKAGE,
    cli_make_target="agents",
    cli_install=cli_install_hint(PACKAGE, "quill", "SKILLBENCH_QUILL_BIN", "agents"),
    skill_keys=SkillKeys("Quill", "1.0.0", ("mood",), checks="fifth_agent:CHECKS"),
    skill_limits=SkillLimits("Quill", 20, 200, True, True, enforced=True),
    prices=PRICES,
    transcripts="fifth_agent:IMPORTER",
)
