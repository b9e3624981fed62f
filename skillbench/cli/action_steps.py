"""The steps of the GitHub Action (`action.yml`), so its YAML holds one command per step and
no logic: `python -m skillbench.cli.action_steps tools|targets|gate|scan --name=value …`.

- `tools`: what the chosen backend needs beyond the core install (its spec says): its
  skillbench extra (`BackendSpec.extra`), and the CLI it runs even with every call cached
  (`BackendSpec.needs_cli`) with its pinned npm package.
- `targets`: the base commit (fetched when the clone lacks it) and the changed skill folders,
  as a JSON list; fails closed (exit 2, one line) when git cannot say.
- `gate`: `skillbench gate` on each changed skill that has an eval set; the worst exit code and
  verdict.
- `scan`: `skillbench scan` of each changed skill, one SARIF 2.1.0 file for code scanning
  (`github/codeql-action/upload-sarif`); error-level findings fail the job only with
  `fail-on-scan`, through the Action's last step, after the upload.

Every value reaches `$GITHUB_OUTPUT` through `reports.ci.append_file_command` (one line, or a
block under a random delimiter), so no folder name can end a value early or set another output.
Not a subcommand module (not listed by `skillbench --help`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from skillbench.errors import EXIT_OK, EXIT_USAGE, InputError, SkillbenchError
from skillbench.io import terminal_safe

OUTPUT = "GITHUB_OUTPUT"
WORST_FIRST = ("regressed", "no change detected", "improved", "no base")
"""Gate verdicts, the most worrying first: the Action's `verdict` is the first one any gated
skill got (`none` when no skill was gated)."""
_UNSAFE_FOLDER_CHARS = re.compile(r"[^A-Za-z0-9._-]")


def _flag(text: str, name: str = "behavior") -> bool:
    """The Action input `name`'s boolean (`true` / `false`, any case; empty is false)."""
    value = text.strip().lower()
    if value not in ("true", "false", ""):
        raise InputError(f"{text!r} is neither true nor false", path=name)
    return value == "true"


def _extra_args(text: str) -> list[str]:
    """The `args` input, split as a shell would (no expansion)."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise InputError(f"cannot split {text!r}: {exc}", path="args") from None


def harness_of(args: Sequence[str]) -> str | None:
    """The `--harness` value among `args` (the last one wins, as argparse does), or None."""
    found = None
    for i, arg in enumerate(args):
        if arg == "--harness" and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith("--harness="):
            found = arg.partition("=")[2]
    return found


def _outputs(values: dict[str, str]) -> None:
    from skillbench.reports.ci import append_file_command

    append_file_command(OUTPUT, values)


def tools_step(args: argparse.Namespace) -> int:
    """Outputs `extra` (the skillbench extra the backend imports, or empty), `cli` and
    `cli-package` (both empty when the backend needs no CLI)."""
    from skillbench.backends.registry import backend_spec

    spec = backend_spec(args.backend or None)
    needed = spec.needs_cli(harness_of(_extra_args(args.args)), behavior=_flag(args.behavior))
    if needed and not spec.cli_package:
        raise InputError(
            f"backend {spec.name!r} needs the {spec.cli} CLI, but its spec names no npm package "
            "to install: install it in an earlier step and put it on PATH",
            path="backend",
        )
    cli, package = (spec.cli or "", spec.cli_package or "") if needed else ("", "")
    _outputs({"extra": spec.extra or "", "cli": cli, "cli-package": package})
    wants = [f"skillbench[{spec.extra}]"] if spec.extra else []
    wants += [package] if needed else []
    print(f"backend {spec.name} needs " + (" and ".join(wants) or "nothing more"))
    return EXIT_OK


def targets_step(args: argparse.Namespace) -> int:
    """Outputs `base` (a commit) and `skills` (a JSON list of folders, from the repository's
    top)."""
    from skillbench.gate.targets import gate_targets

    base, skills = gate_targets(
        Path.cwd(), args.skills_path or ".", args.base or None, args.pull_request_base or None
    )
    _outputs({"base": base, "skills": json.dumps(skills), "count": str(len(skills))})
    listed = ", ".join(skills) or "none"
    print(terminal_safe(f"base {base}; changed skills: {listed}"))
    return EXIT_OK


def _skills(text: str) -> list[str]:
    """The `targets` step's JSON list, checked again (it crossed a step boundary)."""
    from skillbench.gate.targets import unsafe_name

    try:
        skills = json.loads(text or "[]")
    except json.JSONDecodeError as exc:
        raise InputError(f"not a JSON list of folders: {exc}", path="--skills") from None
    if not isinstance(skills, list) or not all(isinstance(s, str) and s for s in skills):
        raise InputError("not a JSON list of folder names", path="--skills")
    for skill in skills:
        why = unsafe_name(skill)
        if why is not None:
            raise InputError(f"cannot gate {skill!r}: {why}", path="--skills")
    return skills


