"""`benchmark.json` (seed 004 shape) from a graded workspace, with the statistics the reference lacks.

The delta is ALWAYS candidate minus baseline (with_skill − baseline, or newer version − older),
never alphabetical. Added fields (extra keys of the seed model):
- `comparison`: which configuration is the candidate and which the baseline;
- `paired`: per-case differences of pass rate (runs averaged within a case first), each with a
  Newcombe hybrid score interval (method 10) for the difference of the two pooled proportions
  passed/graded over that case's runs (treats each verdict as an independent trial, so it is
  optimistic when a run's expectations fail together); and the mean difference across cases
  with its t interval (the headline; rough below 10 cases) and a paired bootstrap;
- run_summary.<config>.pass_rate.stddev_between_cases / stddev_within_case (the seed's `stddev`
  pools runs of all cases; it is kept for compatibility);
- `expectation_matrix`: per (case, expectation) × configuration pass counts;
- `non_discriminating` and `flaky` expectations;
- per run, `ungraded` expectations (pass rates count graded ones only).
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skillbench.behavior.cost import runs_cost
from skillbench.behavior.workspace import StoredRun, Workspace
from skillbench.documents import read_model
from skillbench.errors import InputError
from skillbench.io import read_json
from skillbench.schemas import skill_creator as sc
from skillbench.schemas.loading import write
from skillbench.timestamps import utc_timestamp

CONFIDENCE = 0.95
BOOTSTRAP_SEED = 0
ROUGH_BELOW_CASES = 10
CASE_CI_METHOD = (
    "newcombe-hybrid-score: difference of pooled passed/graded proportions over the case's runs "
    "(Wilson limits of each side combined); verdicts treated as independent trials"
)


@dataclass
class RunNumbers:
    """What the benchmark needs from one graded run."""

    case_id: str
    config: str
    run_number: int
    passed: int
    total: int
    ungraded: int
    time_seconds: float | None
    tokens: int | None
    tool_calls: int | None
    errors: int | None
    expectations: list[sc.SCExpectation] = field(default_factory=list)
    ungraded_texts: list[str] = field(default_factory=list)

    @property
    def pass_rate(self) -> float | None:
        """passed / graded, None when nothing was graded."""
        return self.passed / self.total if self.total else None


# ----- reading the workspace ----------------------------------------------------------------


def _grading(run: StoredRun) -> sc.SCGrading:
    from skillbench.schemas.loading import from_data

    if not run.grading_path.is_file():
        raise InputError("run is not graded (run `skillbench grade` first)", path=run.grading_path)
    doc = from_data(read_json(run.grading_path), run.grading_path)
    if not isinstance(doc.model, sc.SCGrading):
        raise InputError("not a skill-creator grading", path=run.grading_path, rule="kind")
    return doc.model


def _tokens(run: StoredRun, timing: sc.SCTiming | None) -> int | None:
    if timing is not None and timing.total_tokens is not None:
        return timing.total_tokens
    usage = run.record.usage or {}
    counted = [v for k, v in usage.items() if k.endswith("tokens")]
    return sum(counted) if counted else None


def _seconds(run: StoredRun, timing: sc.SCTiming | None) -> float | None:
    if timing is not None:
        for value in (timing.total_duration_seconds, timing.executor_duration_seconds):
            if value is not None:
                return float(value)
        if timing.duration_ms is not None:
            return timing.duration_ms / 1000
    return float(run.record.duration_s)


def run_numbers(run: StoredRun) -> RunNumbers:
    """The graded numbers of one run folder (its seed 004 grading.json, timing, metrics)."""
    grading = _grading(run)
    timing = grading.timing
    if timing is None and run.timing_path.is_file():
        timing = read_model(run.timing_path, sc.SCTiming)
    metrics = grading.execution_metrics
    raw_ungraded = (grading.model_extra or {}).get("ungraded") or []
    texts = [str(u.get("text", "")) for u in raw_ungraded if isinstance(u, dict)]
    return RunNumbers(
        case_id=run.record.case_id,
        config=run.record.config,
        run_number=run.record.run_number,
        passed=grading.summary.passed,
        total=grading.summary.total,
        ungraded=len(texts),
        time_seconds=_seconds(run, timing),
        tokens=_tokens(run, timing),
        tool_calls=metrics.total_tool_calls if metrics is not None else None,
        errors=metrics.errors_encountered if metrics is not None else None,
        expectations=list(grading.expectations),
        ungraded_texts=texts,
    )


def _version_key(config: str) -> int:
    found = re.fullmatch(r"v(\d+)", config)
    return int(found[1]) if found else -1


def choose_pair(
    configs: list[str],
    baseline: str | None,
    candidate: str | None,
    *,
    runs_dir: Path | None = None,
) -> tuple[str, str]:
    """(candidate, baseline): explicit names, else with_skill vs baseline, else the newest version
    vs the one before it. InputError (naming the option, and `runs_dir` when given) when no pair
    can be formed."""
    if candidate is None and baseline is None:
        if {"with_skill", "baseline"} <= set(configs):
            return "with_skill", "baseline"
        versions = sorted((c for c in configs if _version_key(c) >= 0), key=_version_key)
        if len(versions) >= 2:
            return versions[-1], versions[-2]
    if candidate is None:
        candidate = "with_skill" if "with_skill" in configs and baseline != "with_skill" else None
    if baseline is None:
        baseline = "baseline" if "baseline" in configs and candidate != "baseline" else None
    for name, label in ((candidate, "--candidate"), (baseline, "--baseline")):
        if name is None or name not in configs:
            where = f" in {runs_dir}" if runs_dir is not None else ""
            raise InputError(
                f"configuration {name!r} has no runs{where}; found: {', '.join(configs) or 'none'}",
                path=label,
                rule="config-has-runs",
            )
    assert candidate is not None and baseline is not None
    if candidate == baseline:
        raise InputError("candidate and baseline must differ", path="--candidate")
    return candidate, baseline


# ----- statistics ---------------------------------------------------------------------------


def _stat(values: list[float]) -> sc.SCStat:
    return sc.SCStat(
        mean=round(statistics.fmean(values), 4),
        stddev=round(statistics.stdev(values), 4) if len(values) > 1 else 0.0,
        min=round(min(values), 4),
        max=round(max(values), 4),
    )


def _by_case(runs: list[RunNumbers]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in runs:
        if r.pass_rate is not None:
            out.setdefault(r.case_id, []).append(r.pass_rate)
    return out


def variance_split(runs: list[RunNumbers]) -> dict[str, float | None]:
    """Between-case stddev (of per-case mean pass rates) and within-case stddev (root of the mean
    within-case variance), reported apart instead of pooled."""
    cases = _by_case(runs)
    means = [statistics.fmean(v) for v in cases.values()]
    within = [statistics.variance(v) for v in cases.values() if len(v) > 1]
    return {
        "stddev_between_cases": round(statistics.stdev(means), 4) if len(means) > 1 else None,
        "stddev_within_case": round(math.sqrt(statistics.fmean(within)), 4) if within else None,
    }


def config_summary(runs: list[RunNumbers]) -> sc.SCConfigSummary:
    """mean/stddev/min/max of pass rate (graded runs), time and tokens for one configuration."""
    rates = [r.pass_rate for r in runs if r.pass_rate is not None]
    times = [r.time_seconds for r in runs if r.time_seconds is not None]
    tokens = [float(r.tokens) for r in runs if r.tokens is not None]
    pass_rate = _stat(rates) if rates else sc.SCStat(mean=0.0, stddev=0.0)
    extra = variance_split(runs)
    pass_rate = sc.SCStat(
        **pass_rate.model_dump(exclude_none=True),
        **extra,
        n_runs=len(rates),
        n_cases=len(_by_case(runs)),
        ungraded_runs=sum(1 for r in runs if r.pass_rate is None),
    )
    return sc.SCConfigSummary(
        pass_rate=pass_rate,
        time_seconds=_stat(times) if times else None,
        tokens=_stat(tokens) if tokens else None,
    )


def _signed(value: float, digits: int) -> str:
    return f"{value:+.{digits}f}"


def delta(candidate: sc.SCConfigSummary, baseline: sc.SCConfigSummary) -> dict[str, str]:
    """Candidate minus baseline, as the seed's signed strings; the pass rate is `n/a` when
    either side has no graded run (0 − 0 would pose as a measured "+0.00")."""
    graded = [getattr(side.pass_rate, "n_runs", 1) for side in (candidate, baseline)]
    if all(graded):
        out = {"pass_rate": _signed(candidate.pass_rate.mean - baseline.pass_rate.mean, 2)}
    else:
        out = {"pass_rate": "n/a"}
    if candidate.time_seconds is not None and baseline.time_seconds is not None:
        out["time_seconds"] = _signed(candidate.time_seconds.mean - baseline.time_seconds.mean, 1)
    if candidate.tokens is not None and baseline.tokens is not None:
        out["tokens"] = _signed(candidate.tokens.mean - baseline.tokens.mean, 0)
    return out


def newcombe_interval(
    passed_a: int, graded_a: int, passed_b: int, graded_b: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Newcombe's hybrid score interval (1998, method 10) for p_a − p_b of two independent
    proportions: d ∓ sqrt((p − lower)² + (upper − p)²) from each side's Wilson limits."""
    from skillbench.stats import wilson_interval

    p_a = passed_a / graded_a if graded_a else 0.0
    p_b = passed_b / graded_b if graded_b else 0.0
    low_a, high_a = wilson_interval(passed_a, graded_a, confidence)
    low_b, high_b = wilson_interval(passed_b, graded_b, confidence)
    diff = p_a - p_b
    low = diff - math.sqrt((p_a - low_a) ** 2 + (high_b - p_b) ** 2)
    high = diff + math.sqrt((high_a - p_a) ** 2 + (p_b - low_b) ** 2)
    return max(-1.0, low), min(1.0, high)


