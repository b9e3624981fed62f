"""`skillbench label SKILL_DIR`: a blind labelling page for the model grader's verdicts."""

from __future__ import annotations

import argparse
import getpass
import signal
import sys
from pathlib import Path
from typing import Any

from skillbench.cli import common
from skillbench.errors import EXIT_OK, InputError

MAX_SAMPLE = 100_000


def register(subparsers: Any) -> None:
    """Add the `label` subcommand."""
    p = subparsers.add_parser(
        "label",
        help="label the model grader's verdicts by hand in a local web page (blind)",
        description="Serve a labelling page on 127.0.0.1 (the URL is printed first; SIGTERM or "
        "Ctrl-C stops it). The page shows a stratified sample (arm x grader verdict; verdicts "
        "whose repeated grader calls disagreed (grade --repeats) first, then borderline ones) in "
        "shuffled order, without the arm, the grader's verdict or its repeats. Keys: 1 "
        "pass, 2 fail, d defer. Each answer is appended to labels.jsonl in the workspace.",
    )
    common.add_skill_dir(p, common.SKILL_WITH_EVALS_HELP)
    common.add_workspace_option(p, common.WORKSPACE_SHORT_HELP)
    p.add_argument("--port", type=common.int_in(0, 65535), default=0,
                   help="port on 127.0.0.1; 0 picks a free one (0)")  # fmt: skip
    p.add_argument("--n", type=common.int_in(1, MAX_SAMPLE), default=120,
                   help="items in the sample (120)")  # fmt: skip
    p.add_argument("--labeler", metavar="NAME", help="your name in labels.jsonl (default: $USER)")
    p.add_argument("--labels", metavar="FILE",
                   help="labels file (default <workspace>/labels.jsonl)")  # fmt: skip
    p.add_argument("--seed", type=common.int_in(0, 2**31), default=0,
                   help="sampling seed; the same seed resumes the same sample (0)")  # fmt: skip
    p.set_defaults(func=run_label)


def _labeler(value: str | None) -> str:
    name = (value if value is not None else getpass.getuser()).strip()
    if not name or len(name) > 100 or any(ch in name for ch in "\n\r\x00"):
        raise InputError("give a short one-line name", path="--labeler", rule="labeler")
    return name


def run_label(args: argparse.Namespace) -> int:
    """Serve the page until SIGTERM or Ctrl-C."""
    from skillbench.calibration.items import grader_items, workspace_of
    from skillbench.calibration.labels import LABELS_FILE, read_labels
    from skillbench.calibration.sample import stratified_sample
    from skillbench.calibration.server import make_server
    from skillbench.calibration.session import LabelSession

    labeler = _labeler(args.labeler)
    space = workspace_of(args.skill_dir, args.workspace)
    items = grader_items(args.skill_dir, args.workspace)
    if not items:
        raise InputError("no model-graded verdict to label (run `skillbench grade` with a model "
                         "backend first)", path=space.root, rule="no-verdicts")  # fmt: skip
    labels = Path(args.labels) if args.labels else space.root / LABELS_FILE
    if labels.exists():
        read_labels(labels)  # a broken file is refused before the page starts
    sample = stratified_sample(items, args.n, seed=args.seed)
    session = LabelSession(Path(args.skill_dir), space, sample, labels, labeler)
    try:
        server = make_server(session, args.port)
    except OSError as exc:
        raise InputError(f"cannot listen on 127.0.0.1:{args.port} ({exc.strerror})",
                         path="--port", rule="port") from None  # fmt: skip
    port = server.server_address[1]
    print(f"http://127.0.0.1:{port}/", flush=True)
    common.stderr_console().print(
        common.safe(f"labelling {len(sample)} of {len(items)} verdicts as {labeler} into {labels}"),
        markup=False,
    )

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
        sys.stdout.flush()
    return EXIT_OK
