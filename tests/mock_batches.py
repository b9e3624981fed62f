"""Message Batches endpoints for `httpx2.MockTransport`: create, retrieve, results JSONL.

A subclass gives the results (`result_lines`); the batch is "in_progress" at creation and at the
first successful retrieval, "ended" after it. `fail_polls` makes the first retrievals fail with a
400 (a run killed while its batch processes)."""

from __future__ import annotations

import json
from typing import Any

import httpx2


class BatchEndpoints:
    """One batch, `batch_id`, served at `base_url`."""

    batch_id = "msgbatch_01"
    base_url = "https://api.anthropic.com"

    def __init__(self, fail_polls: int = 0) -> None:
        self.created: list[dict[str, Any]] = []
        self.polls = 0
        self.fail_polls = fail_polls

    def result_lines(self) -> list[dict[str, Any]]:
        """The results JSONL lines (`custom_id` and `result`)."""
        raise NotImplementedError

    def batch(self, status: str) -> dict[str, Any]:
        """The batch object in `status`, its counts taken from the results."""
        done = status == "ended"
        kinds = [line["result"]["type"] for line in self.result_lines()]
        errored = kinds.count("errored")
        return {
            "id": self.batch_id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": {
                "processing": 0 if done else len(kinds),
                "succeeded": len(kinds) - errored if done else 0,
                "errored": errored if done else 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": "2026-11-21T10:00:00Z",
            "expires_at": "2026-11-22T10:00:00Z",
            "ended_at": "2026-11-21T10:05:00Z" if done else None,
            "results_url": f"{self.base_url}/v1/messages/batches/{self.batch_id}/results"
            if done
            else None,
        }

    def __call__(self, req: httpx2.Request) -> httpx2.Response:
        path = req.url.path
        if req.method == "POST" and path == "/v1/messages/batches":
            self.created.append(json.loads(req.content))
            return httpx2.Response(200, json=self.batch("in_progress"))
        if req.method == "GET" and path == f"/v1/messages/batches/{self.batch_id}":
            self.polls += 1
            if self.polls <= self.fail_polls:
                error = {"type": "invalid_request_error", "message": "killed"}
                return httpx2.Response(400, json={"type": "error", "error": error})
            ended = self.polls > self.fail_polls + 1
            return httpx2.Response(200, json=self.batch("ended" if ended else "in_progress"))
        if req.method == "GET" and path.endswith("/results"):
            text = "\n".join(json.dumps(line) for line in self.result_lines()) + "\n"
            return httpx2.Response(200, text=text, headers={"content-type": "application/binary"})
        return httpx2.Response(
            404, json={"type": "error", "error": {"type": "not_found_error", "message": path}}
        )
