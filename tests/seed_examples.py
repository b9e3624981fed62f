"""Extract every ```json example from the seed specifications (and upstream skill-creator).

`//` comments are stripped outside JSON strings only, so URLs and paths inside strings survive.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEEDS = Path("/work/shared/seeds")
SEED_FILES = {
    "001": "001_5f29d35bafa44acc.txt",
    "002": "002_ca23d6d8a2bdffbb.txt",
    "004": "004_0a93882f91f47b2c.txt",
}
_BLOCK = re.compile(r"```json\n(.*?)```", re.S)

# (kind, dialect) of each ```json block, in file order.
EXPECTED: dict[str, list[tuple[str, str]]] = {
    "001": [
        ("trigger-evals", "skill-creator-v3"),
        ("trigger-evals", "skill-creator-v3"),
        ("trigger-evals", "skill-creator-v3"),
        ("trigger-report", "skill-creator-v3"),
        ("improvement-history", "skill-creator-v3"),
        ("loop-summary", "skill-creator-v3"),
        ("behavior-grading", "skill-creator-v3"),
        ("validation", "skill-creator-v3"),
    ],
    "002": [
        ("evals", "writing-skills"),
        ("history", "writing-skills"),
        ("grading", "writing-skills"),
        ("comparison", "writing-skills"),
        ("analysis", "writing-skills"),
    ],
    "004": [
        ("evals", "skill-creator"),
        ("history", "skill-creator"),
        ("grading", "skill-creator"),
        ("metrics", "skill-creator"),
        ("timing", "skill-creator"),
    ],
}


def strip_comments(text: str) -> str:
    """Remove `// ...` to the end of the line, except inside JSON strings."""
    out: list[str] = []
    in_string = escaped = False
    index = 0
    while index < len(text):
        char = text[index]
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", index):
            while index < len(text) and text[index] != "\n":
                index += 1
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def json_blocks(text: str) -> list[str]:
    """The bodies of the ```json fences of a markdown text."""
    return _BLOCK.findall(text)


@dataclass(frozen=True)
class Example:
    """One example document and what it should be detected as."""

    name: str
    data: Any
    kind: str
    dialect: str


def _parse(seed: str, body: str) -> Any:
    cleaned = strip_comments(body)
    # Seed 001's Loop Summary writes `"best_iteration": { "...same fields as above..." }`, a
    # placeholder that is not JSON: we substitute the iteration object shown above it.
    if seed == "001" and '"...same fields as above..."' in cleaned:
        data_without = cleaned.replace('{ "...same fields as above..." }', "null")
        data = json.loads(data_without)
        data["best_iteration"] = dict(data["iterations"][0])
        return data
    return json.loads(cleaned)


def seed_examples() -> list[Example]:
    """Every example of the three seed files, parsed."""
    found: list[Example] = []
    for seed, file_name in SEED_FILES.items():
        blocks = json_blocks((SEEDS / file_name).read_text(encoding="utf-8"))
        expected = EXPECTED[seed]
        assert len(blocks) == len(expected), f"seed {seed}: {len(blocks)} json blocks"
        for index, (body, (kind, dialect)) in enumerate(zip(blocks, expected, strict=True)):
            data = _parse(seed, body)
            found.append(Example(f"{seed}-{index}-{kind}", data, kind, dialect))
    return found


# Upstream anthropics/skills skills/skill-creator/references/schemas.md (commit c9972af5),
# the parts the seed 004 file was cut before: full timing.json, benchmark, comparison, analysis.
UPSTREAM_SKILL_CREATOR: dict[str, Any] = {
    "timing": {
        "total_tokens": 84852,
        "duration_ms": 23332,
        "total_duration_seconds": 23.3,
        "executor_start": "2026-01-15T10:30:00Z",
        "executor_end": "2026-01-15T10:32:45Z",
        "executor_duration_seconds": 165.0,
        "grader_start": "2026-01-15T10:32:46Z",
        "grader_end": "2026-01-15T10:33:12Z",
        "grader_duration_seconds": 26.0,
    },
    "benchmark": {
        "metadata": {
            "skill_name": "pdf",
            "skill_path": "/path/to/pdf",
            "executor_model": "claude-sonnet-4-20250514",
            "analyzer_model": "most-capable-model",
            "timestamp": "2026-01-15T10:30:00Z",
            "evals_run": [1, 2, 3],
            "runs_per_configuration": 3,
        },
        "runs": [
            {
                "eval_id": 1,
                "eval_name": "Ocean",
                "configuration": "with_skill",
                "run_number": 1,
                "result": {
                    "pass_rate": 0.85,
                    "passed": 6,
                    "failed": 1,
                    "total": 7,
                    "time_seconds": 42.5,
                    "tokens": 3800,
                    "tool_calls": 18,
                    "errors": 0,
                },
                "expectations": [{"text": "...", "passed": True, "evidence": "..."}],
                "notes": [
                    "Used 2023 data, may be stale",
                    "Fell back to text overlay for non-fillable fields",
                ],
            }
        ],
        "run_summary": {
            "with_skill": {
                "pass_rate": {"mean": 0.85, "stddev": 0.05, "min": 0.80, "max": 0.90},
                "time_seconds": {"mean": 45.0, "stddev": 12.0, "min": 32.0, "max": 58.0},
                "tokens": {"mean": 3800, "stddev": 400, "min": 3200, "max": 4100},
            },
            "without_skill": {
                "pass_rate": {"mean": 0.35, "stddev": 0.08, "min": 0.28, "max": 0.45},
                "time_seconds": {"mean": 32.0, "stddev": 8.0, "min": 24.0, "max": 42.0},
                "tokens": {"mean": 2100, "stddev": 300, "min": 1800, "max": 2500},
            },
            "delta": {"pass_rate": "+0.50", "time_seconds": "+13.0", "tokens": "+1700"},
        },
        "notes": [
            "Assertion 'Output is a PDF file' passes 100% in both configurations - may not "
            "differentiate skill value",
            "Eval 3 shows high variance (50% ± 40%) - may be flaky or model-dependent",
        ],
    },
    "comparison": {
        "winner": "A",
        "reasoning": "Output A provides a complete solution with proper formatting and all "
        "required fields. Output B is missing the date field and has formatting inconsistencies.",
        "rubric": {
            "A": {
                "content": {"correctness": 5, "completeness": 5, "accuracy": 4},
                "structure": {"organization": 4, "formatting": 5, "usability": 4},
                "content_score": 4.7,
                "structure_score": 4.3,
                "overall_score": 9.0,
            },
            "B": {
                "content": {"correctness": 3, "completeness": 2, "accuracy": 3},
                "structure": {"organization": 3, "formatting": 2, "usability": 3},
                "content_score": 2.7,
                "structure_score": 2.7,
                "overall_score": 5.4,
            },
        },
        "output_quality": {
            "A": {
                "score": 9,
                "strengths": ["Complete solution", "Well-formatted", "All fields present"],
                "weaknesses": ["Minor style inconsistency in header"],
            },
            "B": {
                "score": 5,
                "strengths": ["Readable output", "Correct basic structure"],
                "weaknesses": ["Missing date field", "Formatting inconsistencies"],
            },
        },
        "expectation_results": {
            "A": {
                "passed": 4,
                "total": 5,
                "pass_rate": 0.80,
                "details": [{"text": "Output includes name", "passed": True}],
            },
            "B": {
                "passed": 3,
                "total": 5,
                "pass_rate": 0.60,
                "details": [{"text": "Output includes name", "passed": True}],
            },
        },
    },
    "analysis": {
        "comparison_summary": {
            "winner": "A",
            "winner_skill": "path/to/winner/skill",
            "loser_skill": "path/to/loser/skill",
            "comparator_reasoning": "Brief summary of why comparator chose winner",
        },
        "winner_strengths": [
            "Clear step-by-step instructions for handling multi-page documents",
            "Included validation script that caught formatting errors",
        ],
        "loser_weaknesses": [
            "Vague instruction 'process the document appropriately' led to inconsistent behavior",
            "No script for validation, agent had to improvise",
        ],
        "instruction_following": {
            "winner": {"score": 9, "issues": ["Minor: skipped optional logging step"]},
            "loser": {
                "score": 6,
                "issues": [
                    "Did not use the skill's formatting template",
                    "Invented own approach instead of following step 3",
                ],
            },
        },
        "improvement_suggestions": [
            {
                "priority": "high",
                "category": "instructions",
                "suggestion": "Replace 'process the document appropriately' with explicit steps",
                "expected_impact": "Would eliminate ambiguity that caused inconsistent behavior",
            }
        ],
        "transcript_insights": {
            "winner_execution_pattern": "Read skill -> Followed 5-step process -> Used validation",
            "loser_execution_pattern": "Read skill -> Unclear on approach -> Tried 3 methods",
        },
    },
}


def all_examples() -> list[Example]:
    """Seed examples plus the upstream skill-creator ones the seed file was cut before."""
    upstream = [
        Example(f"upstream-{kind}", data, kind, "skill-creator")
        for kind, data in UPSTREAM_SKILL_CREATOR.items()
    ]
    return seed_examples() + upstream