def _pooled(runs: list[RunNumbers]) -> dict[str, tuple[int, int]]:
    out: dict[str, tuple[int, int]] = {}
    for r in runs:
        if r.total:
            passed, graded = out.get(r.case_id, (0, 0))
            out[r.case_id] = (passed + r.passed, graded + r.total)
    return out


def paired_differences(
    runs: list[RunNumbers], candidate: str, baseline: str, *, confidence: float = CONFIDENCE
) -> dict[str, Any]:
    """Per-case pass-rate differences (candidate − baseline, runs averaged within a case first),
    each with a Newcombe interval over the case's runs, and the interval of their mean across
    cases (t for n ≥ 2: the headline; paired bootstrap kept beside it)."""
    from scipy import stats as sp

    from skillbench.stats import paired_bootstrap_ci

    cand_runs = [r for r in runs if r.config == candidate]
    base_runs = [r for r in runs if r.config == baseline]
    cand, base = _by_case(cand_runs), _by_case(base_runs)
    cand_pooled, base_pooled = _pooled(cand_runs), _pooled(base_runs)
    shared = sorted(set(cand) & set(base))
    cases: list[dict[str, Any]] = []
    a_means: list[float] = []
    b_means: list[float] = []
    for case in shared:
        a, b = statistics.fmean(cand[case]), statistics.fmean(base[case])
        a_means.append(a)
        b_means.append(b)
        (pa, na), (pb, nb) = cand_pooled[case], base_pooled[case]
        low, high = newcombe_interval(pa, na, pb, nb, confidence)
        cases.append(
            {
                "case_id": case,
                "candidate_mean": round(a, 4),
                "baseline_mean": round(b, 4),
                "difference": round(a - b, 4),
                "candidate_runs": len(cand[case]),
                "baseline_runs": len(base[case]),
                "candidate_passed": pa,
                "candidate_graded": na,
                "baseline_passed": pb,
                "baseline_graded": nb,
                "pooled_difference": round(pa / na - pb / nb, 4),
                "ci": [round(low, 4), round(high, 4)],
            }
        )
    boot = paired_bootstrap_ci(a_means, b_means, confidence=confidence, seed=BOOTSTRAP_SEED)
    diffs = [a - b for a, b in zip(a_means, b_means, strict=True)]
    t_low = t_high = None
    if len(diffs) >= 2:
        se = statistics.stdev(diffs) / math.sqrt(len(diffs))
        half = float(sp.t.ppf(0.5 + confidence / 2, len(diffs) - 1)) * se
        t_low, t_high = statistics.fmean(diffs) - half, statistics.fmean(diffs) + half

    def r4(x: float | None) -> float | None:
        return None if x is None else round(x, 4)

    unpaired = sorted(set(cand) ^ set(base))
    return {
        "measure": "pass_rate",
        "candidate": candidate,
        "baseline": baseline,
        "definition": "candidate minus baseline; runs averaged within each case first",
        "confidence": confidence,
        "n_cases": len(cases),
        "mean_difference": r4(boot.value),
        "bootstrap_ci": [r4(boot.low), r4(boot.high)],
        "t_ci": [r4(t_low), r4(t_high)],
        "rough": len(cases) < ROUGH_BELOW_CASES,
        "case_ci_method": CASE_CI_METHOD,
        "cases": cases,
        "unpaired_cases": unpaired,
    }


