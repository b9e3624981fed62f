"""A backend plugin outside skillbench (`tests/toy_backend/`) registers a toy backend through
the `skillbench.backends` entry point, discovered by `importlib.metadata` from a dist-info on
sys.path exactly as an installed package would be, and trigger, improve and run (behavior) go
through it with no change to skillbench (issue 22: a backend is one object)."""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from skillbench.backends import registry
from skillbench.backends.spec import (
    BACKEND_ENTRY_POINTS,
    BUILTIN_TARGETS,
    BackendSpec,
    entry_point_specs,
)
from skillbench.cli import main

TOY = Path(__file__).resolve().parent / "toy_backend"
DESCRIPTION = "Tidies messy exports. Use when a user hands over a file to clean"
SKILL_MD = f"---\nname: tidy\ndescription: {DESCRIPTION}\n---\n# tidy\n\nTidy the file.\n"
POSITIVE = ["clean", "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
NEGATIVE = ["weather", "poems", "taxes", "recipes", "football", "music", "travel", "gardens"]


def install_toy(site: Path, points: dict[str, str] | None = None) -> None:
    """Write the toy's dist-info (METADATA, and entry_points.txt from its pyproject.toml, or
    `points`) in `site`, as pip would."""
    project = tomllib.loads((TOY / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    if points is not None:
        project["entry-points"] = {BACKEND_ENTRY_POINTS: points}
    info = site / f"toy_backend-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n",
        encoding="utf-8",
    )
    lines = [f"[{BACKEND_ENTRY_POINTS}]"]
    for name, value in project["entry-points"][BACKEND_ENTRY_POINTS].items():
        lines.append(f"{name} = {value}")
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    site = tmp_path / "site"
    install_toy(site)
    added = [str(site), str(TOY)]
    sys.path[:0] = added
    entry_point_specs.cache_clear()
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(registry.BACKEND_ENV, raising=False)
    try:
        yield "toy"
    finally:
        for entry in added:
            sys.path.remove(entry)
        for module in [m for m in sys.modules if m == "toy_backend" or m.startswith("toy_")]:
            del sys.modules[module]
        entry_point_specs.cache_clear()


def make_skill(root: Path) -> tuple[Path, Path]:
    skill = root / "tidy"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    cases = {
        "cases": [
            {
                "id": "sort-out",
                "prompt": "Please sort out the export.",
                "expectations": [
                    {
                        "criterion": "answered",
                        "description": "writes an answer naming the skill",
                        "required": True,
                        "check": {
                            "type": "contains",
                            "target": "outputs/answer.md",
                            "value": "using skill tidy",
                        },
                    }
                ],
            }
        ]
    }
    (skill / "evals" / "evals.json").write_text(json.dumps(cases), encoding="utf-8")
    queries = [{"query": f"please sort out the {w}", "should_trigger": True} for w in POSITIVE]
    queries += [
        {"query": f"unrelated request about {w}", "should_trigger": False} for w in NEGATIVE
    ]
    trigger_evals = root / "trigger.json"
    trigger_evals.write_text(json.dumps(queries), encoding="utf-8")
    return skill, trigger_evals


def test_without_its_dist_info_the_toy_is_unknown() -> None:
    assert "toy" not in registry.available_backends()


def test_the_toy_is_found_by_its_entry_point(toy: str) -> None:
    assert toy in registry.available_backends()
    assert registry.resolve_backend_name("toybox") == toy
    spec = registry.backend_spec(toy)
    assert spec.default_workers == 2 and registry.default_workers(toy) == 2
    assert toy in registry.backend_choices() and "toy 2" in registry.workers_help()
    judge = registry.get_judge(toy, workers=3)
    assert type(judge).__module__ == "toy_backend.parts"
    assert judge.max_concurrency == 3  # type: ignore[attr-defined]


def test_trigger_improve_and_run_go_through_the_toy(toy: str, tmp_path: Path) -> None:
    skill, trigger_evals = make_skill(tmp_path)
    common = ["--backend", toy, "--runs", "1", "--cache", str(tmp_path / "cache.sqlite")]

    # trigger: the keyword router fires on "clean" only, so the eval runs and fails honestly
    out = tmp_path / "trigger.json.out"
    code = main(["trigger", str(skill), "--evals", str(trigger_evals), *common, "--out", str(out)])
    assert code == 1
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["backend"]["name"] == toy and report["backend"]["model"] == "toy-1"
    fired = {r["query"]: r["triggers"] for r in report["results"]}
    assert fired["please sort out the clean"] == 1 and fired["please sort out the alpha"] == 0

    # improve: the toy text model proposes the missed queries' words; the description gains them
    improved = tmp_path / "improved"
    code = main(
        ["improve", str(skill), "--evals", str(trigger_evals), *common, "--rounds", "2",
         "--out", str(improved)]
    )  # fmt: skip
    assert code == 0
    summary = json.loads((improved / "loop_summary.json").read_text(encoding="utf-8"))
    assert summary["settings"]["backend"] == toy
    proposed = [it["description"] for it in summary["iterations"]]
    assert any(d != DESCRIPTION and d.startswith(DESCRIPTION) for d in proposed), proposed

    # run (behavior): the toy executor writes an answer per run, with and without the skill
    workspace = tmp_path / "ws"
    assert main(["run", str(skill), "--workspace", str(workspace), *common]) == 0
    with_skill = workspace / "runs" / "with_skill" / "sort-out" / "run-1" / "outputs"
    baseline = workspace / "runs" / "baseline" / "sort-out" / "run-1" / "outputs"
    assert "using skill tidy" in (with_skill / "answer.md").read_text(encoding="utf-8")
    assert "no skill" in (baseline / "answer.md").read_text(encoding="utf-8")


def test_a_broken_plugin_is_skipped_with_one_warning_and_only_choosing_it_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "broken-site"
    install_toy(site, {"broken": "toy_backend.no_such_module:SPEC"})
    sys.path[:0] = [str(site), str(TOY)]
    entry_point_specs.cache_clear()
    try:
        skill, evals = make_skill(tmp_path)
        trigger = ["trigger", str(skill), "--evals", str(evals), "--dry-run", "--no-cache"]
        capsys.readouterr()
        assert main([*trigger, "--backend", "local"]) == 0
        err = capsys.readouterr().err
        assert err.count("'broken'") == 1  # one warning naming it, shown once, no traceback
        assert "skillbench: warning: backend entry point 'broken'" in err
        assert "Traceback" not in err
        assert "local" in registry.available_backends()
        assert "broken" not in registry.available_backends()
        assert "no_such_module" in registry.skipped_backends()["broken"]
        assert main([*trigger, "--backend", "broken"]) == 2  # choosing it: exit 2 naming it
        err = capsys.readouterr().err
        assert "error: backend entry point 'broken' (toy_backend.no_such_module:SPEC)" in err
    finally:
        sys.path.remove(str(site))
        sys.path.remove(str(TOY))
        sys.modules.pop("toy_backend", None)
        entry_point_specs.cache_clear()
    assert "toy" not in registry.available_backends()


def test_without_the_entry_point_group_the_builtins_are_still_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.metadata

    # a dist-info without [skillbench.backends] (a source checkout, a stale editable install)
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **_: ())
    entry_point_specs.cache_clear()
    try:
        assert registry.available_backends() == sorted(BUILTIN_TARGETS)
        assert registry.skipped_backends() == {}
        skill, evals = make_skill(tmp_path)
        args = ["trigger", str(skill), "--evals", str(evals), "--backend", "local", "--runs", "1"]
        assert main([*args, "--dry-run", "--no-cache"]) == 0
        assert "unknown backend" not in capsys.readouterr().err
    finally:
        entry_point_specs.cache_clear()


def test_the_builtin_targets_are_pyprojects_entry_points() -> None:
    pyproject = tomllib.loads((TOY.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["entry-points"][BACKEND_ENTRY_POINTS] == BUILTIN_TARGETS


def test_a_spec_that_cannot_work_is_refused_when_made() -> None:
    with pytest.raises(ValueError, match="default_harness"):
        BackendSpec(name="x", summary="", harnesses={"a": "m:f"}, default_harness="b")
    with pytest.raises(ValueError, match="neither one of"):
        BackendSpec(name="x", summary="", executor="agentic")
