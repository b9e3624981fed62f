"""`python -m skillbench.backends.packages TARGET`: the pinned npm packages one Makefile target
installs under a clone's `.tools/` (`agents`: each agent's CLI), one per line, as the backends'
specs declare them (`BackendSpec.cli_package`, `cli_make_target`).

The Makefile runs it with the system Python before any venv exists, so it imports nothing but the
specs (the standard library only; a test runs it with `python -S`)."""

from __future__ import annotations

import sys

from skillbench.backends.spec import cli_packages


def main(argv: list[str]) -> int:
    """Print the packages of the target named in `argv`; exit 2 naming the usage otherwise."""
    if len(argv) != 1:
        sys.stderr.write("usage: python -m skillbench.backends.packages TARGET (e.g. agents)\n")
        return 2
    packages = cli_packages(argv[0])
    if not packages:
        sys.stderr.write(f"no backend declares npm packages for the target {argv[0]!r}\n")
        return 2
    sys.stdout.write("".join(f"{package}\n" for package in packages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
