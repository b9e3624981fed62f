"""The toy backend's trigger judge, text model and behavior executor: small, deterministic,
offline implementations of skillbench's `TriggerJudge`, `TextModel` and `Executor`."""

from __future__ import annotations

import re
import time
from typing import Any

from skillbench.backends.base import (
    CallUsage,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
)
from skillbench.behavior.executors import RunTask
from skillbench.behavior.run_files import (
    ExecutionResult,
    make_timing,
    output_chars,
    render_conversation,
)
from skillbench.schemas.skill_creator import SCMetrics
from skillbench.timestamps import utc_timestamp

MODEL = "toy-1"


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)}


def _tokens(text: str) -> int:
    return len(text.split())


class ToyJudge:
    """Fires the skill whose description holds the query's last word (the target first)."""

    name = "toy"
    is_proxy = True

    def __init__(self, model: str | None = None, *, max_concurrency: int | None = None) -> None:
        self.model = model or MODEL
        self.max_concurrency = max_concurrency
        self.calls = 0

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "router": "last-word"}

    def versions(self) -> dict[str, str]:
        return {"toy": "0.1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        self.calls += 1
        last = (request.query.split() or [""])[-1].strip(".,!?").lower()
        usage = CallUsage(_tokens(request.query), 1)
        for entry in (request.target, *request.catalog):
            if last and last in _words(entry.description):
                fired = entry.name
                return TriggerOutcome(fired == request.target.name, fired=fired, usage=usage)
        return TriggerOutcome(False, usage=usage)

    async def aclose(self) -> None:
        return None


MISSED = re.compile(r'^\s*- "(.*?)"', re.MULTILINE)


class ToyTextModel:
    """Proposes the current description plus the last word of every query it missed; any other
    prompt is answered by echoing its first line."""

    name = "toy"

    def __init__(self, model: str | None = None, **_: Any) -> None:
        self.model = model or MODEL

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        text = self._reply(request.prompt)
        return TextResponse(text=text, usage=CallUsage(_tokens(request.prompt), _tokens(text)))

    @staticmethod
    def _reply(prompt: str) -> str:
        current = re.search(r"<current_description>\n(.*?)\n</current_description>", prompt, re.S)
        if current is None:
            return "toy: " + prompt.strip().splitlines()[0] if prompt.strip() else "toy"
        section = prompt.split("Queries that SHOULD have triggered", 1)[-1]
        section = section.split("Queries that", 1)[0]
        words = [q.split()[-1].strip(".,!?") for q in MISSED.findall(section) if q.split()]
        description = current.group(1).strip()
        if words:
            description = f"{description} {' '.join(words)}."
        return f"<new_description>{description}</new_description>"

    async def aclose(self) -> None:
        return None


class ToyExecutor:
    """Runs a case by writing `outputs/answer.md`: the prompt, and the skill's name when the
    configuration has one (so with-skill and baseline runs differ)."""

    name = "toy"

    def __init__(self, model: str | None = None, *, max_concurrency: int = 1, **_: Any) -> None:
        self.model = model or MODEL
        self.max_concurrency = max_concurrency

    def identity(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model, "mode": "toy-echo"}

    async def execute(self, task: RunTask) -> ExecutionResult:
        started_at, started = utc_timestamp(), time.monotonic()
        using = f"using skill {task.skill.name}" if task.skill is not None else "no skill"
        answer = f"# answer ({using})\n\n{task.prompt}\n"
        outputs = {"answer.md": answer.encode("utf-8")}
        transcript = render_conversation("", task.prompt, answer)
        usage = CallUsage(_tokens(task.prompt), _tokens(answer))
        duration = time.monotonic() - started
        return ExecutionResult(
            status="ok",
            final_text=answer,
            events=[
                {"role": "user", "content": task.prompt},
                {"role": "assistant", "content": answer},
            ],
            transcript_md=transcript,
            outputs=outputs,
            metrics=SCMetrics(
                tool_calls={},
                total_tool_calls=0,
                total_steps=1,
                files_created=["answer.md"],
                errors_encountered=0,
                output_chars=output_chars(outputs),
                transcript_chars=len(transcript),
            ),
            timing=make_timing(usage, duration, started_at, utc_timestamp()),
            usage=usage,
            duration_s=duration,
        )

    async def aclose(self) -> None:
        return None