# ----- expectations -------------------------------------------------------------------------


def expectation_matrix(runs: list[RunNumbers]) -> list[dict[str, Any]]:
    """One row per (case, expectation): per configuration, passed / graded / ungraded counts."""
    rows: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for r in runs:
        for e in r.expectations:
            cell = rows.setdefault((r.case_id, e.text), {}).setdefault(
                r.config, {"passed": 0, "graded": 0, "ungraded": 0}
            )
            cell["graded"] += 1
            cell["passed"] += int(e.passed)
        for text in r.ungraded_texts:
            cell = rows.setdefault((r.case_id, text), {}).setdefault(
                r.config, {"passed": 0, "graded": 0, "ungraded": 0}
            )
            cell["ungraded"] += 1
    return [
        {"case_id": case, "expectation": text, "results": dict(sorted(cells.items()))}
        for (case, text), cells in sorted(rows.items())
    ]


def non_discriminating(
    matrix: list[dict[str, Any]], candidate: str, baseline: str
) -> list[dict[str, Any]]:
    """Expectations graded in both configurations that passed every time in both, or failed
    every time in both: they cannot tell the configurations apart."""
    found = []
    for row in matrix:
        a, b = row["results"].get(candidate), row["results"].get(baseline)
        if not a or not b or not a["graded"] or not b["graded"]:
            continue
        if a["passed"] == a["graded"] and b["passed"] == b["graded"]:
            found.append(
                {"case_id": row["case_id"], "expectation": row["expectation"], "always": "pass"}
            )
        elif a["passed"] == 0 and b["passed"] == 0:
            found.append(
                {"case_id": row["case_id"], "expectation": row["expectation"], "always": "fail"}
            )
    return found


