"""One redactor for everything skillbench writes: files, cache rows, terminal lines, errors.

Pattern-based (`KEY_SHAPES`: ``sk-ant-…``, GitHub and AWS keys, JWTs, bearer tokens…),
plus the values of secret-named environment variables and any secret a caller passes in, so a
key typed as an option value (``--model sk-ant-…``, ``-p token sk-ant-…``) is caught too. Every
redaction reads `REDACTED`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

REDACTED = "[REDACTED]"

#: Shapes of credentials, each behind a literal that must occur first (a fast `in` test keeps
#: redacting a 10 MB report linear and cheap): Anthropic/OpenAI-style keys, GitHub, Slack, AWS,
#: Google, JWTs and bearer tokens.
KEY_SHAPES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (
        ("sk-",),
        re.compile(r"sk-ant-[A-Za-z0-9_\-]{4,}|(?<![A-Za-z0-9])sk-(?:proj-)?[A-Za-z0-9_\-]{20,}"),
    ),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"gh[pousr]_[A-Za-z0-9]{20,}")),
    (("github_pat_",), re.compile(r"github_pat_[A-Za-z0-9_]{20,}")),
    (("xox",), re.compile(r"xox[abprs]-[A-Za-z0-9\-]{10,}")),
    # not inside a base64 run (an embedded PNG must never be altered)
    (("AKIA", "ASIA"), re.compile(r"(?<![A-Za-z0-9+/])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z+/])")),
    (("AIza",), re.compile(r"(?<![A-Za-z0-9+/])AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z+/_\-])")),
    (("eyJ",), re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}")),
    (
        ("earer", "EARER"),
        re.compile(r"(?i:bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*"),
    ),
)
_ANY_SHAPE = re.compile(
    "|".join(re.escape(literal) for literals, _ in KEY_SHAPES for literal in literals)
)
#: Environment variable names whose values are secrets.
SECRET_NAME = re.compile(
    r"(api[_-]?key|token|secret|password|passwd|credential|private[_-]?key)", re.IGNORECASE
)
#: Values shorter than this are never treated as secrets (too likely to occur by chance).
MIN_SECRET_LENGTH = 8
#: A secret's last characters are redacted too (a truncated echo of a key).
TAIL_LENGTH = 12


_env_names: tuple[str, ...] = ()
_env_size = -1
_env_values: list[str | None] = []


def _env_secrets() -> list[str]:
    """Values of secret-named environment variables. The names are rescanned only when the
    environment's size or one of those values changes, so a call costs a few lookups."""
    global _env_names, _env_size, _env_values
    current = [os.environ.get(name) for name in _env_names]
    if len(os.environ) != _env_size or current != _env_values:
        _env_names = tuple(name for name in os.environ if SECRET_NAME.search(name))
        _env_size = len(os.environ)
        current = [os.environ.get(name) for name in _env_names]
        _env_values = current
    return [value for value in current if value]


def secret_values(extra: Iterable[str | None] = ()) -> list[str]:
    """Values of secret-named environment variables and `extra`, longest first."""
    values = set(_env_secrets())
    values.update(v for v in extra if v)
    return sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with key-shaped strings and every known secret value replaced by REDACTED."""
    return _redact(text, secret_values(secrets)) if text else text


def _redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:  # every whole value first: a tail may occur inside another secret
        if secret in text:
            text = text.replace(secret, REDACTED)
    for secret in secrets:
        if len(secret) > TAIL_LENGTH + 8 and secret[-TAIL_LENGTH:] in text:
            text = text.replace(secret[-TAIL_LENGTH:], REDACTED)
    if _ANY_SHAPE.search(text) is None:
        return text
    for literals, pattern in KEY_SHAPES:
        if any(literal in text for literal in literals):
            text = pattern.sub(REDACTED, text)
    return text


def redact_data(value: Any, secrets: Iterable[str | None] = ()) -> Any:
    """A copy of plain data (dicts, lists, tuples as lists) with every string redacted."""
    known = secret_values(secrets)
    return _walk(value, known)


def redacted_json(value: Any, secrets: Iterable[str | None] = (), **dumps: Any) -> str:
    """`json.dumps(redact_data(value, secrets), **dumps)`, the same text, without the copy when
    the text of `value` shows no secret: no key shape's literal and no secret value (nor its
    tail) occurs in it. The shortcut holds only for secrets JSON writes as they are (each
    character its own text, so a secret inside any string occurs verbatim in the document); a
    secret JSON would escape (a quote, a backslash, a control character) takes the copy."""
    known = secret_values(secrets)
    text = json.dumps(value, **dumps)
    if _ANY_SHAPE.search(text) is None and not any(
        _found_in_json(secret, text, dumps) for secret in known
    ):
        return text
    return json.dumps(_walk(value, known), **dumps)


def _found_in_json(secret: str, text: str, dumps: dict[str, Any]) -> bool:
    """Whether `secret` (or the tail `_redact` hides) may be in the JSON document `text`: when
    JSON writes `secret` with escapes it may hide there, so the answer is yes."""
    if json.dumps(secret, **dumps)[1:-1] != secret:
        return True
    return secret in text or (len(secret) > TAIL_LENGTH + 8 and secret[-TAIL_LENGTH:] in text)


def _walk(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return _redact(value, secrets)
    if isinstance(value, dict):
        return {_walk(k, secrets): _walk(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, secrets) for v in value]
    return value


def redact_bytes(data: bytes, secrets: Iterable[str | None] = ()) -> bytes | None:
    """`data` with every secret replaced when it is UTF-8 text; other bytes are returned as they
    are when they hold no secret, else None (a binary file cannot be redacted without breaking
    it, so its caller refuses to write it). A secret counts in a binary file when its UTF-8
    bytes or a key shape occur verbatim."""
    known = secret_values(secrets)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raw = data.decode("latin-1")  # byte for byte, so the patterns match the raw bytes
        probes = [s.encode("utf-8").decode("latin-1") for s in known]
        return None if _redact(raw, probes) != raw else data
    clean = _redact(text, known)
    return data if clean == text else clean.encode("utf-8")


def looks_secret(text: str) -> bool:
    """Whether `text` holds something `redact` would hide."""
    return redact(text) != text


def clip(text: str, limit: int = 300) -> str:
    """Redact and shorten a message for a report or a log line."""
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
