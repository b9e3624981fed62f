"""environment.yml and pyproject.toml declare the same requirements."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]


def _normalised(strings: list[str]) -> set[str]:
    out = set()
    for text in strings:
        req = Requirement(text)
        name = req.name.lower().replace("_", "-").replace(".", "-")
        out.add(f"{name}{req.specifier}{';' + str(req.marker) if req.marker else ''}")
    return out


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _environment() -> dict:
    return yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))


def _pip_section(env: dict) -> list[str]:
    sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(sections) == 1, "environment.yml needs exactly one pip: section"
    return [str(s) for s in sections[0]]


USER_EXTRAS = ("notebooks", "local")
"""What `[all]` brings: environment.yml installs the core and these, never the dev tools."""


def test_pip_requirements_match_pyproject_core_and_user_extras() -> None:
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    expected = _normalised(project["dependencies"] + [r for e in USER_EXTRAS for r in extras[e]])
    pip_lines = [line for line in _pip_section(_environment()) if not line.startswith("-")]
    actual = _normalised(pip_lines)
    assert actual == expected, (
        f"missing from environment.yml: {sorted(expected - actual)}; "
        f"not in pyproject.toml: {sorted(actual - expected)}"
    )
    assert len(pip_lines) == len(actual), "a requirement is listed twice in environment.yml"


def test_all_is_the_user_extras_and_dev_tools_stay_out() -> None:
    extras = _pyproject()["project"]["optional-dependencies"]
    assert extras["all"] == [f"skillbench[{','.join(USER_EXTRAS)}]"]
    names = {Requirement(line).name for line in _pip_section(_environment()) if line[0] != "-"}
    dev_tools = {Requirement(r).name for r in extras["dev"]} - {"skillbench"}
    assert not names & dev_tools, f"dev tools in environment.yml: {sorted(names & dev_tools)}"


def test_nodejs_for_the_claude_code_cli() -> None:
    conda = [d for d in _environment()["dependencies"] if isinstance(d, str)]
    assert any(d.replace(" ", "").startswith("nodejs") for d in conda)


def test_python_version_matches_requires_python() -> None:
    conda = [d for d in _environment()["dependencies"] if isinstance(d, str)]
    pythons = [d for d in conda if d.replace(" ", "").startswith("python")]
    assert len(pythons) == 1
    spec = SpecifierSet(pythons[0].replace(" ", "")[len("python") :])
    assert spec == SpecifierSet(_pyproject()["project"]["requires-python"])
    assert "pip" in conda


def test_pip_section_installs_the_project_itself() -> None:
    assert "-e ." in _pip_section(_environment())