def flaky(matrix: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """(case, expectation, configuration) with mixed results across the configuration's runs."""
    return [
        {
            "case_id": row["case_id"],
            "expectation": row["expectation"],
            "configuration": config,
            "passed": cell["passed"],
            "graded": cell["graded"],
        }
        for row in matrix
        for config, cell in row["results"].items()
        if 0 < cell["passed"] < cell["graded"]
    ]


# ----- the document -------------------------------------------------------------------------


def _eval_ids(case_ids: list[str]) -> dict[str, int]:
    if all(c.isdigit() for c in case_ids):
        return {c: int(c) for c in case_ids}
    return {c: index for index, c in enumerate(sorted(case_ids), start=1)}


def _benchmark_run(r: RunNumbers, eval_id: int) -> sc.SCBenchmarkRun:
    return sc.SCBenchmarkRun(
        eval_id=eval_id,
        eval_name=r.case_id,
        configuration=r.config,
        run_number=r.run_number,
        result=sc.SCRunResult(
            pass_rate=round(r.pass_rate, 4) if r.pass_rate is not None else 0.0,
            passed=r.passed,
            failed=r.total - r.passed,
            total=r.total,
            time_seconds=round(r.time_seconds, 3) if r.time_seconds is not None else None,
            tokens=r.tokens,
            tool_calls=r.tool_calls,
            errors=r.errors,
            ungraded=r.ungraded,
        ),
        expectations=r.expectations,
    )


def build_benchmark(
    skill_dir: str | Path,
    *,
    workspace: str | Path | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    confidence: float = CONFIDENCE,
) -> sc.SCBenchmark:
    """The benchmark of a graded workspace (nothing is written)."""
    from skillbench.skill import Skill

    space = Workspace.for_skill(skill_dir, workspace)
    configs = space.configs()
    cand, base = choose_pair(configs, baseline, candidate, runs_dir=space.runs_dir)
    runs = [run_numbers(r) for config in configs for r in space.iter_runs(config)]
    ids = _eval_ids(sorted({r.case_id for r in runs}))
    by_config = {c: [r for r in runs if r.config == c] for c in configs}
    order = [cand, base, *[c for c in configs if c not in (cand, base)]]
    summary: dict[str, sc.SCConfigSummary | dict[str, str]] = {
        c: config_summary(by_config[c]) for c in order
    }
    cand_summary, base_summary = summary[cand], summary[base]
    assert isinstance(cand_summary, sc.SCConfigSummary)
    assert isinstance(base_summary, sc.SCConfigSummary)
    summary["delta"] = delta(cand_summary, base_summary)
    matrix = expectation_matrix(runs)
    models = sorted({r.record.model for c in configs for r in space.iter_runs(c) if r.record.model})
    per_case = {r.case_id: 0 for r in runs}
    for r in runs:
        per_case[r.case_id] = max(per_case[r.case_id], r.run_number)
    try:
        skill_name = Skill.load(skill_dir).name
    except InputError:
        skill_name = Path(skill_dir).name
    notes = [
        f"delta = {cand} minus {base} (explicit, not alphabetical)",
        "pass rates count graded expectations only; `ungraded` counts the rest",
    ]
    if any(r.pass_rate is None for r in runs):
        notes.append(
            "runs with no graded expectation are listed with total 0 and left out of stats"
        )
    return sc.SCBenchmark(
        metadata=sc.SCBenchmarkMetadata(
            skill_name=skill_name,
            skill_path=str(Path(skill_dir)),
            executor_model=", ".join(models) or None,
            timestamp=utc_timestamp(),
            evals_run=[ids[c] for c in sorted(ids, key=lambda k: ids[k])],
            runs_per_configuration=max(per_case.values(), default=1) or 1,
        ),
        runs=[_benchmark_run(r, ids[r.case_id]) for r in runs],
        run_summary=summary,
        notes=notes,
        comparison={"candidate": cand, "baseline": base, "delta": f"{cand} - {base}"},
        paired=paired_differences(runs, cand, base, confidence=confidence),
        expectation_matrix=matrix,
        non_discriminating=non_discriminating(matrix, cand, base),
        flaky=flaky(matrix),
        cost=runs_cost(space, configs).to_json_dict(),
    )


def write_benchmark(
    skill_dir: str | Path,
    *,
    out: str | Path | None = None,
    workspace: str | Path | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    confidence: float = CONFIDENCE,
) -> tuple[sc.SCBenchmark, Path]:
    """Build the benchmark and write it (default `<workspace>/benchmark.json`) atomically."""
    doc = build_benchmark(
        skill_dir,
        workspace=workspace,
        baseline=baseline,
        candidate=candidate,
        confidence=confidence,
    )
    target = Path(out) if out else Workspace.for_skill(skill_dir, workspace).benchmark_path
    return doc, write(doc, target)


def _fmt(value: Any) -> str:
    return "n/a" if value is None else f"{value:+.2f}"


def paired_lines(paired: dict[str, Any]) -> list[str]:
    """The headline (mean paired difference with its t interval and n) and one line per case
    (difference with its Newcombe interval); says plainly when fewer than 10 cases make the
    interval rough."""
    n = paired.get("n_cases") or 0
    level = round(100 * float(paired.get("confidence", 0.95)))
    low, high = paired.get("t_ci") or [None, None]
    head = (
        f"paired pass-rate difference ({paired.get('candidate')} - {paired.get('baseline')}), "
        f"mean over n={n} cases: {_fmt(paired.get('mean_difference'))}"
    )
    if low is None or high is None:
        head += " (no interval: fewer than 2 paired cases)"
    else:
        head += f", {level}% t interval {_fmt(low)}..{_fmt(high)}"
        if n < ROUGH_BELOW_CASES:
            head += f" - ROUGH: only {n} cases (< {ROUGH_BELOW_CASES}); add cases to trust it"
    lines = [head]
    for case in paired.get("cases", []):
        ci_low, ci_high = case.get("ci") or [None, None]
        lines.append(
            f"  {case['case_id']}: {_fmt(case['difference'])} "
            f"({level}% Newcombe {_fmt(ci_low)}..{_fmt(ci_high)}; "
            f"{case['candidate_runs']} vs {case['baseline_runs']} runs)"
        )
    return lines
