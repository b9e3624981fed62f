"""Secrets in a skill's files, found by Yelp's detect-secrets (its plugins and filters as
maintained upstream), never by regexes of our own. A finding names the kind of secret and its
line, never the value."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

LIKELY_ONLY = frozenset({"Base64 High Entropy String", "Hex High Entropy String", "Secret Keyword"})
"""Detectors that guess from entropy or a variable's name: likely secrets (a warning), where
the others recognise a credential's own format (an error)."""


@dataclass(frozen=True)
class SecretHit:
    """One detected secret: its 1-based line, the detector's name, whether it is a guess."""

    line: int
    kind: str
    likely_only: bool


INDIRECT_REFERENCE = re.compile(r"(?::=?|[!=]{1,3})\s*[\w.-]+[\[\(][^\v]*[\]\)]")
"""detect-secrets' `is_indirect_reference` pattern (``secret = get_key()`` is not a secret)
without its leading group and blanks (``([^\\v=!:]*)\\s*``): they may match nothing, so a line matches one
exactly when it matches the other, but upstream's backtracks over every start position
(quadratic in the line: 2.2 s of a 3.8 s scan of a 1,300-line reference file). Only the
filter's yes/no is used."""


@cache
def _fast_filters() -> None:
    """Give detect-secrets' indirect-reference filter the equivalent linear pattern (once)."""
    from detect_secrets.filters import heuristic

    heuristic._get_indirect_reference_regex = lambda: INDIRECT_REFERENCE  # type: ignore[assignment]
    _fast_injection()


def _fast_injection() -> None:
    """Give detect-secrets' scanner a shorter `call_function_with_arguments`, the same call.

    The scanner calls every plugin and filter on every line through it (27 plugins a line);
    upstream re-derives each time what the first call stored on the function
    (`injectable_variables`, `make_function_self_aware`), and that was a third of a library's
    scan. A function that carries `injectable_variables` gets exactly the arguments upstream
    gives it (the keyword arguments it names); any other goes to upstream's function."""
    from detect_secrets.core import scan as core_scan
    from detect_secrets.util import inject

    upstream = inject.call_function_with_arguments

    def call_function_with_arguments(func: Any, **kwargs: Any) -> Any:
        names = getattr(func, "injectable_variables", None)
        if names is None:
            return upstream(func, **kwargs)
        return func(**{name: value for name, value in kwargs.items() if name in names})

    core_scan.call_function_with_arguments = call_function_with_arguments


_CONFIGURED: ContextVar[bool] = ContextVar("detect_secrets_configured", default=False)


@contextmanager
def secret_settings() -> Iterator[None]:
    """detect-secrets' default plugins and filters, configured once for every file scanned
    inside (re-entrant). Configuring them and restoring the settings costs more than scanning
    a small file (each clears and rebuilds every plugin and filter cache): per file, it was
    half of the scan of a 10,000-skill library."""
    if _CONFIGURED.get():
        yield
        return
    from detect_secrets.settings import default_settings

    _fast_filters()
    token = _CONFIGURED.set(True)
    try:
        with default_settings():
            yield
    finally:
        _CONFIGURED.reset(token)


def find_secrets(path: str | Path) -> list[SecretHit]:
    """detect-secrets' findings in one file, with its default plugins and filters."""
    from detect_secrets import SecretsCollection

    collection = SecretsCollection()
    with secret_settings():
        collection.scan_file(str(path))
    hits = {(secret.line_number or 1, secret.type) for _, secret in collection}
    return [SecretHit(line, kind, kind in LIKELY_ONLY) for line, kind in sorted(hits)]
