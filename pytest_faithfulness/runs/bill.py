"""The records of an estimate (``runs.estimate``) and its text: calls by kind (``Spend``) per
judge (``JudgeBill``), and the whole bill (``Estimate``: ``lines()`` for a terminal,
``as_json()`` for machines). Nothing here imports pytest or litellm."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
class Estimate:
    """The bill of the next run (module docstring). ``lines()`` for people, ``as_json()``
    for machines.

    Attributes:
        run: the saved run's label; ``run_path`` its file.
        answers: answers in the saved run; ``judged``: those the judge would see (not
            ``unverified``, not empty).
        claims: claims of the judged answers (the saved decomposition).
        passages / passage_chars / passage_tokens: passages of the judged answers, their
            characters and tokens (``token_method`` says how tokens were counted).
        judges: one ``JudgeBill`` per judge (the main judge first, then the panel).
        cost_usd: the total, ``None`` when any model's price is unknown.
        wall_s: seconds of judge calls (``wall_basis`` says which bound decided it).
        assumptions: every assumption the figures rest on, in words.
    """

    run: str
    run_path: str
    answers: int = 0
    judged: int = 0
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

    def as_json(self) -> dict[str, Any]:
        """The estimate as a JSON-ready dict (``calls``, ``input_tokens``... at the top, each
        judge's share under ``judges``)."""
        total = self.total()
        return {
            "run": self.run, "run_path": self.run_path, "answers": self.answers,
            "judged_answers": self.judged, "claims": self.claims,
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
        out = [f"estimate for the next run, from saved run {self.run} ({self.run_path})",
               f"answers: {self.answers} ({self.judged} judged); claims: {self.claims}",
               f"passages: {self.passages}, {self.passage_chars:,} chars, "
               f"{self.passage_tokens:,} tokens ({self.token_method})"]
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
        out.append(f"total: {total.calls} call(s) ({total.cache_hits} cache hit(s), "
                   f"{total.settled} settled), {total.input_tokens:,} input + "
                   f"{total.output_tokens:,} output tokens, cost "
                   + ("unknown" if self.cost_usd is None else f"${self.cost_usd:.6f}"))
        out.append(f"wall time of the judge calls: {_seconds(self.wall_s)} ({self.wall_basis})")
        out.append(f"output tokens: {self.output_method}")
        out.append("assumptions:")
        out += [f"  - {a}" for a in self.assumptions]
        return out


def _seconds(value: float) -> str:
    if value >= 120:
        return f"{value / 60:.1f} min"
    return f"{value:.1f} s"
