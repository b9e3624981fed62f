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
from datetime import datetime
from pathlib import Path

from skillbench.gate.evalsource import EvalSetChange
from skillbench.gate.report import GateQuery, GateReport, rate_text
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


def _expect(q: GateQuery, unit: str) -> str:
    if unit == "case":
        return "expectations pass"
    return "trigger" if q.should_trigger else "no trigger"


def runs_needed_text(q: GateQuery) -> str:
    """What a drop not significant alone would need: "about N runs per side" (– otherwise)."""
    if q.change != "dropped":
        return "–"
    return "> 100 runs" if q.runs_needed is None else f"about {q.runs_needed} runs"


def _query_rows(queries: Sequence[GateQuery], unit: str = "query") -> list[str]:
    rows = [
        f"| {unit} | expect | base | head | Δ | p | Holm p | flagged alone with |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for q in queries[:MAX_LISTED]:
        delta = "–" if q.delta is None else f"{q.delta:+.2f}"
        expect = _expect(q, unit)
        rows.append(
            f"| {md_cell(q.query)} | {expect} | {rate_text(q.base_rate)} "
            f"| {rate_text(q.head_rate)} | {delta} | {q.p_value:.3g} | {q.p_holm:.3g} "
            f"| {runs_needed_text(q)} |"
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


def eval_set_lines(change: EvalSetChange | None, *, cell: bool = True) -> list[str]:
    """The eval set that graded both sides, then what the change did to it, one line per kind
    (at most MAX_LISTED queries each); nothing when no record was made."""
    if change is None:
        return []
    quote = md_cell if cell else str
    lines = [change.summary()]
    for kind, queries in (("flipped", change.flipped), ("edited", change.edited),
                          ("added", change.added), ("removed", change.removed)):  # fmt: skip
        if queries:
            shown = "; ".join(quote(q) for q in queries[:MAX_LISTED])
            more = f" … and {len(queries) - MAX_LISTED} more" if len(queries) > MAX_LISTED else ""
            lines.append(f"{kind} by this change: {shown}{more}")
    return lines


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
            f"pass rate {rate_text(report.base.pass_rate)} → {rate_text(report.head.pass_rate)}"
        )
        if report.query_level is not None:
            lines.append("")
            lines.append(query_level_line(report))
        lines.append("")
        lines.append(f"_{md_cell(report.mde_line)}_")
        lines.append("")
        found = eval_set_lines(report.eval_set)
        if found:
            lines += [f"**Eval set:** {md_cell(found[0])}", *(f"- {x}" for x in found[1:]), ""]
    dropped = sorted((q for q in report.queries if (q.delta or 0) < 0), key=lambda q: q.delta or 0)
    significant = report.regressed_queries
    if significant:
        lines += [f"**Regressed {many}** ({len(significant)}, each significant on its own after "
                  "Holm):", "", *_query_rows(significant, one), ""]  # fmt: skip
    others = [q for q in dropped if q.change != "regressed"]
    if others:
        title = f"Other {many} that dropped" if significant else f"{many.capitalize()} that dropped"
        lines += [f"{title} (largest first; none significant on its own: the last column "
                  "says how many runs per side would flag a drop this size alone):", "",
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
    if report.scan is not None:  # `skillbench scan`: what the change added
        scan = report.scan.lines()
        lines += [f"**{md_cell(scan[0])}**", *(f"- {md_cell(x.strip())}" for x in scan[1:]), ""]
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


#: The page style of the report index (`reports.index`), so a gate page looks like the rest.
PAGE_STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
    "td,th{text-align:left;padding:0.25em 0.8em;border-bottom:1px solid #ddd;vertical-align:top}"
)
CHANGE_MARK = {"regressed": "✗ ", "improved": "✓ ", "dropped": "⚠ "}


def _labelled(rows: Sequence[Sequence[object]]) -> str:
    """A two-column table of labelled values, each escaped and shown in full."""
    esc = html.escape
    body = "".join(
        f'<tr><th style="color:#57606a">{esc(str(k))}</th><td>{esc(str(v))}</td></tr>'
        for k, v in rows
    )
    return f'<table class="sb-table" style="font-size:0.9em">{body}</table>'


def _header(report: GateReport) -> str:
    """The standard report header box (✓/✗ verdict, failures, labelled rows)."""
    from skillbench.reports.header import ReportHeader, header_html

    if report.header:
        return header_html(ReportHeader.model_validate(report.header))
    return box_html(f"Gate: {report.skill_name}", report.verdict_line, report.ok, [])


def html_page(report: GateReport) -> str:
    """The HTML report: the usual header box (the cost of both sides), the test, the eval set
    and what the change did to it, both sides side by side, and every query."""
    esc = html.escape
    one, many = units(report)
    test = [
        ["verdict", report.verdict],
        ["paired runs", f"{report.pairs} ({report.runs} per {one} per side, {report.runs_mode})"],
        ["regressed / improved pairs", f"{report.regressed} / {report.improved}"],
        ["exact McNemar p (pooled)", f"{report.p_value:.3g} (alpha/2 = {report.alpha / 2:g})"],
        ["detectable", report.mde_line],
    ]
    if report.query_level is not None:
        test.append([f"{one} verdicts", query_level_line(report).split(": ", 1)[-1]])
    test += [["plan", line] for line in report.plan or []]
    test += [["warning", w] for w in report.warnings or []]
    test += [["note", n] for n in report.notes or []]
    eval_lines = eval_set_lines(report.eval_set, cell=False)
    eval_part = (
        "<h3>Eval set</h3><ul>" + "".join(f"<li>{esc(x)}</li>" for x in eval_lines) + "</ul>"
        if eval_lines
        else ""
    )
    sides = table_html(
        ["", "base", "head"],
        [
            ["ref", report.base.ref, report.head.ref],
            ["commit", (report.base.commit or "")[:12] or None,
             ((report.head.commit or "")[:12] or None) if not report.head.dirty
             else f"{(report.head.commit or '?')[:12]} + uncommitted changes"],
            ["skill", report.base.skill_name, report.head.skill_name],
            ["description", report.base.description, report.head.description],
            [f"{many} passing", report.base.passed_queries, report.head.passed_queries],
            ["pass rate (paired runs)", rate_text(report.base.pass_rate),
             rate_text(report.head.pass_rate)],
        ],
    )  # fmt: skip
    rows = sorted(report.queries, key=lambda q: q.delta or 0)
    queries = table_html(
        [one, "expect", "base", "head", "Δ", "p", "Holm p", "change", "flagged alone with"],
        [
            [q.query, _expect(q, one), rate_text(q.base_rate), rate_text(q.head_rate),
             "–" if q.delta is None else f"{q.delta:+.2f}", f"{q.p_value:.3g}",
             f"{q.p_holm:.3g}", CHANGE_MARK.get(q.change, "") + q.change, runs_needed_text(q)]
            for q in rows
        ],
        max_rows=max(len(rows), 1),
    )  # fmt: skip
    title = esc(f"skillbench gate: {report.skill_name}")
    return (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{PAGE_STYLE}</style></head><body>{_header(report)}"
        f"<h3>Test</h3>{_labelled(test)}{eval_part}"
        f"<h3>Base and head</h3>{sides}<h3>{many.capitalize()} (largest drops first)</h3>"
        f"{queries}</body></html>\n"
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


def write_manifest(
    report: GateReport,
    folder: str | Path,
    *,
    parameters: dict[str, object],
    started: datetime,
    wall_seconds: float,
) -> Path:
    """`manifest.json` of a gate's report folder, as a notebook report's (header, parameters,
    input hashes, software, artifacts), so the reports index lists it."""
    from skillbench.reports.header import ReportHeader, Verdict, make_header
    from skillbench.reports.manifest import (
        MANIFEST_NAME,
        Manifest,
        git_state,
        input_hashes,
        list_artifacts,
        software_versions,
        utc_now,
    )

    out = Path(folder)
    cwd = Path.cwd()
    header = (
        ReportHeader.model_validate(report.header)
        if report.header
        else make_header(f"Gate: {report.skill_name}", Verdict(report.ok, report.verdict_line))
    )
    manifest = Manifest(
        header=header, notebook="gate", notebook_path="skillbench gate", run_id=out.name,
        status="ok", parameters=dict(parameters), backend=_text(parameters.get("backend")),
        model=_text(parameters.get("model")), kernel_name="none (the skillbench gate command)",
        cwd=str(cwd), software=software_versions(), git=git_state(cwd),
        inputs=input_hashes(dict(parameters), cwd, skip=frozenset({"out", "junit", "cache"})),
        started_utc=started, finished_utc=utc_now(), wall_seconds=round(wall_seconds, 3),
        artifacts=list_artifacts(out),
    )  # fmt: skip
    return write_json(out / MANIFEST_NAME, manifest)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def index_report(folder: str | Path) -> Path | None:
    """When `folder` is `<root>/gate/<run>` (the reports layout), refresh `<root>/index.html`
    and `<root>/gate/latest`; the index written, else None."""
    from skillbench.reports.index import update_latest, write_index

    out = Path(folder)
    if out.parent.name != "gate":
        return None
    root = out.parent.parent
    update_latest(root, "gate")
    return write_index(root)
