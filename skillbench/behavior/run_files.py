"""What one executed run produced, how it is rendered, measured and written as a run folder.

A run folder holds `run.json`, `transcript.jsonl`, `transcript.md`, `outputs/` (files the run
created, plus seed 004 `metrics.json`) and seed 004 `timing.json`; a hermetic run (a case with
an `environment` block) also `calls.jsonl`, `answers.jsonl` (the agent's questions and the
scripted answers it got) and `environment.json`. Metrics and timing are
computed from the run's events and usage, never typed by hand. Output files pass the one
redactor (`scrub_outputs`): secrets in text are replaced, a binary file holding one is withheld,
and `run.json` names both.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from skillbench.backends.base import CallUsage
from skillbench.backends.claude_cli.resume import SCRIPTED_ANSWER
from skillbench.backends.claude_cli.stream_json import Session, metrics, tool_result_text
from skillbench.backends.skill_copy import human_size
from skillbench.behavior.records import RunRecord, write_run_record
from skillbench.behavior.spool import SpooledOutputs, outputs_size
from skillbench.hermetic.answers import ANSWERS_FILE
from skillbench.hermetic.calls import CALLS_FILE
from skillbench.hermetic.world import ENVIRONMENT_FILE
from skillbench.io import atomic_write_bytes, atomic_write_text, write_json
from skillbench.redaction import redact_bytes
from skillbench.schemas.skill_creator import SCMetrics, SCTiming

TOOL_TEXT_LIMIT = 2000
CACHEABLE_OUTPUT_BYTES = 8 * 1024 * 1024


@dataclass
class ExecutionResult:
    """Everything an executor produced for one run (before it is written to disk)."""

    status: Literal["ok", "error"]
    final_text: str
    events: list[dict[str, Any]]
    transcript_md: str
    outputs: Mapping[str, bytes]
    """Files the run left, by relative path: a dict, or a `SpooledOutputs` kept on disk."""
    metrics: SCMetrics
    timing: SCTiming
    usage: CallUsage = field(default_factory=CallUsage)
    duration_s: float = 0.0
    error: str | None = None
    cached: bool = False
    redacted_outputs: list[str] = field(default_factory=list)
    withheld_outputs: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    """A hermetic run's `calls.jsonl` lines (fake commands, MCP tools)."""
    answers: list[dict[str, Any]] = field(default_factory=list)
    """A hermetic run's `answers.jsonl` lines (the agent's questions, scripted answers)."""
    hermetic: dict[str, Any] | None = None
    """A hermetic run's `environment.json` (`hermetic.world.HermeticRecord`); None otherwise."""

    def scrub(self, secrets: Iterable[str | None] = ()) -> None:
        """Pass the output files through the redactor (see `scrub_outputs`), in place."""
        self.outputs, redacted, withheld = scrub_outputs(self.outputs, secrets)
        self.redacted_outputs = sorted({*self.redacted_outputs, *redacted})
        self.withheld_outputs = sorted({*self.withheld_outputs, *withheld})

    def to_cache(self) -> dict[str, Any] | None:
        """Serialisable form (None when too large to cache; errors are never cached)."""
        if self.status != "ok" or outputs_size(self.outputs) > CACHEABLE_OUTPUT_BYTES:
            return None
        return {
            "final_text": self.final_text,
            "events": self.events,
            "transcript_md": self.transcript_md,
            "outputs": {k: base64.b64encode(v).decode("ascii") for k, v in self.outputs.items()},
            "metrics": self.metrics.model_dump(mode="json"),
            "timing": self.timing.model_dump(mode="json"),
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "cache_read_input_tokens": self.usage.cache_read_input_tokens,
                "cache_creation_input_tokens": self.usage.cache_creation_input_tokens,
                "cost_usd": self.usage.cost_usd,
            },
            "duration_s": self.duration_s,
            "redacted_outputs": self.redacted_outputs,
            "withheld_outputs": self.withheld_outputs,
            **(
                {"calls": self.calls, "answers": self.answers, "hermetic": self.hermetic}
                if self.hermetic
                else {}
            ),
        }

    @classmethod
    def from_cache(cls, data: dict[str, Any]) -> ExecutionResult:
        """Rebuild a cached result (marked `cached`)."""
        return cls(
            status="ok",
            final_text=str(data["final_text"]),
            events=list(data["events"]),
            transcript_md=str(data["transcript_md"]),
            outputs={k: base64.b64decode(v) for k, v in data["outputs"].items()},
            metrics=SCMetrics.model_validate(data["metrics"]),
            timing=SCTiming.model_validate(data["timing"]),
            usage=CallUsage(**data["usage"]),
            duration_s=float(data["duration_s"]),
            cached=True,
            redacted_outputs=list(data.get("redacted_outputs") or []),
            withheld_outputs=list(data.get("withheld_outputs") or []),
            calls=list(data.get("calls") or []),
            answers=list(data.get("answers") or []),
            hermetic=data.get("hermetic"),
        )


