"""The composite action (`action.yml`) run locally as a GitHub runner would run its `run:` steps:
the exact script of each under `bash --noprofile --norc -eo pipefail` (GitHub's `shell: bash`),
its `env:` resolved from the inputs and earlier steps' outputs, `if:` conditions honoured, a
failed step skipping the rest but `if: always()` ones, `$GITHUB_OUTPUT` parsed as the runner
parses it, `$GITHUB_PATH` prepended to later steps' PATH. The `uses:` steps (setup-python,
setup-node, cache, upload-artifact) are GitHub's and are not run; their outputs are empty, as
GitHub's are for a step that set none. `python` on the runner's PATH is this interpreter, its
`-m pip` recorded instead of run (no package index)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
EXPR = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
FAKE_PYTHON = """#!/bin/sh
# this checkout's python; `python -m pip ...` is recorded in $FAKE_PIP_LOG, not run
if [ "$1" = -m ] && [ "$2" = pip ]; then
  printf '%s\\n' "$*" >> "$FAKE_PIP_LOG"
  exit 0
fi
exec "{python}" "$@"
"""
_NOT_EMPTY = re.compile(r"^(steps\.[\w-]+\.outputs\.[\w-]+) != ''$")


def parse_outputs(path: Path) -> dict[str, str]:
    """A `$GITHUB_OUTPUT` file as the runner reads it: `name=value` when `=` comes before any
    `<<`, else a `name<<DELIMITER` block ended by a line equal to the delimiter."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    found, i = {}, 0
    while i < len(lines):
        line = lines[i]
        eq, heredoc = line.find("="), line.find("<<")
        if heredoc >= 0 and (eq < 0 or heredoc < eq):
            name, delim = line[:heredoc], line[heredoc + 2 :]
            end = lines.index(delim, i + 1)
            found[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        found[line[:eq]] = line[eq + 1 :]
        i += 1
    return found


@dataclass
class StepRun:
    id: str | None
    name: str
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]


@dataclass
class ActionRun:
    context: dict[str, Any]
    steps: list[StepRun] = field(default_factory=list)
    summary: Path | None = None

    def step(self, step_id: str) -> StepRun | None:
        return next((s for s in self.steps if s.id == step_id), None)

    @property
    def failed(self) -> bool:
        return any(s.code != 0 for s in self.steps)


def fake_python(bin_dir: Path) -> Path:
    """`bin_dir/python`: this interpreter, `-m pip` recorded in $FAKE_PIP_LOG instead."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    script = bin_dir / "python"
    script.write_text(FAKE_PYTHON.format(python=sys.executable), encoding="utf-8")
    script.chmod(0o755)
    return script


def _resolve(text: str, context: dict[str, Any]) -> str:
    """The expressions the action's env values use; an unknown one fails the test (a missing
    step output is empty, as on GitHub)."""

    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr in context:
            return str(context[expr])
        if expr.startswith("steps."):
            return ""
        raise AssertionError(f"unexpected expression in action.yml: {expr}")

    return EXPR.sub(one, text)


def _should_run(step: dict[str, Any], context: dict[str, Any], failed: bool) -> bool:
    condition = str(step.get("if", "")).strip()
    if condition == "always()":
        return True
    if failed:
        return False
    if not condition:
        return True
    match = _NOT_EMPTY.match(condition)
    if match is None:
        raise AssertionError(f"unexpected condition in action.yml: {condition}")
    return bool(context.get(match.group(1), ""))


def run_action(
    repo: Path,
    tmp: Path,
    inputs: dict[str, str],
    env: dict[str, str],
    pr_base: str,
    outputs: dict[str, str] | None = None,
) -> ActionRun:
    """Every `run:` step of the action, in order, in `repo` (`env` has `fake_python`'s folder
    first on PATH); `outputs` sets the
    outputs of `uses:` steps (`steps.cli-cache.outputs.cache-hit`)."""
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    unknown = set(inputs) - set(action["inputs"])
    assert not unknown, f"inputs action.yml does not declare: {unknown}"
    defaults = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    context: dict[str, Any] = {f"inputs.{k}": v for k, v in {**defaults, **inputs}.items()}
    context.update({"github.action_path": str(ROOT), "runner.temp": str(tmp / "runner"),
                    "github.event.pull_request.base.sha": pr_base, **(outputs or {})})  # fmt: skip
    run = ActionRun(context, summary=tmp / "summary.md")
    github_path = tmp / "github-path.txt"
    path_added: list[str] = []
    for n, step in enumerate(action["runs"]["steps"]):
        if "run" not in step:
            continue
        if not _should_run(step, context, run.failed):
            continue
        assert "${{" not in step["run"], "expressions go through env:, never into the script"
        outputs = tmp / f"output-{n}.txt"
        step_env = {**env, "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(run.summary),
                    "GITHUB_PATH": str(github_path)}  # fmt: skip
        if path_added:
            step_env["PATH"] = os.pathsep.join([*reversed(path_added), step_env["PATH"]])
        step_env.update({k: _resolve(str(v), context) for k, v in (step.get("env") or {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=repo, env=step_env, capture_output=True, text=True, timeout=300)  # fmt: skip
        found = parse_outputs(outputs)
        run.steps.append(StepRun(step.get("id"), step.get("name", ""), done.returncode,
                                 done.stdout, done.stderr, found))  # fmt: skip
        for key, value in found.items():
            context[f"steps.{step.get('id')}.outputs.{key}"] = value
        if github_path.exists():
            path_added = github_path.read_text(encoding="utf-8").splitlines()
    return run
