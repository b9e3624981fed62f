"""What people and CI read of a gate: the PR comment (Markdown), the HTML page, CI cases
(annotations, JUnit), the job summary and the step outputs of GitHub Actions.

Every text passes through the one redactor (`io.atomic_write_text` for files,
`redaction.redact` for Markdown cells); Markdown cells are escaped so a query cannot break the
table or inject markup.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path

from skillbench.gate.report import GateQuery, GateReport
from skillbench.io import atomic_write_text, write_json
from skillbench.redaction import redact
from skillbench.reports.ci import append_file_command
from skillbench.schemas.cost import cost_summary
from skillbench.schemas.display import box_html, table_html

#: Regressed (or most-dropped) queries listed in a PR comment.
MAX_LISTED = 10
REPORT_JSON = "gate_report.json"
REPORT_HTML = "gate_report.html"


def md_cell(text: object) -> str:
    """A Markdown table cell: secrets redacted, `|`, backticks, `<` and newlines neutralised."""
    value = redact(str(text))
    for old, new in (("\\", "\\\\"), ("|", "\\|"), ("`", "'"), ("<", "&lt;"), (">", "&gt;")):
        value = value.replace(old, new)
    return " ".join(value.split())


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _expect(q: GateQuery, unit: str) -> str:
    if unit == "case":
        return "expectations pass"
    return "trigger" if q.should_trigger else "no trigger"


def _query_rows(queries: Sequence[GateQuery], unit: str = "query") -> list[str]:
    rows = [f"| {unit} | expect | base | head | Δ | Holm p |", "|---|---|---|---|---|---|"]
    for q in queries[:MAX_LISTED]:
        delta = "–" if q.delta is None else f"{q.delta:+.2f}"
        expect = _expect(q, unit)
        rows.append(
            f"| {md_cell(q.query)} | {expect} | {_rate(q.base_rate)} | {_rate(q.head_rate)} "
            f"| {delta} | {q.p_holm:.3g} |"
        )
    if len(queries) > MAX_LISTED:
        rows.append(f"\n… and {len(queries) - MAX_LISTED} more in the report")
    return rows


def units(report: GateReport) -> tuple[str, str]:
    """What a row of the gate is: a query (trigger) or an eval case (--behavior)."""
    return ("case", "cases") if report.kind == "behavior" else ("query", "queries")


def run_link() -> str | None:
    """The GitHub Actions run page (where the report artifact is), when running in one."""
    server, repo, run = (os.environ.get(k) for k in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY",
                                                     "GITHUB_RUN_ID"))  # fmt: skip
    if not (server and repo and run):
        return None
    return f"{server}/{repo}/actions/runs/{run}"


def query_level_line(report: GateReport) -> str:
    """The query verdicts of both sides (as `report diff` pairs them)."""
    q = report.query_level
    if q is None:
        return ""
    return (
        f"query verdicts: base passes {q.base_passed}/{q.paired}, head {q.head_passed}/{q.paired}; "
        f"{q.regressed} flipped to fail, {q.improved} to pass (exact McNemar p = {q.p_value:.3g})"
    )


def markdown(report: GateReport, *, report_dir: str | Path | None = None) -> str:
    """The PR comment: the verdict first, the regressed queries, the cost, links."""
    icon = {"regressed": "❌", "improved": "✅"}.get(report.verdict, "➖")
    one, many = units(report)
    lines = [f"### {icon} skillbench gate: `{md_cell(report.skill_name)}`", ""]
    lines.append(f"**{md_cell(report.verdict_line)}**")
    lines.append("")
    if report.verdict != "no base":
        lines.append(
            f"base `{md_cell(report.base.ref)}` ({(report.base.commit or '?')[:12]}) vs head "
            f"({(report.head.commit or '?')[:12]}{', uncommitted changes' if report.head.dirty else ''}); "
            f"{report.runs} runs per {one} per side, {report.pairs} paired runs; "
            f"pass rate {_rate(report.base.pass_rate)} → {_rate(report.head.pass_rate)}"
        )
        if report.query_level is not None:
            lines.append("")
            lines.append(query_level_line(report))
        lines.append("")
        lines.append(f"_{md_cell(report.mde_line)}_")
        lines.append("")
    dropped = sorted((q for q in report.queries if (q.delta or 0) < 0), key=lambda q: q.delta or 0)
    significant = report.regressed_queries
    if significant:
        lines += [f"**Regressed {many}** ({len(significant)}, each significant on its own after "
                  "Holm):", "", *_query_rows(significant, one), ""]  # fmt: skip
    others = [q for q in dropped if q.change != "regressed"]
    if others:
        title = f"Other {many} that dropped" if significant else f"{many.capitalize()} that dropped"
        lines += [f"{title} (largest first; none significant on its own):", "",
                  *_query_rows(others, one), ""]  # fmt: skip
    if report.base.description != report.head.description and report.base.description:
        lines += [
            "<details><summary>descriptions</summary>",
            "",
            "| base | head |",
            "|---|---|",
            f"| {md_cell(report.base.description)} | {md_cell(report.head.description)} |",
            "",
            "</details>",
            "",
        ]
    if report.cost is not None:
        lines.append(f"cost: {md_cell(cost_summary(report.cost))}")
    links = []
    if report_dir is not None:
        links.append(f"report: `{md_cell(report_dir)}` ({REPORT_HTML}, {REPORT_JSON})")
    link = run_link()
    if link:
        links.append(f"[workflow run and report artifact]({link})")
    lines += [f"{' · '.join(links)}" if links else ""]
    for warning in report.warnings or []:
        lines.append(f"> ⚠️ {md_cell(warning)}")
    return "\n".join(lines).rstrip() + "\n"


def html_page(report: GateReport) -> str:
    """The HTML report: the usual header box, both sides side by side, the query table."""
    header = report.header or {}
    rows = [(str(k), str(v)) for k, v in header.items() if isinstance(v, str | int | float)
            and k not in ("title", "verdict")]  # fmt: skip
    rows.append(("test", f"{report.pairs} paired runs, exact McNemar p = {report.p_value:.3g}"))
    rows.append(("detectable", report.mde_line))
    if report.cost is not None:
        rows.append(("cost", cost_summary(report.cost)))
    box = box_html(
        str(header.get("title", f"Gate: {report.skill_name}")),
        report.verdict_line,
        report.ok,
        rows,
        failures=[f"regressed: {q.query}" for q in report.regressed_queries],
    )
    sides = table_html(
        ["", "base", "head"],
        [
            ["ref", report.base.ref, report.head.ref],
            ["commit", report.base.commit, report.head.commit],
            ["skill", report.base.skill_name, report.head.skill_name],
            ["description", report.base.description, report.head.description],
            ["queries passing", report.base.passed_queries, report.head.passed_queries],
            ["pass rate (paired runs)", report.base.pass_rate, report.head.pass_rate],
        ],
    )
    one = units(report)[0]
    queries = table_html(
        [one, "expect", "base", "head", "Δ", "p", "Holm p", "change"],
        [
            [q.query, _expect(q, one), q.base_rate, q.head_rate, q.delta,
             f"{q.p_value:.3g}", f"{q.p_holm:.3g}", q.change]
            for q in sorted(report.queries, key=lambda q: q.delta or 0)
        ],
    )  # fmt: skip
    title = html.escape(f"skillbench gate: {report.skill_name}")
    many = units(report)[1].capitalize()
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head><body>"
        f"{box}<h3>Base and head</h3>{sides}<h3>{many} (largest drops first)</h3>{queries}"
        "</body></html>\n"
    )


def write_report(report: GateReport, folder: str | Path) -> dict[str, str]:
    """`gate_report.json` and `gate_report.html` in `folder` (atomically); their paths."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    files = {"json": str(out / REPORT_JSON), "html": str(out / REPORT_HTML)}
    report.files = files
    write_json(out / REPORT_JSON, report)
    atomic_write_text(out / REPORT_HTML, html_page(report))
    return files


def append_step_summary(text: str) -> Path | None:
    """Append `text` to `$GITHUB_STEP_SUMMARY` when set (the job summary page)."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(redact(text) + "\n")
    return Path(path)


def set_outputs(values: dict[str, str]) -> Path | None:
    """Append `name=value` lines to `$GITHUB_OUTPUT` when set (the step's outputs)."""
    return append_file_command(
        "GITHUB_OUTPUT", {name: " ".join(redact(value).split()) for name, value in values.items()}
    )
