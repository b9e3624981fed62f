"""Behavior evals: a versioned workspace, the executor, grading, benchmark and comparison.

Layout and records: `skillbench.behavior.workspace` (Workspace, history, init, snapshot) and
`skillbench.behavior.records` (RunRecord, ExpectationCheck). Heavy modules are imported lazily.
"""

from skillbench.behavior.records import ExpectationCheck, RunRecord
from skillbench.behavior.workspace import StoredRun, Workspace

__all__ = ["ExpectationCheck", "RunRecord", "StoredRun", "Workspace"]
