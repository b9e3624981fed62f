"""Build the recorded SAMPLE runs of data/runs/csv-cleanup/ (hand-written, not model output).

Each run is a hand-scripted stream-json session (what `claude -p --output-format stream-json`
prints); the run folder is then written by skillbench's own code, so transcript.md,
outputs/metrics.json and timing.json are COMPUTED from those events exactly as for a real run.
Re-run with `.venv/bin/python data/runs/build_samples.py` after editing the scripts below.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from skillbench.backends.base import CallUsage  # noqa: E402
from skillbench.backends.claude_cli.stream_json import parse_stream  # noqa: E402
from skillbench.behavior.records import SAMPLE_NOTE, RunRecord  # noqa: E402
from skillbench.behavior.run_files import (  # noqa: E402
    ExecutionResult,
    make_timing,
    render_stream_transcript,
    session_metrics,
    write_run_folder,
)
from skillbench.behavior.workspace import Workspace, read_evals  # noqa: E402

SKILL = ROOT / "data" / "skills" / "csv-cleanup"
OUT = Path(__file__).resolve().parent / "csv-cleanup"
SKILL_MD = ".claude/skills/csv-cleanup/SKILL.md"
PROFILER = "python .claude/skills/csv-cleanup/scripts/profile_csv.py"

CRM_GOOD = (
    "first_name,last_name,e_mail,zip_code,signup_date,phone\n"
    "Anna,Berg,anna.berg@example.com,00501,2024-01-15,0171 555 0101\n"
    "Tomás,Ruiz,tomas.ruiz@example.com,10115,2024-02-03,\n"
    "Li,Wei,li.wei@example.com,02134,,030 555 0199\n"
    "Maya,Okafor,maya.okafor@example.com,94103,2024-03-22,\n"
    "Jonas,Meier,jonas.meier@example.com,80331,2024-04-09,089 555 0142\n"
)
CRM_LOG = """# crm_export.csv → crm_export.clean.csv

- Encoding UTF-8 (no BOM), delimiter `;` → `,`.
- Headers: `First Name`→`first_name`, `Last Name`→`last_name`, `E-Mail `→`e_mail`,
  `Zip Code`→`zip_code`, `Signup Date`→`signup_date`, `Phone`→`phone`.
