"""Read Claude Code's listing rules (`listing_rules.ListingRules`) from the CLI in use.

Four captures of the CLI's first request (`capture.capture_template`: loopback, a dummy key, an
isolated HOME; ~2 s each) with calibration skills written for the purpose:

- **A**, a budget of 10,000,000 (`SLASH_COMMAND_TOOL_CHAR_BUDGET`): every line whole. Gives the
  CLI's own lines after the user's, the entry cap (a 4,000-character description), the joiner
  of `when_to_use`, whether a frontmatter name unlike the folder is shown (`folder (name)`),
  whether a SKILL.md opening with a UTF-8 BOM keeps its frontmatter, whether `<` and `>` are
  listed as `&lt;` and `&gt;`, and the listing order.
- **B**, a budget of 1: which of the CLI's lines are fixed (still whole) and which shed.
- **C**, the budget left to the CLI (the variable blanked) with ~112,000 characters of skills,
  more than any model's budget, and two skills named like the first fixed and the first other
  CLI line: the budget the CLI logs for the model (`capture.logged_budget`), and whether a
  user skill drops a same-named CLI line.
- **D**, a budget chosen so that about half of the descriptions fit, skills of mixed lengths:
  the shed order (which descriptions the CLI keeps when not all fit).

Then the rules are checked: rendered with the parameters read, each of the four listings must
equal the captured one line for line; otherwise `BackendError` names the first difference (the
CLI lists by a rule skillbench does not know, and no prediction is made from it). Checked rules
are cached as JSON beside the replay templates (`<templates>/listing-rules/<key>.json`, keyed by
CLI version, model, CLI mode and request settings). `rules_for_cli` answers 2.1.197 from
`listing_rules.table_rules` (tabled from its source; the real-CLI tests check it equals this
calibration of that CLI) and every other version by calibration; `rules_for_judge` picks the CLI
a judge runs or captures with, and the table when it runs none.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from skillbench.backends.anthropic.capture import capture_template
from skillbench.backends.anthropic.listing_rules import (
    BUDGET_ENV,
    RULES_FORMAT,
    TABLE_VERSION,
    BuiltinLine,
    ListingRules,
    captured_lines,
    escape_angles,
    folder_of,
    listing_content,
    listing_text,
    release,
    string_width,
    table_rules,
    utf16_units,
)
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.interactive import check_cli_mode
from skillbench.backends.describe import describe, innermost
from skillbench.backends.replay.store import templates_dir
from skillbench.backends.scratch import make_scratch
from skillbench.backends.skill_install import CliSkill, cli_skills
from skillbench.errors import BackendError
from skillbench.io import atomic_write_text

LOG = logging.getLogger(__name__)
WHOLE = 10_000_000
FILLER_SKILLS = 110
FILLER_CHARS = 1_000
LONG_CHARS = 4_000
CALIBRATION_TIMEOUT = 180.0
_LOCK = threading.Lock()
_FAILED: dict[str, str] = {}


# -- the calibration skills --------------------------------------------------------------------


@dataclass(frozen=True)
class _Skills:
    """Calibration skills written under one folder."""

    root: Path

    def write(self, folder: str, frontmatter: str, *, bom: bool = False) -> SkillEntry:
        path = self.root / folder
        path.mkdir(parents=True)
        text = f"---\n{frontmatter}---\n\n# {folder}\n"
        (path / "SKILL.md").write_bytes(("\ufeff" if bom else "").encode() + text.encode())
        description = frontmatter.split("description: ", 1)[1].split("\n", 1)[0].strip('"')
        name = frontmatter.split("name: ", 1)[1].split("\n", 1)[0]
        return SkillEntry(name, description, folder=str(path))


LONG = ("Calibration of the entry cap. " + "Long text " * (LONG_CHARS // 10)).strip()
WHEN = ("Calibration of when_to_use.", "When the joiner is measured.")
ANGLE = ("Calibration of <angle> brackets & more.", "When <tags> appear.")


def base_skills(skills: _Skills) -> list[SkillEntry]:
    """The skills every calibration capture lists (folder names sort in this order)."""
    return [
        skills.write("cal-a-plain", "name: cal-a-plain\ndescription: Calibration, plain.\n"),
        skills.write("cal-b-long", f"name: cal-b-long\ndescription: {LONG}\n"),
        skills.write(
            "cal-c-when",
            f"name: cal-c-when\ndescription: {WHEN[0]}\nwhen_to_use: {WHEN[1]}\n",
        ),
        skills.write("cal-d-folder", "name: cal-d-shown\ndescription: Calibration, named.\n"),
        skills.write("cal-e-spaced", "name: Cal E Spaced\ndescription: Calibration, spaced.\n"),
        skills.write(
            "cal-f-bom", "name: cal-f-bom\ndescription: Calibration, with a BOM.\n", bom=True
        ),
        skills.write(
            "cal-g-off",
            "name: cal-g-off\ndescription: Calibration, disabled.\n"
            "disable-model-invocation: true\n",
        ),
        skills.write("cal-h-wide", "name: cal-h-wide\ndescription: 校正の説明、全角の幅。\n"),
        skills.write(
            "cal-i-angle",
            f'name: cal-i-angle\ndescription: "{ANGLE[0]}"\nwhen_to_use: "{ANGLE[1]}"\n',
        ),
    ]


def filler_skills(skills: _Skills, count: int = FILLER_SKILLS) -> list[SkillEntry]:
    """`count` skills of about `FILLER_CHARS` characters each (more than any budget in all)."""
    return [
        skills.write(
            f"cal-z-{i:03d}",
            f"name: cal-z-{i:03d}\ndescription: Calibration filler {i}. "
            + ("Filler words " * (FILLER_CHARS // 13)).strip()
            + "\n",
        )
        for i in range(count)
    ]


def shed_skills(skills: _Skills) -> list[SkillEntry]:
    """Skills of mixed lengths, so that the descriptions kept show the shed order."""
    sizes = (300, 900, 200, 400, 100, 700, 50)
    return [
        skills.write(
            f"cal-m-{i}", f"name: cal-m-{i}\ndescription: {('Shed order ' * 90)[:size].strip()}\n"
        )
        for i, size in enumerate(sizes)
    ]


def named_like(skills: _Skills, names: Sequence[str]) -> list[SkillEntry]:
    """A user skill named like each of `names` (the CLI's own lines)."""
    return [
        skills.write(name, f"name: {name}\ndescription: Calibration, named like a CLI skill.\n")
        for name in names
    ]


# -- one capture -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Capture:
    text: str
    budget: int | None
    listing_chars: int | None


def _capture(
    claude_bin: Path,
    version: str,
    model: str,
    entries: Sequence[SkillEntry],
    *,
    budget: str,
    settings: Mapping[str, str],
    cli_mode: str,
    timeout: float,
) -> _Capture:
    template = capture_template(
        claude_bin,
        entries[0],
        tuple(entries[1:]),
        model=model,
        cli_version=version,
        settings={**settings, BUDGET_ENV: budget},
        timeout=timeout,
        cli_mode=check_cli_mode(cli_mode),
    )
    text = listing_text(template.body)
    if text is None:
        raise BackendError("calibration: the captured request holds no skill listing")
    return _Capture(listing_content(text), template.listing_budget, template.listing_chars)


def _split(capture: _Capture, skills: Sequence[CliSkill]) -> tuple[list[str], list[str], list[str]]:
    """(listed names of the user's lines, their whole lines, the CLI's lines) of a capture: the
    enabled user skills first, in listing order, then the CLI's own."""
    enabled = [s.name for s in skills if not s.disabled]
    lines = captured_lines(capture.text)
    names = {s.name for s in skills}
    folders = [folder_of(name, names) for name, _ in lines[: len(enabled)]]
    if folders != enabled:
        raise BackendError(
            "calibration: the CLI listed the calibration skills as "
            f"{folders[:12]!r}, not as {enabled[:12]!r} (listing order, disabled skills left out)"
        )
    rest = lines[len(enabled) :]
    if any(folder_of(name, names) in names for name, _ in rest):
        raise BackendError("calibration: the CLI listed a user skill after its own lines")
    return (
        [n for n, _ in lines[: len(enabled)]],
        [w for _, w in lines[: len(enabled)]],
        [w for _, w in rest],
    )


def _text_of(line: str, listed: str) -> str | None:
    head = f"- {listed}: "
    return line[len(head) :] if line.startswith(head) else None


# -- the calibration ---------------------------------------------------------------------------


def calibrate(
    claude_bin: Path,
    cli_version: str,
    model: str,
    *,
    cli_mode: str = "print",
    settings: Mapping[str, str] | None = None,
    timeout: float = CALIBRATION_TIMEOUT,
) -> ListingRules:
    """The listing rules of the CLI at `claude_bin` for `model`, read by four captures and
    checked against them (module docstring). BackendError when a capture fails or the rules
    do not reproduce a captured listing."""
    base = {k: v for k, v in (settings or {}).items() if k != BUDGET_ENV}
    root = make_scratch("calibration").resolve()

    def capture(entries: Sequence[SkillEntry], budget: str) -> _Capture:
        return _capture(
            claude_bin,
            cli_version,
            model,
            entries,
            budget=budget,
            settings=base,
            cli_mode=cli_mode,
            timeout=timeout,
        )

    try:
        made = _Skills(root / "skills")
        first = base_skills(made)
        plain = cli_skills(first[0], first[1:])
        whole = capture(first, str(WHOLE))
        listed, lines, own = _split(whole, plain)
        rules = _read_lines(cli_version, model, cli_mode, plain, listed, lines)
        plain = rules.skills(first[0], first[1:])  # as this CLI reads them (a BOM)
        bare = capture(first, "1")
        rules.builtins = _builtins(own, _split(bare, plain)[2])
        fixed = [b.name for b in rules.builtins if b.fixed][:1]
        other = [b.name for b in rules.builtins if not b.fixed][:1]
        crowd = [*first, *named_like(made, [*fixed, *other]), *filler_skills(made)]
        crowd_skills = rules.skills(crowd[0], crowd[1:])
        over = capture(crowd, "")
        kept = {name for name, _ in captured_lines(over.text)[len(_enabled(crowd_skills)) :]}
        rules.user_replaces_fixed = bool(fixed) and fixed[0] not in kept
        rules.user_replaces_other = bool(other) and other[0] not in kept
        rules.budget, rules.budget_note = _budget(over, cli_version, model)
        mixed = [*first, *shed_skills(made)]
        mixed_skills = rules.skills(mixed[0], mixed[1:])
        half = _half_budget(rules, mixed_skills)
        checks = [
            ("A", plain, WHOLE, whole),
            ("B", plain, 1, bare),
            ("C", crowd_skills, rules.budget or WHOLE, over),
            ("D", mixed_skills, half, capture(mixed, str(half))),
        ]
        for label, skills, budget, captured in checks:
            _check(rules, label, skills, budget, captured)
            rules.checked.append(f"{label}: {len(skills)} skills at {budget:,} characters")
        return rules
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _enabled(skills: Sequence[CliSkill]) -> list[CliSkill]:
    return [s for s in skills if not s.disabled]


def _read_lines(
    version: str,
    model: str,
    cli_mode: str,
    skills: Sequence[CliSkill],
    listed: Sequence[str],
    lines: Sequence[str],
) -> ListingRules:
    """The entry cap, joiner, display names and BOM reading, from capture A's user lines."""
    by_folder = {
        s.name: (name, line) for s, name, line in zip(_enabled(skills), listed, lines, strict=True)
    }
    long_name, long_line = by_folder["cal-b-long"]
    long_text = _text_of(long_line, long_name) or ""
    if long_text == LONG:
        cap = None
    elif long_text.endswith("…") and LONG.startswith(long_text[:-1]):
        cap = utf16_units(long_text)
    else:
        raise BackendError(f"calibration: the long description was listed as {long_text[:80]!r}")
    when_name, when_line = by_folder["cal-c-when"]
    when_text = _text_of(when_line, when_name) or ""
    if not (when_text.startswith(WHEN[0]) and when_text.endswith(WHEN[1])):
        raise BackendError(f"calibration: when_to_use was listed as {when_text!r}")
    joiner = when_text[len(WHEN[0]) : len(when_text) - len(WHEN[1])]
    bom_name, bom_line = by_folder["cal-f-bom"]
    angle_name, angle_line = by_folder["cal-i-angle"]
    angle_text = _text_of(angle_line, angle_name)
    escaped = f"{escape_angles(ANGLE[0])}{joiner}{escape_angles(ANGLE[1])}"
    if angle_text not in (escaped, f"{ANGLE[0]}{joiner}{ANGLE[1]}"):
        raise BackendError(f"calibration: angle brackets were listed as {angle_text!r}")
    return ListingRules(
        cli_version=version,
        model=model,
        cli_mode=cli_mode,
        source="calibrated",
        budget=None,
        budget_note="",
        entry_cap=cap,
        joiner=joiner,
        shows_display_name=by_folder["cal-d-folder"][0] == "cal-d-folder (cal-d-shown)",
        bom_frontmatter=_text_of(bom_line, bom_name) == "Calibration, with a BOM.",
        escapes_angle_brackets=angle_text == escaped,
    )


def _builtins(whole: Sequence[str], bare: Sequence[str]) -> list[BuiltinLine]:
    """The CLI's own lines (capture A) and which stay whole at a budget of 1 (capture B)."""
    if len(whole) != len(bare):
        raise BackendError("calibration: the CLI's own lines differ between two captures")
    found = []
    for line, shed in zip(whole, bare, strict=True):
        name = line[2:].split(": ", 1)[0].split("\n", 1)[0]
        if not shed.startswith(f"- {name}"):
            raise BackendError("calibration: the CLI's own lines differ between two captures")
        found.append(
            BuiltinLine(name=name, width=string_width(line), fixed=shed == line, line=line)
        )
    return found


def _budget(over: _Capture, version: str, model: str) -> tuple[int | None, str]:
    if over.budget is not None:
        return over.budget, (
            f"Claude Code {version}'s budget for {model}, logged by the CLI in a calibration "
            "capture"
        )
    return None, (
        f"not known: Claude Code {version} logged no budget for a calibration listing of "
        f"{over.listing_chars or string_width(over.text):,} characters"
    )


def _half_budget(rules: ListingRules, skills: Sequence[CliSkill]) -> int:
    """A budget at which about half of the descriptions that can be shed fit."""
    user = rules.user_lines(skills)
    entries = [*user, *rules.builtin_lines(skills)]
    fixed = sum(e.width for e in entries if e.bundled)
    bare = sum(string_width(e.name) + 2 for e in entries if not e.bundled)
    extra = sum(e.width - string_width(e.name) - 2 for e in entries if not e.bundled)
    return fixed + bare + len(entries) - 1 + extra // 2


def _check(
    rules: ListingRules, label: str, skills: Sequence[CliSkill], budget: int, got: _Capture
) -> None:
    """BackendError unless `rules` render capture `label`'s listing exactly."""
    expected = rules.render(skills, budget)
    if expected == got.text:
        return
    mine, theirs = expected.split("\n"), got.text.split("\n")
    index = next(
        (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
        min(len(mine), len(theirs)),
    )
    expected_line = mine[index] if index < len(mine) else "(end of listing)"
    listed_line = theirs[index] if index < len(theirs) else "(end of listing)"
    raise BackendError(
        f"calibration {label}: the listing rule read from the CLI does not reproduce its own "
        f"listing at line {index + 1}: the rule gives {expected_line[:120]!r}, the CLI listed "
        f"{listed_line[:120]!r}"
    )


# -- the store ---------------------------------------------------------------------------------


def rules_key(version: str, model: str, cli_mode: str, settings: Mapping[str, str]) -> str:
    """The cache key of a calibration: CLI version, model, mode and request settings (the
    listing budget variable left out: the rules hold the CLI's own budget)."""
    kept = {k: v for k, v in sorted(settings.items()) if k != BUDGET_ENV}
    blob = json.dumps(
        {"format": RULES_FORMAT, "cli": version, "model": model, "mode": cli_mode, "env": kept},
        sort_keys=True,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def rules_dir(template_dir: str | os.PathLike[str] | None = None) -> Path:
    """`listing-rules/` in the replay templates' folder (default: beside the default cache)."""
    base = Path(template_dir) if template_dir is not None else templates_dir(None)
    return base / "listing-rules"


def _stored(path: Path) -> ListingRules | None:
    if not path.is_file():
        return None
    try:
        stored = ListingRules.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stored if stored.format == RULES_FORMAT else None


def calibrated_rules(
    claude_bin: Path,
    cli_version: str,
    model: str,
    *,
    cli_mode: str = "print",
    settings: Mapping[str, str] | None = None,
    folder: str | os.PathLike[str] | None = None,
    read: bool = True,
) -> ListingRules | None:
    """The calibration of this CLI, model, mode and settings: stored, else (with `read`) run
    once and stored; None when not stored and not `read`. A failure is remembered for the
    process, not retried per report."""
    settings = dict(settings or {})
    key = rules_key(cli_version, model, cli_mode, settings)
    path = rules_dir(folder) / f"{key}.json"
    with _LOCK:
        stored = _stored(path)
        if stored is not None or not read:
            return stored
        if key in _FAILED:
            raise BackendError(_FAILED[key])
        LOG.debug("listing rules %s: calibrating %s (%s, %s)", key, claude_bin, model, cli_mode)
        try:
            rules = calibrate(claude_bin, cli_version, model, cli_mode=cli_mode, settings=settings)
        except BackendError as exc:
            _FAILED[key] = f"Claude Code {cli_version}'s listing rule could not be read: {exc}"
            raise BackendError(_FAILED[key]) from None
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, rules.model_dump_json(indent=1))
        return rules


def rules_for_cli(
    claude_bin: Path,
    cli_version: str,
    model: str,
    *,
    cli_mode: str = "print",
    settings: Mapping[str, str] | None = None,
    folder: str | os.PathLike[str] | None = None,
    read: bool = True,
) -> ListingRules | None:
    """The listing rules of the CLI in use: 2.1.197's table for that release (checked against
    its calibration by the real-CLI tests), else `calibrated_rules`."""
    if release(cli_version) == TABLE_VERSION:
        return table_rules(model, cli_mode)
    return calibrated_rules(
        claude_bin,
        cli_version,
        model,
        cli_mode=cli_mode,
        settings=settings,
        folder=folder,
        read=read,
    )


def rules_for_judge(judge: object, model: str, *, read: bool = True) -> ListingRules:
    """The listing rules of the Claude Code CLI `judge` runs or captures with
    (`JudgeInfo.claude_cli`), or 2.1.197's table when it runs none (a proxy, the minimal
    harness). Without `read`, rules not read yet are 2.1.197's table too (their label says so).
    BackendError when the CLI's rules cannot be read."""
    cli = describe(judge).claude_cli
    if cli is None:
        return table_rules(model)
    version = innermost(judge).versions().get("claude_code")
    if not version:
        raise BackendError("the judge's Claude Code CLI reported no version")
    found = rules_for_cli(
        Path(cli.claude_bin),
        str(version),
        model,
        cli_mode=cli.cli_mode,
        settings=cli.settings,
        folder=cli.template_dir,
        read=read,
    )
    if found is None:
        return table_rules(model, cli.cli_mode).model_copy(update={"unread": str(version)})
    return found
