"""`skillbench trigger` end to end with a registered scripted backend: output, files, exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from trigger_fakes import ScriptedJudge

from skillbench.backends import registry
from skillbench.cli import main
from skillbench.schemas.trigger import TriggerReport

BACKEND = "scripted-test"


def make_skill(root: Path, name: str, description: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n# {name}\nBody.\n", encoding="utf-8"
    )
    return folder


@pytest.fixture
def judges(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[ScriptedJudge]]:
    """Register a scripted backend whose script triggers on queries containing the word in the
    description: the judges built are collected so tests can inspect them."""
    made: list[ScriptedJudge] = []

    def factory(**options: object) -> ScriptedJudge:
        judge = ScriptedJudge({"make a pdf": "T", "weather": "N", "flaky one": "TN"})
        judge.options = options  # type: ignore[attr-defined]
        made.append(judge)
        return judge

    registry.register_judge(BACKEND, factory)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SKILLBENCH_CACHE", str(tmp_path / "cache.sqlite"))
    yield made
    registry.unregister(BACKEND)


def run_trigger(skill: Path, evals_file: str, *extra: str) -> int:
    """`skillbench trigger SKILL --evals FILE --backend <the scripted test backend> EXTRA...`."""
    return main(["trigger", str(skill), "--evals", evals_file, "--backend", BACKEND, *extra])


def evals(tmp_path: Path, items: list[dict[str, object]]) -> Path:
    path = tmp_path / "evals.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


GOOD = [
    {"query": "make a pdf", "should_trigger": True},
    {"query": "weather", "should_trigger": False},
]


def test_all_pass_exit_0_and_out_file(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path / "skills", "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    out = tmp_path / "out" / "report.json"
    code = run_trigger(skill, str(evals(tmp_path, GOOD)), "--out", str(out), "--no-cache")
    assert code == 0
    report = TriggerReport.model_validate_json(out.read_text(encoding="utf-8"))
    assert report.summary.passed == 2 and report.skill_name == "pdf-maker"
    printed = capsys.readouterr().out
    assert "make a pdf" in printed and "precision" in printed
    assert judges[0].closed


def test_a_failing_query_exits_1_and_json_goes_to_stdout(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path, "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    items = [
        *GOOD,
        {"query": "weather", "should_trigger": False},
        {"query": "x", "should_trigger": True},
    ]
    code = run_trigger(skill, str(evals(tmp_path, items)), "--json", "--runs", "2", "--no-cache")
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["failed"] == 1 and data["config"]["runs"] == 2
    assert any("appeared 2 times" in n for n in data["notes"])


def test_broken_signature_warning_is_printed(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path, "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    items = [
        {"query": "never fires", "should_trigger": True},
        {"query": "weather", "should_trigger": False},
    ]
    code = run_trigger(skill, str(evals(tmp_path, items)), "--no-cache")
    assert code == 1
    assert "BROKEN-HARNESS SIGNATURE" in capsys.readouterr().err


def test_description_override_catalog_batch_and_cache(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path / "skills", "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    original = (skill / "SKILL.md").read_bytes()
    catalog = tmp_path / "data" / "catalog"
    make_skill(catalog, "weather-skill", "Forecasts. Use when weather is asked.")
    make_skill(catalog, "pdf-maker", "An installed copy of the target.")
    args = [
        "--catalog",
        str(catalog),
        "--description",
        "Candidate text. Use when testing.",
        "--batch",
        "--json",
        "--cache",
        str(tmp_path / "c.sqlite"),
    ]
    eval_file = str(evals(tmp_path, GOOD))
    assert run_trigger(skill, eval_file, *args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["description"] == "Candidate text. Use when testing."
    assert first["config"]["catalog"] == ["weather-skill"]
    assert first["catalog"]["source"] == str(catalog)
    assert first["catalog"]["skills"] == ["weather-skill"] and len(first["catalog"]["sha256"]) == 64
    assert judges[0].options == {"batch": True}  # type: ignore[attr-defined]
    assert [s.name for s in judges[0].requests[0].catalog] == ["weather-skill"]
    assert (skill / "SKILL.md").read_bytes() == original
    assert (
        first["summary"]["calls"] == 8 and first["summary"]["cache_hits"] == 0
    )  # 2 queries × 4 runs (the default)
    assert run_trigger(skill, eval_file, *args) == 0  # unchanged: served by the cache, 0 calls
    second = json.loads(capsys.readouterr().out)
    assert second["summary"]["calls"] == 0 and second["summary"]["cache_hits"] == 8


@pytest.mark.parametrize(
    ("extra", "content"),
    [
        ([], [{"query": "a", "should_trigger": "yes"}]),
        (["--threshold", "2"], GOOD),
        (["--runs", "zero"], GOOD),
        (["--description", "  "], GOOD),
        (["--catalog", "no/such/dir"], GOOD),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path,
    judges: list[ScriptedJudge],
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    content: list[dict[str, object]],
) -> None:
    skill = make_skill(tmp_path, "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    out = tmp_path / "report.json"
    code = run_trigger(
        skill, str(evals(tmp_path, content)), "--no-cache", "--out", str(out), *extra
    )
    assert code == 2
    assert not out.exists()
    assert "Traceback" not in capsys.readouterr().err


def test_missing_skill_dir_exits_2(tmp_path: Path, judges: list[ScriptedJudge]) -> None:
    assert run_trigger(tmp_path / "nope", str(evals(tmp_path, GOOD))) == 2


def test_catalog_default_is_none_even_when_data_catalog_exists(
    tmp_path: Path,
    judges: list[ScriptedJudge],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    skill = make_skill(tmp_path / "skills", "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    make_skill(tmp_path / "data" / "catalog", "weather-skill", "Forecasts. Use when weather.")
    monkeypatch.chdir(tmp_path)  # a data/catalog in the working directory must not be used
    assert run_trigger(skill, str(evals(tmp_path, GOOD)), "--json", "--no-cache") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["catalog"] == [] and report["catalog"]["source"] == "none"
    assert judges[0].requests[0].catalog == ()


def test_catalog_installed_reads_claude_code_skill_folders(
    tmp_path: Path,
    judges: list[ScriptedJudge],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Named and ordered as Claude Code lists them: the user's skills (ICU order), then the
    project's, then the enabled plugins' as `<plugin>:<folder>` (a disabled plugin's, and one
    whose marketplace does not list it, left out)."""
    skill = make_skill(tmp_path / "skills", "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    config = tmp_path / "config"
    make_skill(config / "skills", "zeta-user", "User level. Use when user things.")
    make_skill(config / "skills", "Alpha-user", "User level. Use when alpha things.")
    project = tmp_path / "project"
    make_skill(project / ".claude" / "skills", "project-skill", "Project. Use when project.")
    market = tmp_path / "market"
    plugin = market / "plugins" / "good"
    make_skill(plugin / "skills", "plugin-skill", "Plugin. Use when plugin.")
    (plugin / ".claude-plugin").mkdir()
    (plugin / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "goodies"}))
    make_skill(market / "plugins" / "off" / "skills", "disabled-skill", "Off. Use never.")
    make_skill(tmp_path / "stray" / "skills", "stray-skill", "Stray. Use never.")
    (market / ".claude-plugin").mkdir()
    entries = [{"name": n, "source": f"./plugins/{n}"} for n in ("good", "off")]
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps({"name": "mkt", "owner": {"name": "A"}, "plugins": entries})
    )
    (config / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"good@mkt": True, "off@mkt": False, "stray@mkt": True}})
    )
    (config / "plugins").mkdir()
    source = {"source": "directory", "path": str(market)}
    (config / "plugins" / "known_marketplaces.json").write_text(
        json.dumps({"mkt": {"source": source, "installLocation": str(market)}})
    )
    (config / "plugins" / "installed_plugins.json").write_text(
        json.dumps(
            {
                "version": 2,
                "plugins": {
                    "good@mkt": [{"installPath": str(plugin)}],
                    "stray@mkt": [{"installPath": str(tmp_path / "stray")}],
                },
            }
        )
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    monkeypatch.chdir(project)
    args = ["--catalog", "installed", "--json", "--no-cache"]
    assert run_trigger(skill, str(evals(tmp_path, GOOD)), *args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["catalog"]["skills"] == [
        "Alpha-user",
        "zeta-user",
        "project-skill",
        "goodies:plugin-skill",
    ]
    assert report["catalog"]["source"] == "installed"


def test_missing_catalog_folder_names_the_option(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path, "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    code = run_trigger(skill, str(evals(tmp_path, GOOD)), "--catalog", "no/such/dir")
    assert code == 2
    assert "--catalog" in capsys.readouterr().err


def test_harness_is_refused_for_other_backends(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path, "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    code = run_trigger(skill, str(evals(tmp_path, GOOD)), "--harness", "minimal")
    assert code == 2
    assert "--harness" in capsys.readouterr().err
    assert judges == [] or judges[0].requests == []
    code = run_trigger(skill, str(evals(tmp_path, GOOD)), "--cache-before-query")
    assert code == 2
    assert "--cache-before-query" in capsys.readouterr().err


def test_cache_before_query_needs_the_replay_harness(
    tmp_path: Path, judges: list[ScriptedJudge], capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(tmp_path, "pdf-maker", "Makes PDFs. Use when a PDF is wanted.")
    args = ("--backend", "anthropic", "--harness", "minimal", "--cache-before-query")
    code = run_trigger(skill, str(evals(tmp_path, GOOD)), *args)
    assert code == 2
    err = capsys.readouterr().err
    assert "--cache-before-query" in err and "replay harness only" in err
