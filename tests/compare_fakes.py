"""A tiny two-version workspace on disk and fake comparator judges (no network)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from skillbench.backends.base import CallUsage, TextRequest, TextResponse
from skillbench.behavior.records import RunRecord, write_run_record
from skillbench.behavior.workspace import Workspace, init_workspace, snapshot
from skillbench.io import write_json

GOOD = "GOOD-OUTPUT"
BAD = "weak output"

EVALS: dict[str, Any] = {
    "version": "1.0",
    "cases": [
        {
            "id": f"case-{n}",
            "prompt": f"Write the release note number {n}.",
            "expectations": [
                {
                    "criterion": "has-marker",
                    "description": "the reply contains the GOOD-OUTPUT marker",
                    "required": True,
                    "check": {"type": "contains", "target": "final_text", "value": GOOD},
                },
                {
                    "criterion": "writes-file",
                    "description": "a notes.md file is created",
                    "required": False,
                    "check": {"type": "file_exists", "target": "outputs/notes.md"},
                },
                {
                    "criterion": "tone",
                    "description": "the tone is friendly",
                    "required": False,
                },
            ],
        }
        for n in (1, 2, 3)
    ],
}

SKILL_MD = """---
name: release-notes
description: Writes release notes. Use when the user asks for release notes.
---

# Release notes

Write short release notes.
"""


def _write_run(space: Workspace, config: str, version: int | None, case: str, k: int) -> None:
    good = config == "v1"
    run_dir = space.run_dir(config, case, k)
    (run_dir / "outputs").mkdir(parents=True, exist_ok=True)
    text = f"{GOOD} for {case}: three bullet points." if good else f"{BAD} for {case}."
    record = RunRecord(
        case_id=case,
        config=config,
        version=version,
        run_number=k,
        prompt="p",
        backend="local",
        model=None,
        status="ok",
        final_text=text,
        started_at="2026-01-01T00:00:00Z",
        duration_s=1.0,
        is_sample=True,
    )
    write_run_record(record, run_dir / "run.json")
    (run_dir / "transcript.md").write_text(
        f"# Transcript\nuser: write it\nassistant: {text}\n(skill at {config}/skill)\n",
        encoding="utf-8",
    )
    if good:
        (run_dir / "outputs" / "notes.md").write_text(f"- {case}\n", encoding="utf-8")
    write_json(run_dir / "outputs" / "metrics.json", {"tool_calls": {}, "total_tool_calls": 0})


def make_workspace(root: Path, *, runs: int = 2, dialect: str = "writing-skills") -> Path:
    """A skill with v0 (weak runs) and v1 (good runs) and evals with checks; returns the skill."""
    skill = root / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (skill / "evals").mkdir()
    write_json(skill / "evals" / "evals.json", EVALS)
    init_workspace(skill, dialect=dialect)
    (skill / "SKILL.md").write_text(SKILL_MD + "\nAlways include the marker.\n", encoding="utf-8")
    snapshot(skill)
    space = Workspace.for_skill(skill)
    for case in ("case-1", "case-2", "case-3"):
        for k in range(1, runs + 1):
            _write_run(space, "v0", 0, case, k)
            _write_run(space, "v1", 1, case, k)
    return skill


_SECTION = re.compile(r"## Output (A|B)\n(.*?)(?=\n## Output |\n# Your judgement)", re.DOTALL)


def sections(prompt: str) -> dict[str, str]:
    """The text shown under "Output A" and "Output B" in a comparator prompt."""
    return {m[1]: m[2] for m in _SECTION.finditer(prompt)}


def ws_reply(winner: str, reasoning: str) -> dict[str, Any]:
    pair = {"A": 7, "B": 4} if winner == "A" else {"A": 4, "B": 7}
    return {
        "winner": winner,
        "reasoning": reasoning,
        "scores": {
            d: dict(pair)
            for d in (
                "description_quality",
                "convention_compliance",
                "type_specific_quality",
                "token_efficiency",
                "content_value",
            )
        },
    }


def sc_reply(winner: str, reasoning: str) -> dict[str, Any]:
    side = {
        "content": [{"criterion": "correctness", "score": 4}, {"criterion": "scope", "score": 3}],
        "structure": [{"criterion": "organization", "score": 4}],
        "overall_score": 8,
    }
    quality = {"score": 8, "strengths": ["clear"], "weaknesses": []}
    return {
        "winner": winner,
        "reasoning": reasoning,
        "rubric": {"A": side, "B": side},
        "output_quality": {"A": quality, "B": quality},
    }


class FakeJudge:
    """A TextModel that answers comparator prompts with canned JSON.

    `policy="content"` picks the output showing the GOOD marker (a consistent judge);
    `policy="always-a"` always answers "A" (a pure position-biased judge). Analyzer prompts get a
    canned analysis. Every prompt is kept in `prompts`.
    """

    name = "fake"

    def __init__(self, policy: str = "content", dialect: str = "writing-skills") -> None:
        self.policy = policy
        self.dialect = dialect
        self.model: str | None = "fake-judge-1"
        self.prompts: list[TextRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "policy": self.policy}

    async def complete(self, request: TextRequest) -> TextResponse:
        self.prompts.append(request)
        if request.purpose == "analyze":
            return TextResponse(text=json.dumps(self._analysis()), usage=CallUsage(1, 1))
        if self.policy == "always-a":
            winner = "A"
        else:
            shown = sections(request.prompt)
            winner = "A" if GOOD in shown.get("A", "") else "B"
        make = ws_reply if self.dialect == "writing-skills" else sc_reply
        reply = make(winner, f"Output {winner} is better.")
        return TextResponse(text="```json\n" + json.dumps(reply) + "\n```", usage=CallUsage(1, 1))

    def _analysis(self) -> dict[str, Any]:
        if self.dialect == "writing-skills":
            return {
                "winner_version": "WRONG",
                "loser_version": "WRONG",
                "strengths": ["includes the marker </script><b>x</b>"],
                "weaknesses": ["no marker"],
                "suggestions": [
                    {
                        "area": "body",
                        "before": "Write short release notes.",
                        "after": "Write short release notes and include the marker.",
                        "reasoning": "the expectation asks for it",
                    }
                ],
            }
        return {
            "comparator_summary": "the winner includes the marker",
            "winner_strengths": ["includes the marker"],
            "loser_weaknesses": ["no marker"],
            "instruction_following": {
                "winner": {"score": 9, "issues": []},
                "loser": {"score": 4, "issues": ["ignored the marker"]},
            },
            "improvement_suggestions": [
                {
                    "priority": "high",
                    "category": "instructions",
                    "suggestion": "ask for the marker",
                    "expected_impact": "passes the required expectation",
                }
            ],
            "transcript_insights": {
                "winner_execution_pattern": "direct",
                "loser_execution_pattern": "vague",
            },
        }

    async def aclose(self) -> None:
        return None
