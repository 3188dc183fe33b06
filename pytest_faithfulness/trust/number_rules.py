"""Quote-check rules on numbers: values, bounds, ranges, clock times and rates.

A claim's number must be stated by the evidence (as the same quantity in any unit of its
dimension, or computed from quoted numbers), with the same bound ("up to", "at least"),
range, clock side and rate. Used by ``trust.quote_check.check_verdict`` and the heuristic judge.
"""

from __future__ import annotations

import math
import re
from itertools import combinations

from ..language.features import TextFeatures, quantities
from ..language.lexicon import (
    BOUND_NOUNS,
    CLOCK_CLOSING_WORDS,
    CLOCK_OPENING_WORDS,
    UNITS,
)
from ..language.quantities import (
    DIMENSIONS,
    clock_said,
    same_amount,
    thirds,
    unit_value,
)
from ..language.words import ORDINAL, is_plain_number, is_stated

_DIGIT_ONE = re.compile(r"(?<![\d.])1(?![\d])")


def rival_in_quotes(cf: TextFeatures, qf: TextFeatures, names: frozenset[str]) -> str | None:
    """A name or quantity of the claim that only the sentence around a quote (or a title)
    states, while the quotes themselves state another in its place: "The Basic plan includes
    SSO" is not carried by the quote "The Pro plan includes SSO" because its sentence goes on
    "which the Basic plan lacks", nor "$10 per month" by "the Pro plan costs $20 per month"
    beside "the Basic plan costs $10 per month". ``None`` when there is no such rival."""
    from_context = sorted(w for w in names if w not in qf.content)
    rivals = sorted(qf.mandatory - qf.numbers - cf.content)
    if from_context and rivals:
        return (f"states {', '.join(rivals)} where the claim says {', '.join(from_context)} "
                "(found only around the quote)")
    quoted = {unit_value(n, u) for n, u in qf.number_labels if u in UNITS}
    for number, unit in sorted(quantities(cf)):
        dim, value = unit_value(number, unit)
        if (number, unit) in qf.number_labels or _computed(value, dim, qf) or any(
                d == dim and (same_amount(v, value) or thirds(v, value, dim)) for d, v in quoted):
            continue
        if others := sorted({f"{v:g}" for d, v in quoted if d == dim}):
            return (f"states {', '.join(others)} where the claim says {number} {unit} "
                    "(found only around the quote)")
    return None


#: Words by which a claim says it computes a figure ("in total", "together", "$15 more than",
#: "twice", "3 years later"): only then may its number be a sum or difference of quoted ones
#: ("The course takes 35 hours" is not stated by modules of 20, 10 and 5 hours).
_COMPUTATION = re.compile(
    r"\b(?:totals?|totall?(?:ed|ing)|in all|together|combined|altogether|overall|sum|"
    r"adds? up|added up|plus|minus|difference|more|less|fewer|longer|shorter|older|younger|"
    r"higher|lower|bigger|smaller|larger|greater|cheaper|dearer|heavier|lighter|faster|"
    r"slower|earlier|later|times|twice|thrice|(?<!and a )half(?! of\b| the\b)|ratio|"
    r"remain(?:s|ed|ing)?|left|net|extra|"
    r"additional|increas\w*|decreas\w*|ris(?:e|es|en|ing)|rose|drop(?:s|ped)?|f[ae]ll|"
    r"falls|gain(?:s|ed)?|los(?:s|t|es)|sav(?:e|es|ed|ing)|apart|gap|cumulative\w*|"
    r"collectively|jointly|aggregate|average|up from|down from|ago)\b", re.IGNORECASE)


