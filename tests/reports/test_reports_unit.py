"""Fast checks of the report runner's pieces (no kernel is started here)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from matplotlib.patches import Rectangle
from nbformat.v4 import new_code_cell, new_notebook, new_output

from skillbench.cli.report_cmd import parse_value
from skillbench.errors import InputError
from skillbench.reports import notebook as notebook_helpers
from skillbench.reports.html import render_html
from skillbench.reports.manifest import input_hashes, list_artifacts, redact
from skillbench.reports.runner import (
    check_parameters,
    declared_parameters,
    default_values,
    is_input_path_param,
    list_reports,
    new_run_id,
    resolve_notebook,
    run_notebook,
)
from skillbench.validate.plots import findings_by_code_figure

PAYLOAD = "</script><script>alert(1)"


def _notebook(path: Path, params_source: str, body: str = "print(1)") -> Path:
    nb = new_notebook(
        cells=[
            new_code_cell(params_source, metadata={"tags": ["parameters"]}),
            new_code_cell(body),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
    )
    nbformat.write(nb, str(path))
    return path


@pytest.fixture(autouse=True)
def _no_report_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(notebook_helpers.REPORT_DIR_ENV, raising=False)
    notebook_helpers.use_report_dir(None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", 3),
        ("0.5", 0.5),
        ("true", True),
        ("False", False),
        ("None", None),
        ("null", None),
        ("data/skills", "data/skills"),
        ("", ""),
        ("a: b: c", "a: b: c"),
        ("'7'", "7"),
    ],
)
def test_parse_value_reads_yaml_scalars(text: str, value: object) -> None:
    assert parse_value(text) == value


def test_unknown_parameter_is_rejected_before_execution(tmp_path: Path) -> None:
    nb = _notebook(tmp_path / "n.ipynb", "x = 1\nreport_dir = None", "raise SystemExit('ran')")
    with pytest.raises(InputError) as info:
        run_notebook(nb, {"y": 2}, out_root=tmp_path / "reports")
    assert "y" in str(info.value) and "unknown parameter" in str(info.value)
    assert not (tmp_path / "reports").exists(), "nothing may be created for a rejected run"


@pytest.mark.parametrize("name", ["report_dir", "api_key", "ANTHROPIC_API_KEY"])
def test_runner_owned_and_secret_parameters_are_rejected(tmp_path: Path, name: str) -> None:
    nb = _notebook(tmp_path / "n.ipynb", f"{name} = None\nreport_dir = None")
    declared = declared_parameters(nb)
    with pytest.raises(InputError):
        check_parameters(nb, {name: "x"}, declared)


def test_declared_defaults_are_evaluated(tmp_path: Path) -> None:
    nb = _notebook(tmp_path / "n.ipynb", 'skills_dir = "data/skills"\nstrict = False\nn = 3')
    assert default_values(declared_parameters(nb)) == {
        "skills_dir": "data/skills",
        "strict": False,
        "n": 3,
    }


def test_missing_or_broken_notebook_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such notebook"):
        resolve_notebook("does_not_exist_anywhere")
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.ipynb"):
        declared_parameters(broken)


def test_run_id_format() -> None:
    first, second = new_run_id(), new_run_id()
    assert len(first) == len("20260101T000000Z-abcdef") and first[8] == "T" and first[15] == "Z"
    assert first != second


def test_input_hashes_cover_files_and_folders_and_follow_content(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "a"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("one", encoding="utf-8")
    single = tmp_path / "evals.json"
    single.write_text("[]", encoding="utf-8")
    params = {"skills_dir": "skills", "eval_file": str(single), "profile": "claude-code", "n": 3}
    before = {h.parameter: h for h in input_hashes(params, tmp_path)}
    assert set(before) == {"skills_dir", "eval_file"}
    assert before["skills_dir"].kind == "folder" and before["skills_dir"].files == 1
    assert before["eval_file"].kind == "file"
    (folder / "SKILL.md").write_text("two", encoding="utf-8")
    after = {h.parameter: h for h in input_hashes(params, tmp_path)}
    assert after["skills_dir"].sha256 != before["skills_dir"].sha256
    assert after["eval_file"].sha256 == before["eval_file"].sha256


def test_list_artifacts_skips_manifest_and_temporaries(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}", encoding="utf-8")
    (tmp_path / ".x.json.abc.tmp").write_text("", encoding="utf-8")
    (tmp_path / "a.json").write_text("[]", encoding="utf-8")
    (tmp_path / "b.png").write_bytes(b"\x89PNG")
    names = {a.name: a.kind for a in list_artifacts(tmp_path)}
    assert names == {"a.json": "json", "b.png": "png"}


def test_redact_hides_secret_environment_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value-123")
    assert redact("bad key sk-ant-secret-value-123 used") == "bad key [REDACTED] used"


def test_helpers_save_artifacts_into_the_report_dir(tmp_path: Path) -> None:
    from skillbench.schemas.validation import Finding, ValidationReport

    notebook_helpers.use_report_dir(tmp_path)
    report = ValidationReport.from_findings(
        "s", [Finding(level="warning", code="W_X", message="m")]
    )
    saved = notebook_helpers.save_json("validation", [report])
    assert saved is not None and saved.path == tmp_path / "validation.json"
    assert repr(saved) == "saved validation.json"  # displayed relative to the report folder
    assert json.loads(saved.read_text(encoding="utf-8"))[0]["summary"]["warning_count"] == 1
    fig = findings_by_code_figure(pd.DataFrame({"code": ["W_X", None], "level": ["warning", None]}))
    assert notebook_helpers.save_figure("by_code", fig, show=False) is None  # nothing to display
    assert (tmp_path / "by_code.png").read_bytes().startswith(b"\x89PNG")
    with pytest.raises(InputError):
        notebook_helpers.save_json("../escape", {})


def test_helpers_without_report_dir_save_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert notebook_helpers.save_json("x", {"a": 1}) is None
    assert "not saved" in capsys.readouterr().out


def test_helpers_use_the_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(notebook_helpers.REPORT_DIR_ENV, str(tmp_path))
    saved = notebook_helpers.save_json("x", {"a": 1})
    assert saved is not None and saved.path == tmp_path / "x.json"


def test_findings_figure_counts_by_code_and_level() -> None:
    frame = pd.DataFrame(
        {"code": ["A", "A", "B", None], "level": ["error", "warning", "warning", None]}
    )
    fig = findings_by_code_figure(frame)
    ax = fig.axes[0]
    widths = sorted(round(p.get_width()) for p in ax.patches if isinstance(p, Rectangle))
    assert widths == [0, 1, 1, 1]  # A: 1 error + 1 warning; B: 0 error + 1 warning
    assert [t.get_text() for t in ax.get_yticklabels()] == ["B", "A"]
    empty = findings_by_code_figure(frame.iloc[3:])
    assert "no findings" in [t.get_text() for t in empty.axes[0].texts]


def test_table_html_escapes_skill_text() -> None:
    html = notebook_helpers.table_html(pd.DataFrame({"description": [PAYLOAD]}))
    assert PAYLOAD not in html
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in html


def test_render_html_drops_code_and_keeps_escaped_output(tmp_path: Path) -> None:
    cell = new_code_cell("secret_code_marker = 1")
    cell.outputs = [
        new_output(
            "display_data",
            data={
                "text/html": notebook_helpers.table_html(pd.DataFrame({"d": [PAYLOAD]})),
                "text/plain": "table",
            },
        )
    ]
    nb = new_notebook(cells=[cell])
    executed = tmp_path / "run.ipynb"
    nbformat.write(nb, str(executed))
    html = render_html(executed, tmp_path / "index.html", title="t").read_text(encoding="utf-8")
    assert "secret_code_marker" not in html
    assert PAYLOAD not in html
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in html


def test_list_reports_skips_unfinished_folders(tmp_path: Path) -> None:
    assert list_reports(tmp_path) == []
    (tmp_path / "nb" / ".20260101T000000Z-abcdef.partial").mkdir(parents=True)
    (tmp_path / "nb" / ".20260101T000000Z-abcdef.partial" / "manifest.json").write_text("{}")
    assert list_reports(tmp_path) == []
    bad = tmp_path / "nb" / "20260101T000000Z-abcdef"
    bad.mkdir()
    (bad / "manifest.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="not a report manifest"):
        list_reports(tmp_path)


def test_missing_input_path_is_rejected_before_execution(tmp_path: Path) -> None:
    nb = _notebook(
        tmp_path / "n.ipynb", "skills_dir = 'data/skills'\nreport_dir = None", "raise SystemExit(1)"
    )
    (tmp_path / "data" / "skills").mkdir(parents=True)
    with pytest.raises(InputError) as info:
        run_notebook(nb, {"skills_dir": "no/such/dir"}, out_root=tmp_path / "r", cwd=tmp_path)
    assert info.value.field == "skills_dir" and "does not exist" in str(info.value)
    assert not (tmp_path / "r").exists(), "nothing may be created for a rejected run"


def test_output_and_optional_path_parameters_are_not_required_to_exist() -> None:
    assert is_input_path_param("skill_dir") and is_input_path_param("evals")
    assert is_input_path_param("catalog") and is_input_path_param("skills_root")
    assert not is_input_path_param("report_dir") and not is_input_path_param("out")
    assert not is_input_path_param("backend")


PARAMS_CELL = (
    'skills = ["csv-cleanup", "sql-query-reviewer"]\nskill_dir = "data/skills"\nruns = 3\n'
    "threshold = 0.5\nstrict = False\nloops = None\noptions = {}\ncount: int = 2\n"
    "report_dir = None"
)


@pytest.mark.parametrize(
    ("name", "text", "expects"),
    [
        ("skill_dir", "{a: 1}", "got a map"),  # a YAML map for a path
        ("loops", "[a, b]", "got a list"),
        ("skills", "{pdf: 1}", "expects a list"),
        ("runs", "many", "expects an integer"),
        ("runs", "true", "expects an integer"),
        ("runs", "2.5", "expects an integer"),
        ("threshold", "[0.5]", "expects a number"),
        ("strict", "1", "expects true or false"),
        ("options", "[1]", "expects a map"),
        ("skills", "none", "got None"),
        ("count", "two", "expects an integer"),  # from the annotation papermill reports
    ],
)
def test_a_value_the_parameter_cell_does_not_accept_is_refused_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, expects: str
) -> None:
    from skillbench.cli import main

    nb = _notebook(tmp_path / "n.ipynb", PARAMS_CELL)
    out = tmp_path / "reports"
    assert main(["report", str(nb), "-p", name, text, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"n.ipynb: {name}: " in err and expects in err and "[parameter-type]" in err, err
    assert not out.exists(), "nothing may be created for a refused parameter"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("skills", "[pdf]"),
        ("skill_dir", "other/skills"),
        ("skill_dir", "none"),
        ("loops", "runs/loop"),
        ("runs", "5"),
        ("threshold", "1"),
        ("strict", "true"),
        ("options", "{a: 1}"),
        ("count", "4"),
    ],
)
def test_values_of_the_declared_types_pass(tmp_path: Path, name: str, text: str) -> None:
    nb = _notebook(tmp_path / "n.ipynb", PARAMS_CELL)
    check_parameters(nb, {name: parse_value(text, name)}, declared_parameters(nb))


def test_one_value_for_a_list_parameter_is_a_one_item_list(tmp_path: Path) -> None:
    """Issue 20: `-p skills pdf` is the skill pdf, never the letters p, d, f."""
    nb = _notebook(tmp_path / "n.ipynb", PARAMS_CELL)
    params = {"skills": parse_value("pdf", "skills")}
    check_parameters(nb, params, declared_parameters(nb))
    assert params == {"skills": ["pdf"]}


def test_report_out_on_a_symlink_loop_is_bad_input_naming_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from skillbench.cli import main

    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    nb = _notebook(tmp_path / "n.ipynb", "n = 1")
    for out in (tmp_path / "a", tmp_path / "a" / "reports"):
        assert main(["report", str(nb), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "symbolic link loop" in err and "(--out)" in err and "Traceback" not in err, err
    assert main(["demo", "--out", str(tmp_path / "a")]) == 2
    assert "(--out)" in capsys.readouterr().err
