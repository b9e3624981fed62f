"""The labelling sample and the page's server without a browser: stratification, blindness,
refusals, and `label`'s bad input."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from calibration_fakes import graded_workspace

from skillbench.calibration.items import GraderItem, grader_items
from skillbench.calibration.sample import stratified_sample
from skillbench.calibration.server import make_server
from skillbench.calibration.session import LabelSession
from skillbench.cli import main


def _item(arm: str, passed: bool, k: int, unsure: bool = False) -> GraderItem:
    return GraderItem(f"runs/{arm}/c/run-{k}", "e", arm, "c", passed, 4 if passed else 2, unsure)


def test_the_sample_has_equal_shares_per_stratum_borderline_first_and_is_seeded() -> None:
    items = [_item("with_skill", True, k, unsure=k < 3) for k in range(40)]
    items += [_item("with_skill", False, k) for k in range(40, 44)]  # a small stratum
    items += [_item("baseline", True, k) for k in range(20)]
    items += [_item("baseline", False, k) for k in range(20, 50)]
    sample = stratified_sample(items, 24, seed=5)
    shares = Counter((i.arm, i.grader_pass) for i in sample)
    # 24 over 4 strata: 6 each, but with_skill/fail has only 4: its 2 go to the others
    assert shares[("with_skill", False)] == 4 and sum(shares.values()) == 24
    assert sorted(shares.values()) == [4, 6, 7, 7]
    assert sum(i.unsure for i in sample) == 3  # every borderline verdict is taken
    assert stratified_sample(items, 24, seed=5) == sample  # a restart resumes the same sample
    assert [i.arm for i in sample] != sorted(i.arm for i in sample)  # shuffled, not grouped


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    skill, space = graded_workspace(tmp_path)
    sample = stratified_sample(grader_items(skill), 8)
    session = LabelSession(skill, space, sample, space.root / "labels.jsonl", "ann")
    server = make_server(session)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", space.root
    finally:
        server.shutdown()
        server.server_close()


def _post(url: str, body: bytes, kind: str = "application/json") -> tuple[int, dict]:
    request = urllib.request.Request(url + "/api/label", data=body, headers={"Content-Type": kind})
    try:
        with urllib.request.urlopen(request) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_state_is_blind_and_bad_answers_are_refused(served: tuple[str, Path]) -> None:
    url, root = served
    with urllib.request.urlopen(url + "/api/state") as reply:
        assert "default-src 'none'" in reply.headers["Content-Security-Policy"]
        state = json.loads(reply.read())
    item = state["item"]
    assert set(item) == {"id", "task", "expectation", "transcript", "final_text", "outputs"}
    assert state["counts"] == {"total": 8, "labelled": 0, "pass": 0, "fail": 0, "deferred": 0,
                               "remaining": 8}  # fmt: skip
    assert _post(url, json.dumps({"id": "nope", "answer": "pass"}).encode())[0] == 400
    assert _post(url, json.dumps({"id": item["id"], "answer": "maybe"}).encode())[0] == 400
    assert _post(url, b"id=1", "application/x-www-form-urlencoded")[0] == 415
    assert not (root / "labels.jsonl").exists()
    status, after = _post(url, json.dumps({"id": item["id"], "answer": "fail"}).encode())
    assert status == 200 and after["counts"]["fail"] == 1 and after["item"]["id"] != item["id"]
    (line,) = (root / "labels.jsonl").read_text(encoding="utf-8").splitlines()
    label = json.loads(line)
    assert label["label"] == "fail" and label["labeler"] == "ann"
    assert label["run"].startswith("runs/") and not label["run"].startswith("/")


def test_label_refuses_a_workspace_without_model_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from grade_fixtures import standard_workspace

    skill, _ = standard_workspace(tmp_path)
    from skillbench.behavior.grade import grade_workspace_sync

    grade_workspace_sync(skill)  # local: machine checks only
    assert main(["label", str(skill)]) == 2
    assert "no model-graded verdict" in capsys.readouterr().err