def report_folder(reports: Path, skill: str, taken: set[str]) -> Path:
    """A folder of its own under `reports` for one skill: its folder name with anything but
    letters, digits, `.`, `_` and `-` replaced, and a number added when two skills share it."""
    name = _UNSAFE_FOLDER_CHARS.sub("_", Path(skill).name).strip(".") or "skill"
    unique, n = name, 1
    while unique in taken:
        n += 1
        unique = f"{name}-{n}"
    taken.add(unique)
    return reports / unique


def _verdict(report: Path) -> str | None:
    from skillbench.io import read_json

    try:
        verdict = read_json(report).get("verdict")
    except (SkillbenchError, OSError, AttributeError):
        return None
    return verdict if verdict in WORST_FIRST else None


def gate_command(args: argparse.Namespace, skill: str, evals: str, out: Path) -> list[str]:
    """The `skillbench gate` command line for one skill (a folder starting with `-` is passed
    as `./-…`, never as an option)."""
    target = f"./{skill}" if skill.startswith("-") else skill
    command = [sys.executable, "-m", "skillbench", "gate", target, f"--evals={evals}",
               f"--base={args.base}", f"--backend={args.backend}", f"--alpha={args.alpha}",
               f"--runs={args.runs}", f"--out={out}", "--format=github",
               f"--junit={out / 'junit.xml'}"]  # fmt: skip
    if _flag(args.behavior):
        command.append("--behavior")
    if args.model:
        command.append(f"--model={args.model}")
    if args.max_cost:
        command.append(f"--max-cost={args.max_cost}")
    return command + _extra_args(args.args)


def gate_step(args: argparse.Namespace) -> int:
    """Runs the gate on each skill from the repository's top; outputs `exit-code` (the worst),
    `verdict` (see WORST_FIRST) and `report-dir`. Exits 0: the Action's last step exits with
    the code, after the cache is saved and the reports uploaded."""
    from skillbench.gate.baseref import repo_root
    from skillbench.reports.ci import annotation

    skills = _skills(args.skills)
    behavior = _flag(args.behavior)
    _extra_args(args.args)  # a malformed `args` is refused before any gate runs
    root = repo_root(Path.cwd())
    reports = Path(args.reports).resolve()
    reports.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k != OUTPUT}  # each gate's own outputs
    code, verdicts, taken = EXIT_OK, set(), set[str]()
    for skill in skills:
        evals = f"{skill}/evals/evals.json" if behavior else f"{skill}/{args.evals}"
        if not (root / evals).is_file():
            print(annotation("notice", f"{skill} has no {evals}: not gated",
                             title="skillbench gate"), flush=True)  # fmt: skip
            continue
        out = report_folder(reports, skill, taken)
        print(f"::group::{terminal_safe('skillbench gate ' + skill)}", flush=True)
        done = subprocess.run(gate_command(args, skill, evals, out), cwd=root, env=env, check=False)
        print("::endgroup::", flush=True)
        code = max(code, done.returncode if done.returncode >= 0 else EXIT_USAGE)
        verdicts.add(_verdict(out / "gate_report.json"))
    verdict = next((v for v in WORST_FIRST if v in verdicts), "none")
    _outputs({"exit-code": str(code), "verdict": verdict, "report-dir": str(reports)})
    print(f"gate exit code {code}, verdict {verdict}")
    return EXIT_OK


