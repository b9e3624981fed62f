"""`reports/index.html` and `reports/<notebook>/latest`, rewritten after every report.

The index lists every finished report folder under the report root, newest first, with its
status, its verdict line (from the manifest's header) and links to its HTML and folder. Each
notebook's ``latest`` is a relative symlink to its newest report folder that succeeded, replaced
atomically.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.io import atomic_write_text
from skillbench.reports.header import mark
from skillbench.reports.manifest import MANIFEST_NAME, Manifest

INDEX_NAME = "index.html"
LATEST_NAME = "latest"


def finished_reports(out_root: str | Path) -> list[tuple[Path, Manifest]]:
    """Report folders under `out_root` with a readable manifest (unreadable ones are skipped),
    newest first."""
    root = Path(out_root)
    found: list[tuple[Path, Manifest]] = []
    for path in root.glob(f"*/*/{MANIFEST_NAME}"):
        folder = path.parent
        if folder.name.startswith(".") or folder.name == LATEST_NAME:
            continue
        try:
            found.append((folder, read_model(path, Manifest, what="not a report manifest")))
        except InputError:
            continue
    found.sort(key=lambda item: (item[1].started_utc, item[0].name), reverse=True)
    return found


def update_latest(out_root: str | Path, notebook: str) -> Path | None:
    """Point ``<out_root>/<notebook>/latest`` at the newest report folder of that notebook
    that ran to the end: a failed report never becomes `latest` (None when there is none)."""
    parent = Path(out_root) / notebook
    newest = [
        f
        for f, m in finished_reports(out_root)
        if m.notebook == notebook and f.parent == parent and m.status == "ok"
    ]
    if not newest:
        return None
    link = parent / LATEST_NAME
    temporary = parent / f".{LATEST_NAME}.{os.getpid()}.tmp"
    temporary.unlink(missing_ok=True)
    os.symlink(newest[0].name, temporary, target_is_directory=True)
    os.replace(temporary, link)
    return link


def page_name(manifest: Manifest) -> str:
    """The page of a report folder: `index.html` (a notebook's), else its first HTML artifact
    (a CLI report's, e.g. the gate's `gate_report.html`)."""
    pages = [a.name for a in manifest.artifacts if a.kind == "html" and "/" not in a.name]
    return INDEX_NAME if not pages or INDEX_NAME in pages else pages[0]


def _row(root: Path, folder: Path, manifest: Manifest) -> str:
    esc = html.escape
    rel = folder.relative_to(root).as_posix()
    header = manifest.header
    if manifest.status == "failed":
        ok: bool | None = False
    else:
        ok = header.ok if header is not None else None
    verdict = (
        header.verdict
        if header is not None
        else ("failed" if manifest.status == "failed" else "no verdict recorded")
    )
    link = f'<a href="{esc(rel)}/{esc(page_name(manifest))}">{esc(manifest.notebook)}</a>'
    skill = header.skill if header is not None and header.skill else ""
    return (
        f"<tr><td>{esc(mark(ok))}</td><td>{manifest.started_utc:%Y-%m-%d %H:%M:%S}Z</td>"
        f"<td>{link}</td><td>{esc(skill)}</td><td>{esc(verdict)}</td>"
        f'<td><a href="{esc(rel)}/">{esc(manifest.run_id)}</a></td></tr>'
    )


def write_index(out_root: str | Path) -> Path:
    """Rewrite ``<out_root>/index.html`` listing every report, newest first."""
    root = Path(out_root)
    reports = finished_reports(root)
    rows = "\n".join(_row(root, folder, manifest) for folder, manifest in reports)
    newest: dict[str, Manifest] = {}
    for _, m in reports:  # newest first: the first of each notebook is its `latest`
        if m.status == "ok":
            newest.setdefault(m.notebook, m)
    links = " · ".join(
        f'<a href="{html.escape(n)}/{LATEST_NAME}/{html.escape(page_name(newest[n]))}">'
        f"{html.escape(n)}</a>"
        for n in sorted(newest)
    )
    body = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>skillbench reports</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{text-align:left;padding:0.25em 0.8em;border-bottom:1px solid #ddd;vertical-align:top}}</style>
</head><body>
<h1>skillbench reports</h1>
<p>{len(reports)} report(s), newest first. Latest of each notebook: {links or "none"}</p>
<table><thead><tr><th></th><th>started (UTC)</th><th>notebook</th><th>skill</th>
<th>verdict</th><th>folder</th></tr></thead>
<tbody>
{rows}
</tbody></table>
</body></html>
"""
    return atomic_write_text(root / INDEX_NAME, body)
