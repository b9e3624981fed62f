"""The router behind every fake command (standard library only: it runs as a script, `python -I
router.py ROUTES LOG COMMAND ARG...`, inside the agent's session).

It reads the routes of COMMAND from ROUTES (JSON: command → list of routes, see
`hermetic.environment.Route`), searches each route's regex in the arguments joined by spaces,
answers with the first match (or that route's next answer), and appends one line to LOG
(`calls.jsonl`): sequence, command, argv, route, exit, refused, reason. An unmatched call is
refused (exit 127). The log, and the per-route answer counters beside it, are updated under an
exclusive lock, so parallel calls get distinct sequence numbers.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys
import time
from collections.abc import Callable
from typing import Any

REFUSED_EXIT = 126
UNMATCHED_EXIT = 127


def choose(routes: list[dict[str, Any]], args: list[str]) -> tuple[int | None, dict[str, Any]]:
    """(index of the first route whose regex matches the joined arguments, that route)."""
    joined = " ".join(args)
    for index, route in enumerate(routes):
        if re.search(route["match"], joined):
            return index, route
    return None, {}


def reply_of(route: dict[str, Any], used: int) -> dict[str, Any]:
    """The route's answer to its `used`-th call (answers: one per call, the last repeated)."""
    answers = route.get("answers")
    if answers:
        return dict(answers[min(used, len(answers) - 1)])
    return route


Decision = tuple[bool, str | None, int, dict[str, Any]]
"""(refused, reason, exit code, reply) of one call."""


def sequenced(
    log_file: str, key: str, build: Callable[[int, int], tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    """Under the lock of LOG (the call log): the next sequence number and how often `key` was
    used before; `build(sequence, used)` gives (the file to append to, the record), and the
    record is appended there as one JSON line. Calls and questions share one sequence, so their
    order across `calls.jsonl` and `answers.jsonl` is known."""
    with open(log_file + ".lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state_file = log_file + ".state"
        state: dict[str, Any] = {"sequence": 0, "used": {}}
        if os.path.exists(state_file):
            with open(state_file, encoding="utf-8") as handle:
                state = json.load(handle)
        state["sequence"] += 1
        used = int(state["used"].get(key, 0))
        state["used"][key] = used + 1
        target, record = build(state["sequence"], used)
        with open(target, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        with open(state_file + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(state, handle)
        os.replace(state_file + ".tmp", state_file)
    return record


def record_call(
    log_file: str,
    command: str,
    args: list[str],
    index: int | None,
    decide: Callable[[int], Decision],
) -> Decision:
    """Under the log's lock: the next sequence number, how often route `index` answered before
    (`decide` gets that count), one line appended to the log; returns `decide`'s answer."""
    decision: list[Decision] = []

    def build(sequence: int, used: int) -> tuple[str, dict[str, Any]]:
        decision.append(decide(used))
        refused, reason, code, _ = decision[0]
        record = {
            "sequence": sequence,
            "time": round(time.time(), 3),
            "command": command,
            "argv": args,
            "route": index,
            "exit": code,
            "refused": refused,
            "reason": reason,
        }
        return log_file, record

    sequenced(log_file, f"{command}#{index}", build)
    return decision[0]


def decide_command(
    command: str, args: list[str], index: int | None, route: dict[str, Any]
) -> Callable[[int], Decision]:
    """The decision function of a fake command's call."""

    def decide(used: int) -> Decision:
        refusal = f"skillbench fake {command}: refused ({{}}): {' '.join(args)}\n"
        if index is None:
            return (
                True,
                "no route matches",
                UNMATCHED_EXIT,
                {"stderr": refusal.format("no route matches")},
            )
        if route.get("refuse"):
            reason = str(route["refuse"])
            code = int(route.get("exit") or REFUSED_EXIT)
            return True, reason, code, {"stderr": refusal.format(reason)}
        reply = reply_of(route, used)
        return False, None, int(reply.get("exit") or 0), reply

    return decide


def main(argv: list[str]) -> int:
    """Answer one call of a fake command and log it."""
    routes_file, log_file, command, *args = argv
    with open(routes_file, encoding="utf-8") as handle:
        routes = json.load(handle).get(command, [])
    index, route = choose(routes, args)
    _, _, code, reply = record_call(
        log_file, command, args, index, decide_command(command, args, index, route)
    )
    out = str(reply.get("stdout") or "")
    if out and not out.endswith("\n"):
        out += "\n"
    sys.stdout.write(out)
    sys.stderr.write(str(reply.get("stderr") or ""))
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
