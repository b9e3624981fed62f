"""The executor: input-file safety, local replay, anthropic (fake TextModel), claude-code (fake
agentic CLI), metrics computed from events, and zero-call re-runs through the call cache."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from skillbench.backends.base import CallUsage, TextRequest, TextResponse
from skillbench.backends.cache import CallCache
from skillbench.behavior.executors import ClaudeCodeExecutor, TextModelExecutor
from skillbench.behavior.options import RunOptions
from skillbench.behavior.records import read_run_record
from skillbench.behavior.run import run_cases
from skillbench.behavior.workspace import Workspace, init_workspace, read_evals
from skillbench.cli import main
from skillbench.errors import BackendError, InputError
from skillbench.schemas import load

ROOT = Path(__file__).resolve().parents[2]
DATA_SKILL = ROOT / "data" / "skills" / "csv-cleanup"
FAKE_AGENT = Path(__file__).resolve().parents[1] / "fake_claude_agent" / "claude"


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    folder = tmp_path / "csv-cleanup"
    shutil.copytree(DATA_SKILL, folder)
    return folder


def small_evals(
    skill: Path, files: list[str] | None = None, prompt: str = "Clean the file."
) -> Path:
    path = skill / "evals" / "small.json"
    data = {
        "cases": [
            {
                "id": "one",
                "prompt": prompt,
                "files": files if files is not None else ["evals/files/crm_export.csv"],
                "expectations": [{"criterion": "c", "description": "d", "required": True}],
            }
        ]
    }
    path.write_text(json.dumps(data))
    return path


class FakeTextModel:
    """Answers with the system prompt's first words; counts calls."""

    name: str = "anthropic"
    model: str | None = "fake-model"

    def __init__(self, fail: bool = False) -> None:
        self.requests: list[TextRequest] = []
        self.fail = fail

    def identity(self) -> dict[str, Any]:
        return {"backend": "fake", "model": self.model}

    async def complete(self, request: TextRequest) -> TextResponse:
        self.requests.append(request)
        if self.fail:
            raise BackendError("anthropic text call failed: overloaded")
        reply = "with skill" if request.system else "no skill"
        return TextResponse(text=f"# Answer\n{reply}\n", usage=CallUsage(100, 20))

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (["../secrets.csv"], "'..'"),
        (["evals/../../x.csv"], "'..'"),
        (["/etc/passwd"], "relative path"),
        (["C:\\\\evil.csv"], "relative path"),
        (["evals/files/missing.csv"], "not found"),
    ],
)
def test_input_files_must_stay_inside_the_skill(
    skill: Path, files: list[str], message: str
) -> None:
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill, files))
    with pytest.raises(InputError) as info:
        run_cases(space, evals, skill_dir=skill, executor=TextModelExecutor(FakeTextModel()))
    text = str(info.value)
    assert "small.json" in text and "cases[0].files[0]" in text and message in text
    assert not space.runs_dir.exists()  # validated before anything ran


def test_symlink_escaping_the_skill_is_rejected(skill: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.csv").write_text("a\n")
    (skill / "evals" / "files" / "link.csv").symlink_to(tmp_path / "outside.csv")
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill, ["evals/files/link.csv"]))
    with pytest.raises(InputError, match="outside the skill"):
        run_cases(space, evals, skill_dir=skill, executor=TextModelExecutor(FakeTextModel()))


def test_local_backend_replays_recorded_samples(skill: Path, tmp_path: Path) -> None:
    space = Workspace(tmp_path / "ws")
    init_workspace(skill, space.root)
    evals = read_evals(skill / "evals" / "evals.json")
    batch = run_cases(space, evals, RunOptions(runs=3, backend="local"), skill_dir=skill)
    assert len(batch) == 18 and batch.replayed_samples and batch.missing == []
    assert all(r.is_sample and r.note for r in batch)
    runs = space.iter_runs()
    assert len(runs) == 18
    one = space.run_dir("with_skill", "dedupe-crm-export", 1)
    assert (one / "outputs" / "evals" / "files" / "crm_export.clean.csv").is_file()
    assert load(one / "outputs" / "metrics.json").kind == "metrics"
    assert load(one / "timing.json").kind == "timing"
    assert (one / "transcript.md").read_text().startswith("# Transcript")
    more = run_cases(
        space, evals, RunOptions(runs=4, configs=["baseline"], backend="local"), skill_dir=skill
    )
    assert len(more) == 9 and len(more.missing) == 3