- Trimmed whitespace in 5 cells (first_name ×1, last_name ×1, e_mail ×1, zip_code ×1).
- Null markers → empty: `NULL` ×1, `N/A` ×1, `-` ×1 (phone ×2, signup_date ×1).
- {dupes}
- Rows in: 7, rows out: 5. All columns read as text (zip codes keep leading zeros).
"""
BANK_GOOD = (
    "date,description,amount\n"
    "2024-07-03,Coffee Roasters Ltd,-12.50\n"
    "2024-07-15,Salary Northwind,2450.00\n"
    "2024-07-21,Rent July,-1234.56\n"
    "2024-08-04,Bookshop,-23.99\n"
    "2024-08-12,Refund Bookshop,23.99\n"
)
SURVEY_PROFILE = """encoding: utf-8  delimiter: '\\t'  rows: 6 (+ header)  columns: 5
ragged rows: row 3 has 4 fields (expected 5); rows 5 and 6 have 6 fields (expected 5)
empty cells: age ×2, country ×1, comment ×1
exact duplicate rows: row 6 duplicates row 5 (respondent 1004)
sample values: country = DE, FR, NL; score = 6..10"""


class Script:
    """Builds one stream-json session."""

    def __init__(self, case: str, config: str, run: int) -> None:
        self.sid = f"sample-{case}-{config}-{run}"
        self.events: list[dict[str, Any]] = []
        self.turns = 0
        self.n = 0
        tools = ["Bash", "Edit", "Glob", "Grep", "Read", "Write"]
        skills = ["csv-cleanup"] if config != "baseline" else []
        self.events.append(
            {
                "type": "system",
                "subtype": "init",
                "session_id": self.sid,
                "tools": tools,
                "model": "sample",
                "skills": skills,
            }
        )

    def tool(self, name: str, tool_input: dict[str, Any], result: str, error: bool = False) -> None:
        self.turns += 1
        self.n += 1
        tid = f"toolu_{self.sid}_{self.n}"
        self.events.append(
            {
                "type": "assistant",
                "session_id": self.sid,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tid, "name": name, "input": tool_input}],
                },
            }
        )
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tid, "content": result}
        if error:
            block["is_error"] = True
        self.events.append(
            {
                "type": "user",
                "session_id": self.sid,
                "message": {"role": "user", "content": [block]},
            }
        )

    def say(self, text: str) -> None:
        self.turns += 1
        self.events.append(
            {
                "type": "assistant",
                "session_id": self.sid,
                "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
            }
        )

    def write(self, path: str, content: str) -> None:
        self.tool("Write", {"file_path": path, "content": content}, f"File created: {path}")

    def finish(self, text: str, seconds: float, tokens: tuple[int, int, int]) -> None:
        self.say(text)
        self.events.append(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "duration_ms": int(seconds * 1000),
                "num_turns": self.turns,
                "result": text,
                "session_id": self.sid,
                "total_cost_usd": 0.0,
                "usage": {
                    "input_tokens": tokens[0],
                    "output_tokens": tokens[1],
                    "cache_read_input_tokens": tokens[2],
                    "cache_creation_input_tokens": 0,
                },
            }
        )


def crm(config: str, run: int) -> Script:
    s = Script("dedupe-crm-export", config, run)
    src = "evals/files/crm_export.csv"
    with_skill = config != "baseline"
    if with_skill:
        s.tool("Read", {"file_path": SKILL_MD}, "# CSV cleanup …")
        s.tool("Bash", {"command": f"{PROFILER} {src}"}, "delimiter ';' rows 7 duplicates: 2")
        if run == 3:
            s.tool("Bash", {"command": "python -c 'import pandas'"}, "ModuleNotFoundError", True)
            s.say("pandas is not installed; I'll use the csv module instead.")
        dupes = (
            "Removed exact duplicate rows 4 and 7 (repeats of rows 2 and 5)."
            if run != 2
            else "Removed rows 4 and 7 (exact repeats of rows 2 and 5)."
        )
        s.write("evals/files/crm_export.clean.csv", CRM_GOOD)
        s.write("evals/files/crm_export.changes.md", CRM_LOG.format(dupes=dupes))
        s.finish(
            "Done: 7 rows in, 5 rows out. Headers are snake_case, delimiter is now a comma, "
            "2 duplicate customers removed and 3 null markers emptied; zip codes kept as text.\n"
            "Files: evals/files/crm_export.clean.csv and evals/files/crm_export.changes.md.",
            [41.2, 37.9, 55.4][run - 1],
            ((18200, 2100, 9100), (17650, 1980, 9100), (22400, 2650, 9100))[run - 1],
        )
    else:
        s.tool("Read", {"file_path": src}, "First Name;Last Name;E-Mail ;Zip Code;…")
        if run == 1:
            body = (
                CRM_GOOD.replace(
                    "first_name,last_name,e_mail,zip_code,signup_date,phone",
                    "first name,last name,e-mail,zip code,signup date,phone",
                )
                .replace("00501", "501")
                .replace("02134", "2134")
            )
            s.write("evals/files/crm_export_clean.csv", body)
            text = "I cleaned the file and removed duplicates: crm_export_clean.csv."
        elif run == 2:
            body = CRM_GOOD.replace("00501", "501").replace("02134", "2134")
            s.write("evals/files/crm_export.clean.csv", body)
            text = "Wrote evals/files/crm_export.clean.csv with normalised headers; 2 duplicates dropped."
        else:
            body = CRM_GOOD.replace(
                "first_name,last_name,e_mail,zip_code,signup_date,phone",
                "First Name,Last Name,E-Mail,Zip Code,Signup Date,Phone",
            )
            s.write("evals/files/crm_export.clean.csv", body)
            text = "Converted to comma-separated and removed the duplicate rows (7 → 5 rows)."
        s.finish(text, [22.0, 19.4, 24.8][run - 1], (9800 + 300 * run, 1200 + 90 * run, 0))
    return s


def bank(config: str, run: int) -> Script:
    s = Script("european-bank-dates", config, run)
    src = "evals/files/bank_tx.csv"
    if config != "baseline":
        s.tool("Read", {"file_path": SKILL_MD}, "# CSV cleanup …")
        s.tool(
            "Bash", {"command": f"{PROFILER} {src}"}, "delimiter ';' rows 5 date like NN/NN/NNNN"
        )
        s.write("evals/files/bank_tx.clean.csv", BANK_GOOD)
        s.write(
            "evals/files/bank_tx.changes.md",
            "- Dates: day-first (15/07/2024 has 15 in the first position) → ISO 8601.\n"
            "- Amounts: whole column uses `1.234,56` → converted to `1234.56`.\n",
        )
        reason = (
            "The dates are day-first: 15/07/2024 and 21/07/2024 can only be read that way, so "
            "03/07/2024 is 3 July (2024-07-03). "
            if run != 3
            else ""
        )
        s.finish(
            f"{reason}Every amount used the European convention, so the whole column was converted "
            "(-1.234,56 → -1234.56). Output: evals/files/bank_tx.clean.csv; original untouched.",
            [33.1, 29.8, 31.5][run - 1],
            (15100 + 250 * run, 1700 + 60 * run, 9100),
        )
    else:
        s.tool("Read", {"file_path": src}, "Date;Description;Amount\n03/07/2024;…")
        if run == 1:
            body = BANK_GOOD.replace("2024-07-03", "2024-03-07").replace("2024-08-04", "2024-04-08")
            body = body.replace("2024-08-12", "2024-12-08")
            s.write("evals/files/bank_tx.clean.csv", body)
            text = "Dates converted to ISO (YYYY-MM-DD) and amounts to plain decimals."
        elif run == 2:
            body = BANK_GOOD.replace("-1234.56", "-1.234.56").replace("2450.00", "2.450.00")
            s.write("evals/files/bank_tx.clean.csv", body)
            text = "Replaced the decimal commas with dots and converted the dates."
        else:
            s.write("evals/files/bank_tx_clean.csv", BANK_GOOD)
            text = "Saved the standardised file as bank_tx_clean.csv."
        s.finish(text, [14.2, 16.0, 12.7][run - 1], (7600 + 200 * run, 900 + 50 * run, 0))
    return s


def survey(config: str, run: int) -> Script:
    s = Script("profile-before-fixing", config, run)
    src = "evals/files/survey.tsv"
    if config != "baseline":
        s.tool("Read", {"file_path": SKILL_MD}, "# CSV cleanup …")
        s.tool("Bash", {"command": f"{PROFILER} {src}"}, SURVEY_PROFILE)
        text = (
            "Profile of evals/files/survey.tsv (nothing changed yet):\n"
            "- Ragged rows: row 3 has 4 fields instead of 5 (no comment); rows 5 and 6 have 6 "
            "fields — the comment `slow\\tcheckout` contains a tab.\n"
            "- Exact duplicate: row 6 repeats row 5 (respondent 1004).\n"
            "- Empty cells: age ×2, country ×1.\n"
            "Shall I merge the split comment, drop the duplicate and write survey.clean.csv?"
        )
        if run == 3:
            text += "\n\nDetails per column:\n" + "\n".join(
                f"- {col}: {desc}"
                for col, desc in [
                    ("respondent", "integer ids 1001–1005, 1004 twice"),
                    ("age", "29–52, two empty"),
                    ("country", "DE ×2, FR, NL ×2, one empty"),
                    ("score", "6–10"),
                    ("comment", "free text, one missing, one split by a tab"),
                ]
                for _ in range(4)
            )
        s.finish(
            text, [18.3, 20.1, 26.4][run - 1], (12100 + 180 * run, 900 + 400 * (run == 3), 9100)
        )
    else:
        s.tool("Read", {"file_path": src}, "respondent\tage\tcountry\tscore\tcomment\n1001\t34…")
        if run == 1:
            text = (
                "Row 3 has 4 fields instead of 5 and rows 5–6 have an extra field; respondent "
                "1004 appears twice (duplicate). Some ages are empty."
            )
        elif run == 2:
            s.write("evals/files/survey.clean.tsv", "respondent\tage\tcountry\tscore\tcomment\n")
            text = "I fixed the column issues and removed the duplicate row: survey.clean.tsv."
        else:
            text = "Some values are missing (age, country, one comment). Otherwise it looks fine."
        s.finish(text, [9.8, 15.5, 8.1][run - 1], (6100 + 120 * run, 420 + 40 * run, 0))
    return s


BUILDERS = {"dedupe-crm-export": crm, "european-bank-dates": bank, "profile-before-fixing": survey}


def outputs_of(script: Script) -> dict[str, bytes]:
    """Files the session wrote (its Write calls), as the executor would collect them."""
    out: dict[str, bytes] = {}
    for event in script.events:
        for block in (event.get("message") or {}).get("content", []) or []:
            if block.get("type") == "tool_use" and block.get("name") == "Write":
                out[block["input"]["file_path"]] = block["input"]["content"].encode("utf-8")
    return out


def build() -> None:
    evals = read_evals(SKILL / "evals" / "evals.json")
    prompts = {str(c.id): c.prompt for c in evals.evals.cases}
    shutil.rmtree(OUT / "runs", ignore_errors=True)
    space = Workspace(OUT)
    minute = 0
    for config in ("with_skill", "baseline"):
        for case_id, builder in BUILDERS.items():
            for run in (1, 2, 3):
                script = builder(config, run)
                lines = [json.dumps(e) for e in script.events]
                session = parse_stream(lines)
                outputs = outputs_of(script)
                md = render_stream_transcript(prompts[case_id], script.events)
                result_event = script.events[-1]
                usage_raw = result_event["usage"]
                usage = CallUsage(
                    input_tokens=usage_raw["input_tokens"],
                    output_tokens=usage_raw["output_tokens"],
                    cache_read_input_tokens=usage_raw["cache_read_input_tokens"],
                )
                seconds = result_event["duration_ms"] / 1000
                started = f"2026-03-02T10:{minute:02d}:00Z"
                ended = f"2026-03-02T10:{minute:02d}:{int(seconds):02d}Z"
                minute += 1
                result = ExecutionResult(
                    status="ok",
                    final_text=result_event["result"],
                    events=script.events,
                    transcript_md=md,
                    outputs=outputs,
                    metrics=session_metrics(session, outputs, md),
                    timing=make_timing(usage, seconds, started, ended),
                    usage=usage,
                    duration_s=seconds,
                )
                record = RunRecord(
                    case_id=case_id,
                    config=config,
                    version=0 if config == "with_skill" else None,
                    run_number=run,
                    prompt=prompts[case_id],
                    backend="local-sample",  # not a real backend: hand-written sample
                    model="hand-written-sample",
                    status="ok",
                    final_text=result.final_text,
                    started_at=started,
                    duration_s=seconds,
                    is_sample=True,
                    skill_name="csv-cleanup" if config == "with_skill" else None,
                    note=SAMPLE_NOTE,
                    usage={
                        "input_tokens": usage.input_tokens,
                        "output_tokens": usage.output_tokens,
                        "cache_read_input_tokens": usage.cache_read_input_tokens,
                        "cache_creation_input_tokens": 0,
                    },
                )
                write_run_folder(space.run_dir(config, case_id, run), record, result)


if __name__ == "__main__":
    build()
    print(f"sample runs written under {OUT / 'runs'}")
