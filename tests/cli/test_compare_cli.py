"""`skillbench compare`: exit codes, output, the call cache."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from compare_fakes import FakeJudge, make_workspace

from skillbench.backends.registry import register_text_model, unregister
from skillbench.cli import main


@pytest.fixture
def fake_backend() -> Iterator[list[FakeJudge]]:
    made: list[FakeJudge] = []

    def factory(model: str | None = None, **_: object) -> FakeJudge:
        judge = FakeJudge("content")
        made.append(judge)
        return judge

    register_text_model("fakejudge", factory)
    yield made
    unregister("fakejudge")


def test_local_backend_exit_0_and_plain_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_workspace(tmp_path, runs=1)
    code = main(["compare", str(skill), "--a", "v1", "--b", "v0", "--backend", "local"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "DETERMINISTIC PROXY" in out
    assert "cases: v1 won 3, lost 0, tied 0" in out
    assert "history: v1 won against v0; current_best v1" in out
    assert "analysis (deterministic) written" in err


def test_json_output_and_cache_reuse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_backend: list[FakeJudge]
) -> None:
    skill = make_workspace(tmp_path, runs=1)
    cache = tmp_path / "calls.sqlite"
    args = ["compare", str(skill), "--a", "v1", "--b", "v0", "--backend", "fakejudge"]
    args += ["--cache", str(cache), "--json", "--no-analyze"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["judge"] == "model" and data["swap_consistency"] == 1.0
    assert len(fake_backend[0].prompts) == 6
    assert main(args) == 0  # the same requests again: answered from the cache
    assert len(fake_backend[1].prompts) == 0


def test_bad_input_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill = make_workspace(tmp_path, runs=1)
    assert main(["compare", str(skill), "--a", "v1", "--b", "v9"]) == 2
    assert "no runs of configuration 'v9'" in capsys.readouterr().err
    assert main(["compare", str(tmp_path / "nope"), "--a", "v1", "--b", "v0"]) == 2
    assert main(["compare", str(skill), "--a", "v1"]) == 2  # argparse: --b missing


def test_failed_judgements_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fake_backend: list[FakeJudge]
) -> None:
    skill = make_workspace(tmp_path, runs=1)
    (skill / "evals" / "evals.json").write_text(
        json.dumps(
            {
                "cases": [
                    {
                        "id": "other",
                        "prompt": "x",
                        "expectations": [{"criterion": "c", "description": "d", "required": True}],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    code = main(
        ["compare", str(skill), "--a", "v1", "--b", "v0", "--backend", "fakejudge", "--no-cache"]
    )
    out = capsys.readouterr().out
    assert code == 1  # nothing could be judged: every case is missing from the evals
    assert "skipped: case case-1 run 1: case not in evals/evals.json" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "skill", "--a", "with_skill", "--b", "baseline", "--workers", "0"],
        ["run", "skill", "--workers", "0"],
        ["run", "skill", "--runs", "x"],
    ],
)
def test_non_positive_counts_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert "expected an integer from 1 to" in capsys.readouterr().err
