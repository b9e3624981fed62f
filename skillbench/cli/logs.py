"""`-v/--verbose` on every command: the library's log lines on stderr, every one redacted.

skillbench logs with `logging.getLogger(__name__)` where a line helps to see what happened
(replay captures and their templates, call-cache hits and misses, limiter decisions, Message
Batch submission and polling). By default nothing is shown beyond warnings; `-v` shows info
lines, `-vv` debug lines. Every line passes `skillbench.redaction` on its way out, so a key in the
environment (or in an exception text) never reaches the terminal. Reports keep their notes: the
log is a view of the run, not a record of it.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys

ROOT_LOGGER = "skillbench"
DEST = "log_verbosity"
LEVELS = {0: logging.WARNING, 1: logging.INFO}
FORMAT = "%(levelname)s %(name)s: %(message)s"


class RedactingFilter(logging.Filter):
    """Masks secrets (see `skillbench.redaction.redact`) in a record's text, its arguments
    merged in, and in the traceback text of an exception record."""

    def filter(self, record: logging.LogRecord) -> bool:
        from skillbench.redaction import redact

        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


class _VerboseHandler(logging.StreamHandler):  # type: ignore[type-arg,unused-ignore]
    """The handler `-v` installs (recognised so it is installed once)."""


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    """`-v/--verbose` (repeatable) on `parser`, unless it has its own `-v` (`validate`'s lists
    every finding; `skillbench -v validate` still shows the log there)."""
    with contextlib.suppress(argparse.ArgumentError):  # the command's own -v or --verbose
        parser.add_argument(
            "-v",
            "--verbose",
            dest=DEST,
            action="count",
            default=argparse.SUPPRESS,
            help="show the log on stderr: -v info lines, -vv debug lines (replay captures, "
            "call-cache keys, limiter decisions, batch polling); secrets are redacted (default: "
            "warnings only; e.g. -vv)",
        )


def configure(verbosity: int) -> logging.Logger | None:
    """Show the `skillbench` loggers' lines at the level `verbosity` asks (0: nothing is
    configured); returns the logger configured."""
    if verbosity <= 0:
        return None
    logger = logging.getLogger(ROOT_LOGGER)
    handler = next((h for h in logger.handlers if isinstance(h, _VerboseHandler)), None)
    if handler is None:
        handler = _VerboseHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(FORMAT))
        handler.addFilter(RedactingFilter())
        logger.addHandler(handler)
    else:
        handler.setStream(sys.stderr)  # a later run in the same process (tests, a notebook)
    level = LEVELS.get(verbosity, logging.DEBUG)
    handler.setLevel(level)
    logger.setLevel(level)
    return logger


def verbose_configured() -> bool:
    """Whether `-v` installed its handler (progress lines then go through it, not twice)."""
    return any(isinstance(h, _VerboseHandler) for h in logging.getLogger(ROOT_LOGGER).handlers)


SPEC_LOGGER = "skillbench.backends.spec"
"""Where a backend plugin that cannot be loaded is reported (it is skipped, not an error)."""


class _WarningHandler(logging.StreamHandler):  # type: ignore[type-arg,unused-ignore]
    """The handler `show_warnings` installs (recognised so it is installed once); it writes
    to the `sys.stderr` of the moment (a later run in the same process: tests, a notebook)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def show_warnings(name: str = SPEC_LOGGER) -> None:
    """Show the warnings of logger `name` on stderr as `skillbench: warning: …`, once each and
    whatever `-v` says (a skipped backend plugin must be seen even without `-v`)."""
    logger = logging.getLogger(name)
    handler = next((h for h in logger.handlers if isinstance(h, _WarningHandler)), None)
    if handler is None:
        handler = _WarningHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handler.setFormatter(logging.Formatter("skillbench: warning: %(message)s"))
        handler.addFilter(RedactingFilter())
        logger.addHandler(handler)
        logger.propagate = False  # not a second time through -v's handler
