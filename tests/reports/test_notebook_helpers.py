"""Presentation helpers of the notebooks: saved-file display, number formatting, tables, heatmap."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from IPython.core.formatters import DisplayFormatter

from skillbench.behavior.plots import expectation_matrix_figure
from skillbench.reports import notebook as nb


@pytest.fixture(autouse=True)
def _no_report_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(nb.REPORT_DIR_ENV, raising=False)
    nb.use_report_dir(None)


def test_saved_displays_relative_to_the_report_folder(tmp_path: Path) -> None:
    nb.use_report_dir(tmp_path / ".run.partial")
    saved = nb.save_json("summary", {"a": 1})
    assert saved is not None
    data, _ = DisplayFormatter().format(saved)
    assert data["text/plain"] == "saved summary.json"
    assert 'href="summary.json"' in data["text/html"]
    assert str(tmp_path) not in data["text/html"]  # no absolute path into the run folder


def test_report_relative_paths(tmp_path: Path) -> None:
    nb.use_report_dir(tmp_path)
    assert nb.report_relative(tmp_path / "loop" / "x.json") == "loop/x.json"
    assert nb.report_relative("/elsewhere/y") == "/elsewhere/y"


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.70833, "0.708"), (1.0, "1.000"), (0.0, "0"), (0.00012, "0.00012"), (26624.44, "26,624.4")],
)
def test_format_number(value: float, text: str) -> None:
    assert nb.format_number(value) == text


def test_table_html_rounds_and_keeps_only_meaningful_indexes() -> None:
    plain = nb.table_html(pd.DataFrame({"rate": [0.70833], "note": ["+0.55"]}))
    assert "0.708" in plain and "0.70833" not in plain and "+0.55" in plain
    assert "<th>0</th>" not in plain  # a 0..n-1 index is noise
    named = pd.DataFrame({"value": [3]}, index=pd.Index(["calls"], name="metric"))
    assert "calls" in nb.table_html(named) and "metric" in nb.table_html(named)
    mixed = nb.table_html(pd.DataFrame({"v": pd.Series([0.40371, "+0.55"], dtype=object)}))
    assert "0.404" in mixed and "0.40371" not in mixed


def test_empty_table_becomes_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj.data))
    nb.show_table(pd.DataFrame(columns=["sign"]), empty="No <warning> signs.")
    assert shown == ["<p>No &lt;warning&gt; signs.</p>"]


def test_record_table_is_transposed(monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr("IPython.display.display", lambda obj: shown.append(obj.data))
    frame = pd.DataFrame([{"run": "csv-cleanup", "chosen_low": 0.510109, "n_test": 4}])
    nb.show_record_table(frame, key="run")
    (html,) = shown
    assert "<th>chosen_low</th>" in html and "0.510" in html and "0.510109" not in html
    assert "csv-cleanup</th>" in html  # the run is a column header, fields are rows


def test_expectation_heatmap_grows_with_the_table() -> None:
    def matrix(n_expectations: int, configs: list[str]) -> pd.DataFrame:
        return pd.DataFrame(
            [
                {
                    "case": "c",
                    "expectation": f"expectation {i} " + "word " * 30,
                    "config": cfg,
                    "pass rate": 0.5,
                }
                for i in range(n_expectations)
                for cfg in configs
            ]
        )

    small = expectation_matrix_figure(matrix(3, ["a", "b"])).get_size_inches()
    tall = expectation_matrix_figure(matrix(15, ["a", "b"])).get_size_inches()
    wide = expectation_matrix_figure(matrix(3, ["a", "b", "c", "d"])).get_size_inches()
    assert tall[1] > small[1] + 4 and wide[0] > small[0] + 2
    labels = [
        t.get_text() for t in expectation_matrix_figure(matrix(1, ["a"])).axes[0].get_yticklabels()
    ]
    assert all(len(line) <= 48 for line in labels[0].split("\n")) and labels[0].endswith("…")


def test_whole_number_floats_and_row_numbers_stay_quiet() -> None:
    frame = pd.DataFrame({"score": [1.0, 3.0], "note": ["a", None]}, index=[0, 6])
    html = nb.table_html(frame)
    assert "<td>3</td>" in html and "3.000" not in html
    assert "<th>6</th>" not in html and "None" not in html


def test_a_working_copy_is_gone_when_its_process_exits(tmp_path: Path) -> None:
    """Issue 27 (review): the blind-comparison notebook's copy of a workspace stayed in
    /tmp/skillbench-copy-* forever. It is a scratch folder of the kernel's process, removed when
    that process exits, and swept by the next process when the owner was killed."""
    import os
    import subprocess
    import sys

    workspace = tmp_path / "workspace"
    (workspace / "runs").mkdir(parents=True)
    (workspace / "runs" / "a.json").write_text("{}")
    (workspace / "loop").symlink_to(".")  # kept as a link, never followed
    temp = tmp_path / "tmp"
    temp.mkdir()
    code = (
        "import sys\nfrom skillbench.reports import notebook as nb\n"
        "copy = nb.working_copy(sys.argv[1])\nprint(copy)\n"
        "assert open(copy + '/runs/a.json').read() == '{}'\n"
    )
    env = {**os.environ, "TMPDIR": str(temp)}
    done = subprocess.run([sys.executable, "-c", code, str(workspace)], env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    copy = Path(done.stdout.strip())
    assert copy.name == "workspace" and copy.is_relative_to(temp)
    private = temp / f"skillbench-{os.getuid()}"  # the private 0700 root scratch folders live in
    assert list(temp.iterdir()) == [private]
    assert not copy.exists() and list(private.iterdir()) == []  # removed at the process's exit
    killed = subprocess.run([sys.executable, "-c", code + "import os\nos._exit(0)\n",
                             str(workspace)], env=env, capture_output=True, text=True,
                            check=True)  # fmt: skip
    stale = Path(killed.stdout.strip()).parent
    assert stale.name.startswith("skillbench-report-") and stale.exists()  # no exit handler ran
    subprocess.run([sys.executable, "-c", code, str(workspace)], env=env, check=True,
                   capture_output=True)  # fmt: skip
    assert list(private.iterdir()) == []  # the next process swept the dead owner's copy