def scrub_outputs(
    outputs: Mapping[str, bytes], secrets: Iterable[str | None] = ()
) -> tuple[Mapping[str, bytes], list[str], list[str]]:
    """(outputs with every secret replaced, names redacted, names withheld).

    Files an agent wrote in its sandbox may hold a key it read from its environment: in text
    the key becomes `[REDACTED]`; a binary file holding one is withheld (dropped) rather than
    corrupted. `secrets` are values beyond the environment's (e.g. an executor's own env).
    Spooled outputs are scrubbed in place, one file at a time.
    """
    if isinstance(outputs, SpooledOutputs):
        redacted_files, withheld_files = outputs.scrub(secrets)
        return outputs, redacted_files, withheld_files
    clean: dict[str, bytes] = {}
    redacted: list[str] = []
    withheld: list[str] = []
    for rel, data in outputs.items():
        scrubbed = redact_bytes(data, secrets)
        if scrubbed is None:
            withheld.append(rel)
            continue
        if scrubbed is not data:
            redacted.append(rel)
        clean[rel] = scrubbed
    return clean, redacted, withheld


def over_output_cap(written: int, cap: int, kept: Mapping[str, bytes], left_out: list[str]) -> str:
    """The error of a run whose files passed the output cap (`--max-output`)."""
    shown = ", ".join(left_out[:5]) + (
        f" and {len(left_out) - 5} more" if len(left_out) > 5 else ""
    )
    return (
        f"the run wrote {human_size(written)} of files, past the output cap of "
        f"{human_size(cap)} (--max-output); kept {len(kept)} files "
        f"({human_size(outputs_size(kept))}), left out {len(left_out)}: {shown}"
    )


def cap_outputs(result: ExecutionResult, cap: int) -> ExecutionResult:
    """`result` with its output files within `cap` bytes: the files (in name order) that fit are
    kept, the others dropped, and a run past the cap becomes an error naming the cap
    (`over_output_cap`). Applies to every executor's result and to a cached one."""
    written = outputs_size(result.outputs)
    if written <= cap:
        return result
    kept: dict[str, bytes] = {}
    left_out: list[str] = []
    room = cap
    for rel in sorted(result.outputs):
        data = result.outputs[rel]
        if len(data) <= room:
            kept[rel] = data
            room -= len(data)
        else:
            left_out.append(rel)
    error = over_output_cap(written, cap, kept, left_out)
    result.outputs = kept
    result.status = "error"
    result.error = f"{result.error}; {error}" if result.error else error
    result.metrics = result.metrics.model_copy(
        update={"files_created": sorted(kept), "output_chars": output_chars(kept)}
    )
    return result


def total_tokens(usage: CallUsage) -> int:
    """Input, output and prompt-cache tokens of a run."""
    return (
        usage.input_tokens
        + usage.output_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
    )


def output_chars(outputs: Mapping[str, bytes]) -> int:
    """Characters of the output files (bytes of files that are not UTF-8 text)."""
    count = 0
    for data in outputs.values():
        try:
            count += len(data.decode("utf-8"))
        except UnicodeDecodeError:
            count += len(data)
    return count


def make_timing(usage: CallUsage, duration_s: float, started: str, ended: str) -> SCTiming:
    """Seed 004 timing from a run's usage and duration (the stream's `duration_ms` for
    claude-code sessions, the measured wall clock otherwise)."""
    return SCTiming(
        total_tokens=total_tokens(usage),
        duration_ms=round(duration_s * 1000),
        total_duration_seconds=round(duration_s, 1),
        executor_start=started,
        executor_end=ended,
        executor_duration_seconds=round(duration_s, 1),
    )


def session_metrics(
    session: Session, outputs: Mapping[str, bytes], transcript_md: str
) -> SCMetrics:
    """Seed 004 metrics computed from a stream-json session and the files it created.

    Steps are the assistant turns (`num_turns` of the result, else assistant messages); errors
    are failed tool results plus an error result.
    """
    stats = metrics(session)
    steps = stats.num_turns
    if steps is None:
        steps = session.event_counts.get("assistant", 0)
    return SCMetrics(
        tool_calls=dict(stats.tool_calls),
        total_tool_calls=stats.total_tool_calls,
        total_steps=steps,
        files_created=sorted(outputs),
        errors_encountered=stats.tool_errors + (1 if stats.is_error else 0),
        output_chars=output_chars(outputs),
        transcript_chars=len(transcript_md),
    )


