"""A trigger report already written (`trigger --out`, or a report folder's trigger_report.json),
read back to be rendered without re-running it (`skillbench report trigger_eval --from FILE`)."""

from __future__ import annotations

from pathlib import Path

from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.schemas.trigger import TriggerReport

REPORT_NAME = "trigger_report.json"
"""The trigger report's name inside a report folder (the trigger_eval notebook's `save_json`)."""


def trigger_report_file(path: str | Path, option: str = "--from") -> Path:
    """`path`, or the trigger_report.json inside the report folder `path`; InputError naming
    `option` when neither exists."""
    source = Path(path).expanduser()
    if source.is_dir():
        source = source / REPORT_NAME
    if not source.is_file():
        raise InputError(f"no trigger report here ({option})", path=source)
    return source


def read_trigger_report(path: str | Path, option: str = "--from") -> TriggerReport:
    """The trigger report at `path` (a JSON file or a report folder); InputError, naming the
    file and the field, when it is no trigger report."""
    return read_model(
        trigger_report_file(path, option), TriggerReport, what="invalid trigger report"
    )
