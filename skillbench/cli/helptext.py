"""Every option's help states its default and an example; `--version` names the commit.

`complete_help(parser)` walks a parser and all its subcommands once they are registered and
rewrites each option's help to end with ``(default …; e.g. --option VALUE)``, keeping what a
subcommand module already wrote (a trailing "(3)" becomes "(default 3; …)"). Options added by any
``*_cmd`` module are covered without further work; the examples below make them concrete.
Not a subcommand module (its name does not end in ``_cmd``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from skillbench.gitinfo import run_git
from skillbench.version import __version__

# (subcommand, dest) or dest -> an example value ("" for a flag)
EXAMPLES: dict[str, str] = {
    "workspace": "csv-cleanup-workspace",
    "a": "with_skill",
    "b": "baseline",
    "backend": "anthropic",
    "model": "claude-haiku-4-5",
    "seed": "1",
    "workers": "4",
    "cache": "/tmp/skillbench-cache.sqlite",
    "baseline": "v0",
    "candidate": "v1",
    "benchmark.out": "benchmark.json",
    "improve.out": "improve-csv-cleanup",
    "report.out": "reports",
    "demo.out": "/tmp/skillbench-reports",
    "trigger.out": "csv-cleanup.trigger-report.json",
    "evals": "data/evals/csv-cleanup.trigger.json",
    "run.evals": "data/skills/csv-cleanup/evals/evals.json",
    "rounds": "3",
    "split": "0.5,0.25,0.25",
    "split_from": "improve-csv-cleanup/loop_summary.json",
    "runs": "5",
    "threshold": "0.6",
    "split_seed": "7",
    "catalog": "data/catalog",
    "harness": "minimal",
    "timeout": "120",
    "configs": "v0,v1",
    "samples": "data/runs/csv-cleanup",
    "to_dialect": "skill-creator",
    "output": "converted.json",
    "max_runs": "20",
    "confidence": "0.9",
    "description": "'Cleans messy CSV files. Use when a CSV has broken headers.'",
    "parameter": "runs 5",
    "adopt_alpha": "0.1",
    "explain.query": "'clean up this csv, the dates are in three formats'",
    "alpha": "0.1",
    "max_cost": "2.50",
    "junit": "report.xml",
    "cluster": "auto",
    "cluster_calls": "16",
    "project": ".",
    "as_user": "~",
    "agents.out": "csv-cleanup.agents.json",
    "agreement.out": "csv-cleanup.agreement.json",
    "library.out": "library-report.json",
    "gate.out": "gate-report",
    "effect": "0.2",
    "affected": "0.5",
    "power": "0.9",
    "prior": "0.7",
    "aa": "20",
    "plan.report": "csv-cleanup.trigger-report.json",
    "plan.skill": "data/skills/csv-cleanup",
    "init.out": "csv-cleanup.trigger.json",
    "from_report": "csv-cleanup.trigger-report.json",
    "import.out": "field.jsonl",
    "projects": "~/.claude/projects",
    "since": "30d",
    "floor": "30",
    "mine.skill": "csv-cleanup",
    "mine.out": "csv-cleanup.field-evals.json",
    "label.port": "8765",
    "n": "60",
    "labeler": "ann",
    "labels": "csv-cleanup-workspace/labels.jsonl",
    "grade.repeats": "3",
}
PLACEHOLDERS = ("VALUE", "path/to/")
"""What an example falls back to when EXAMPLES has no real value for an option (a test keeps
every option's example free of them)."""
_TRAILING = re.compile(r"\s*\(([^()]*)\)\s*$")
_SKIPPED: tuple[type[argparse.Action], ...] = (argparse._HelpAction, argparse._VersionAction)


def _default_text(action: argparse.Action) -> str:
    if action.required:
        return "required"
    value = action.default
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        return (
            "default off"
            if value is False or isinstance(action, argparse._StoreTrueAction)
            else "default on"
        )
    if value is None or value == [] or value is argparse.SUPPRESS:
        return "default: not set"
    if isinstance(value, list | tuple):
        value = ",".join(str(v) for v in value)
    return f"default {value}"


def _plain(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _example(command: str, action: argparse.Action) -> str:
    flag = max(action.option_strings, key=len)
    if action.nargs == 0:
        return flag
    value = EXAMPLES.get(f"{command}.{action.dest}", EXAMPLES.get(action.dest))
    if value is None and action.choices:
        choices = [str(c) for c in action.choices]
        value = next((c for c in choices if c != str(action.default)), choices[0])
    if value is None:
        metavar = str(action.metavar or action.dest).upper()
        if action.type is int or "positive_int" in getattr(action.type, "__name__", ""):
            value = str((action.default or 1) + 1) if isinstance(action.default, int) else "2"
        elif action.type is float:
            value = "0.1"
        elif "DIR" in metavar:
            value = "path/to/folder"
        elif "FILE" in metavar or "PATH" in metavar:
            value = "path/to/file.json"
        else:
            value = "VALUE"
    return f"{flag} {value}"


def option_help(command: str, action: argparse.Action) -> str:
    """The completed help of one option (see the module docstring)."""
    text = action.help or ""
    example = f"e.g. {_example(command, action)}"
    if "e.g." in text:
        return text
    match = _TRAILING.search(text)
    if match:
        inside = match.group(1).strip()
        if inside.lower() == "default":  # "... or Claude Code (default)": name it
            inside = f"default {_plain(action.default)}"
        if inside.lower().startswith(("default", "required")):
            return f"{text[: match.start()]} ({inside}; {example})"
        stated = inside == _plain(action.default)  # "(3)" states the default
        resolved = action.default is None and not action.required and " " not in inside
        if stated or resolved:  # "(baseline)": the value a None default resolves to
            return f"{text[: match.start()]} (default {inside}; {example})"
    if "default" in text.lower():
        return f"{text} ({example})"
    return f"{text} ({_default_text(action)}; {example})".lstrip()


def complete_help(parser: argparse.ArgumentParser, command: str = "") -> None:
    """Complete every option's help of `parser` and of its subcommands, in place."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                complete_help(sub, name)
        elif (
            action.option_strings
            and not isinstance(action, _SKIPPED)
            and action.help != argparse.SUPPRESS
        ):
            action.help = option_help(command, action)


def built_commit() -> tuple[str | None, bool]:
    """The commit an installed wheel was built from and whether it had uncommitted changes
    (`skillbench/_build_info.py`, written by setup.py); (None, False) without one."""
    import importlib

    try:
        info = importlib.import_module("skillbench._build_info")
    except ImportError:
        return None, False
    commit = getattr(info, "COMMIT", None)
    return (commit if isinstance(commit, str) and commit else None), bool(
        getattr(info, "DIRTY", False)
    )


def version_text() -> str:
    """``skillbench 0.1.0 (commit abc123def456, dirty)``; the commit of the checkout this
    package runs from, else the one its wheel was built from, or a plain statement that there
    is none."""
    root = Path(__file__).resolve().parents[2]
    commit = run_git(root, "rev-parse", "HEAD") if (root / ".git").exists() else None
    if commit is None:
        built, changes = built_commit()
        if built is not None:
            changed = ", with uncommitted changes" if changes else ""
            return f"skillbench {__version__} (commit {built[:12]}: the wheel's build{changed})"
        return f"skillbench {__version__} (commit unknown: not running from a git checkout)"
    status = run_git(root, "status", "--porcelain", "--untracked-files=no")
    dirty = ", dirty: uncommitted changes" if status and status.strip() else ""
    return f"skillbench {__version__} (commit {commit.strip()[:12]}{dirty})"


class VersionAction(argparse.Action):
    """`--version`: print `version_text()` and exit 0 (git is asked only when it is used)."""

    def __init__(
        self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object
    ) -> None:
        super().__init__(
            option_strings,
            dest=dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="print the version and the commit, then exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(version_text())
        parser.exit()


_SKIPPED += (VersionAction,)
