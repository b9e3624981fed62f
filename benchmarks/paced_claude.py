#!/usr/bin/env -S python3 -S -E
"""A paced fake `claude` for bench_claude_code.py: starts in $PACED_START s (0.5), then takes
$PACED_TURN s (1.0) per model turn. Turn 1 calls the Skill tool naming $PACED_SKILL; turn 2
answers in text; then the `result` event. Stream-json as the CLI writes it with
`--verbose --include-partial-messages`. Standard library only; started with `python3 -S -E` to keep its own start-up small."""

import json
import os
import sys
import time


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def stream(sid, event):
    emit({"type": "stream_event", "event": event, "session_id": sid, "parent_tool_use_id": None})


def main():
    if sys.argv[1:] == ["--version"]:
        print("2.1.197-paced (Claude Code)")
        return
    start = float(os.environ.get("PACED_START", "0.5"))
    turn = float(os.environ.get("PACED_TURN", "1.0"))
    skill = os.environ.get("PACED_SKILL", "csv-cleanup")
    sid = os.urandom(16).hex()
    time.sleep(start)
    emit({"type": "system", "subtype": "init", "session_id": sid, "model": "claude-paced-1",
          "tools": ["Bash", "Read", "Skill"], "skills": [skill]})  # fmt: skip
    time.sleep(turn)
    tool_id = "toolu_" + os.urandom(6).hex()
    usage = {"input_tokens": 900, "cache_read_input_tokens": 0, "output_tokens": 1}
    stream(sid, {"type": "message_start", "message": {"id": "msg_1", "role": "assistant",
                 "content": [], "usage": usage}})  # fmt: skip
    stream(sid, {"type": "content_block_start", "index": 0, "content_block": {
        "type": "tool_use", "id": tool_id, "name": "Skill", "input": {}}})  # fmt: skip
    stream(sid, {"type": "content_block_delta", "index": 0, "delta": {
        "type": "input_json_delta", "partial_json": json.dumps({"skill": skill})}})  # fmt: skip
    stream(sid, {"type": "content_block_stop", "index": 0})
    emit({"type": "assistant", "session_id": sid, "parent_tool_use_id": None, "message": {
        "role": "assistant", "model": "claude-paced-1",
        "content": [{"type": "tool_use", "id": tool_id, "name": "Skill", "input": {"skill": skill}}],
    }})  # fmt: skip
    stream(sid, {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                 "usage": {"output_tokens": 20}})  # fmt: skip
    stream(sid, {"type": "message_stop"})
    emit({"type": "user", "session_id": sid, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tool_id, "content": "Launching skill"}]}})  # fmt: skip
    time.sleep(turn)
    emit({"type": "assistant", "session_id": sid, "message": {"role": "assistant",
          "content": [{"type": "text", "text": "Done."}]}})  # fmt: skip
    emit({"type": "result", "subtype": "success", "is_error": False, "num_turns": 2,
          "result": "Done.", "session_id": sid, "total_cost_usd": 0.01,
          "usage": {"input_tokens": 1800, "output_tokens": 60}})  # fmt: skip


if __name__ == "__main__":
    main()