def number_problem(cf: TextFeatures, xf: TextFeatures, qf: TextFeatures, claim: str) -> str | None:
    """Why the claim's numbers are not stated by the evidence (``xf``: the quotes and the
    sentences around them; ``qf``: the quotes alone), or ``None``."""
    claim_q = quantities(cf)
    ev_values = {unit_value(n, u) for n, u in xf.number_labels if u in UNITS}
    computing = _COMPUTATION.search(claim) is not None
    ok: set[str] = set()
    for number, unit in sorted(claim_q):
        dim, value = unit_value(number, unit)
        if (number, unit) in xf.number_labels or _computed(value, dim, qf, computing) or any(
                d == dim and (same_amount(v, value) or thirds(v, value, dim))
                for d, v in ev_values) \
                or clock_said(number, unit, xf.number_labels):
            ok.add(number)
            continue
        if not computing and _computed(value, dim, qf):
            return (f"does not state {number} {unit} (a sum or difference of quoted numbers "
                    "needs a word of the claim that says so: total, together, more than...)")
        return f"does not state {number} {unit} (compared as a quantity with its unit)"
    for number in sorted(cf.numbers - ok):
        if number == "1" and not _DIGIT_ONE.search(claim):
            continue  # "one of the greatest", "a single day": the word, not a figure
        if (ordinal := ORDINAL.fullmatch(number)) \
                and not re.search(rf"\b{number}\b", claim, re.IGNORECASE) \
                and ordinal.group(1) not in xf.numbers \
                and not any(ORDINAL.fullmatch(n) for n in xf.numbers - cf.numbers):
            continue  # "a fifth season": a word, refused only beside a rival (3, "4th")
        if number in xf.numbers or (not any(n == number for n, _ in claim_q)
                                    and is_plain_number(number)
                                    and _computed(float(number), None, qf, computing)):
            continue
        if not computing and is_plain_number(number) and _computed(float(number), None, qf) \
                and not any(n == number for n, _ in claim_q):
            return (f"does not state the claim's number {number} (a sum or difference of "
                    "quoted numbers needs a word of the claim that says so: total, together, "
                    "more than...)")
        return f"does not state the claim's number {number}"
    if unsaid := sorted((n, w) for n, w in cf.number_nouns - xf.number_labels
                        if n in xf.numbers):
        return "does not state " + ", ".join(f"{n} {w}" for n, w in unsaid) + " together"
    if problem := _range_problem(cf, xf) or _clock_range_problem(cf, xf):
        return problem
    if problem := _rate_problem(cf, xf):
        return problem
    if problem := _pair_problem(cf, xf) or _qualifier_problem(cf, xf):
        return problem
    for number, bound in sorted(cf.bounds):
        if number in cf.approximate and (number, ">=") not in xf.bounds:
            continue  # "close to 100" of an evidence's 100 bounded no other way
        if (number, bound) not in xf.bounds and not _keyed_bound(number, bound, xf) \
                and not bound_by_value(number, bound, cf, xf):
            return f"does not state the bound on {number} ({bound})"
    for number, bound in sorted(qf.bounds - cf.bounds):
        said = {u for n, b, u in qf.bound_units if n == number and b == bound}
        claimed = {DIMENSIONS[u][0] for n, u in cf.number_units
                   if n == number and u in DIMENSIONS}
        if claimed and said and said <= DIMENSIONS.keys() and not claimed & {
                DIMENSIONS[u][0] for u in said}:
            continue  # "over a one-year span" bounds no "hour"
        if any(number in (lo, hi) and {lo, hi} <= cf.numbers for lo, hi in qf.ranges):
            continue  # the claim states both ends of the range ("from 10 to 12 March")
        if any(hi == number for _, hi in qf.ranges):
            continue  # the high end of a range the claim drops: ``_range_problem``
        if number in qf.unbounded and number in qf.loose:
            continue  # stated without the bound too ("five members ... children under five")
        if BOUND_NOUNS[bound] & {w for w, _ in cf.scoped}:
            continue  # "the maximum speed is 3,200 rpm" states the bound of "max_rpm=3200"
        if (number in cf.numbers or _said_by_value(number, cf, qf)) \
                and not bound_by_value(number, bound, qf, cf):
            side = "below (at least)" if bound == ">=" else "above (up to)"
            return f"bounds {number} from {side} where the claim states it without that bound"
    return None


def said_by_bound(word: str, cf: TextFeatures, xf: TextFeatures) -> bool:
    """Whether the evidence states the claim's "minimum" or "maximum" as a bound on a number
    of the claim ("The minimum order is $10" / "Orders must be at least $10")."""
    bound = next((b for b, nouns in BOUND_NOUNS.items() if word in nouns), None)
    return bound is not None and word in ("minimum", "maximum") and any(
        (n, bound) in xf.bounds for n in cf.numbers)


