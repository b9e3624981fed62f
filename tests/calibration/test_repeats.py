"""Repeated grader calls in calibration: the sampler takes the verdicts whose repeats disagreed
first (and the weights undo it), the page never shows the repeats, and `calibrate` states the
grader's self-agreement with its Wilson interval."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from calibration_fakes import _reply, graded_workspace, run_path
from grade_fixtures import FakeTextModel

from skillbench.backends.base import TextRequest
from skillbench.behavior.grade import grade_workspace_sync
from skillbench.behavior.options import GradeOptions
from skillbench.behavior.workspace import Workspace
from skillbench.calibration.calibrate import calibrate
from skillbench.calibration.frames import calibration_header
from skillbench.calibration.items import GraderItem, grader_items
from skillbench.calibration.metrics import strata_weights
from skillbench.calibration.sample import stratified_sample
from skillbench.calibration.session import LabelSession
from skillbench.cli import main
from skillbench.stats import wilson_interval

SPLIT = ("with_skill", "alpha", 1)  # its first expectation: pass, fail, pass over 3 repeats
LINES = "The poem has three lines"


def _item(arm: str, passed: bool, k: int, repeats: tuple[bool, ...] = ()) -> GraderItem:
    return GraderItem(f"runs/{arm}/c/run-{k}", "e", arm, "c", passed, 4 if passed else 2,
                      False, repeats)  # fmt: skip


def test_disagreeing_verdicts_are_taken_first_and_weighed_back() -> None:
    split = (True, False, True)
    items = [_item("with_skill", True, k, split if k < 3 else (True,) * 3) for k in range(30)]
    items += [_item("baseline", False, k, (False,) * 3) for k in range(30, 60)]
    sample = stratified_sample(items, 8, seed=3)
    assert Counter(i.arm for i in sample) == {"with_skill": 4, "baseline": 4}
    assert sum(i.disagreed for i in sample) == 3  # all 3 of 30 (10 %) in a share of 4
    assert stratified_sample(items, 8, seed=3) == sample  # seeded
    weights, how = strata_weights(items, sample)
    assert how == "arm x grader verdict x doubt"
    # a disagreed verdict stands for itself (3 of 3), a clear one for 27 / 1
    assert sorted({w for i, w in zip(sample, weights, strict=True) if i.disagreed}) == [1.0]
    assert {w for i, w in zip(sample, weights, strict=True) if i.arm == "with_skill"
            and not i.disagreed} == {27.0}  # fmt: skip
    assert sum(weights) == pytest.approx(len(items))  # the weights add up to the workspace
    # more disagreed verdicts than the share: one clear verdict is still taken, so every cell
    # is labelled and the fine weights apply
    crowded = [_item("with_skill", True, k, split if k < 6 else (True,) * 3) for k in range(30)]
    taken = stratified_sample(crowded, 4, seed=3)
    assert sorted(i.doubt for i in taken) == ["clear", "disagreed", "disagreed", "disagreed"]
    assert strata_weights(crowded, taken)[1] == "arm x grader verdict x doubt"


def _split_reply(request: TextRequest) -> str:
    """The calibration fake, but repeat 1 fails the SPLIT run's first expectation."""
    data = json.loads(_reply(request))
    marker = re.search(r"MARK (\w+)/(\w+)/(\d)", request.prompt)
    assert marker is not None
    if (marker[1], marker[2], int(marker[3])) == SPLIT and request.repeat == 1:
        next(j for j in data["judgements"] if j["id"] == 1)["score"] = 2
    return json.dumps(data)


@pytest.fixture
def repeated(tmp_path: Path) -> Path:
    skill, _space = graded_workspace(tmp_path)
    fake = FakeTextModel(_split_reply)
    grade_workspace_sync(skill, GradeOptions(repeats=3), text_model=fake)
    assert len(fake.requests) == 3 * 12  # 12 runs, each asked 3 times
    return skill


def test_calibrate_states_the_graders_self_agreement(
    repeated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = grader_items(repeated)
    (split,) = [i for i in items if i.disagreed]
    assert split.key == (run_path(*SPLIT), LINES) and split.grader_pass  # majority: pass
    assert split.repeat_verdicts == (True, False, True)
    labels = repeated.parent / "labels.jsonl"
    labels.write_text(json.dumps({"run": run_path(*SPLIT), "expectation": LINES,
                                  "label": "pass", "labeler": "ann"}) + "\n")  # fmt: skip
    result, _doc, _path = calibrate(repeated, labels, write=False)
    agreement = result.self_agreement
    assert agreement is not None and (agreement.n, agreement.value) == (24, 23 / 24)
    assert (agreement.low, agreement.high) == pytest.approx(wilson_interval(23, 24))
    assert main(["calibrate", str(repeated), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    low, high = wilson_interval(23, 24)
    assert (f"grader self-agreement: {23 / 24:.3f} [{low:.3f}, {high:.3f}] of 24 repeated "
            "verdicts") in out  # fmt: skip
    assert main(["calibrate", str(repeated), "--labels", str(labels), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["self_agreement"]["value"] == pytest.approx(23 / 24)
    header = calibration_header(result, "fake", skill_dir=repeated, labels=labels)
    assert "self-agreement 0.958 over 24 repeated verdicts" in header.verdict


def test_the_sample_takes_the_split_verdict_and_the_page_never_shows_repeats(
    repeated: Path,
) -> None:
    items = grader_items(repeated)
    sample = stratified_sample(items, 4, seed=0)
    assert any(i.disagreed for i in sample)  # 1 of 10 in its stratum, taken in a share of 1
    space = Workspace.for_skill(repeated)
    session = LabelSession(repeated, space, sample, space.root / "labels.jsonl", "ann")
    state = session.state()
    assert set(state["item"]) == {"id", "task", "expectation", "transcript", "final_text",
                                  "outputs"}  # fmt: skip
    shown = json.dumps(state)
    assert "repeat_verdicts" not in shown and "[true, false, true]" not in shown
