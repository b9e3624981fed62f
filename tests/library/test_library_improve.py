"""`improve --library`: the neighbours' should-trigger queries join as should-not-trigger ones
(marked by family), so a description that steals from a neighbour loses, and the summary lists
each round's stolen neighbour queries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from skillbench.improve.options import ImproveOptions
from skillbench.improve.overfit import steals_frame
from skillbench.improve.proposers import Proposal
from skillbench.improve.run import improve_skill_sync
from skillbench.library.neighbours import NEIGHBOUR, neighbour_queries
from skillbench.schemas.loop import LoopSummary, NeighbourSteal
from skillbench.trigger.evalset import load_eval_set
from skillbench.trigger.options import TriggerOptions

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "library"
GREEDY = (
    "Writes CHANGELOG.md entries and release announcements: what changed in the release, "
    "highlights, upgrade notes for customers and users of the new version. Use when the user "
    "asks to update the changelog or announce a release."
)


class Greedy:
    """Proposes a description that also takes the release announcer's requests."""

    name = "test:greedy"
    is_heuristic = True

    async def propose(self, view: object, *, attempt: int = 0, feedback: str = "") -> Proposal:
        return Proposal(GREEDY)


def test_neighbour_queries_are_marked_should_not_trigger() -> None:
    own = load_eval_set(SAMPLE / "changelog-writer" / "evals" / "trigger.json")
    added = neighbour_queries(SAMPLE, "changelog-writer", own)
    assert added and all(not q.should_trigger and q.family.startswith(NEIGHBOUR) for q in added)
    families = {q.family for q in added}
    assert f"{NEIGHBOUR}release-announcer" in families
    assert f"{NEIGHBOUR}changelog-writer" not in families
    assert not {q.text for q in own} & {q.text for q in added}


def test_a_description_that_steals_from_a_neighbour_loses(tmp_path: Path) -> None:
    library = tmp_path / "lib"
    shutil.copytree(SAMPLE, library)
    skill = library / "changelog-writer"
    out = tmp_path / "out"
    options = ImproveOptions(
        trigger=TriggerOptions(backend="lexical", runs=2, use_cache=False),
        rounds=2,
        library_dir=library,
    )
    result = improve_skill_sync(skill, skill / "evals" / "trigger.json", options, out=out,
                                proposer=Greedy())  # fmt: skip
    steals = json.loads((out / "loop_summary.json").read_text())["neighbour_steals"]
    assert [r["round"] for r in steals] == [1, 2]
    stolen_2 = {s["query"] for s in steals[1]["stolen"]}
    stolen_1 = {s["query"] for s in steals[0]["stolen"]}
    assert len(stolen_2) > len(stolen_1)
    assert all(s["neighbour"] == "release-announcer" for s in steals[1]["stolen"])
    # a declared, typed part of the summary (not an extra key), and the notebook's table of it
    read = LoopSummary.model_validate_json((out / "loop_summary.json").read_text())
    assert read.neighbour_steals is not None
    assert isinstance(read.neighbour_steals[1].stolen[0], NeighbourSteal)
    assert "neighbour_steals" not in (read.model_extra or {})
    table = steals_frame(read)
    assert set(table[table["round"] == 2]["query"]) == stolen_2
    assert set(table[table["round"] == 2]["neighbour"]) == {"release-announcer"}
    assert result.summary.final_description != GREEDY  # the greedy candidate is not kept
    assert (skill / "SKILL.md").read_text() == (
        SAMPLE / "changelog-writer" / "SKILL.md"
    ).read_text()
