"""A hand-written catalog of 16 skills and 20 queries for the local-backend benchmarks."""

from __future__ import annotations

from skillbench.backends.base import SkillEntry

SKILLS: tuple[SkillEntry, ...] = (
    SkillEntry(
        "csv-cleanup",
        "Repairs messy CSV and TSV exports: detects encoding and delimiter, normalises headers, trims whitespace and fixes broken quoting. Use when a CSV file will not load cleanly.",
    ),
    SkillEntry(
        "pdf-form-filler",
        "Fills interactive PDF forms from structured data: text boxes, checkboxes, radio groups and dropdowns. Use when the user wants a PDF form completed.",
    ),
    SkillEntry(
        "sql-query-reviewer",
        "Reviews SQL queries for correctness, performance and safety: joins, NULL handling, missing indexes, injection risks. Use when asked to review or optimise a SQL query.",
    ),
    SkillEntry(
        "commit-message-writer",
        "Drafts git commit messages from staged changes with an imperative subject line and an explanatory body. Use when the user asks for a commit message.",
    ),
    SkillEntry(
        "release-notes-writer",
        "Turns merged pull requests and commit history between two tags into user-facing release notes and CHANGELOG entries. Use when preparing a release.",
    ),
    SkillEntry(
        "incident-postmortem",
        "Writes blameless incident postmortems from chat logs, alerts and timelines: impact, timeline, contributing factors, action items. Use after an outage or incident.",
    ),
    SkillEntry(
        "terraform-plan-review",
        "Reads terraform plan output and flags risky changes before apply: replacements, destroys, stateful resources, IAM changes. Use when reviewing a terraform plan.",
    ),
    SkillEntry(
        "brand-voice-editor",
        "Edits marketing and product copy to match the company brand voice and house style. Use when polishing copy for tone and style.",
    ),
    SkillEntry(
        "docker-debugger",
        "Diagnoses failing Docker builds and containers: layer caching, missing files, entrypoint errors, port and volume problems. Use when a Docker image or container misbehaves.",
    ),
    SkillEntry(
        "regex-builder",
        "Builds and explains regular expressions from examples, with test cases for matches and non-matches. Use when the user needs a regex.",
    ),
    SkillEntry(
        "unit-test-writer",
        "Writes pytest unit tests for Python functions and classes, covering edge cases and error paths. Use when asked to add tests to Python code.",
    ),
    SkillEntry(
        "api-docs-writer",
        "Writes reference documentation for REST APIs from OpenAPI specs or route handlers: endpoints, parameters, examples. Use when documenting an HTTP API.",
    ),
    SkillEntry(
        "spreadsheet-formulas",
        "Writes and fixes Excel and Google Sheets formulas: lookups, conditional sums, array formulas, pivot tables. Use for spreadsheet formula help.",
    ),
    SkillEntry(
        "meeting-notes",
        "Turns meeting transcripts into concise notes with decisions, action items and owners. Use when summarising a meeting.",
    ),
    SkillEntry(
        "k8s-manifest-linter",
        "Checks Kubernetes manifests and Helm charts for missing resource limits, probes, security contexts and deprecated API versions. Use when reviewing Kubernetes YAML.",
    ),
    SkillEntry(
        "email-drafter",
        "Drafts professional emails from bullet points in the requested tone: follow-ups, requests, apologies, announcements. Use when the user wants an email written.",
    ),
)

QUERIES: tuple[str, ...] = (
    "my export from the CRM has semicolons and weird characters in the header, pandas chokes on it",
    "can you look at this query, it takes 40 seconds: SELECT * FROM orders o JOIN items i ON ...",
    "write a commit message for these staged changes",
    "we had a 2 hour outage last night, here is the slack thread, write it up",
    "terraform wants to replace my RDS instance, is that safe?",
    "make this landing page paragraph sound more on-brand",
    "my container exits immediately with 'exec format error'",
    "I need a regex that matches UK postcodes",
    "add pytest tests for this parse_date function",
    "document the endpoints in this FastAPI app",
    "VLOOKUP keeps returning #N/A, what's wrong with my formula",
    "summarise this meeting transcript into action items",
    "lint my deployment.yaml, is anything missing?",
    "draft a polite follow-up email to a client who hasn't paid",
    "fill in this W-9 PDF with my company details",
    "prepare the release notes for v2.3.0 from the merged PRs",
    "what's the capital of Australia?",
    "tell me a joke about cats",
    "how do I center a div in CSS",
    "explain the difference between TCP and UDP",
)
