"""`skillbench` command line: one module per subcommand family, discovered automatically.

Every module in this package whose name ends in ``_cmd`` exposes ``register(subparsers)``, which
adds its subcommands and sets ``func`` on each parser; ``func(args)`` returns the exit code.
Heavy imports (onnxruntime, papermill, the SDK) happen inside the command functions, never at import.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from skillbench.cli.common import no_wrap_help
from skillbench.cli.helptext import VersionAction, complete_help
from skillbench.cli.logs import DEST, add_verbose_option, configure, show_warnings
from skillbench.errors import EXIT_USAGE, SkillbenchError
from skillbench.extras import missing_extra
from skillbench.io import terminal_safe


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every discovered subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="skillbench",
        description="Measure Agent Skills: validation, trigger evals, description improvement, "
        "behavior evals and reports.",
    )
    parser.add_argument("--version", action=VersionAction)
    add_verbose_option(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.endswith("_cmd"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            module.register(subparsers)
    for command in subparsers.choices.values():  # `skillbench trigger -vv …` works too
        add_verbose_option(command)
    complete_help(parser)
    no_wrap_help(parser)
    return parser


def os_error_text(exc: OSError) -> str:
    """`<path>: <reason>` of an OSError (both paths of a failed rename); the bare reason when
    no path is known (skillbench's own writes always name theirs: `io.atomic_write_bytes`)."""
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return reason
    where = str(exc.filename)
    if exc.filename2 is not None:
        where += f" -> {exc.filename2}"
    return f"{where}: {reason}"


#: The exit code of a command whose reader closed stdout early (`skillbench … | head -1`): the
#: shell's code for a process ended by SIGPIPE, reached quietly.
EXIT_STDOUT_CLOSED = 128 + 13


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (0 ok, 1 failed check, 2 bad input, also
    when the command needs an extra that is not installed). A reader that stops reading
    (`| head -1`) ends the command quietly, as it ends any Unix tool: no traceback, no error."""
    try:
        return _main(argv)
    except BrokenPipeError:
        if not stdout_closed():
            raise
        return _quiet_after_closed_stdout()


def stdout_closed() -> bool:
    """Whether stdout is a pipe whose reader has gone (poll reports an error on it)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        events = poller.poll(0)
    except (AttributeError, OSError, ValueError):  # no poll, or stdout is no file: not ours
        return False
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in events)


def _quiet_after_closed_stdout() -> int:
    """Point stdout at /dev/null, so the interpreter's last flush of what is left unwritten
    cannot fail again ("Exception ignored … BrokenPipeError")."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)
    return EXIT_STDOUT_CLOSED


def _main(argv: Sequence[str] | None) -> int:
    show_warnings()  # a backend plugin skipped while the parser lists the backends
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    configure(getattr(args, DEST, 0))
    try:
        return int(args.func(args))
    except SkillbenchError as exc:
        print(f"skillbench: error: {terminal_safe(exc)}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a path the user gave cannot be read or written: bad input, not a bug
        if isinstance(exc, BrokenPipeError) and stdout_closed():
            raise  # stdout's reader has gone: `main` ends quietly
        print(f"skillbench: error: {terminal_safe(os_error_text(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except ModuleNotFoundError as exc:  # an optional package of an extra not installed
        line = missing_extra(exc)
        if line is None:
            raise
        print(f"skillbench: error: {line}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("skillbench: interrupted", file=sys.stderr)
        return 130
