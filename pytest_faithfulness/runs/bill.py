"""The records of an estimate (``runs.estimate``) and its text: calls by kind (``Spend``) per
judge (``JudgeBill``), and the whole bill (``Estimate``: ``lines()`` for a terminal,
``as_json()`` for machines). Nothing here imports pytest or litellm."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Test ids of the answers whose claims are unknown named in the text, at most.
SHOWN_UNKNOWN = 10


@dataclass
class Spend:
    """Calls of one kind (``decompose``, ``verify``, ``canary``) for one judge.

    Attributes:
        asked: calls the pipeline would make before the cache and the filter.
        cache_hits: of those, served by the verdict cache (no call).
        settled: of those, settled by the first filter (no call).
        calls: calls that would go out (``asked - cache_hits - settled``).
        input_tokens / output_tokens: tokens of the calls that would go out.
    """

    asked: int = 0
    cache_hits: int = 0
    settled: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, other: Spend) -> None:
        """Add ``other`` into this one, in place."""
        for name in ("asked", "cache_hits", "settled", "calls", "input_tokens",
                     "output_tokens"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class JudgeBill:
    """One judge's share: its model, its calls by kind and their cost.

    Attributes:
        name: the judge's name (model string, or ``offline``).
        paid: whether its calls are model calls (tokens, prices); ``False`` for the offline
            judges (local rules: no tokens, no cost).
        spend: ``{"decompose" | "verify" | "canary": Spend}``.
        cost_usd: US dollars from litellm's price map; ``None`` when the model is not priced
            there (unknown, not free); 0 for the offline judges.
    """

    name: str
    paid: bool
    spend: dict[str, Spend] = field(default_factory=dict)
    cost_usd: float | None = 0.0

    def total(self) -> Spend:
        """Every kind added up."""
        out = Spend()
        for part in self.spend.values():
            out.add(part)
        return out


@dataclass
class Extrapolation:
    """The verify calls of the answers whose claims are unknown, had they split like the
    judged ones (``Estimate.unknown``); an extrapolation, never counted in the figures.

    Attributes:
        mean_claims: claims per judged answer of the saved run (its known decompositions).
        from_answers: how many judged answers that mean is over.
        claims: ``mean_claims`` times the answers whose claims are unknown, rounded.
        calls: verify calls those claims would make: per answer, ``mean_claims`` times its
            passage windows, times every judge's votes (no cache hit, no first filter).
        input_tokens / output_tokens: those calls times each judge's mean tokens per verify
            call of the judged answers; ``None`` when a judge made no such call to take a
            mean from.
        cost_usd: their cost (litellm's price map); ``None`` when unknown.
    """

    mean_claims: float
    from_answers: int
    claims: int = 0
    calls: int = 0
    input_tokens: int | None = 0
    output_tokens: int | None = 0
    cost_usd: float | None = 0.0


@dataclass
class Estimate:
    """The bill of the next run (module docstring). ``lines()`` for people, ``as_json()``
    for machines.

    Attributes:
        run: the saved run's label; ``run_path`` its file.
        answers: answers in the saved run; ``judged``: those the judge would see (not
            ``unverified``, not empty) whose claims the saved run knows.
        errored: of the judged answers, those that errored in the saved run after their
            decomposition (a verify call failed): counted with their saved claims.
        unknown: test ids of the answers the judge would see whose claims the saved run does
            not know (they errored before or at their decomposition: a provider outage, a
            spent budget...); their decompose calls are counted, their verify calls cannot
            be, so the estimate is a lower bound (``lower_bound``). ``unknown_kinds``: their
            error kinds, counted.
        extrapolated: their verify calls had they split like the judged answers
            (``Extrapolation``), never counted in the figures; ``None`` when no answer has
            known claims (or none is unknown).
        claims: claims of the judged answers (the saved decomposition).
        passages / passage_chars / passage_tokens: passages of the answers the judge would
            see, their characters and tokens (``token_method`` says how tokens were counted).
        judges: one ``JudgeBill`` per judge (the main judge first, then the panel).
        cost_usd: the total, ``None`` when any model's price is unknown.
        wall_s: seconds of judge calls (``wall_basis`` says which bound decided it).
        assumptions: every assumption the figures rest on, in words.
    """

    run: str
    run_path: str
    answers: int = 0
    judged: int = 0
    errored: int = 0
    unknown: list[str] = field(default_factory=list)
    unknown_kinds: dict[str, int] = field(default_factory=dict)
    extrapolated: Extrapolation | None = None
    claims: int = 0
    passages: int = 0
    passage_chars: int = 0
    passage_tokens: int = 0
    token_method: str = ""
    output_method: str = ""
    judges: list[JudgeBill] = field(default_factory=list)
    cost_usd: float | None = 0.0
    wall_s: float = 0.0
    wall_basis: str = ""
    latency_s: float = 0.0
    assumptions: list[str] = field(default_factory=list)

    def total(self) -> Spend:
        """Every judge's calls added up."""
        out = Spend()
        for bill in self.judges:
            out.add(bill.total())
        return out

    @property
    def lower_bound(self) -> bool:
        """Whether the figures are a lower bound: some answers' claims are unknown."""
        return bool(self.unknown)

    def lower_bound_reason(self) -> str | None:
        """Why the figures are a lower bound, in words (``None`` when they are not)."""
        if not self.unknown:
            return None
        kinds = ", ".join(f"{k}: {n}" for k, n in sorted(self.unknown_kinds.items()))
        shown = ", ".join(self.unknown[:SHOWN_UNKNOWN])
        more = f" and {len(self.unknown) - SHOWN_UNKNOWN} more" \
            if len(self.unknown) > SHOWN_UNKNOWN else ""
        return (f"{len(self.unknown)} answer(s) errored in the saved run before their claims "
                f"were known ({kinds}): {shown}{more}; their decompose calls are counted, their "
                "verify calls cannot be, so the calls, tokens, cost and wall time are a lower "
                "bound")

    def as_json(self) -> dict[str, Any]:
        """The estimate as a JSON-ready dict (``calls``, ``input_tokens``... at the top, each
        judge's share under ``judges``; ``lower_bound`` with its reason, and
        ``claims_unknown``: the answers whose claims are unknown, ``None`` when none is)."""
        total = self.total()
        unknown = None if not self.unknown else {
            "answers": len(self.unknown), "test_ids": list(self.unknown),
            "error_kinds": dict(self.unknown_kinds),
            "extrapolated": vars(self.extrapolated) if self.extrapolated is not None else None}
        return {
            "run": self.run, "run_path": self.run_path, "answers": self.answers,
            "judged_answers": self.judged, "errored_answers": self.errored + len(self.unknown),
            "lower_bound": self.lower_bound, "lower_bound_reason": self.lower_bound_reason(),
            "claims_unknown": unknown, "claims": self.claims,
            "passages": {"count": self.passages, "chars": self.passage_chars,
                         "tokens": self.passage_tokens},
            "token_method": self.token_method, "output_method": self.output_method,
            "asked": total.asked, "cache_hits": total.cache_hits, "settled": total.settled,
            "calls": total.calls, "input_tokens": total.input_tokens,
            "output_tokens": total.output_tokens, "cost_usd": self.cost_usd,
            "wall_s": round(self.wall_s, 3), "wall_basis": self.wall_basis,
            "latency_s": self.latency_s,
            "judges": [{"name": b.name, "paid": b.paid, "cost_usd": b.cost_usd,
                        **{kind: vars(s) for kind, s in b.spend.items()}} for b in self.judges],
            "assumptions": list(self.assumptions)}

    def lines(self) -> list[str]:
        """The estimate in lines for a terminal."""
        total = self.total()
        judged = f"{self.judged} judged" + (
            f", {self.errored} of them errored in the saved run after their decomposition and "
            "counted with their claims" if self.errored else "") + (
            f"; {len(self.unknown)} errored before their claims were known" if self.unknown
            else "")
        out = [f"estimate for the next run, from saved run {self.run} ({self.run_path})",
               f"answers: {self.answers} ({judged}); claims: {self.claims}"
               + (" known" if self.unknown else "")]
        if self.unknown:
            out.append(f"LOWER BOUND: {self.lower_bound_reason()}")
            out.append(self._extrapolation_line(total))
        out.append(f"passages: {self.passages}, {self.passage_chars:,} chars, "
                   f"{self.passage_tokens:,} tokens ({self.token_method})")
        for bill in self.judges:
            for kind, s in bill.spend.items():
                extra = f", {s.settled} settled by the first filter" if s.settled else ""
                out.append(f"{bill.name} {kind}: {s.asked} asked, {s.cache_hits} cache "
                           f"hit(s){extra} -> {s.calls} call(s)"
                           + (f", {s.input_tokens:,} input + {s.output_tokens:,} output tokens"
                              if bill.paid else " (local rules: no tokens, no cost)"))
            cost = "unknown (not in litellm's price map)" if bill.cost_usd is None \
                else f"${bill.cost_usd:.6f}"
            out.append(f"{bill.name} cost: {cost}")
        bound = f" -- a LOWER BOUND ({len(self.unknown)} answer(s) with unknown claims)" \
            if self.unknown else ""
        out.append(f"total: {total.calls} call(s) ({total.cache_hits} cache hit(s), "
                   f"{total.settled} settled), {total.input_tokens:,} input + "
                   f"{total.output_tokens:,} output tokens, cost "
                   + ("unknown" if self.cost_usd is None else f"${self.cost_usd:.6f}") + bound)
        out.append(f"wall time of the judge calls: {_seconds(self.wall_s)} ({self.wall_basis})"
                   + (" -- a lower bound" if self.unknown else ""))
        out.append(f"output tokens: {self.output_method}")
        out.append("assumptions:")
        out += [f"  - {a}" for a in self.assumptions]
        return out


    def _extrapolation_line(self, total: Spend) -> str:
        x = self.extrapolated
        if x is None:
            return ("  their verify calls: unknown (no answer of the saved run has known claims "
                    "to extrapolate from)")
        if not any(b.paid for b in self.judges):
            tokens, cost = "local rules: no tokens", "$0"
        else:
            tokens = "tokens unknown" if x.input_tokens is None or x.output_tokens is None \
                else f"about {x.input_tokens:,} input + {x.output_tokens:,} output tokens"
            cost = "unknown" if x.cost_usd is None or self.cost_usd is None else \
                f"about ${x.cost_usd:.6f} (total about ${self.cost_usd + x.cost_usd:.6f})"
        return (f"  extrapolated, not counted below: had they split like the {x.from_answers} "
                f"judged answer(s) ({x.mean_claims:.2f} claim(s) each), about {x.claims} more "
                f"claim(s) and {x.calls} more verify call(s) (total about "
                f"{total.calls + x.calls} call(s); every vote, no cache hit, no first filter), "
                f"{tokens}, cost {cost}")


def _seconds(value: float) -> str:
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"
