"""`skillbench improve` end to end with registered fake backends: files, progress, cache, apply."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from improve_fakes import BASE, KeywordJudge, RecordingTextModel, learner, sample_queries, tagged

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.improve.run import load_history, load_loop_summary
from skillbench.improve.splits import SPLIT_NAMES, stratified_split
from skillbench.skill import Skill

BACKEND = "fake-improve"
SKILL_MD = (
    "---\r\n"
    "# a comment that must survive\r\n"
    "name: tidy\r\n"
    f"description: {BASE}\r\n"
    "license: MIT\r\n"
    "---\r\n"
    "# tidy\r\n\r\nBody text.\r\n"
)


class Made:
    """Every fake judge and text model the CLI built."""

    def __init__(self) -> None:
        self.judges: list[KeywordJudge] = []
        self.models: list[RecordingTextModel] = []
        self.reply = learner

    @property
    def judge_calls(self) -> int:
        return sum(len(j.requests) for j in self.judges)

    @property
    def model_calls(self) -> int:
        return sum(len(m.requests) for m in self.models)


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Made]:
    record = Made()

    def judge(**options: object) -> KeywordJudge:
        record.judges.append(KeywordJudge())
        return record.judges[-1]

    def model(**options: object) -> RecordingTextModel:
        record.models.append(RecordingTextModel(record.reply))
        return record.models[-1]

    registry.register_judge(BACKEND, judge)
    registry.register_text_model(BACKEND, model)
    monkeypatch.chdir(tmp_path)
    yield record
    registry.unregister(BACKEND)


def setup(tmp_path: Path) -> tuple[Path, Path]:
    skill = tmp_path / "tidy"
    skill.mkdir()
    (skill / "SKILL.md").write_bytes(SKILL_MD.encode("utf-8"))
    evals = tmp_path / "evals.json"
    items = [
        {"query": q.text, "should_trigger": q.should_trigger, "family": q.family}
        for q in sample_queries()
    ]
    evals.write_text(json.dumps(items), encoding="utf-8")
    return skill, evals


def improve(skill: Path, evals: Path, *extra: str) -> int:
    return main(
        ["improve", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs", "1",
         "--cache", "cache.sqlite", "--out", "out", *extra]
    )  # fmt: skip


def test_writes_outputs_and_progress(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "3") == 0
    err = capsys.readouterr().err
    assert "round 1/3: train" in err and "stopped:" in err
    summary = load_loop_summary(tmp_path / "out")
    history = load_history(tmp_path / "out" / "history.json")
    assert len(history.root) == summary.total_rounds
    for it in summary.iterations:
        assert (tmp_path / "out" / f"round_{it.round:02d}.trigger.json").is_file()
    assert summary.split is not None and summary.settings is not None
    assert summary.settings.backend == "keyword"
    assert (skill / "SKILL.md").read_bytes() == SKILL_MD.encode(
        "utf-8"
    )  # untouched without --apply


def test_each_round_prints_its_candidate_and_selection_result(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31: the progress names every round's description and what the selection split
    made of it, not only its counts."""
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "3") == 0
    err = capsys.readouterr().err
    summary = load_loop_summary(tmp_path / "out")
    assert f"round 1/3: original: {BASE}" in err
    assert "selection result: the original, the round to beat" in err
    for it in summary.iterations[1:]:
        assert f"round {it.round}/3: candidate: {it.description}" in err
    evaluated = [line for line in err.splitlines() if ": train " in line]
    assert len(evaluated) == summary.total_rounds
    assert all("; selection result: " in line for line in evaluated), evaluated
    best = summary.best_iteration
    assert best is not None
    if best.round > 1:
        assert f"round {best.round}/3: train" in err and "best so far" in err
    else:
        assert "not chosen, round 1 stays best" in err


