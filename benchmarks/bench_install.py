"""What `pip install` costs and gives: the core wheel alone, then with `[notebooks,local]`.

Builds the wheel (`pip wheel --no-deps`), then in fresh venvs under a temporary folder installs
it from the package index pip is configured with (network: PyPI or a mirror; minutes, not
seconds) and measures: the bytes the install adds to site-packages (apparent size, over an
empty venv's), the disk usage, the number of installed distributions. From a folder outside
the checkout, the core venv must run `skillbench validate` (exit 0) and `report list`, and
`skillbench report trigger_eval` must answer with one line naming
``pip install 'skillbench[notebooks]'`` (exit 2); the full venv must run `skillbench demo`
(exit 0) with every report under that folder. Target: the core adds at most 150 MB.
Writes benchmarks/results/bench_install.json; exits 1 if a target or a check is missed.
Not in run_all.py (it needs the package index); run it by hand:

    .venv/bin/python benchmarks/bench_install.py [--no-demo]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "bench_install.json"
CORE_TARGET_MB = 150.0
HINT = "pip install 'skillbench[notebooks]'"


class Install(BaseModel):
    """One venv: what was installed and what it weighs."""

    spec: str
    added_mb: float
    disk_mb: float
    distributions: int
    install_seconds: float


class Check(BaseModel):
    """One command run in a venv from a folder outside the checkout."""

    venv: str
    command: str
    exit_code: int
    expected: int
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == self.expected


class Result(BaseModel):
    wheel: str
    core: Install
    full: Install | None
    checks: list[Check]
    core_target_mb: float
    met: bool


def run(
    argv: list[str], cwd: Path | None = None, timeout: float = 1800
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout
    )


def site_packages(venv: Path) -> Path:
    (found,) = (venv / "lib").glob("python3*/site-packages")
    return found


def apparent_bytes(folder: Path) -> int:
    return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def disk_bytes(folder: Path) -> int:
    return sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def new_venv(path: Path) -> Path:
    done = run([sys.executable, "-m", "venv", str(path)])
    if done.returncode != 0:
        raise SystemExit(f"venv failed: {done.stderr}")
    return path / "bin" / "python"


def install(venv: Path, spec: str, baseline: int) -> Install:
    python = new_venv(venv)
    start = time.perf_counter()
    done = run([str(python), "-m", "pip", "install", "-q", spec])
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"pip install {spec} failed:\n{done.stderr[-3000:]}")
    listed = json.loads(run([str(python), "-m", "pip", "list", "--format", "json"]).stdout)
    site = site_packages(venv)
    return Install(
        spec=spec,
        added_mb=round((apparent_bytes(site) - baseline) / 1e6, 1),
        disk_mb=round(disk_bytes(site) / 1e6, 1),
        distributions=len(listed),
        install_seconds=round(seconds, 1),
    )


def check(venv: Path, args: list[str], expected: int, cwd: Path, must_say: str = "") -> Check:
    done = run([str(venv / "bin" / "skillbench"), *args], cwd=cwd)
    note = ""
    if must_say and must_say not in done.stderr:
        note = f"stderr lacks {must_say!r}: {done.stderr.strip()[-300:]}"
    code = done.returncode if not note else -1
    return Check(
        venv=venv.name, command=" ".join(args), exit_code=code, expected=expected, note=note
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-demo", action="store_true", help="skip the [notebooks,local] venv")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillbench-install-") as tmp:
        base = Path(tmp)
        built = run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "--no-deps",
                "-q",
                "-w",
                str(base / "dist"),
                str(ROOT),
            ]
        )
        if built.returncode != 0:
            raise SystemExit(f"pip wheel failed:\n{built.stderr[-3000:]}")
        (wheel,) = (base / "dist").glob("skillbench-*.whl")
        new_venv(base / "empty")
        baseline = apparent_bytes(site_packages(base / "empty"))
        user = base / "user"  # outside the checkout
        shutil.copytree(ROOT / "data" / "skills" / "csv-cleanup", user / "csv-cleanup")
        core = install(base / "core", str(wheel), baseline)
        checks = [
            check(base / "core", ["validate", "csv-cleanup"], 0, user),
            check(base / "core", ["report", "list"], 0, user),
            check(base / "core", ["report", "trigger_eval"], 2, user, must_say=HINT),
        ]
        full = None
        if not options.no_demo:
            full = install(base / "full", f"{wheel}[notebooks,local]", baseline)
            demo = check(base / "full", ["demo"], 0, user)
            stray = list(site_packages(base / "full").glob("skillbench/_project/reports"))
            if stray:
                demo = demo.model_copy(
                    update={"exit_code": -1, "note": f"reports written into {stray[0]}"}
                )
            if not (user / "reports" / "index.html").is_file():
                demo = demo.model_copy(
                    update={"exit_code": -1, "note": "no reports/index.html in the caller's folder"}
                )
            checks.append(demo)
    met = core.added_mb <= CORE_TARGET_MB and all(c.ok for c in checks)
    result = Result(
        wheel=wheel.name,
        core=core,
        full=full,
        checks=checks,
        core_target_mb=CORE_TARGET_MB,
        met=met,
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    for name, item in (("core", core), ("core+notebooks+local", full)):
        if item is not None:
            print(
                f"{name}: +{item.added_mb} MB over an empty venv (disk {item.disk_mb} MB), "
                f"{item.distributions} distributions, installed in {item.install_seconds} s"
            )
    for c in checks:
        print(
            f"{'ok  ' if c.ok else 'MISS'} [{c.venv}] skillbench {c.command}: exit {c.exit_code} (expected {c.expected}) {c.note}"
        )
    print(f"core target ≤ {CORE_TARGET_MB} MB: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    os.environ.pop("SKILLBENCH_PROJECT", None)
    raise SystemExit(main())