def scan_step(args: argparse.Namespace) -> int:
    """Scans each changed skill still present (from the repository's top) into one SARIF file
    at `--out`; outputs `sarif` (its path; empty when `--enabled` is false), `errors` and
    `warnings` (finding counts) and `fail` (`true` when `--fail-on-scan` is set and a finding
    is an error; else empty). Exits 0: failing is the Action's last step's job, after the
    upload."""
    from skillbench.gate.baseref import repo_root
    from skillbench.io import atomic_write_text, check_output, dumps_json
    from skillbench.reports.ci import annotation
    from skillbench.scan.findings import ScanReport
    from skillbench.scan.sarif import sarif_document
    from skillbench.scan.scan import scan_skill
    from skillbench.skill import SKILL_MD

    skills = _skills(args.skills)
    fail_on = _flag(args.fail_on_scan, "fail-on-scan")
    if not _flag(args.enabled, "scan"):
        _outputs({"sarif": "", "errors": "0", "warnings": "0", "fail": ""})
        print("scan: off (input scan is false)")
        return EXIT_OK
    out = Path(args.out).resolve()
    check_output(out, "--out")
    root = repo_root(Path.cwd())
    present = [s for s in skills if (root / s / SKILL_MD).is_file()]
    for skill in sorted(set(skills) - set(present)):
        print(annotation("notice", f"{skill} has no {SKILL_MD} in the head: not scanned",
                         title="skillbench scan"), flush=True)  # fmt: skip
    report = ScanReport(
        root=".", library=True, skills=[scan_skill(root / s, label=s) for s in present]
    )
    atomic_write_text(out, dumps_json(sarif_document(report, cwd=root)))
    errors = sum(f.severity == "error" for f in report.findings)
    warnings = len(report.findings) - errors
    for scan in report.skills:  # errors annotated here too; every finding is in the SARIF
        for finding in (f for f in scan.findings if f.severity == "error"):
            print(annotation("error", f"{finding.rule}: {finding.reason}",
                             file=f"{scan.skill}/{finding.file}", line=finding.line,
                             title="skillbench scan"), flush=True)  # fmt: skip
    failing = fail_on and errors > 0
    _outputs({"sarif": str(out), "errors": str(errors), "warnings": str(warnings),
              "fail": "true" if failing else ""})  # fmt: skip
    print(terminal_safe(f"scanned {len(present)} skill(s): {errors} error(s), {warnings} "
                        f"warning(s); SARIF in {out}"
                        + ("; the job fails (fail-on-scan)" if failing else "")))  # fmt: skip
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    """One subcommand per step; every value is a string as the Action's inputs are."""
    parser = argparse.ArgumentParser(prog="python -m skillbench.cli.action_steps")
    steps = parser.add_subparsers(dest="step", required=True)
    tools = steps.add_parser("tools", help="the CLI the backend needs")
    tools.set_defaults(func=tools_step)
    targets = steps.add_parser("targets", help="the base commit and the changed skills")
    targets.add_argument("--skills-path", default=".")
    targets.add_argument("--base", default="")
    targets.add_argument("--pull-request-base", default="")
    targets.set_defaults(func=targets_step)
    gate = steps.add_parser("gate", help="skillbench gate on each changed skill")
    gate.add_argument("--skills", required=True)
    gate.add_argument("--base", required=True)
    gate.add_argument("--evals", default="evals/trigger.json")
    gate.add_argument("--alpha", default="0.05")
    gate.add_argument("--runs", default="10")
    gate.add_argument("--model", default="")
    gate.add_argument("--max-cost", default="")
    gate.add_argument("--reports", required=True)
    gate.set_defaults(func=gate_step)
    scan = steps.add_parser("scan", help="skillbench scan of the changed skills, as SARIF")
    scan.add_argument("--skills", required=True)
    scan.add_argument("--out", required=True)
    scan.add_argument("--enabled", default="true")
    scan.add_argument("--fail-on-scan", default="false")
    scan.set_defaults(func=scan_step)
    for step in (tools, gate):
        step.add_argument("--backend", default="")
        step.add_argument("--behavior", default="false")
        step.add_argument("--args", default="")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one step: 0, or 2 with one line naming the problem."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except SkillbenchError as exc:
        print(f"skillbench action: error: {terminal_safe(exc)}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