def test_anthropic_executor_and_zero_call_rerun(skill: Path, tmp_path: Path) -> None:
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill))
    model = FakeTextModel()
    with CallCache(tmp_path / "cache.sqlite") as cache:
        batch = run_cases(
            space,
            evals,
            RunOptions(runs=2),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(model),
        )
        assert batch.calls == 4 and batch.hits == 0 and len(model.requests) == 4
        with_skill = [r for r in model.requests if r.system]
        assert len(with_skill) == 2
        assert "Turn a messy delimited file" in with_skill[0].system  # SKILL.md body
        assert all("crm_export.csv" in r.prompt and "Zip Code" in r.prompt for r in model.requests)
        run = space.run_dir("with_skill", "one", 1)
        record = read_run_record(run / "run.json")
        assert record.status == "ok" and record.version == 0 and not record.is_sample
        assert (run / "outputs" / "response.md").read_text() == "# Answer\nwith skill\n"
        base = space.run_dir("baseline", "one", 2)
        assert "no skill" in (base / "outputs" / "response.md").read_text()
        metrics = json.loads((run / "outputs" / "metrics.json").read_text())
        assert metrics["files_created"] == ["response.md"] and metrics["total_tool_calls"] == 0
        assert json.loads((run / "timing.json").read_text())["total_tokens"] == 120
        again = run_cases(
            space,
            evals,
            RunOptions(runs=2),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(model),
        )
        assert again.calls == 0 and again.hits == 4 and len(model.requests) == 4
        assert (run / "outputs" / "response.md").read_text() == "# Answer\nwith skill\n"


def test_failed_call_is_an_error_run_and_not_cached(skill: Path, tmp_path: Path) -> None:
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill))
    with CallCache(tmp_path / "cache.sqlite") as cache:
        batch = run_cases(
            space,
            evals,
            RunOptions(runs=1, configs=["baseline"]),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(FakeTextModel(fail=True)),
        )
        assert [r.status for r in batch] == ["error"] and "overloaded" in (batch[0].error or "")
        ok = run_cases(
            space,
            evals,
            RunOptions(runs=1, configs=["baseline"]),
            skill_dir=skill,
            cache=cache,
            executor=TextModelExecutor(FakeTextModel()),
        )
        assert ok.calls == 1 and ok[0].status == "ok"


def _agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, skill_name: str) -> ClaudeCodeExecutor:
    record = tmp_path / "calls"
    record.mkdir(exist_ok=True)
    monkeypatch.setenv("CLAUDECODE", "1")  # set inside a Claude Code session: must not leak
    return ClaudeCodeExecutor(
        claude_bin=FAKE_AGENT,
        timeout=60,
        env={
            "FAKE_AGENT_SKILL": skill_name,
            "FAKE_AGENT_INPUT": "evals/files/crm_export.csv",
            "FAKE_AGENT_RECORD": str(record),
        },
    )


