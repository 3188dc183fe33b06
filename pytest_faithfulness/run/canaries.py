"""Judge canaries in a run (issue 23): build them from the run's passages, judge them with the
run's own judge, and hold the run unmeasurable when the judge can no longer say no, or yes.

``canaries.build_canaries`` builds the claims (controls that must come back ``supported``,
mutants that must not); ``judge_canaries`` sends each through the pipeline's own verify step
(``pipeline.verify_claim_windows``: the same judge object, so the same prompt, votes, panel
and verdict cache as the answers, and the same evidence and quote check), and keeps the judge's
own verdict and the verdict after the check (``canary_report.CanaryResult``). A judge error on
a canary is recorded and counts as a miss; nothing is dropped from a denominator. The answers'
results and figures are never touched: the canaries have their own report
(``canary_report.CanaryReport``) and their own usage.

``apply_canaries`` puts the report on the ``RunOutcome`` and adds its bound failures as
``unmeasurable`` reasons (``CanaryReport.bound_failures``). Nothing here imports pytest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Any

from .. import _loop
from ..accounting import usage_scope
from ..canaries import Canary, CanarySet, build_canaries
from ..canary_report import CanaryReport, CanaryResult, strictest
from ..checkmemo import CheckMemo, memo_of
from ..inputs import to_passages
from ..judges.protocol import context_budget_of, fingerprint_of, judge_description
from ..pipeline import DEFAULT_CONCURRENCY, passage_windows, verify_claim_windows
from ..records import ClaimResult, Passage, Usage
from ..redaction import redact
from .outcome import RunOutcome


def fitted_on_canaries(judge: Any) -> bool:
    """Whether ``judge`` (or a member of its panel) is an offline judge, whose rules were
    fitted against the generator that builds the canaries (``canary_report.SMOKE_TEST_NOTE``).
    Read from its fingerprint (``{"kind": "offline"}``, also inside votes or a panel)."""
    try:
        found = fingerprint_of(judge)
    except Exception:  # a fingerprint is informative here, never fatal
        return False

    def offline(fp: Any) -> bool:
        if not isinstance(fp, dict):
            return False
        return fp.get("kind") == "offline" or any(offline(m) for m in fp.get("members") or ())

    return offline(found)


async def _judge_one(canary: Canary, judge: Any, semaphore: asyncio.Semaphore,
                     budget: int | None) -> CanaryResult:
    result = CanaryResult(role=canary.role, kind=canary.kind, claim=canary.claim,
                          expected=canary.expected, passage_id=canary.passage_id,
                          sentence=canary.sentence, detail=canary.detail)
    claim = ClaimResult(text=canary.claim)
    try:
        windows = passage_windows(list(canary.passages), budget)
        await verify_claim_windows(claim, windows, judge, semaphore)
    except Exception as exc:  # fail closed: recorded, and a miss in both readings
        result.error = redact(f"verify failed: {type(exc).__name__}: {exc}")
        return result
    checked = claim.verdict
    own = claim.judge_verdict or checked
    if checked is None or own is None:
        result.error = "the judge returned no verdict"
        return result
    result.judge_label, result.label = own.label, checked.label
    result.evidence = [{"passage_id": e.passage_id, "quote": e.quote} for e in own.evidence]
    result.note = claim.note
    return result


def judge_canaries(built: CanarySet, judge: Any, *,
                   concurrency: int | None = DEFAULT_CONCURRENCY,
                   context_budget_chars: int | None = None,
                   notes: Iterable[str] = ()) -> CanaryReport:
    """Judge every canary of ``built`` with ``judge`` (blocking; on the package's judge loop).

    Args:
        built: the canaries (``canaries.build_canaries``).
        judge: the run's judge, as the answers were judged (cache, votes, panel included);
            behind the first filter or not, the canaries go to the judge itself.
        concurrency: most verify calls in flight at once.
        context_budget_chars: overrides the judge's context budget (passage windows).
        notes: more notes for the report (its ``notes``; ``built.note`` comes first).

    Returns:
        the ``CanaryReport``; its ``usage`` holds the canaries' own calls and tokens. Judge
        errors are recorded in it, never raised.
    """
    from ..judges.first_filter import without_first_filter

    judge = without_first_filter(judge)  # canaries measure the judge, never the first filter
    usage = Usage()
    budget = context_budget_chars or context_budget_of(judge)
    semaphore_size = max(1, int(concurrency or DEFAULT_CONCURRENCY))

    async def run() -> list[CanaryResult]:
        semaphore = asyncio.Semaphore(semaphore_size)
        with usage_scope(usage):
            return list(await asyncio.gather(*(
                _judge_one(c, judge, semaphore, budget) for c in built.canaries)))

    results = _loop.run_sync(run()) if built.canaries else []
    return CanaryReport.of(results, asked=built.asked, notes=[built.note, *notes],
                           smoke_test=fitted_on_canaries(judge),
                           judge=judge_description(judge), usage=usage)


def run_canaries(passage_sets: Iterable[Sequence[object]], n: int, judge: Any, *,
                 concurrency: int | None = DEFAULT_CONCURRENCY,
                 context_budget_chars: int | None = None) -> CanaryReport | None:
    """Build ``n`` canaries from ``passage_sets`` (each answer's passages) and judge them
    (``judge_canaries``); ``None`` when ``n`` is 0 (turned off). Too few usable passage
    sentences is a note in the report, never an error.

    Raises:
        ValueError, TypeError: ``n`` or a passage set is malformed (``build_canaries``).
    """
    if n == 0:
        return None
    built = built_canaries(passage_sets, n, memo_of(judge))
    if not built.canaries:
        return CanaryReport(asked=n, notes=[built.note or "no passage to build canaries from"],
                            smoke_test=fitted_on_canaries(judge), judge=judge_description(judge))
    return judge_canaries(built, judge, concurrency=concurrency,
                          context_budget_chars=context_budget_chars)


def built_canaries(passage_sets: Iterable[Sequence[object]], n: int,
                   memo: CheckMemo | None) -> CanarySet:
    """``build_canaries(passage_sets, n)``, through the checks' signed memo (``checkmemo``)
    when there is one: the same passage sets (in the same order) build the same canaries, so
    a re-run takes them from the memo instead of reading every passage again.

    Raises:
        ValueError, TypeError: as ``build_canaries``."""
    if memo is None:
        return build_canaries(passage_sets, n)
    passage_sets = list(passage_sets)  # read twice: for the memo's key, and to build
    sets = [[[p.id, p.text, p.title] for p in to_passages(ps)] for ps in passage_sets]

    def compute() -> dict[str, Any]:
        done = build_canaries(passage_sets, n)
        return {"asked": done.asked, "note": done.note, "canaries": [
            [c.role, c.kind, c.claim, [[p.id, p.text, p.title] for p in c.passages],
             c.passage_id, c.sentence, c.detail] for c in done.canaries]}

    out = memo.memoised("build_canaries", {"n": n, "sets": sets}, compute)
    return CanarySet(tuple(
        Canary(role, kind, claim, tuple(Passage(id=i, text=t, title=h) for i, t, h in passages),
               pid, sentence, detail)
        for role, kind, claim, passages, pid, sentence, detail in out["canaries"]),
        out["asked"], out["note"])


def apply_canaries(outcome: RunOutcome, report: CanaryReport | None,
                   min_recall: float | None, min_keep: float | None) -> list[str]:
    """Keep ``report`` in ``outcome.canaries`` and add its bound failures as ``unmeasurable``
    reasons (``CanaryReport.bound_failures``: the upper end of a figure's Wilson 95% interval
    below its bound). Returns the reasons added (none without a report)."""
    if report is None:
        return []
    outcome.canaries = report
    # the strictest of the bounds given and those a shard ran with (a merge drops none)
    report.min_recall = strictest((min_recall, report.min_recall))
    report.min_keep = strictest((min_keep, report.min_keep))
    added = outcome.add_failures(report.bound_failures(report.min_recall, report.min_keep),
                                 kind="unmeasurable")
    if not added and not report.built:  # asked, none built: never a silent "passed"
        outcome.tolerated_given.append(f"judge canaries: {report.asked} asked, none built "
                                       "(too few passage sentences), so the run did not check "
                                       "its judge")
    elif report.missed and not added:  # within the bounds: tolerated, and listed
        outcome.tolerated_given.append(f"{len(report.missed)} judge canary(ies) missed within "
                                       "the canary bounds (listed in the canaries section)")
    return added