def _said_by_value(number: str, cf: TextFeatures, xf: TextFeatures) -> bool:
    """Whether the claim states the quantity ``number`` (a number of ``xf``) in another unit
    ("two weeks" for the "14" of "14 days")."""
    values = {unit_value(number, u) for n, u in xf.number_units if n == number and u in DIMENSIONS}
    return any(d == dim and same_amount(v, value) for d, v in values for dim, value in (
        unit_value(n, u) for n, u in cf.number_units if u in DIMENSIONS))


def _pair_problem(cf: TextFeatures, xf: TextFeatures) -> str | None:
    """A pair of numbers joined by a hyphen or dash that the evidence states the other way
    round: "1-3" against "beat the Tigers 3-1" (a score or result is ordered)."""
    for a, b in sorted(cf.pairs):
        if a != b and (b, a) in xf.pairs and (a, b) not in xf.pairs:
            return f"states {b}-{a} where the claim says {a}-{b} (the order of a pair is stated)"
    return None


def _qualifier_problem(cf: TextFeatures, xf: TextFeatures) -> str | None:
    """A word between a number and its unit ("14 business days") that the claim adds and the
    evidence does not state with that number (or the same quantity in another unit). A claim
    may drop the evidence's qualifier ("3 days" against "3 business days" is kept)."""
    def same(n: str, u: str, m: str, w: str) -> bool:
        return n == m and u == w or u in DIMENSIONS and w in DIMENSIONS and (
            (a := unit_value(n, u))[0] == (b := unit_value(m, w))[0] and same_amount(a[1], b[1]))
    for n, q, u in sorted(cf.qualified):
        if not any(same(n, u, m, w) and is_stated(q, {p}) for m, p, w in xf.qualified):
            return f"does not state {n} {q} {u} (the word between a number and its unit)"
    return None


def bound_by_value(number: str, bound: str, cf: TextFeatures, xf: TextFeatures) -> bool:
    """Whether the evidence bounds the claim's quantity the same way in another unit ("within
    two weeks" / "within 14 days")."""
    values = {unit_value(number, u) for n, u in cf.number_units if n == number and u in DIMENSIONS}
    for m, b in xf.bounds:
        if b != bound:
            continue
        for n, u in xf.number_units:
            if n == m and u in DIMENSIONS:
                dim, value = unit_value(m, u)
                if any(d == dim and same_amount(v, value) for d, v in values):
                    return True
    return False


def _range_problem(cf: TextFeatures, xf: TextFeatures) -> str | None:
    """A number of the claim that the evidence states only as an end of a range ("3-5 days",
    "3 to 5 days", "between 3 and 5 days"), where the claim says it without that end's bound
    ("3 days", "5 days"; "at least 3 days", "up to 5 days" and the range itself are stated).
    Compared as written and as a quantity ("72 hours" is the 3 of "3-5 days"). ``None`` when
    there is none."""
    ends: dict[str, tuple[str, str, str]] = {}
    for lo, hi in xf.ranges:
        ends.setdefault(lo, (">=", lo, hi))
        ends.setdefault(hi, ("<=", lo, hi))
    ends = {n: e for n, e in ends.items() if n not in xf.loose}
    if not ends:
        return None
    claim_ends = {(lo, ">=") for lo, _ in cf.ranges} | {(hi, "<=") for _, hi in cf.ranges}
    for number in sorted(cf.numbers):
        stating = {number} if number in xf.numbers else set()
        for unit in {u for n, u in cf.number_units if n == number and u in DIMENSIONS}:
            dim, value = unit_value(number, unit)
            stating |= {m for m, u in xf.number_units if m in ends and u in DIMENSIONS
                        and unit_value(m, u)[0] == dim and same_amount(unit_value(m, u)[1], value)}
        if not stating or any(m not in ends for m in stating):
            continue
        for m in sorted(stating):
            bound, lo, hi = ends[m]
            if {lo, hi} <= cf.numbers:
                continue  # the claim states both ends ("from 10 to 12 March")
            if (number, bound) not in claim_ends | cf.bounds:
                side = "lower" if bound == ">=" else "upper"
                return (f"states {m} only as the {side} end of a range ({lo} to {hi}) where "
                        f"the claim says {number} without that bound")
    return None


