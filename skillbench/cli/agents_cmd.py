"""`skillbench agents SKILL_DIR --evals FILE`: does the skill work in every agent that reads it?"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_FAILED, EXIT_OK, InputError
from skillbench.limits import DEFAULT_RUNS


def register(subparsers: Any) -> None:
    """Add the `agents` subcommand."""
    p = subparsers.add_parser(
        "agents",
        help="run one eval set through several agents' own requests, side by side",
        description="Run each query of an eval set through each agent's own first request "
        "(claude-code: Claude Code's, replayed by the anthropic backend; opencode, gemini, codex: "
        "their CLI's, captured once per skill set and replayed through the provider's SDK; see "
        "docs/agents.md), with the same skill, catalog, runs, threshold and seed. Reports per "
        "agent the share of queries that pass with its interval, the failing queries and how the "
        "skill was listed; Cohen's kappa per pair of agents; and the verdict 'works in N of M "
        "agents'. An agent that cannot run here (no CLI, no key) is reported as not run. Exit 0 "
        "when every agent that ran passes every query, 1 otherwise or when none ran, 2 on bad "
        "input.",
    )
    common.add_skill_dir(p)
    p.add_argument("--evals", required=True, metavar="FILE", help="eval set (Format A or B)")
    p.add_argument(
        "--agents",
        default=None,
        metavar="LIST",
        type=common.text_value,
        help="comma-separated agents (default: every agent, Claude Code's and each agent "
        "backend's; e.g. --agents claude-code,opencode)",
    )
    p.add_argument(
        "--model",
        action="append",
        default=[],
        metavar="AGENT=MODEL",
        type=common.text_value,
        help="the model of one agent (repeatable; default: each agent's own), "
        "e.g. --model opencode=claude-haiku-4-5",
    )
    p.add_argument(
        "--runs",
        type=common.runs_option(),
        default=DEFAULT_RUNS,
        help=f"runs per query ({DEFAULT_RUNS})",
    )
    p.add_argument(
        "--threshold", type=common.fraction_option(), default=0.5, help="pass threshold (0.5)"
    )
    common.add_confidence_option(p)
    common.add_workers_option(p)
    p.add_argument("--seed", type=common.seed_option(), default=0, help="seed (0)")
    p.add_argument(
        "--timeout", type=common.timeout_option(), metavar="SECONDS", help="per-run timeout"
    )
    common.add_catalog_option(p)
    p.add_argument("--out", metavar="FILE", help="write the report JSON here (atomically)")
    common.add_cache_options(p)
    p.add_argument("--json", action="store_true", help="print the report JSON on stdout")
    p.set_defaults(func=run)


def models_option(values: list[str]) -> dict[str, str]:
    """`AGENT=MODEL` pairs; InputError naming `--model` for another shape."""
    from skillbench.redaction import looks_secret

    models: dict[str, str] = {}
    for value in values:
        agent, sep, model = value.partition("=")
        if not sep or not agent.strip() or not model.strip():
            raise InputError(f"expected AGENT=MODEL, got {value!r}", path="--model")
        if looks_secret(model):
            raise InputError("looks like an API key, not a model name", path="--model")
        models[agent.strip().lower()] = model.strip()
    return models


def run(args: argparse.Namespace) -> int:
    """Run every agent, compare, print or save; returns the exit code."""
    from skillbench.io import check_output, dumps_json, write_json
    from skillbench.trigger.agents import agents_lines, run_agents_sync

    if args.out:
        check_output(args.out, "--out")
    if args.agents is None:
        from skillbench.backends.registry import agent_names

        agents = agent_names()
    else:
        agents = [a for a in (part.strip() for part in args.agents.split(",")) if a]
    models = models_option(args.model)
    unknown = sorted(set(models) - {a.lower() for a in agents})
    if unknown:
        raise InputError(f"names an agent not in --agents: {', '.join(unknown)}", path="--model")
    from skillbench.cli.trigger_cmd import trigger_options

    options = trigger_options(args, model=None)  # --model here is AGENT=MODEL, per agent
    report = run_agents_sync(args.skill_dir, args.evals, options, agents=agents, models=models)
    if args.out:
        write_json(args.out, report)
    if args.json:
        sys.stdout.write(dumps_json(report.to_json_dict()))
    else:
        console = common.console()
        for line in agents_lines(report):
            console.print(line, markup=False)
    if args.out:
        common.stderr_console().print(f"report written to {args.out}", markup=False)
    return EXIT_OK if report.ran and report.works_in == report.ran else EXIT_FAILED
