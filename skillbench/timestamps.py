"""Timestamps as the seed documents write them."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_timestamp() -> str:
    """Now, in UTC, to the second, with a `Z`: ``2026-01-15T10:30:00Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