def _clock_side(number: str, unit: str, xf: TextFeatures) -> str | None:
    """"opening" / "closing" when the evidence states the clock time only as the start / end
    of a range of clock times ("9 am to 5 pm"), else ``None``."""
    labels = frozenset({(number, unit)})
    if (number, unit) in xf.loose_clocks or any(clock_said(n, u, labels)
                                                 for n, u in xf.loose_clocks):
        return None
    for lo, hi in xf.clock_ranges:
        for end, side in ((lo, "opening"), (hi, "closing")):
            if end == (number, unit) or clock_said(*end, labels) \
                    or clock_said(number, unit, frozenset({end})):
                return side
    return None


def _clock_range_problem(cf: TextFeatures, xf: TextFeatures) -> str | None:
    """A clock time of the claim that the evidence states only as one end of a range of
    clock times, said by the claim with a word of the other end or with none: "The office
    opens at 5 pm" is not stated by "open 9am-5pm" (5 pm closes it); "opens at 9 am" and
    "open until 5 pm" are."""
    if not xf.clock_ranges:
        return None
    words = {w for w, _ in cf.scoped}
    stated_ends = {t for r in cf.clock_ranges for t in r}
    for number, unit in sorted(quantities(cf)):
        if unit not in ("am", "pm", "oclock") or (number, unit) in stated_ends:
            continue
        side = _clock_side(number, unit, xf)
        if side is None:
            continue
        if not words & (CLOCK_OPENING_WORDS if side == "opening" else CLOCK_CLOSING_WORDS):
            return (f"states {number} {unit} only as the {side} time of a range where the "
                    "claim says it otherwise")
    return None


def said_by_clock_range(word: str, cf: TextFeatures, xf: TextFeatures) -> bool:
    """Whether the claim's "closes" ("opens") is stated by a range of clock times whose end
    (start) is the claim's time ("closes at 5 pm" / "open 9 am to 5 pm")."""
    side = ("closing" if word in CLOCK_CLOSING_WORDS
            else "opening" if word in CLOCK_OPENING_WORDS else None)
    return side is not None and any(
        u in ("am", "pm", "oclock") and _clock_side(n, u, xf) == side for n, u in
        quantities(cf))


def _rate_problem(cf: TextFeatures, xf: TextFeatures) -> str | None:
    """A rate of the claim whose denominator the evidence states otherwise for that number:
    "$10 per user" is not stated by "$10 per team"."""
    for number, per in sorted(cf.rates):
        said = {d for n, d in xf.rates if n == number}
        if said and per not in said:
            return (f"states {number} per {', '.join(sorted(said))} where the claim says "
                    f"{number} per {per}")
    return None


def _keyed_bound(number: str, bound: str, xf: TextFeatures) -> bool:
    """A key/value or table passage states a bound in its key: ``"max_users": 25``."""
    return (bound == "<=" and (number, "maximum") in xf.number_labels
            or bound == ">=" and (number, "minimum") in xf.number_labels)


def _computed(value: float, dim: str | None, qf: TextFeatures, sign: bool = True) -> bool:
    """Whether ``value`` (in the base unit of ``dim``; ``None``: a bare number) is a sum or
    difference of two or a sum of three numbers the quotes state (with units of the same
    dimension), or (bare numbers) a product or ratio of two; never of numbers only a rationale
    names. Without ``sign`` (the claim says nothing of a computation: ``_COMPUTATION``) only a
    percentage of two quoted numbers is computed."""
    if math.isnan(value):
        return False
    if dim is None or dim == "percent":
        operands = sorted({float(n) for n in qf.numbers if is_plain_number(n)})
    else:
        operands = sorted({v for d, v in (unit_value(n, u) for n, u in qf.number_labels
                                          if u in UNITS) if d == dim})
    operands = operands[:12]
    if len(operands) < 2:
        return False
    if dim is None and value.is_integer() and 1800 <= value <= 2100:
        return False  # a year is stated, never computed
    for a, b in combinations(operands, 2):
        if sign and (same_amount(a + b, value) or same_amount(b - a, value)):
            return True
        if dim == "percent" and a > 0 and same_amount(100 * a / b, value):
            return True
    return sign and any(same_amount(sum(c), value) for c in combinations(operands, 3))
