"""What the improver is allowed to see, and the prompt built from it.

The improver sees TRAIN queries only. `TrainView` is the single object a proposer receives;
it is built by the loop from train results alone, so selection and test queries cannot leak
into a prompt by construction (and a test inspects every prompt sent to make sure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_DESCRIPTION_CHARS = 1024
_TAG = re.compile(r"<new_description>\s*(.*?)\s*</new_description>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class QueryFeedback:
    """One train query's result under one description."""

    query: str
    should_trigger: bool
    trigger_rate: float
    passed: bool
    runs: int
    fired_instead: tuple[str, ...] = ()


@dataclass(frozen=True)
class Attempt:
    """An earlier (or the current) description with its train results."""

    round: int
    description: str
    train_passed: int
    train_total: int
    results: tuple[QueryFeedback, ...]

    @property
    def missed(self) -> list[QueryFeedback]:
        """Positives that did not trigger often enough."""
        return [r for r in self.results if r.should_trigger and not r.passed]

    @property
    def false_triggers(self) -> list[QueryFeedback]:
        """Negatives that triggered too often."""
        return [r for r in self.results if not r.should_trigger and not r.passed]


@dataclass(frozen=True)
class TrainView:
    """Everything a proposer may know: the skill, and train-split results only."""

    skill_name: str
    skill_body: str
    current: Attempt
    earlier: tuple[Attempt, ...] = field(default_factory=tuple)

    def all_text(self) -> str:
        """Every string in the view (used by the leak test)."""
        parts = [self.skill_name, self.skill_body]
        for attempt in (*self.earlier, self.current):
            parts.append(attempt.description)
            parts.extend(r.query for r in attempt.results)
        return "\n".join(parts)


def _format_results(attempt: Attempt) -> str:
    lines = []
    for r in attempt.results:
        verdict = "PASS" if r.passed else "FAIL"
        want = "should trigger" if r.should_trigger else "should NOT trigger"
        extra = f"; fired instead: {', '.join(r.fired_instead)}" if r.fired_instead else ""
        lines.append(f'  [{verdict}] ({want}, rate {r.trigger_rate:.2f}){extra}: "{r.query}"')
    return "\n".join(lines)


def build_improver_prompt(view: TrainView) -> str:
    """The improver prompt: current description, its train failures, earlier attempts, the skill."""
    current = view.current
    missed = "\n".join(
        f'  - "{r.query}" (triggered {r.trigger_rate:.0%} of runs)' for r in current.missed
    )
    false = "\n".join(
        f'  - "{r.query}" (triggered {r.trigger_rate:.0%} of runs)' for r in current.false_triggers
    )
    history = "\n\n".join(
        f"Attempt {a.round} ({a.train_passed}/{a.train_total} train queries passed):\n"
        f"{a.description}\nPer-query results:\n{_format_results(a)}"
        for a in view.earlier
    )
    return f"""You are improving the description of an Agent Skill called "{view.skill_name}".
Claude sees only a skill's name and description when deciding whether to use it, so the
description alone decides whether the skill triggers.

Current description ({current.train_passed}/{current.train_total} train queries passed):
<current_description>
{current.description}
</current_description>

Queries that SHOULD have triggered the skill but did not:
{missed or "  (none)"}

Queries that should NOT have triggered the skill but did:
{false or "  (none)"}

Earlier attempts and their results:
{history or "  (none)"}

The full SKILL.md body, for context on what the skill really does:
<skill_body>
{view.skill_body}
</skill_body>

Write a better description. Generalise from the failures to the kinds of requests the skill
serves; do not list the example queries verbatim (they are a sample, and copying them overfits).
Say what the skill does and when to use it ("Use when ..."), and where useful when not to.
Keep it between 100 and 200 words, at most {MAX_DESCRIPTION_CHARS} characters, with no angle
brackets. Answer with the new description inside <new_description></new_description> tags."""


def build_shortening_prompt(description: str) -> str:
    """Ask for a shorter version of a description that broke the length limit."""
    return (
        f"This skill description is {len(description)} characters; the limit is "
        f"{MAX_DESCRIPTION_CHARS}. Rewrite it to at most {MAX_DESCRIPTION_CHARS - 100} characters, "
        "keeping its trigger language and meaning, with no angle brackets. Answer inside "
        f"<new_description></new_description> tags.\n\n{description}"
    )


def parse_new_description(reply: str) -> str | None:
    """The text inside the last `<new_description>` tags, whitespace-normalised, or None."""
    matches = _TAG.findall(reply)
    if not matches:
        return None
    text = " ".join(matches[-1].split())
    return text or None