def test_a_non_empty_out_is_refused_unless_overwrite(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31: an earlier run's outputs are never replaced silently; exit 2 naming the
    folder before any call, and `--overwrite` (a resume: the cache answers) replaces them."""
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "2") == 0
    calls = (made.judge_calls, made.model_calls)
    summary = (tmp_path / "out" / "loop_summary.json").read_bytes()
    capsys.readouterr()
    assert improve(skill, evals, "--rounds", "3") == 2
    err = capsys.readouterr().err
    assert "--out" in err and "'out' already holds files" in err and "--overwrite" in err
    assert (made.judge_calls, made.model_calls) == calls  # refused before any call
    assert (tmp_path / "out" / "loop_summary.json").read_bytes() == summary
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep", encoding="utf-8")
    assert main(["improve", str(skill), "--evals", str(evals), "--out", str(other)]) == 2
    assert "'" + str(other) + "' already holds files" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert improve(skill, evals, "--rounds", "2", "--out", "empty") == 0  # an empty one is fine
    assert improve(skill, evals, "--rounds", "2", "--overwrite") == 0
    assert (made.judge_calls, made.model_calls) == calls  # a re-run is answered by the cache


def test_rerun_makes_zero_calls(tmp_path: Path, made: Made) -> None:
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "3") == 0
    first = (made.judge_calls, made.model_calls)
    assert first[0] > 0 and first[1] > 0
    before = (tmp_path / "out" / "loop_summary.json").read_text(encoding="utf-8")
    assert improve(skill, evals, "--rounds", "3", "--overwrite") == 0
    assert (made.judge_calls, made.model_calls) == first
    after = json.loads((tmp_path / "out" / "loop_summary.json").read_text(encoding="utf-8"))
    assert after["final_description"] == json.loads(before)["final_description"]
    assert improve(skill, evals, "--rounds", "3", "--no-cache", "--overwrite") == 0
    assert made.judge_calls > first[0]


def test_apply_writes_best_description_and_keeps_every_other_byte(
    tmp_path: Path, made: Made
) -> None:
    skill, evals = setup(tmp_path)
    words = [q.text.split()[-1] for q in sample_queries() if q.should_trigger]
    made.reply = lambda request: tagged(f"{BASE}, {', '.join(words)}.")  # a domain expert
    # the sample's selection split is tiny: only a lenient adoption level lets a gain through
    assert improve(skill, evals, "--rounds", "3", "--apply", "--adopt-alpha", "0.6") == 0
    summary = load_loop_summary(tmp_path / "out")
    assert summary.final_description != BASE
    assert summary.adoption is not None and summary.adoption.adopted, summary.adoption
    raw = (skill / "SKILL.md").read_bytes().decode("utf-8")
    assert Skill.load(skill).description == summary.final_description
    expected = SKILL_MD.replace(BASE, summary.final_description)
    assert raw == expected


def test_apply_keeps_the_original_when_the_gain_is_noise(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    words = [q.text.split()[-1] for q in sample_queries() if q.should_trigger]
    made.reply = lambda request: tagged(f"{BASE}, {', '.join(words)}.")
    assert improve(skill, evals, "--rounds", "3", "--apply") == 0
    summary = load_loop_summary(tmp_path / "out")
    assert summary.adoption is not None and not summary.adoption.adopted
    assert summary.adoption.p_value is not None and summary.adoption.p_value >= 0.05
    assert (skill / "SKILL.md").read_bytes() == SKILL_MD.encode("utf-8")
    out = capsys.readouterr().out
    assert "original (round 1): selection" in out and "chosen (round 1): selection" in out
    assert "SKILL.md unchanged: the original description is kept" in out
    assert improve(skill, evals, "--adopt-alpha", "1") == 2


def test_apply_leaves_file_alone_when_original_is_best(tmp_path: Path, made: Made) -> None:
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "1", "--apply") == 0
    assert (skill / "SKILL.md").read_bytes() == SKILL_MD.encode("utf-8")


def test_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--split", "0.5,0.5") == 2
    few = tmp_path / "few.json"
    few.write_text(
        json.dumps([{"query": f"q{i}", "should_trigger": i < 8} for i in range(10)]),
        encoding="utf-8",
    )
    assert improve(skill, few) == 2
    err = capsys.readouterr().err
    assert "few.json" in err and "negative" in err
    assert not (tmp_path / "out").exists()
    assert made.judge_calls == 0


@pytest.mark.parametrize("out", ["taken.txt", "taken.txt/sub"])
def test_out_onto_or_below_a_file_exits_2_before_any_call(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    skill, evals = setup(tmp_path)
    (tmp_path / "taken.txt").write_text("keep me", encoding="utf-8")
    code = main(
        ["improve", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs", "1",
         "--cache", "cache.sqlite", "--out", out]
    )  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "--out" in err and "taken.txt" in err and "Traceback" not in err
    assert made.judge_calls == 0 and made.model_calls == 0  # checked before the loop
    assert (tmp_path / "taken.txt").read_text(encoding="utf-8") == "keep me"
    assert not (tmp_path / "cache.sqlite").exists()


def split_queries(summary_dir: Path) -> tuple[list[str], list[str], list[str]]:
    split = load_loop_summary(summary_dir).split
    assert split is not None
    train, selection, test = ([q.text for q in getattr(split, n)] for n in SPLIT_NAMES)
    return train, selection, test


def test_split_from_reuses_the_recorded_split_with_another_backend_seed(
    tmp_path: Path, made: Made
) -> None:
    skill, evals = setup(tmp_path)
    first, drawn, reused = tmp_path / "first", tmp_path / "drawn", tmp_path / "reused"
    assert improve(skill, evals, "--rounds", "1", "--seed", "3", "--out", str(first)) == 0
    assert improve(skill, evals, "--rounds", "1", "--seed", "9", "--out", str(drawn)) == 0
    assert split_queries(drawn) != split_queries(first)  # the seed alone would move the split
    for source in (first, first / "loop_summary.json"):  # a folder or the file itself
        code = improve(
            skill, evals, "--rounds", "1", "--seed", "9", "--split-from", str(source),
            "--out", str(reused), "--overwrite",
        )  # fmt: skip
        assert code == 0
        assert split_queries(reused) == split_queries(first)
        again = load_loop_summary(reused)
        assert again.split is not None and again.split.seed == 3
        assert again.settings is not None and again.settings.seed == 9


def test_split_seed_is_separate_from_the_backend_seed(tmp_path: Path, made: Made) -> None:
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "1", "--seed", "0", "--split-seed", "4") == 0
    summary = load_loop_summary(tmp_path / "out")
    expected = stratified_split(sample_queries(), seed=4)
    assert split_queries(tmp_path / "out") == (expected.train, expected.selection, expected.test)
    assert summary.split is not None and summary.split.seed == 4
    assert summary.settings is not None and summary.settings.seed == 0


def test_split_from_must_match_the_eval_set_and_stand_alone(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "1") == 0
    (tmp_path / "out").rename(tmp_path / "before")
    calls = made.judge_calls
    other = tmp_path / "other.json"
    items = json.loads(evals.read_text(encoding="utf-8"))
    items[0]["query"] = "a query the recorded split never saw"
    other.write_text(json.dumps(items), encoding="utf-8")
    capsys.readouterr()
    assert improve(skill, other, "--split-from", str(tmp_path / "before")) == 2
    err = capsys.readouterr().err
    assert "loop_summary.json" in err and "never saw" in err and "split" in err
    assert (
        improve(skill, evals, "--split-from", str(tmp_path / "before"), "--split", "0.5,0.25,0.25")
        == 2
    )
    assert "--split" in capsys.readouterr().err
    assert improve(skill, evals, "--split-from", str(tmp_path / "before"), "--split-seed", "2") == 2
    assert improve(skill, evals, "--split-from", str(tmp_path / "missing.json")) == 2
    assert made.judge_calls == calls and not (tmp_path / "out").exists()


def test_dry_run_and_run_warn_when_the_selection_split_can_never_adopt(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)  # 20 queries: the default selection split holds 4
    assert improve(skill, evals, "--dry-run", "--backend", "local") == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "no round can ever be adopted" in err
    assert "at least 5 selection queries" in err and "--split 0.55,0.25,0.2" in err
    assert made.judge_calls == 0
    assert improve(skill, evals, "--dry-run", "--backend", "local", "--split", "0.55,0.25,0.2") == 0
    assert "no round can ever be adopted" not in capsys.readouterr().err
    assert improve(skill, evals, "--rounds", "2") == 0
    assert "no round can ever be adopted" in capsys.readouterr().err
    summary = load_loop_summary(tmp_path / "out")
    assert summary.warnings and "--split 0.55,0.25,0.2" in summary.warnings[0]


def test_final_description_is_the_description_kept_never_a_rejected_one(
    tmp_path: Path, made: Made
) -> None:
    skill, evals = setup(tmp_path)
    words = [q.text.split()[-1] for q in sample_queries() if q.should_trigger]
    made.reply = lambda request: tagged(f"{BASE}, {', '.join(words)}.")
    assert improve(skill, evals, "--rounds", "3") == 0
    summary = load_loop_summary(tmp_path / "out")
    assert summary.adoption is not None and not summary.adoption.adopted
    assert summary.best_iteration is not None and summary.best_iteration.description != BASE
    assert summary.final_description == BASE  # the rejected best round is not "the result"


def _broken_json_model(bodies: list[bytes], calls: list[int]) -> object:
    """The real Anthropic text model over a transport answering 200 with `bodies` in turn."""
    import httpx2

    from skillbench.backends.anthropic.sdk import AnthropicTextModel

    async def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        body = bodies[min(len(calls), len(bodies)) - 1]
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    return AnthropicTextModel(
        api_key="sk-ant-api03-" + "k" * 40,
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )


@pytest.mark.parametrize("bodies", [[b""], [b"{not json"], [b"", b"{}"]])
def test_an_invalid_or_empty_json_reply_is_a_recorded_failed_proposal(
    tmp_path: Path,
    made: Made,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bodies: list[bytes],
) -> None:
    calls: list[int] = []
    registry.register_text_model(BACKEND, lambda **options: _broken_json_model(bodies, calls))
    skill, evals = setup(tmp_path)
    assert improve(skill, evals, "--rounds", "3") == 1  # the loop stopped on an error
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no usable reply" in err
    assert len(calls) == 2  # the first try and one retry, then a clear stop
    summary = load_loop_summary(tmp_path / "out")  # round 1 was measured: it is written
    assert summary.total_rounds == 1 and (tmp_path / "out" / "round_01.trigger.json").is_file()
    assert summary.stop_reason is not None and "no usable reply" in summary.stop_reason
    assert summary.proposal_failures is not None and len(summary.proposal_failures) == 2
    assert summary.final_description == BASE


def test_a_shorter_rerun_into_the_same_folder_leaves_no_stale_rounds(
    tmp_path: Path, made: Made, monkeypatch: pytest.MonkeyPatch
) -> None:
    skill, evals = setup(tmp_path)
    seen: list[int] = []

    def distinct(request: object) -> str:  # a new description every round: no early stop
        seen.append(1)
        return tagged(f"{BASE} in variant number {len(seen)}.")

    made.reply = distinct
    assert improve(skill, evals, "--rounds", "4") == 0
    out = tmp_path / "out"
    assert sorted(p.name for p in out.glob("round_*")) == [
        f"round_0{n}.trigger.json" for n in (1, 2, 3, 4)
    ]
    assert improve(skill, evals, "--rounds", "2", "--overwrite") == 0
    summary = load_loop_summary(out)
    assert summary.total_rounds == 2
    assert sorted(p.name for p in out.glob("round_*")) == [
        "round_01.trigger.json",
        "round_02.trigger.json",
    ]
    # a run that dies while writing leaves no summary beside another run's round files
    assert improve(skill, evals, "--rounds", "4", "--overwrite") == 0
    import skillbench.improve.run as improve_run

    real = improve_run.write_json

    def failing(path: Path, data: object) -> Path:
        if Path(path).name == "round_02.trigger.json":
            raise OSError(28, "No space left on device", str(path))
        return real(path, data)

    monkeypatch.setattr(improve_run, "write_json", failing)
    assert improve(skill, evals, "--rounds", "2", "--overwrite") == 2
    assert not (out / "loop_summary.json").exists()
    assert not (out / "round_03.trigger.json").exists()


def test_nothing_measured_exits_1_with_what_was_run_written(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    from trigger_fakes import ScriptedJudge

    skill, evals = setup(tmp_path)
    script = {q.text: "E" for q in sample_queries()}  # every run errors
    registry.register_judge(BACKEND, lambda **options: ScriptedJudge(script))
    assert improve(skill, evals, "--rounds", "2") == 1
    assert "nothing was measured" in capsys.readouterr().err
    assert (tmp_path / "out" / "loop_summary.json").is_file()


def test_a_reply_without_a_description_is_retried_once_then_a_recorded_stop(
    tmp_path: Path, made: Made, capsys: pytest.CaptureFixture[str]
) -> None:
    skill, evals = setup(tmp_path)
    made.reply = lambda request: ""  # an empty reply: nothing to evaluate
    assert improve(skill, evals, "--rounds", "3") == 1
    assert made.model_calls == 2
    summary = load_loop_summary(tmp_path / "out")
    assert summary.total_rounds == 1 and summary.proposal_failures is not None
    assert [f.attempt for f in summary.proposal_failures] == [0, 1]
    assert "no <new_description> tags" in summary.proposal_failures[0].error


def test_the_improve_header_has_the_catalog_row(tmp_path: Path, made: Made) -> None:
    """Issue 20: every report header names its catalog (source, skill count, sha256), the
    improvement and overfitting reports' too."""
    from skillbench.improve.verdict import improve_header, overfitting_header
    from skillbench.reports.header import header_lines

    skill, evals = setup(tmp_path)
    catalog = tmp_path / "catalog" / "pdf-reading"
    catalog.mkdir(parents=True)
    (catalog / "SKILL.md").write_text(
        "---\nname: pdf-reading\ndescription: Reads PDF files. Use when a PDF is given.\n---\n# p\n"
    )
    assert improve(skill, evals, "--rounds", "1", "--catalog", str(tmp_path / "catalog")) == 0
    summary = load_loop_summary(tmp_path / "out")
    assert summary.settings is not None and summary.settings.catalog_sha256
    for header in (improve_header(summary), overfitting_header([summary])):
        assert header.catalog_sha256 == summary.settings.catalog_sha256
        (line,) = [x for x in header_lines(header) if x.strip().startswith("catalog:")]
        assert "1 skill, sha256 " in line and str(tmp_path / "catalog") in line, line


@pytest.mark.parametrize("name", ["x/../../escaped", "/tmp/escaped"])
def test_the_default_out_folder_is_never_a_path_from_the_name(
    tmp_path: Path, made: Made, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default `improve-<name>` folder took the frontmatter name as a path: `x/../../escaped`
    wrote beside the working directory. A name that is not one folder name gives way to the
    skill folder's name."""
    skill, evals = setup(tmp_path)
    (skill / "SKILL.md").write_bytes(SKILL_MD.replace("name: tidy", f"name: {name}").encode())
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    code = main(["improve", str(skill), "--evals", str(evals), "--backend", BACKEND, "--runs",
                 "1", "--cache", str(tmp_path / "cache.sqlite"), "--rounds", "1"])  # fmt: skip
    assert code in (0, 1)
    assert sorted(p.name for p in work.iterdir()) == ["improve-tidy"]
    assert not (tmp_path / "escaped").exists()
