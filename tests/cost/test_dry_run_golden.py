"""`--dry-run` estimates on the sample data are byte-identical to the recorded ones
(tests/cost/golden/, recorded before money moved into `skillbench/cost/`): the plan, the
tokens by kind, the dollars and every note. The replay harness's plans (which capture a
template with the real CLI) are left out, except a `--batch` one checked when the real CLI
can run (its batch discount was once dropped), and so are the anthropic compare plans, whose
character estimate counts the workspace's absolute path (it differs from machine to machine;
they were compared by hand, see the issue 22 report); cap refusal lines are included."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from real_cli import real_cli_skip_reason

from skillbench.cli import main
from skillbench.schemas.cost import TokenCounts
from skillbench.schemas.prices import load_prices

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
SKILL = "data/skills/csv-cleanup"
EVALS = "data/evals/csv-cleanup.trigger.json"
MODEL = ["--model", "claude-haiku-4-5", "--dry-run", "--no-cache"]

CASES = {
    "trigger_local": ["trigger", SKILL, "--evals", EVALS, "--backend", "local"],
    "trigger_claude-code": ["trigger", SKILL, "--evals", EVALS, "--backend", "claude-code"],
    "trigger_anthropic_minimal_json": [
        *("trigger", SKILL, "--evals", EVALS, "--backend", "anthropic", "--harness", "minimal"),
        *("--catalog", "data/catalog", "--json"),
    ],
    # recorded when improve ran 3 runs per query by default (now limits.DEFAULT_RUNS, 4)
    "improve_local": [
        *("improve", SKILL, "--evals", EVALS, "--backend", "local", "--out", "{out}"),
        *("--runs", "3"),
    ],
    "improve_claude-code": [
        *("improve", SKILL, "--evals", EVALS, "--backend", "claude-code", "--out", "{out}"),
        *("--runs", "3"),
    ],
}
for _backend in ("local", "anthropic", "claude-code"):
    CASES[f"run_{_backend}"] = ["run", SKILL, "--workspace", "{ws}", "--backend", _backend]
    CASES[f"grade_{_backend}"] = ["grade", SKILL, "--workspace", "{ws}", "--backend", _backend]
    CASES[f"compare_{_backend}"] = [
        *("compare", SKILL, "--workspace", "{ws}", "--a", "with_skill", "--b", "baseline"),
        *("--backend", _backend),
    ]
UNCHECKED = {"compare_anthropic", "compare_anthropic_cap", "compare_anthropic_json"}
UNCHECKED |= {"improve_anthropic_cap", "trigger_anthropic_cap"}  # the replay harness
REPLAY = {  # the replay harness: its template is captured with the real CLI (skipped without it)
    # recorded with `claude -p`'s request, before the interactive CLI's became the default
    # (its request is ~9 % more tokens: more tools, another system prompt)
    "trigger_anthropic_replay_batch": [
        *("trigger", SKILL, "--evals", EVALS, "--backend", "anthropic", "--batch"),
        *("--cli-mode", "print"),
    ],
}
CASES.update(REPLAY)
for _name in ("run_anthropic", "grade_anthropic"):
    CASES[f"{_name}_cap"] = [*CASES[_name], "--max-cost", "0.01"]
CASES.pop("compare_anthropic")


TOKENS = re.compile(r"tokens: input (\d+), cache writes (\d+), cache reads (\d+), output (\d+)")
DOLLARS = re.compile(r"\$(\d+\.\d{4})")


def assert_replay_plan(printed: str, golden: str) -> None:
    """A replay plan's template holds the machine's own environment (Claude Code's system
    prompt names the OS version, the shell, …), so its token counts move by a few per call
    from machine to machine: everything else is byte-identical, the counts stay within 1 %,
    and the dollars are the batch price of the printed counts (the discount once dropped)."""
    masked = [DOLLARS.sub("$?", TOKENS.sub("tokens: ?", text)) for text in (printed, golden)]
    assert masked[0] == masked[1]
    found, recorded = TOKENS.search(printed), TOKENS.search(golden)
    assert found is not None and recorded is not None
    for now, then in zip(found.groups(), recorded.groups(), strict=True):
        assert abs(int(now) - int(then)) <= 0.01 * int(then)
    tokens = TokenCounts(
        input_tokens=int(found[1]),
        cache_creation_input_tokens=int(found[2]),
        cache_read_input_tokens=int(found[3]),
        output_tokens=int(found[4]),
    )
    dollars = load_prices().dollars("claude-haiku-4-5", tokens, batch=True)
    assert dollars is not None
    assert f"estimated cost: ${dollars:.4f}" in printed
    full = load_prices().dollars("claude-haiku-4-5", tokens)
    assert full is not None and dollars < 0.75 * full  # the batch discount is applied


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample runs replayed into a workspace (the local backend: no model)."""
    where = tmp_path_factory.mktemp("golden") / "ws"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        assert (
            main(["run", SKILL, "--workspace", str(where), "--backend", "local", "--no-cache"]) == 0
        )
    return where


@pytest.mark.parametrize("name", sorted(CASES))
def test_dry_run_is_byte_identical_to_the_recorded_one(
    name: str,
    workspace: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if name in REPLAY and (reason := real_cli_skip_reason()) is not None:
        pytest.skip(reason)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # the character estimate
    monkeypatch.delenv("SKILLBENCH_MAX_COST", raising=False)
    monkeypatch.delenv("SKILLBENCH_PRICES", raising=False)
    monkeypatch.chdir(ROOT)
    args = [a.format(ws=workspace, out=tmp_path / "out") for a in CASES[name]]
    capsys.readouterr()
    code = main([*args, *MODEL])
    captured = capsys.readouterr()
    assert code == (3 if name.endswith("_cap") else 0)
    golden = (GOLDEN / f"dry-run.{name}.txt").read_text("utf-8")
    if name in REPLAY:
        assert_replay_plan(captured.out + captured.err, golden)
    else:
        assert captured.out + captured.err == golden
    assert not (tmp_path / "out").exists()  # a dry run writes nothing


def test_every_golden_file_is_checked() -> None:
    names = {p.name.removeprefix("dry-run.").removesuffix(".txt") for p in GOLDEN.iterdir()}
    assert names == set(CASES) | UNCHECKED