def test_claude_code_executor_computes_metrics_from_events(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill))
    with CallCache(tmp_path / "cache.sqlite") as cache:
        batch = run_cases(
            space,
            evals,
            RunOptions(runs=1, configs=["with_skill"]),
            skill_dir=skill,
            cache=cache,
            executor=_agent(tmp_path, monkeypatch, "csv-cleanup"),
        )
        assert [r.status for r in batch] == ["ok"], batch[0].error
        run = space.run_dir("with_skill", "one", 1)
        assert (run / "outputs" / "out" / "summary.md").read_text().startswith("Summary for")
        metrics = json.loads((run / "outputs" / "metrics.json").read_text())
        assert metrics["tool_calls"] == {"Read": 1, "Bash": 1, "Write": 1}
        assert metrics["total_tool_calls"] == 3 and metrics["total_steps"] == 4
        assert metrics["errors_encountered"] == 1
        assert metrics["files_created"] == ["out/summary.md"]  # inputs and .claude/ excluded
        md = (run / "transcript.md").read_text()
        assert metrics["transcript_chars"] == len(md) and "### Tool call: Write" in md
        assert metrics["output_chars"] == len((run / "outputs/out/summary.md").read_text())
        timing = json.loads((run / "timing.json").read_text())
        assert timing["total_tokens"] == 1250
        # the duration is the session's own (`duration_ms` of its result event), not wall time
        assert timing["duration_ms"] == 4321 and timing["total_duration_seconds"] == 4.3
        lines = (run / "transcript.jsonl").read_text().splitlines()
        assert (
            json.loads(lines[0])["subtype"] == "init" and json.loads(lines[-1])["type"] == "result"
        )
        assert batch[0].final_text == "Wrote out/summary.md."
        assert "must-not-leak" not in (run / "transcript.jsonl").read_text()
        again = run_cases(
            space,
            evals,
            RunOptions(runs=1, configs=["with_skill"]),
            skill_dir=skill,
            cache=cache,
            executor=_agent(tmp_path, monkeypatch, "csv-cleanup"),
        )
        assert again.calls == 0 and again.hits == 1
        assert len(list((tmp_path / "calls").iterdir())) == 1
        assert (run / "outputs" / "out" / "summary.md").is_file()


def test_claude_code_baseline_has_no_skill_and_errors_are_reported(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill))
    batch = run_cases(
        space,
        evals,
        RunOptions(runs=1, configs=["baseline"]),
        skill_dir=skill,
        executor=_agent(tmp_path, monkeypatch, ""),
    )
    assert batch[0].status == "ok", batch[0].error
    assert batch[0].version is None and batch[0].skill_name is None
    executor = _agent(tmp_path, monkeypatch, "")
    executor.extra_env["FAKE_AGENT_SCENARIO"] = "error"
    failed = run_cases(
        space, evals, RunOptions(runs=1, configs=["baseline"]), skill_dir=skill, executor=executor
    )
    assert failed[0].status == "error" and "is_error" in (failed[0].error or "")


def test_version_configs_use_snapshots(skill: Path, tmp_path: Path) -> None:
    from skillbench.behavior.workspace import snapshot

    space = init_workspace(skill).workspace
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "\nVERSION-ONE-MARKER\n")
    snapshot(skill)
    evals = read_evals(small_evals(skill))
    model = FakeTextModel()
    batch = run_cases(
        space,
        evals,
        RunOptions(runs=1, configs=["v0", "v1"]),
        skill_dir=skill,
        executor=TextModelExecutor(model),
    )
    assert [r.version for r in batch] == [0, 1]
    marked = [req for req in model.requests if "VERSION-ONE-MARKER" in req.system]
    assert len(model.requests) == 2 and len(marked) == 1
    with pytest.raises(InputError, match="v7"):
        run_cases(
            space,
            evals,
            RunOptions(configs=["v7"]),
            skill_dir=skill,
            executor=TextModelExecutor(model),
        )


