"""Cost of a run, actual or estimated: calls, tokens by kind, cache hit share, dollars.

One `CostBlock` goes into every report (trigger report, loop summary and each of its rounds,
behavior benchmark) and is what `--dry-run` prints. Dollars are a number only when every model
involved has a known price; otherwise they are the string "unknown" — never 0. The price
table's date says how old the prices are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Self

from pydantic import Field

from skillbench.schemas.common import Count, Doc

STOPPED = "stopped at the cost cap"
"""The word for a workflow the cap stopped (in notes, errors, skipped items and cost blocks);
`skillbench.cost.notes` words every cap note with it."""


def resume_hint(option: str = "cap") -> str:
    """How to go on after the cap stopped a workflow."""
    return f"a re-run with a higher {option} resumes from the call cache"


UNKNOWN: Literal["unknown"] = "unknown"
Dollars = float | Literal["unknown"]


# THE token-usage type (one call's, or summed over calls with `+`): backends report it
# (`backends.base.CallUsage` adds the call's dollars), reports persist it (trigger summaries,
# cost blocks), estimates produce it. Its docstring is its JSON Schema description.
class TokenCounts(Doc):
    """Tokens by kind, summed over calls."""

    input_tokens: Count = 0
    cache_creation_input_tokens: Count = 0
    cache_read_input_tokens: Count = 0
    output_tokens: Count = 0

    def __add__(self, other: TokenCounts) -> TokenCounts:
        """The sum of two counts (the token part only)."""
        return TokenCounts(**{k: getattr(self, k) + getattr(other, k) for k in TOKEN_KINDS})

    def __sub__(self, other: TokenCounts) -> TokenCounts:
        """What `self` holds beyond `other` (a later meter reading minus an earlier one)."""
        return TokenCounts(**{k: getattr(self, k) - getattr(other, k) for k in TOKEN_KINDS})

    def __mul__(self, times: int) -> TokenCounts:
        """The counts of `times` identical calls."""
        return TokenCounts(**{k: getattr(self, k) * times for k in TOKEN_KINDS})

    @classmethod
    def from_wire(cls, usage: Any, base: TokenCounts | None = None) -> Self:
        """The counts a backend's wire `usage` carries (a mapping, or an object with the four
        attributes: an SDK's usage, a parsed event); a kind it lacks, or carries as no
        non-negative integer, keeps `base`'s count (else 0). The one converter from the wire."""
        values: dict[str, int] = {}
        for kind in TOKEN_KINDS:
            value = usage.get(kind) if isinstance(usage, Mapping) else getattr(usage, kind, None)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                values[kind] = value
            else:
                values[kind] = getattr(base, kind) if base is not None else 0
        return cls(**values)

    @property
    def tokens(self) -> TokenCounts:
        """The token part alone (drops what a subclass adds, such as a call's dollars)."""
        return TokenCounts(**{k: getattr(self, k) for k in TOKEN_KINDS})

    @property
    def total_input(self) -> int:
        """Uncached input, cache writes and cache reads together."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens


TOKEN_KINDS = tuple(TokenCounts.model_fields)
"""The token kinds, in the order the API reports them."""


class ModelCost(Doc):
    """Calls and cost of one (backend, model, purpose) line."""

    backend: str
    model: str | None = None
    purpose: str = Field(description="what the calls were for: trigger, improve, grade, run, ...")
    calls: Count = Field(description="calls made (or, in an estimate, to be made)")
    cache_hits: Count = Field(default=0, description="answers served by the call cache: free")
    tokens: TokenCounts = Field(default_factory=TokenCounts)
    dollars: Dollars = Field(description='USD, or "unknown" when the model has no known price')
    basis: str | None = Field(default=None, description="how an estimate was made")
    first_paid_dollars: Dollars | None = Field(
        default=None,
        description="USD the answers served from the call cache cost when their calls were "
        "made (by an earlier run); None when no answer came from the cache",
    )


class CostBlock(Doc):
    """The cost of a run (kind "actual") or of a planned run (kind "estimate")."""

    kind: Literal["actual", "estimate"]
    calls: Count
    cache_hits: Count = 0
    cache_hit_share: float | None = Field(
        default=None, ge=0, le=1, description="cache hits / (calls + cache hits); None when 0"
    )
    tokens: TokenCounts = Field(default_factory=TokenCounts)
    dollars: Dollars
    price_table_as_of: str | None = Field(default=None, description="date of the price table")
    lines: list[ModelCost] = Field(default_factory=list)
    first_paid_dollars: Dollars | None = Field(
        default=None,
        description="USD the cache hits cost when first paid (the measurement's real price, "
        "served from the cache this time); None when there were no cache hits",
    )
    cap_usd: float | None = Field(default=None, description="the --max-cost cap, when set")
    stopped_at_cap: bool | None = Field(
        default=None, description="true when the run stopped because spend reached the cap"
    )
    notes: list[str] | None = None

    @classmethod
    def combine(
        cls,
        lines: list[ModelCost],
        *,
        kind: Literal["actual", "estimate"],
        as_of: str | None,
        notes: list[str] | None = None,
    ) -> CostBlock:
        """A block summing `lines` (dollars "unknown" if any line's are)."""
        tokens = TokenCounts()
        for line in lines:
            tokens = tokens + line.tokens
        calls = sum(line.calls for line in lines)
        hits = sum(line.cache_hits for line in lines)
        dollars: Dollars = (
            UNKNOWN
            if any(line.dollars == UNKNOWN for line in lines)
            else round(sum(float(line.dollars) for line in lines), 6)
        )
        return cls(
            kind=kind,
            calls=calls,
            cache_hits=hits,
            cache_hit_share=round(hits / (calls + hits), 4) if calls + hits else None,
            tokens=tokens,
            dollars=dollars,
            price_table_as_of=as_of,
            lines=lines,
            first_paid_dollars=add_dollars(line.first_paid_dollars for line in lines),
            notes=notes or None,
        )

    def plus(self, other: CostBlock) -> CostBlock:
        """Two blocks of the same kind added (lines merged by backend, model and purpose)."""
        merged: dict[tuple[str, str | None, str], ModelCost] = {}
        for line in [*self.lines, *other.lines]:
            key = (line.backend, line.model, line.purpose)
            if key not in merged:
                merged[key] = line.model_copy()
                continue
            old = merged[key]
            dollars: Dollars = (
                UNKNOWN
                if UNKNOWN in (old.dollars, line.dollars)
                else round(float(old.dollars) + float(line.dollars), 6)
            )
            merged[key] = old.model_copy(
                update={
                    "calls": old.calls + line.calls,
                    "cache_hits": old.cache_hits + line.cache_hits,
                    "tokens": old.tokens + line.tokens,
                    "dollars": dollars,
                    "first_paid_dollars": add_dollars(
                        [old.first_paid_dollars, line.first_paid_dollars]
                    ),
                }
            )
        notes = [
            *(self.notes or []),
            *(n for n in other.notes or [] if n not in (self.notes or [])),
        ]
        block = CostBlock.combine(
            list(merged.values()),
            kind=self.kind,
            as_of=self.price_table_as_of or other.price_table_as_of,
            notes=notes,
        )
        block.cap_usd = self.cap_usd if self.cap_usd is not None else other.cap_usd
        if self.stopped_at_cap or other.stopped_at_cap:
            block.stopped_at_cap = True
        return block


def add_dollars(values: Iterable[Dollars | None]) -> Dollars | None:
    """The sum of the given amounts (None ones left out): None when every one is None,
    "unknown" when any is."""
    given = [value for value in values if value is not None]
    if not given:
        return None
    if UNKNOWN in given:
        return UNKNOWN
    return round(sum(float(value) for value in given), 6)


def first_paid_text(block: CostBlock | ModelCost, hits: int) -> str | None:
    """ "N answers served from the call cache, first paid $X" (None without cache hits): what
    the measurement cost when its calls were made, never hidden behind a re-run's $0."""
    if not hits or block.first_paid_dollars is None:
        return None
    return (
        f"{hits} answer(s) served from the call cache, first paid "
        f"{format_dollars(block.first_paid_dollars)}"
    )


def format_dollars(value: Dollars) -> str:
    """`$0.1234`, or "unknown"."""
    return UNKNOWN if value == UNKNOWN else f"${float(value):.4f}"


def cost_summary(block: CostBlock) -> str:
    """One line for a report header: dollars, calls, cache hit share, tokens, price date."""
    t = block.tokens
    share = "–" if block.cache_hit_share is None else f"{block.cache_hit_share:.0%}"
    text = (
        f"{format_dollars(block.dollars)}: {block.calls} calls, cache hits {share}, tokens "
        f"in {t.input_tokens} / cache write {t.cache_creation_input_tokens} / cache read "
        f"{t.cache_read_input_tokens} / out {t.output_tokens} "
        f"(prices as of {block.price_table_as_of or 'unknown date'})"
    )
    first = first_paid_text(block, block.cache_hits)
    if first:
        text += f"; {first}"
    if block.stopped_at_cap:
        text += f"; {STOPPED}"
    return text


def cost_lines(block: CostBlock) -> list[str]:
    """Plain-text lines for a CLI summary or a notebook header."""
    t = block.tokens
    share = "–" if block.cache_hit_share is None else f"{block.cache_hit_share:.0%}"
    label = "estimated cost" if block.kind == "estimate" else "cost"
    lines = [
        f"{label}: {format_dollars(block.dollars)} "
        f"(prices as of {block.price_table_as_of or 'unknown date'}); "
        f"calls {block.calls}, cache hits {block.cache_hits} ({share})",
        f"  tokens: input {t.input_tokens}, cache writes {t.cache_creation_input_tokens}, "
        f"cache reads {t.cache_read_input_tokens}, output {t.output_tokens}",
    ]
    first = first_paid_text(block, block.cache_hits)
    if first:
        lines.append(f"  {first}")
    for line in block.lines:
        model = f" {line.model}" if line.model else ""
        lines.append(
            f"  {line.backend}{model} [{line.purpose}]: calls {line.calls}, "
            f"hits {line.cache_hits}, {format_dollars(line.dollars)}"
            + (f" — {line.basis}" if line.basis else "")
        )
    if block.cap_usd is not None:
        lines.append(f"  cap: ${block.cap_usd:g}")
    if block.stopped_at_cap:
        lines.append(f"  {STOPPED}: {resume_hint()}")
    lines.extend(f"  note: {note}" for note in block.notes or [])
    return lines
