"""`skillbench init --trigger SKILL_DIR [--out FILE]`: write a first trigger eval set to fill in
(`trigger.template`). Registered by `workspace_cmd` with the rest of `init`."""

from __future__ import annotations

import argparse
from pathlib import Path

from skillbench.cli import common
from skillbench.errors import EXIT_OK, InputError

TRIGGER_HELP = (
    "write a trigger eval set to fill in instead (SKILL_DIR/evals/trigger.json, or --out): "
    "should-trigger slots and near-miss should-not slots drawn from the description and the "
    "neighbouring skills; trigger refuses it (exit 2) until every slot is filled or deleted"
)
OUT_HELP = "with --trigger: where to write the eval set (default SKILL_DIR/evals/trigger.json)"


def run_init_trigger(args: argparse.Namespace) -> int:
    """Write the template; InputError (exit 2) for an unusable skill or an existing file."""
    from skillbench.io import atomic_write_text, check_output, dumps_json
    from skillbench.skill import Skill
    from skillbench.trigger.template import DEFAULT_NAME, trigger_template

    if args.workspace:
        raise InputError("applies to the behavior workspace, not to --trigger", path="--workspace")
    skill = Skill.load(args.skill_dir)
    out = Path(args.out) if args.out else skill.path / DEFAULT_NAME
    if out.exists() or out.is_symlink():
        raise InputError(
            "exists already; init never overwrites an eval set (pass another --out)", path=out
        )
    check_output(out, "--out")
    template = trigger_template(skill)
    atomic_write_text(out, dumps_json(template))
    slots = template["evals"]
    should = sum(1 for slot in slots if slot["should_trigger"])
    print(
        common.safe(
            f"wrote {out}: {should} should-trigger and {len(slots) - should} should-not-trigger "
            "slots; replace each '<fill in: …>' query (its note says what it needs), then run "
            f"skillbench trigger {skill.path} --evals {out}"
        )
    )
    return EXIT_OK
