"""The Claude Code versions whose request fidelity skillbench tested, declared once.

`CLAUDE_PIN` is the checkout's default CLI (`.tools/`, the `claude-code` backend's npm package),
`CLAUDE_LATEST` the current release installed beside it (`.tools/claude-<version>/`); the real-CLI
fidelity tests (tests/backends/test_replay_fidelity_*.py) compare the replayed request with each
one's own, byte for byte. The Makefile reads both lines from this file and
`scripts/move-claude-pin.sh` moves `CLAUDE_LATEST` here (docs/claude-versions.md).

Reports warn when the CLI in use is newer than every tested version (`untested_warning`): its
request may differ in ways no test has compared.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

CLAUDE_PIN = "2.1.197"
CLAUDE_LATEST = "2.1.332"
TESTED_CLAUDE_VERSIONS = (CLAUDE_PIN, CLAUDE_LATEST)
_RELEASE = re.compile(r"^\s*v?(\d+)\.(\d+)\.(\d+)")


def release_key(version: str | None) -> tuple[int, int, int] | None:
    """The release numbers of a CLI version (`2.1.332 (Claude Code)` → (2, 1, 332)); None when
    it names none."""
    match = _RELEASE.match(version or "")
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def newest_tested() -> str:
    """The newest version whose request fidelity was tested."""
    return max(TESTED_CLAUDE_VERSIONS, key=lambda v: release_key(v) or (0, 0, 0))


def is_untested(version: str | None) -> bool:
    """Whether Claude Code `version` is newer than every tested version (False when it names
    no release: nothing to compare)."""
    key = release_key(version)
    newest = release_key(newest_tested())
    return key is not None and newest is not None and key > newest


def untested_warning(version: str | None) -> str | None:
    """The warning a report carries when its Claude Code CLI is newer than every tested
    version, or None."""
    if not is_untested(version):
        return None
    tested = ", ".join(TESTED_CLAUDE_VERSIONS)
    return (
        f"UNTESTED CLI: Claude Code {version} is newer than {newest_tested()}, the newest version "
        f"whose request fidelity skillbench has tested ({tested}): the replayed request and the "
        "listing may differ from what this CLI sends in ways no test has compared "
        "(docs/claude-versions.md: scripts/move-claude-pin.sh tests a new release)"
    )


def cli_warnings(versions: Mapping[str, str] | None) -> list[str]:
    """`untested_warning` of a judge's reported versions (`claude_code`), as a report's
    warnings list (empty when none applies)."""
    warning = untested_warning((versions or {}).get("claude_code"))
    return [warning] if warning else []
