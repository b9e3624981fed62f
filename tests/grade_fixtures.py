"""Build small graded-workspace fixtures on disk for the grader and benchmark tests."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.backends.base import CallUsage, TextRequest, TextResponse
from skillbench.behavior.records import RunRecord, write_run_record
from skillbench.behavior.workspace import Workspace

SKILL_MD = """---
name: demo-skill
description: Writes a short summary file. Use when the user asks for a summary.
---

# Demo

Write `summary.md` with a title line.
"""

EVALS: dict[str, Any] = {
    "version": "1.0",
    "cases": [
        {
            "id": "case-one",
            "prompt": "Summarise the notes into summary.md",
            "expectations": [
                {
                    "criterion": "file",
                    "description": "summary.md is created",
                    "required": True,
                    "check": {"type": "file_exists", "target": "outputs/summary.md"},
                },
                {
                    "criterion": "title",
                    "description": "summary.md starts with a Markdown title",
                    "required": True,
                    "check": {"type": "regex", "target": "outputs/summary.md", "pattern": "^# .+"},
                },
                {
                    "criterion": "tone",
                    "description": "The summary is written in a neutral tone",
                    "required": False,
                },
            ],
        },
        {
            "id": "case-two",
            "prompt": "Reply with the word done",
            "expectations": [
                {
                    "criterion": "done",
                    "description": "The reply says done",
                    "required": True,
                    "check": {"type": "contains", "target": "final_text", "value": "done"},
                }
            ],
        },
    ],
}


@dataclass
class RunSpec:
    """One run folder to create."""

    config: str
    case_id: str
    run: int
    outputs: dict[str, str] = field(default_factory=dict)
    final_text: str = ""
    transcript: str = "## User\nplease\n\n## Assistant\nI wrote the file.\n"
    tokens: int = 1000
    seconds: float = 10.0


def make_skill(root: Path, evals: dict[str, Any] | None = None) -> Path:
    """A skill folder with SKILL.md and evals/evals.json."""
    skill = root / "demo-skill"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (skill / "evals" / "evals.json").write_text(json.dumps(evals or EVALS), encoding="utf-8")
    return skill


def make_run(space: Workspace, spec: RunSpec) -> Path:
    """Write run.json, transcript.md, outputs/, metrics.json and timing.json of one run."""
    folder = space.run_dir(spec.config, spec.case_id, spec.run)
    (folder / "outputs").mkdir(parents=True)
    for name, text in spec.outputs.items():
        target = folder / "outputs" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (folder / "transcript.md").write_text(spec.transcript, encoding="utf-8")
    metrics = {
        "tool_calls": {"Write": len(spec.outputs)},
        "total_tool_calls": len(spec.outputs),
        "total_steps": 2,
        "files_created": sorted(spec.outputs),
        "errors_encountered": 0,
        "output_chars": sum(len(t) for t in spec.outputs.values()),
        "transcript_chars": len(spec.transcript),
    }
    (folder / "outputs" / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    timing = {
        "total_tokens": spec.tokens,
        "duration_ms": int(spec.seconds * 1000),
        "total_duration_seconds": spec.seconds,
    }
    (folder / "timing.json").write_text(json.dumps(timing), encoding="utf-8")
    record = RunRecord(
        case_id=spec.case_id,
        config=spec.config,
        version=0 if spec.config == "with_skill" else None,
        run_number=spec.run,
        prompt="p",
        backend="test",
        model="fake-model",
        status="ok",
        final_text=spec.final_text,
        started_at="2026-01-01T00:00:00Z",
        duration_s=spec.seconds,
    )
    write_run_record(record, folder / "run.json")
    return folder


CHECKED_AND_UNGRADED: dict[str, Any] = {
    "cases": [
        {
            "id": "only",
            "prompt": "p",
            "expectations": [
                {
                    "criterion": "a",
                    "description": "file made",
                    "required": True,
                    "check": {"type": "file_exists", "target": "outputs/x.md"},
                },
                {"criterion": "b", "description": "style is good", "required": True},
            ],
        }
    ]
}
"""One case: a required machine check (outputs/x.md exists) and a required criterion only a model
can grade, so the local backend leaves it ungraded."""

GOOD = {"summary.md": "# Notes\nAll fine.\n"}
UNTITLED = {"summary.md": "notes without a title\n"}


def standard_workspace(root: Path) -> tuple[Path, Workspace]:
    """with_skill passes more than baseline: case-one 2 runs each, case-two 2 runs each."""
    skill = make_skill(root)
    space = Workspace.for_skill(skill)
    specs = [
        RunSpec("with_skill", "case-one", 1, GOOD),
        RunSpec("with_skill", "case-one", 2, GOOD),
        RunSpec("baseline", "case-one", 1, UNTITLED, seconds=5.0, tokens=600),
        RunSpec("baseline", "case-one", 2, {}, seconds=5.0, tokens=600),
        RunSpec("with_skill", "case-two", 1, final_text="done"),
        RunSpec("with_skill", "case-two", 2, final_text="done"),
        RunSpec("baseline", "case-two", 1, final_text="done", seconds=5.0, tokens=600),
        RunSpec("baseline", "case-two", 2, final_text="nope", seconds=5.0, tokens=600),
    ]
    for spec in specs:
        make_run(space, spec)
    return skill, space


def grader_reply(
    ids: list[int], *, quote: str = "I wrote the file.", score: int = 4
) -> dict[str, Any]:
    """A canned GraderReply judging `ids`."""
    dim = {"score": 4, "notes": "ok"}
    return {
        "judgements": [
            {"id": i, "score": score, "quote": quote, "reasoning": "the transcript shows it"}
            for i in ids
        ],
        "dimensions": {
            "task_completion": dim,
            "output_structure": dim,
            "error_handling": {"score": 3, "notes": "no errors to handle"},
            "efficiency": {"score": 5, "notes": "two steps"},
        },
        "summary": "Did the task.",
        "claims": [
            {
                "claim": "wrote the file",
                "type": "process",
                "verified": True,
                "evidence": "summary.md",
            }
        ],
        "user_notes": {"uncertainties": ["tone unclear"], "needs_review": [], "workarounds": []},
        "eval_feedback": {
            "suggestions": [{"assertion": "tone", "reason": "vague"}],
            "overall": "ok",
        },
        "weak_assertions": ["tone"],
        "missing_coverage": ["length"],
        "conventions": [],
    }


def asked_ids(prompt: str) -> list[int]:
    """The expectation numbers a grader prompt asks about."""
    section = prompt.split("## Expectations to grade", 1)[1].split("\n## ", 1)[0]
    return [int(m) for m in re.findall(r"^(\d+)\. ", section, re.MULTILINE)]


def auto_reply(request: TextRequest) -> str:
    """A valid reply judging exactly what the prompt asks."""
    return json.dumps(grader_reply(asked_ids(request.prompt)))


class FakeTextModel:
    """A TextModel answering with canned texts in order (the last one repeats), or with
    `replies(request)` when a function is given."""

    name = "fake"
    model: str | None = "fake-grader"

    def __init__(self, replies: list[str] | Callable[[TextRequest], str]) -> None:
        self.replies = replies
        self.requests: list[TextRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        self.requests.append(request)
        if callable(self.replies):
            return TextResponse(text=self.replies(request))
        index = min(len(self.requests) - 1, len(self.replies) - 1)
        return TextResponse(text=self.replies[index], usage=CallUsage(input_tokens=1))

    async def aclose(self) -> None:
        return None
