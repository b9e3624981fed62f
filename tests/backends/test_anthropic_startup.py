"""A cached re-run must not pay for importing the SDK: identity and versions come without it."""

from __future__ import annotations

import subprocess
import sys

from anthropic._constants import ANTHROPIC_API_VERSION

from skillbench.backends.anthropic.sdk import api_version


def test_api_version_matches_the_sdk_constant() -> None:
    assert api_version() == ANTHROPIC_API_VERSION


def test_identity_and_versions_do_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from skillbench.backends.anthropic.sdk import AnthropicJudge\n"
        "judge = AnthropicJudge(api_key='dummy')\n"
        "judge.identity(); judge.versions()\n"
        "print('anthropic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False", out.stderr
