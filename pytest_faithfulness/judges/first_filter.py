"""The first filter around a judge (``--faithfulness-first-filter``, issue 24 part 1).

``FirstFilterJudge(judge)`` follows the judge protocol: before each verify call it asks
``trust.first_filter.settle`` whether one passage sentence states the claim word for word;
when it does, that ``supported`` verdict (the sentence as its evidence, "settled by the first
filter" in its rationale) is the answer and no judge call is made; otherwise the wrapped judge
is asked as usual. It never settles ``unsupported`` or ``contradicted``.

Rules of use:

* **Outermost.** The filter wraps the judge after the verdict cache, votes and the panel
  (``plugin.judge``), so votes and panels apply only to the claims that reach the judge.
* **Canaries never go through it** (``run.canaries`` unwraps it: ``without_first_filter``):
  a canary measures the judge, not the filter.
* **Part of the fingerprint.** ``fingerprint()`` is the wrapped judge's with
  ``first_filter`` (the rules' version) added, so saved runs, comparisons and merges tell a
  run with the filter from one without. The verdict cache keys the wrapped judge's calls by
  the wrapped judge's own fingerprint (a claim that reaches the judge gets the same verdict
  either way).
* **Default** (``"auto"``): on for a judge whose calls cost (``cacheable``: the litellm
  judge, a hook's model judge that says so), off for the offline judges (they are rules
  already) and for judges that declare nothing; ``"on"`` / ``"off"`` force it.

Settled claims are counted per answer by their verdict's rationale (``is_settled``): each one
is a verify call, and its tokens, not spent.
"""

from __future__ import annotations

from typing import Any

from ..records import Passage, Verdict
from ..trust.first_filter import RULES_VERSION, SETTLED_NOTE, settle
from .protocol import (
    Judge,
    WrappingJudge,
    call_judge,
    fingerprint_of,
    is_cacheable,
    judge_description,
)

#: ``--faithfulness-first-filter`` values.
MODES = ("auto", "on", "off")


class FirstFilterJudge(WrappingJudge):
    """A judge behind the first filter (module docstring).

    Args:
        judge: any judge (votes, panel and cache already applied).

    Every attribute it does not define (``context_budget_chars``, ``coverage``,
    ``deterministic``, ``cacheable``, counters...) is the wrapped judge's.
    """

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def describe(self) -> str:
        """The wrapped judge's description, saying the filter is on."""
        return f"{judge_description(self.judge)}; first filter on"

    def fingerprint(self) -> dict[str, Any]:
        """The wrapped judge's fingerprint (or none) with ``first_filter`` (the rules'
        version) added."""
        found = fingerprint_of(self.judge)
        return {**(found if isinstance(found, dict) else {}), "first_filter": RULES_VERSION}

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """The first filter's ``supported`` verdict when a passage sentence proves the claim
        (no judge call); else the wrapped judge's verdict.

        Raises:
            Exception: whatever the wrapped judge raised.
        """
        settled = settle(claim, passages)
        if settled is not None:
            return settled
        verdict: Verdict = await call_judge(self.judge, "verify", claim, passages)
        return verdict


def first_filter_on(judge: Any, mode: str = "auto") -> bool:
    """Whether ``mode`` (one of ``MODES``) puts the filter in front of ``judge``: ``"on"``,
    or ``"auto"`` and the judge's calls cost (``cacheable``).

    Raises:
        ValueError: ``mode`` is not one of ``MODES``.
    """
    if mode not in MODES:
        raise ValueError(f"first filter mode must be one of {', '.join(MODES)}, got {mode!r}")
    return mode == "on" or mode == "auto" and is_cacheable(without_first_filter(judge))


def with_first_filter(judge: Any, mode: str = "auto") -> Any:
    """``judge`` behind the first filter when ``first_filter_on(judge, mode)``, else the
    judge without it; a judge already behind it is not wrapped twice.

    Raises:
        ValueError: ``mode`` is not one of ``MODES``.
    """
    inner = without_first_filter(judge)
    if not first_filter_on(inner, mode):
        return inner
    return judge if isinstance(judge, FirstFilterJudge) else FirstFilterJudge(inner)


def without_first_filter(judge: Any) -> Any:
    """The judge behind the first filter, or ``judge`` itself when it has none."""
    while isinstance(judge, FirstFilterJudge):
        judge = judge.judge
    return judge


def is_settled(verdict: Verdict | None) -> bool:
    """Whether ``verdict`` was settled by the first filter (no judge call)."""
    return verdict is not None and (verdict.rationale or "").startswith(SETTLED_NOTE)