def test_cli_run_local_replay(
    skill: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = tmp_path / "ws"
    assert main(["run", str(skill), "--workspace", str(ws), "--backend", "local"]) == 0
    err = capsys.readouterr().err
    assert "SAMPLE" in err and "18 replayed sample runs" in err
    assert main(["run", str(skill), "--workspace", str(ws), "--configs", "bogus"]) == 2
    assert main(["run", str(skill), "--workspace", str(ws), "--runs", "5"]) == 1


@pytest.mark.parametrize(
    "extra",
    [
        ["--evals", "BAD_FILES"],  # a `files` entry climbing out of the skill
        ["--evals", "MISSING_FILE"],  # a `files` entry that does not exist
        ["--configs", "v3"],  # no snapshot v3 (a fresh workspace has only v0)
        ["--samples", "NO_SAMPLES"],  # local backend, nothing to replay
    ],
)
def test_cli_run_bad_input_creates_nothing(
    skill: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    replace = {
        "BAD_FILES": str(small_evals(skill, ["../secrets.csv"])),
        "MISSING_FILE": str(small_evals(skill, ["evals/files/missing.csv"])),
        "NO_SAMPLES": str(tmp_path / "no-samples"),
    }
    args = [replace.get(a, a) for a in extra]
    ws = tmp_path / "ws"
    before = sorted(p.relative_to(skill) for p in skill.rglob("*"))
    assert main(["run", str(skill), "--workspace", str(ws), "--backend", "local", *args]) == 2
    assert not ws.exists()  # validated before the workspace was initialised
    assert sorted(p.relative_to(skill) for p in skill.rglob("*")) == before
    assert "<input>" not in capsys.readouterr().err


def test_cli_run_bad_evals_default_workspace_not_created(skill: Path) -> None:
    evals = skill / "evals" / "evals.json"
    data = json.loads(evals.read_text())
    data["cases"][0]["files"] = ["/etc/passwd"]
    evals.write_text(json.dumps(data))
    assert main(["run", str(skill)]) == 2
    assert not (skill.parent / "csv-cleanup-workspace").exists()


def test_shipped_samples_cannot_pass_for_real_runs(skill: Path, tmp_path: Path) -> None:
    shipped = list((ROOT / "data" / "runs" / "csv-cleanup").rglob("run.json"))
    assert len(shipped) == 18
    assert {read_run_record(p).backend for p in shipped} == {"local-sample"}
    space = Workspace(tmp_path / "ws")
    init_workspace(skill, space.root)
    evals = read_evals(skill / "evals" / "evals.json")
    batch = run_cases(space, evals, RunOptions(runs=1, backend="local"), skill_dir=skill)
    assert len(batch) == 6 and {r.backend for r in batch} == {"local-sample"}
    assert all(load(r.run_json).kind == "run-record" for r in space.iter_runs())


def test_replayed_samples_pass_the_redactor(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-ant-api03-SAMPLECANARY0123456789abcdef"
    token = "plainSampleTokenValue0123"
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", token)
    samples = tmp_path / "samples"
    shutil.copytree(ROOT / "data" / "runs" / "csv-cleanup", samples)
    run = samples / "runs" / "with_skill" / "dedupe-crm-export" / "run-1"
    (run / "outputs" / "leak.md").write_text(f"key {key} token {token}\n")
    (run / "outputs" / "leak.bin").write_bytes(b"\xff\x00" + key.encode())
    with (run / "transcript.md").open("a") as handle:
        handle.write(f"\n{key}\n")
    space = Workspace(tmp_path / "ws")
    init_workspace(skill, space.root)
    evals = read_evals(skill / "evals" / "evals.json")
    run_cases(
        space, evals, RunOptions(runs=1, backend="local", samples_dir=samples), skill_dir=skill
    )
    copied = space.run_dir("with_skill", "dedupe-crm-export", 1)
    assert (copied / "outputs" / "leak.md").read_text() == "key [REDACTED] token [REDACTED]\n"
    assert not (copied / "outputs" / "leak.bin").exists()
    record = read_run_record(copied / "run.json")
    assert record.redacted_outputs == ["leak.md"] and record.withheld_outputs == ["leak.bin"]
    for path in space.root.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes() and token.encode() not in path.read_bytes()


@pytest.mark.parametrize(
    "prompt",
    [
        '--settings={"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch x"}]}]}}',
        "- clean my csv",
    ],
)
def test_a_case_prompt_is_never_an_argument(
    skill: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prompt: str
) -> None:
    """The case prompt reaches the agent CLI on stdin, whole (the fake fails when it finds the
    prompt among its arguments): a prompt beginning with `-` is a task, never an option."""
    space = init_workspace(skill).workspace
    evals = read_evals(small_evals(skill, prompt=prompt))
    batch = run_cases(
        space,
        evals,
        RunOptions(runs=1, configs=["with_skill"]),
        skill_dir=skill,
        executor=_agent(tmp_path, monkeypatch, "csv-cleanup"),
    )
    assert [r.status for r in batch] == ["ok"], batch[0].error
    (call,) = (json.loads(p.read_text()) for p in (tmp_path / "calls").iterdir())
    assert call["prompt"] == prompt
