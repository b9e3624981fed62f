"""The offline demo workspace: recorded SAMPLE runs of data/runs/ replayed into a temp folder."""

from __future__ import annotations

from pathlib import Path


def sample_workspace(skill_dir: str | Path, workspace: str | Path | None = None) -> Path:
    """`workspace` when given (used as is), else a new temporary workspace holding the replayed
    sample runs of the skill (local backend: files are copied, no model runs), removed when
    this process exits (`backends.scratch`)."""
    if workspace is not None:
        return Path(workspace)
    from skillbench.backends.scratch import scratch_until_exit
    from skillbench.behavior.options import RunOptions
    from skillbench.behavior.run import run_cases
    from skillbench.behavior.workspace import Workspace, init_workspace, read_evals

    root = scratch_until_exit("report") / "workspace"
    init_workspace(skill_dir, workspace=root)
    evals = read_evals(Path(skill_dir) / "evals" / "evals.json")
    run_cases(Workspace(root), evals, RunOptions(backend="local"), skill_dir=skill_dir)
    return root