def _clip(text: str, limit: int = TOOL_TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more chars)"


def render_stream_transcript(prompt: str, events: Iterable[dict[str, Any]]) -> str:
    """A readable Markdown transcript of a stream-json session, in event order."""
    lines = ["# Transcript", "", "## User", "", prompt.strip(), ""]
    for event in events:
        kind = event.get("type")
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if kind == "assistant" and isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and block.get("text"):
                    lines += ["## Assistant", "", str(block["text"]).strip(), ""]
                elif block.get("type") == "tool_use":
                    payload = json.dumps(block.get("input", {}), ensure_ascii=False, indent=1)
                    lines += [f"### Tool call: {block.get('name', '?')}", "", "```json"]
                    lines += [_clip(payload), "```", ""]
        elif kind == "user" and isinstance(content, list):
            if event.get("skillbench") == SCRIPTED_ANSWER:
                texts = [str(b.get("text") or "") for b in content if isinstance(b, dict)]
                lines += ["## User (scripted answer)", "", "\n".join(texts).strip(), ""]
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    label = "Tool error" if block.get("is_error") else "Tool result"
                    text = _clip(tool_result_text(block.get("content")))
                    lines += [f"### {label}", "", "```", text, "```", ""]
        elif kind == "result":
            status = "error" if event.get("is_error") else "success"
            lines += [f"## Result ({event.get('subtype') or status})", ""]
            if event.get("result"):
                lines += [str(event["result"]).strip(), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_conversation(system: str, prompt: str, reply: str) -> str:
    """A readable Markdown transcript of a single-turn conversation."""
    lines = ["# Transcript", ""]
    if system:
        lines += ["## System", "", system.strip(), ""]
    lines += ["## User", "", prompt.strip(), "", "## Assistant", "", reply.strip(), ""]
    return "\n".join(lines)


def scrub_folder(folder: Path) -> tuple[list[str], list[str]]:
    """Pass every file under `folder` (a run folder copied from elsewhere) through the redactor
    in place: (files of `outputs/` redacted, withheld), as paths relative to `outputs/`."""
    redacted: list[str] = []
    withheld: list[str] = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        clean = redact_bytes(data)
        if clean is data:
            continue
        rel = path.relative_to(folder).as_posix()
        if clean is None:
            path.unlink()
        else:
            atomic_write_bytes(path, clean)
        if rel.startswith("outputs/"):
            (withheld if clean is None else redacted).append(rel.removeprefix("outputs/"))
    return redacted, withheld


def write_run_folder(run_dir: Path, record: RunRecord, result: ExecutionResult) -> Path:
    """Write the complete run folder, replacing an older one only once the new one is whole.

    Output files pass the redactor once more (a result cached by an older version, a secret in
    the environment): `run.json` lists the files redacted and withheld."""
    result.scrub()
    record = record.model_copy(
        update={
            "redacted_outputs": result.redacted_outputs or None,
            "withheld_outputs": result.withheld_outputs or None,
        }
    )
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{run_dir.name}.", dir=run_dir.parent))
    try:
        outputs = staging / "outputs"
        outputs.mkdir()
        if isinstance(result.outputs, SpooledOutputs):
            result.outputs.copy_into(outputs)  # streamed, never read whole
        else:
            for rel, data in result.outputs.items():
                atomic_write_bytes(outputs / rel, data)
        write_json(outputs / "metrics.json", result.metrics)
        write_json(staging / "timing.json", result.timing)
        jsonl = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in result.events)
        atomic_write_text(staging / "transcript.jsonl", jsonl)
        atomic_write_text(staging / "transcript.md", result.transcript_md)
        if result.hermetic is not None:
            calls = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in result.calls)
            atomic_write_text(staging / CALLS_FILE, calls)
            asked = "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in result.answers)
            atomic_write_text(staging / ANSWERS_FILE, asked)
            write_json(staging / ENVIRONMENT_FILE, result.hermetic)
        write_run_record(record, staging / "run.json")
        if run_dir.exists():
            old = run_dir.with_name(f".{run_dir.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            run_dir.rename(old)
            staging.rename(run_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            staging.rename(run_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return run_dir
