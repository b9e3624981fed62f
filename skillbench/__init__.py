"""skillbench: measure Agent Skills — validation, trigger evals, description improvement, behavior evals.

This module is the public API that notebooks use (``from skillbench import validate_library``).
Names load lazily (PEP 562), so ``import skillbench`` stays light: nothing heavy (pandas, the SDK,
matplotlib) is imported until a name that needs it is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from skillbench.version import __version__

# public name -> the module that defines it ("" = the module itself is the public name)
_EXPORTS: dict[str, str] = {
    # shared ground
    "Skill": "skillbench.skill",
    "Budget": "skillbench.cost.budget",
    "cost_limit": "skillbench.cost.limit",
    "cost_lines": "skillbench.schemas.cost",
    "cost_summary": "skillbench.schemas.cost",
    "schemas": "",
    "notebook": "",
    # validate
    "validate_skill": "skillbench.validate.rules",
    "validate_library": "skillbench.validate.rules",
    "findings_frame": "skillbench.validate.rules",
    "summary_frame": "skillbench.validate.rules",
    "findings_by_code_figure": "skillbench.validate.plots",
    # trigger
    "TriggerOptions": "skillbench.trigger.options",
    "EvalContext": "skillbench.trigger.options",
    "AgreementOptions": "skillbench.trigger.agreement",
    "evaluate_skill": "skillbench.trigger.run",
    "evaluate_skill_sync": "skillbench.trigger.run",
    "run_trigger_eval": "skillbench.trigger.run",
    "plan_skill_eval": "skillbench.trigger.run",
    "read_trigger_report": "skillbench.trigger.stored",
    "confusion_frame": "skillbench.trigger.frames",
    "cost_frame": "skillbench.trigger.frames",
    "false_triggers_frame": "skillbench.trigger.frames",
    "fired_instead_frame": "skillbench.trigger.frames",
    "fired_instead_note": "skillbench.trigger.frames",
    "metrics_frame": "skillbench.trigger.frames",
    "results_frame": "skillbench.trigger.frames",
    "why_failed_frame": "skillbench.trigger.frames",
    "explain_failures_sync": "skillbench.trigger.explain",
    "explain_query": "skillbench.trigger.explain",
    "confusion_figure": "skillbench.trigger.plots",
    "trigger_rates_figure": "skillbench.trigger.plots",
    "run_agreement_sync": "skillbench.trigger.agreement",
    "run_agents_sync": "skillbench.trigger.agents",
    "agents_frame": "skillbench.trigger.agents",
    "agents_lines": "skillbench.trigger.agents",
    "agents_summary_frame": "skillbench.trigger.agents",
    "agreement_frame": "skillbench.trigger.agreement",
    "agreement_lines": "skillbench.trigger.agreement",
    "agreement_summary_frame": "skillbench.trigger.agreement",
    "agreement_figure": "skillbench.trigger.agreement_plots",
    "listing_lines": "skillbench.trigger.listing",
    "catalog_line": "skillbench.trigger.listing",
    # library
    "route_library": "skillbench.library.run",
    "route_library_sync": "skillbench.library.run",
    "plan_library": "skillbench.library.run",
    "library_header": "skillbench.library.verdict",
    "routing_matrix_frame": "skillbench.library.frames",
    "routing_skills_frame": "skillbench.library.frames",
    "confused_pairs_frame": "skillbench.library.frames",
    "skill_listing_frame": "skillbench.library.frames",
    "budget_what_if_frame": "skillbench.library.frames",
    "overlap_frame": "skillbench.library.frames",
    "routing_queries_frame": "skillbench.library.frames",
    "confusion_heatmap": "skillbench.library.plots",
    "skill_listing_figure": "skillbench.library.plots",
    # improve
    "ImproveOptions": "skillbench.improve.options",
    "improve_skill_sync": "skillbench.improve.run",
    "plan_improve": "skillbench.improve.run",
    "round_costs_frame": "skillbench.improve.cost",
    "parse_fractions": "skillbench.improve.splits",
    "gap_frame": "skillbench.improve.overfit",
    "load_summaries": "skillbench.improve.overfit",
    "rounds_frame": "skillbench.improve.overfit",
    "split_frame": "skillbench.improve.overfit",
    "steals_frame": "skillbench.improve.overfit",
    "verdict_frame": "skillbench.improve.overfit",
    "warnings_frame": "skillbench.improve.overfit",
    "gap_figure": "skillbench.improve.plots",
    "round_diffs_html": "skillbench.improve.plots",
    "split_rates_figure": "skillbench.improve.plots",
    # behavior
    "Workspace": "skillbench.behavior.workspace",
    "init_workspace": "skillbench.behavior.workspace",
    "read_evals": "skillbench.behavior.workspace",
    "evals_path": "skillbench.behavior.workspace",
    "sample_workspace": "skillbench.behavior.demo",
    "run_cases": "skillbench.behavior.run",
    "RunOptions": "skillbench.behavior.options",
    "GradeOptions": "skillbench.behavior.options",
    "CompareOptions": "skillbench.behavior.options",
    "grade_workspace_sync": "skillbench.behavior.grade",
    "read_gradings": "skillbench.behavior.grade",
    "expectations_frame": "skillbench.behavior.grade_frames",
    "pass_rate_frame": "skillbench.behavior.grade_frames",
    "flags_frame": "skillbench.behavior.grade_frames",
    "matrix_frame": "skillbench.behavior.grade_frames",
    "paired_frame": "skillbench.behavior.grade_frames",
    "run_summary_frame": "skillbench.behavior.grade_frames",
    "paired_lines": "skillbench.behavior.benchmark",
    "write_benchmark": "skillbench.behavior.benchmark",
    "build_benchmark": "skillbench.behavior.benchmark",
    "expectation_matrix_figure": "skillbench.behavior.plots",
    "paired_differences_figure": "skillbench.behavior.plots",
    "compare_sync": "skillbench.behavior.compare_run",
    "cases_frame": "skillbench.behavior.compare_report",
    "diagnostics_frame": "skillbench.behavior.compare_report",
    "findings_html": "skillbench.behavior.compare_report",
    "outcome_figure": "skillbench.behavior.compare_report",
    "verdicts_frame": "skillbench.behavior.compare_report",
    # report headers, verdicts and diffs (issue 14)
    "validate_header": "skillbench.validate.verdict",
    "trigger_header": "skillbench.trigger.verdict",
    "improve_header": "skillbench.improve.verdict",
    "overfitting_header": "skillbench.improve.verdict",
    "grading_header": "skillbench.behavior.verdicts",
    "benchmark_header": "skillbench.behavior.verdicts",
    "compare_header": "skillbench.behavior.verdicts",
    "grading_chart_figure": "skillbench.behavior.plots",
    "grading_rates_frame": "skillbench.behavior.grade_frames",
    "diff_reports": "skillbench.reports.diff",
    "diff_documents": "skillbench.reports.diff",
    "diff_header": "skillbench.reports.diff",
    "diff_rows": "skillbench.reports.diff",
    "diff_figure": "skillbench.reports.diff_plots",
    # field truth (issue 33)
    "read_field_report": "skillbench.field.report",
    "field_header": "skillbench.field.report",
    "field_report_lines": "skillbench.field.report",
    # judge calibration (issue 34)
    "calibrate": "skillbench.calibration.calibrate",
    "calibration_json": "skillbench.calibration.calibrate",
    "grader_status": "skillbench.calibration.binding",
    "calibration_header": "skillbench.calibration.frames",
    "grader_confusion_frame": "skillbench.calibration.frames",
    "grader_error_frame": "skillbench.calibration.frames",
    "corrected_rates_frame": "skillbench.calibration.frames",
    "grader_expectations_frame": "skillbench.calibration.frames",
    "grader_disagreements_frame": "skillbench.calibration.frames",
}
_MODULES = {"schemas": "skillbench.schemas", "notebook": "skillbench.reports.notebook"}

__all__ = [  # every public name; tests check it against _EXPORTS
    "AgreementOptions",
    "Budget",
    "CompareOptions",
    "EvalContext",
    "GradeOptions",
    "ImproveOptions",
    "RunOptions",
    "Skill",
    "TriggerOptions",
    "Workspace",
    "__version__",
    "agents_frame",
    "agents_lines",
    "agents_summary_frame",
    "agreement_figure",
    "agreement_frame",
    "agreement_lines",
    "agreement_summary_frame",
    "benchmark_header",
    "budget_what_if_frame",
    "build_benchmark",
    "calibrate",
    "calibration_header",
    "calibration_json",
    "cases_frame",
    "catalog_line",
    "compare_header",
    "compare_sync",
    "confused_pairs_frame",
    "confusion_figure",
    "confusion_frame",
    "confusion_heatmap",
    "corrected_rates_frame",
    "cost_frame",
    "cost_limit",
    "cost_lines",
    "cost_summary",
    "diagnostics_frame",
    "diff_documents",
    "diff_figure",
    "diff_header",
    "diff_reports",
    "diff_rows",
    "evals_path",
    "evaluate_skill",
    "evaluate_skill_sync",
    "expectation_matrix_figure",
    "expectations_frame",
    "explain_failures_sync",
    "explain_query",
    "false_triggers_frame",
    "field_header",
    "field_report_lines",
    "findings_by_code_figure",
    "findings_frame",
    "findings_html",
    "fired_instead_frame",
    "fired_instead_note",
    "flags_frame",
    "gap_figure",
    "gap_frame",
    "grade_workspace_sync",
    "grader_confusion_frame",
    "grader_disagreements_frame",
    "grader_error_frame",
    "grader_expectations_frame",
    "grader_status",
    "grading_chart_figure",
    "grading_header",
    "grading_rates_frame",
    "improve_header",
    "improve_skill_sync",
    "init_workspace",
    "library_header",
    "listing_lines",
    "load_summaries",
    "matrix_frame",
    "metrics_frame",
    "notebook",
    "outcome_figure",
    "overfitting_header",
    "overlap_frame",
    "paired_differences_figure",
    "paired_frame",
    "paired_lines",
    "parse_fractions",
    "pass_rate_frame",
    "plan_improve",
    "plan_library",
    "plan_skill_eval",
    "read_evals",
    "read_field_report",
    "read_gradings",
    "read_trigger_report",
    "results_frame",
    "round_costs_frame",
    "round_diffs_html",
    "rounds_frame",
    "route_library",
    "route_library_sync",
    "routing_matrix_frame",
    "routing_queries_frame",
    "routing_skills_frame",
    "run_agents_sync",
    "run_agreement_sync",
    "run_cases",
    "run_summary_frame",
    "run_trigger_eval",
    "sample_workspace",
    "schemas",
    "skill_listing_figure",
    "skill_listing_frame",
    "split_frame",
    "split_rates_figure",
    "steals_frame",
    "summary_frame",
    "trigger_header",
    "trigger_rates_figure",
    "validate_header",
    "validate_library",
    "validate_skill",
    "verdict_frame",
    "verdicts_frame",
    "warnings_frame",
    "why_failed_frame",
    "write_benchmark",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use and cache the name here."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'skillbench' has no attribute {name!r}")
    source = _EXPORTS[name]
    value = (
        importlib.import_module(_MODULES[name])
        if not source
        else getattr(importlib.import_module(source), name)
    )
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs
    from skillbench import schemas as schemas
    from skillbench.behavior.benchmark import build_benchmark, paired_lines, write_benchmark
    from skillbench.behavior.compare_report import (
        cases_frame,
        diagnostics_frame,
        findings_html,
        outcome_figure,
        verdicts_frame,
    )
    from skillbench.behavior.compare_run import compare_sync
    from skillbench.behavior.demo import sample_workspace
    from skillbench.behavior.grade import grade_workspace_sync, read_gradings
    from skillbench.behavior.grade_frames import (
        expectations_frame,
        flags_frame,
        grading_rates_frame,
        matrix_frame,
        paired_frame,
        pass_rate_frame,
        run_summary_frame,
    )
    from skillbench.behavior.options import CompareOptions, GradeOptions, RunOptions
    from skillbench.behavior.plots import (
        expectation_matrix_figure,
        grading_chart_figure,
        paired_differences_figure,
    )
    from skillbench.behavior.run import run_cases
    from skillbench.behavior.verdicts import benchmark_header, compare_header, grading_header
    from skillbench.behavior.workspace import Workspace, evals_path, init_workspace, read_evals
    from skillbench.calibration.binding import grader_status
    from skillbench.calibration.calibrate import calibrate, calibration_json
    from skillbench.calibration.frames import (
        calibration_header,
        corrected_rates_frame,
        grader_confusion_frame,
        grader_disagreements_frame,
        grader_error_frame,
        grader_expectations_frame,
    )
    from skillbench.cost.budget import Budget
    from skillbench.cost.limit import cost_limit
    from skillbench.field.report import field_header, field_report_lines, read_field_report
    from skillbench.improve.cost import round_costs_frame
    from skillbench.improve.options import ImproveOptions
    from skillbench.improve.overfit import (
        gap_frame,
        load_summaries,
        rounds_frame,
        split_frame,
        steals_frame,
        verdict_frame,
        warnings_frame,
    )
    from skillbench.improve.plots import gap_figure, round_diffs_html, split_rates_figure
    from skillbench.improve.run import improve_skill_sync, plan_improve
    from skillbench.improve.splits import parse_fractions
    from skillbench.improve.verdict import improve_header, overfitting_header
    from skillbench.library.frames import (
        budget_what_if_frame,
        confused_pairs_frame,
        overlap_frame,
        routing_matrix_frame,
        routing_queries_frame,
        routing_skills_frame,
        skill_listing_frame,
    )
    from skillbench.library.plots import confusion_heatmap, skill_listing_figure
    from skillbench.library.run import plan_library, route_library, route_library_sync
    from skillbench.library.verdict import library_header
    from skillbench.reports import notebook as notebook
    from skillbench.reports.diff import diff_documents, diff_header, diff_reports, diff_rows
    from skillbench.reports.diff_plots import diff_figure
    from skillbench.schemas.cost import cost_lines, cost_summary
    from skillbench.skill import Skill
    from skillbench.trigger.agents import (
        agents_frame,
        agents_lines,
        agents_summary_frame,
        run_agents_sync,
    )
    from skillbench.trigger.agreement import (
        AgreementOptions,
        agreement_frame,
        agreement_lines,
        agreement_summary_frame,
        run_agreement_sync,
    )
    from skillbench.trigger.agreement_plots import agreement_figure
    from skillbench.trigger.explain import explain_failures_sync, explain_query
    from skillbench.trigger.frames import (
        confusion_frame,
        cost_frame,
        false_triggers_frame,
        fired_instead_frame,
        fired_instead_note,
        metrics_frame,
        results_frame,
        why_failed_frame,
    )
    from skillbench.trigger.listing import catalog_line, listing_lines
    from skillbench.trigger.options import EvalContext, TriggerOptions
    from skillbench.trigger.plots import confusion_figure, trigger_rates_figure
    from skillbench.trigger.run import (
        evaluate_skill,
        evaluate_skill_sync,
        plan_skill_eval,
        run_trigger_eval,
    )
    from skillbench.trigger.stored import read_trigger_report
    from skillbench.trigger.verdict import trigger_header
    from skillbench.validate.plots import findings_by_code_figure
    from skillbench.validate.rules import (
        findings_frame,
        summary_frame,
        validate_library,
        validate_skill,
    )
    from skillbench.validate.verdict import validate_header
