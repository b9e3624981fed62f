"""The backend-agreement document's registry entry, kept apart from `agreement` so that reading
the schema registry (``schema check``) imports no numpy or pandas."""

from __future__ import annotations

from skillbench.schemas.agreement import AgreementReport
from skillbench.schemas.registry import native_entry

AGREEMENT_DOCUMENT = native_entry(
    "backend-agreement",
    AgreementReport,
    ("backend_a", "backend_b", "kappa", "queries"),
    ("agreement.json",),
)
"""Registered with the schema registry through the `skillbench.documents` entry point."""
