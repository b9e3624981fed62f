"""Property: whatever JSON, YAML or option value the CLI is fed, it answers with an exit code in
{0, 1, 2}, no traceback, within a time bound (in-process `main()` calls, an instant judge)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from skillbench.backends import registry
from skillbench.backends.base import (
    CallUsage,
    TextRequest,
    TextResponse,
    TriggerOutcome,
    TriggerRequest,
)
from skillbench.cli import main

BACKEND = "instant-property"
TIME_BOUND = 20.0  # seconds per CLI call, generous for a shared 2-core machine
SETTINGS = settings(
    max_examples=int(os.environ.get("SKILLBENCH_PROPERTY_EXAMPLES", "25")),
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class InstantJudge:
    name, model, is_proxy = "instant", "instant-1", False

    def identity(self) -> dict[str, Any]:
        return {"backend": BACKEND}

    def versions(self) -> dict[str, str]:
        return {"instant": "1"}

    async def judge(self, request: TriggerRequest) -> TriggerOutcome:
        return TriggerOutcome(len(request.query) % 2 == 0, fired=None, usage=CallUsage())

    async def aclose(self) -> None:
        return None


class EchoModel:
    """A text model that proposes the same description (the loop needs one; rounds=1)."""

    name, model = "instant", "instant-1"

    def identity(self) -> dict[str, Any]:
        return {"backend": BACKEND, "kind": "text"}

    async def complete(self, request: TextRequest) -> TextResponse:
        return TextResponse(text="Does props.", usage=CallUsage())

    async def aclose(self) -> None:
        return None


@pytest.fixture(scope="module")
def place() -> Iterator[Path]:
    registry.register_judge(BACKEND, lambda **_: InstantJudge())
    registry.register_text_model(BACKEND, lambda **_: EchoModel())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        skill = root / "prop-skill"
        skill.mkdir()
        (skill / "SKILL.md").write_text("---\nname: prop-skill\ndescription: Does props.\n---\nB\n")
        (root / "catalog").mkdir()
        good = [{"query": f"q{i}", "should_trigger": i % 2 == 0} for i in range(12)]
        (root / "good.json").write_text(json.dumps(good))
        yield root
    registry.unregister(BACKEND)


def call(argv: list[str]) -> int:
    """`main(argv)`; asserts the contract: exit code in {0, 1, 2}, no traceback, in time."""
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    elapsed = time.monotonic() - started
    assert code in (0, 1, 2), (argv[:3], code, err.getvalue()[-500:])
    assert "Traceback" not in err.getvalue()
    assert elapsed < TIME_BOUND, (argv[:3], elapsed)
    return code


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
eval_like = st.lists(
    st.fixed_dictionaries(
        {"query": scalars, "should_trigger": scalars},
        optional={"family": scalars, "prompt": scalars},
    ),
    max_size=4,
)
hostile_text = st.one_of(
    st.integers(1, 3000).map(lambda n: "[" * n + "]" * n),
    st.integers(4000, 6000).map(lambda n: '[{"query": "q", "should_trigger": ' + "9" * n + "}]"),
    st.text(max_size=20).map(
        lambda t: json.dumps([{"query": t, "should_trigger": True}])[:-3] + '\\ud800"}]'
    ),
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
)
json_documents = st.one_of(json_values.map(json.dumps), eval_like.map(json.dumps), hostile_text)


@SETTINGS
@given(document=json_documents)
def test_any_json_eval_file(place: Path, document: str) -> None:
    evals = place / "evals.json"
    evals.write_text(document, encoding="utf-8", errors="surrogatepass")
    skill, catalog = str(place / "prop-skill"), str(place / "catalog")
    call(["trigger", skill, "--evals", str(evals), "--backend", BACKEND, "--runs", "1",
          "--no-cache", "--catalog", catalog, "--out", str(place / "out.json")])  # fmt: skip
    call(["schema", "check", str(evals)])
    call(["schema", "convert", str(evals), "--to", "writing-skills"])
    call(["run", skill, "--evals", str(evals), "--workspace", str(place / "ws"), "--runs", "1"])


yaml_documents = st.one_of(
    json_values.map(lambda v: yaml.safe_dump(v, allow_unicode=True)),
    st.text(max_size=200),
    st.integers(1, 200).map(lambda n: "name: " + "[" * n + "x" + "]" * n),
    st.just("a: &a [*a]"),
)


@SETTINGS
@given(front=yaml_documents)
def test_any_yaml_frontmatter(place: Path, front: str) -> None:
    skill = place / "yaml-skill"
    skill.mkdir(exist_ok=True)
    (skill / "SKILL.md").write_text(f"---\n{front}\n---\nBody\n", errors="surrogatepass")
    call(["validate", str(skill)])


option_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(categories=["Cs", "Cc"]), min_size=1, max_size=5),  # argv oddities
    st.sampled_from(["nan", "inf", "-inf", "0", "-1", "1e309", "100000000", "9" * 5000, "auto"]),
    st.floats().map(str),
    st.integers().map(str),
)


@SETTINGS
@given(
    option=st.sampled_from(
        [
            "--runs",
            "--max-runs",
            "--timeout",
            "--threshold",
            "--confidence",
            "--workers",
            "--seed",
            "--model",
        ]
    ),
    value=option_text,
)
def test_any_trigger_option_value(place: Path, option: str, value: str) -> None:
    call(["trigger", str(place / "prop-skill"), "--evals", str(place / "good.json"),
          "--backend", BACKEND, "--no-cache", "--catalog", str(place / "catalog"),
          "--max-runs", "4", option, value])  # fmt: skip


@SETTINGS
@given(
    split=option_text
    | st.sampled_from(["0.6,0.2,0.2", "0.5,0.25,0.25", "nan,0.5,0.5", "1,0,0", "0.98,0.01,0.01"]),
    name=st.sampled_from(["skill_dir", "runs", "model"]),
    value=option_text,
)
@example(split="0.6,0.2,0.2", name="runs", value="3")  # a valid call: it runs (see below)
def test_any_split_and_report_parameter(place: Path, split: str, name: str, value: str) -> None:
    code = improve(place, split)
    if split == VALID_SPLIT:  # the property reaches past the argument checks
        assert code <= 1
    call(["report", "no-such-notebook", "-p", name, value, "--out", str(place / "reports")])


VALID_SPLIT = "0.6,0.2,0.2"


def improve(place: Path, split: str) -> int:
    return call(["improve", str(place / "prop-skill"), "--evals", str(place / "good.json"),
          "--backend", BACKEND, "--no-cache", "--catalog", str(place / "catalog"),
          "--rounds", "1", "--runs", "1", "--split", split, "--out", str(place / "improve"),
          "--overwrite"])  # fmt: skip


def test_the_properties_reached_past_the_checks(place: Path) -> None:
    """The inputs the properties vary sit beside a valid call: with a valid split, improve runs
    (exit 0 or 1), so the properties test more than the argument checks. Self-contained: it
    used to read the exit codes another test had collected, and failed when run alone."""
    assert improve(place, VALID_SPLIT) <= 1
