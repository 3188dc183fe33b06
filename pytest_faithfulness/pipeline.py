"""The pipeline: decompose -> verify each claim -> check each verdict -> score.

``evaluate(answer, passages, judge)`` returns an ``AnswerResult``; ``aevaluate`` is the same
as a coroutine. Rules (see ``records`` for the vocabulary):

* the decomposer receives the answer only;
* its output is not believed: ``alignment.align`` holds it against the answer, so every
  sentence of the answer ends in a claim or in set-aside text that is text of the answer and
  not assertive (anything else becomes a claim, with a note), each claim gets the answer
  spans it came from, and duplicate claims count once;
* each claim is verified in its own judge call, concurrently up to ``concurrency``;
* a verdict is accepted only if its passage ids exist and its quote is a substantive span
  of the cited passage's text or title that shares content words with the claim
  (``trust.quote_check.check_verdict``);
* a passage that holds the whole answer is reported in ``warnings`` (``answer_in_passages``);
* with an empty passage list every claim is ``unsupported`` without a judge call;
* when the passages exceed the judge's ``context_budget_chars`` they are split into windows
  and the claim verified against each: ``supported`` if any window supports it, else
  ``contradicted`` if any window contradicts it with evidence, else ``unsupported``; passages
  are never cut; the claim's note says it was judged against parts;
* before any judge call, an answer outside the judge's coverage (``judges.coverage``: its
  language, a code block, JSON or a tool's output as the answer, passages over what the judge
  sees whole with no context budget to split them) is ``unverified``, with the reason, and
  not judged (``coverage`` overrides ``coverage_of(judge)``);
* a claim the answer cites passages for (``citations``) is verified against those passages
  first; only when they do not support it is it verified against all of them, so a well-cited
  answer costs no more judge calls than an uncited one. Its citation is then classed
  (``ClaimResult.citation``); the verdict, and so faithfulness, is what it would be without
  the citation;
* a claim not grounded in the answer (its content words in neither the sentence it is aligned
  to nor the answer before it, or no source at all: ``alignment``, rule 7) is ``unsupported``
  without a judge call, with the reason in its note and verdict;
* faithfulness = supported / claims decomposed; no claims -> ``unscored``; any judge failure
  or missing verdict -> ``error`` with ``score = None`` (fail closed), its kind in
  ``error_kind`` (``records.ErrorKind``: from the first failure, ``errors.error_kind_of``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from . import _loop
from .accounting import usage_scope
from .checkmemo import aligned, checked_verdict, memo_of, profiled
from .errors import error_kind_of
from .inputs import check_cases, check_inputs, to_passages
from .judges.coverage import ANY_LANGUAGE, JudgeCoverage, uncovered
from .judges.protocol import (
    Judge,
    as_decomposition,
    as_verdict,
    call_judge,
    context_budget_of,
    coverage_of,
)
from .judges.votes import collect_votes
from .language.markers import strip_citations
from .language.text import normalize_ws
from .records import (
    AnswerResult,
    ClaimResult,
    Decomposition,
    Passage,
    Verdict,
)
from .redaction import redact

DEFAULT_CONCURRENCY = 8


def evaluate(answer: str, passages: Any, judge: Judge, *, concurrency: int = DEFAULT_CONCURRENCY,
             context_budget_chars: int | None = None,
             coverage: JudgeCoverage | None = None) -> AnswerResult:
    """Judge one answer against its passages (blocking; safe inside a running event loop).

    Args:
        answer: the answer text.
        passages: anything ``inputs.to_passages`` accepts.
        judge: any object following the judge protocol (``judges`` module docstring).
        concurrency: most verify calls in flight at once for this answer.
        context_budget_chars: overrides the judge's ``context_budget_chars``.
        coverage: what the judge covers, overriding ``coverage_of(judge)`` (e.g. widened by
            ``--faithfulness-judge-covers``; ``judges.coverage.EVERYTHING``: no guard).

    Returns:
        an ``AnswerResult`` (``scored``, ``unscored``, ``error`` or ``unverified``); judge
        failures are recorded in it, never raised.

    Raises:
        TypeError / ValueError: the answer or passages are malformed (see ``check_inputs``).
    """
    answer_text, passage_list = check_inputs(answer, passages)
    return _loop.run_sync(_evaluate(answer_text, passage_list, judge, concurrency,
                                    context_budget_chars, coverage=coverage))


async def aevaluate(answer: str, passages: Any, judge: Judge, *,
                    concurrency: int = DEFAULT_CONCURRENCY,
                    context_budget_chars: int | None = None,
                    coverage: JudgeCoverage | None = None) -> AnswerResult:
    """``evaluate`` as a coroutine; runs on the package's judge loop whatever loop awaits it."""
    answer_text, passage_list = check_inputs(answer, passages)
    return await _loop.run_async(_evaluate(answer_text, passage_list, judge, concurrency,
                                           context_budget_chars, coverage=coverage))


def evaluate_many(cases: Any, judge: Judge, *, concurrency: int = DEFAULT_CONCURRENCY,
                  context_budget_chars: int | None = None,
                  coverage: JudgeCoverage | None = None) -> list[AnswerResult]:
    """Judge many answers concurrently (blocking); one ``AnswerResult`` per case, in order.

    Args:
        cases: an iterable of ``(answer, passages)`` pairs or dicts with ``answer`` and
            ``passages`` keys.
        judge: any judge (see ``evaluate``).
        concurrency: most judge calls in flight at once across the whole batch.
        context_budget_chars / coverage: as for ``evaluate``.

    Raises:
        TypeError / ValueError: a case is malformed (checked for every case before any call;
        the message names the case's index).
    """
    checked = check_cases(cases)
    return _loop.run_sync(evaluate_checked_many(checked, judge, concurrency, context_budget_chars,
                                                coverage=coverage))


async def aevaluate_many(cases: Any, judge: Judge, *, concurrency: int = DEFAULT_CONCURRENCY,
                         context_budget_chars: int | None = None,
                         coverage: JudgeCoverage | None = None) -> list[AnswerResult]:
    """``evaluate_many`` as a coroutine."""
    checked = check_cases(cases)
    return await _loop.run_async(evaluate_checked_many(checked, judge, concurrency,
                                                context_budget_chars, coverage=coverage))


async def evaluate_checked_many(cases: list[tuple[str, list[Passage]]], judge: Judge,
                                concurrency: int,
                                context_budget_chars: int | None, *,
                                coverage: JudgeCoverage | None = None) -> list[AnswerResult]:
    """``aevaluate_many`` on cases already checked (``check_cases``), on the running loop:
    one ``AnswerResult`` per case, in order, at most ``concurrency`` judge calls in flight."""
    shared = asyncio.Semaphore(max(1, int(concurrency)))
    return list(await asyncio.gather(*(
        _evaluate(answer, passages, judge, concurrency, context_budget_chars, semaphore=shared,
                  coverage=coverage)
        for answer, passages in cases)))


async def verify_claim_windows(claim_result: ClaimResult, windows: list[list[Passage]],
                               judge: Judge, semaphore: asyncio.Semaphore) -> None:
    """Verify one claim against every window of passages (``passage_windows``), each call
    under ``semaphore``; set its accepted verdict (and the judge's own verdict with the reason
    when it was not accepted as given) and its votes.

    Raises:
        Exception: whatever the judge raised (the caller records it).
    """
    if not windows:
        claim_result.verdict = Verdict("unsupported", rationale="no passages were given")
        return

    window_votes: list[list[Any]] = []

    async def verify_one(window: list[Passage]) -> Verdict:
        async with semaphore:
            with collect_votes() as votes:  # several verdicts per claim: judges.votes
                verdict = as_verdict(await call_judge(judge, "verify", claim_result.text,
                                                      window))
            window_votes.append(votes)
            return verdict

    raw = await asyncio.gather(*(verify_one(w) for w in windows))
    if len(windows) > 1:  # no call saw every passage: say so on the claim
        claim_result.add_note(f"judged against the passages in {len(windows)} parts, one call "
                              "each (they exceed the judge's context budget): no call saw "
                              "them all")
    if any(window_votes):
        claim_result.votes = [v for votes in window_votes for v in votes]
        claim_result.unstable = any(len({v.label for v in votes}) > 1 for votes in window_votes)
    memo = memo_of(judge)  # the checks' signed memo: the same results, computed once
    checked = [(*checked_verdict(memo, verdict, window, claim_result.text), verdict)
               for verdict, window in zip(raw, windows)]
    best = _combine([accepted for accepted, _, _, _ in checked])
    for accepted, reason, coverage, verdict in checked:
        if accepted is best:
            claim_result.verdict = accepted
            claim_result.evidence_coverage = coverage
            if reason:
                claim_result.judge_verdict = verdict
                claim_result.add_note(reason)
            return


async def _verify_cited(claim_result: ClaimResult, citation: Any, passages: list[Passage],
                        windows: list[list[Passage]], budget: int | None, judge: Judge,
                        semaphore: asyncio.Semaphore) -> None:
    """Verify a claim, against the passages the answer cites for it first: when they support
    it, that is its verdict (one call, as without citations); otherwise it is verified against
    every passage as usual. Then its citation is classed (``citations.citation_label``).
    Faithfulness does not depend on the citation: support by any passage counts."""
    from .trust.citations import citation_label

    claim_result.cited_ids = list(citation.passage_ids)
    claim_result.unknown_citations = list(citation.unknown)
    cited = [p for p in passages if p.id in set(citation.passage_ids)]
    settled = False
    if cited and len(cited) < len(passages):  # all of them cited: the usual check is the same
        first = ClaimResult(text=claim_result.text)
        await verify_claim_windows(first, passage_windows(cited, budget), judge, semaphore)
        if first.supported:
            claim_result.verdict, claim_result.judge_verdict = first.verdict, first.judge_verdict
            claim_result.votes, claim_result.unstable = first.votes, first.unstable
            claim_result.evidence_coverage = first.evidence_coverage
            if first.note:
                claim_result.add_note(first.note)
            settled = True
    if not settled:
        await verify_claim_windows(claim_result, windows, judge, semaphore)
    claim_result.citation = citation_label(claim_result.verdict, citation)  # type: ignore[assignment]
    if citation.note():
        claim_result.add_note(citation.note())
    if claim_result.citation == "misattributed" and not citation.unknown:
        verdict = claim_result.verdict
        claim_result.add_note(f"misattributed: supported by "
                              f"{', '.join(verdict.passage_ids) or 'a passage'}, which it does "
                              f"not cite (it cites {', '.join(citation.passage_ids)})"
                              if verdict else "misattributed")


def verify_claim(claim: str, passages: Any, judge: Judge, *,
                 context_budget_chars: int | None = None) -> ClaimResult:
    """Verify one claim against passages, as the pipeline does for each decomposed claim.

    Returns:
        a ``ClaimResult`` whose ``verdict`` is the accepted verdict.

    Raises:
        TypeError / ValueError: malformed claim or passages, or a passage over the budget.
        Exception: whatever the judge raised (this function does not record errors).
    """
    if not isinstance(claim, str) or not claim.strip():
        raise TypeError("claim must be a non-empty string")
    passage_list = to_passages(passages)
    budget = context_budget_chars or context_budget_of(judge)
    windows = passage_windows(passage_list, budget) if passage_list else []
    result = ClaimResult(text=claim)

    async def run() -> ClaimResult:
        await verify_claim_windows(result, windows, judge, asyncio.Semaphore(DEFAULT_CONCURRENCY))
        return result

    return _loop.run_sync(run())


def passage_windows(passages: list[Passage], budget: int | None) -> list[list[Passage]]:
    """Split passages into consecutive windows of at most ``budget`` characters of text.

    Raises:
        ValueError: one passage alone is longer than ``budget`` (never truncated silently).
    """
    if not budget or sum(len(p.text) for p in passages) <= budget:
        return [passages]
    windows: list[list[Passage]] = [[]]
    size = 0
    for p in passages:
        if len(p.text) > budget:
            raise ValueError(f"passage {p.id!r} is {len(p.text)} characters, over the judge's "
                             f"context budget of {budget}: refusing to truncate it")
        if windows[-1] and size + len(p.text) > budget:
            windows.append([])
            size = 0
        windows[-1].append(p)
        size += len(p.text)
    return windows


#: An answer at least this long (characters, whitespace collapsed) that a passage holds whole
#: is reported: the harness most likely passed the answer among the passages.
ANSWER_IN_PASSAGE_MIN_CHARS = 40


def answer_in_passages(answer: str, passages: list[Passage]) -> list[str]:
    """Warnings for passages whose text (or title) equals or contains the whole answer.

    A common harness bug (the answer passed among its own passages) makes every claim
    ``supported``. Compared after whitespace normalisation and case folding, with and without
    the answer's citation markers; answers shorter than ``ANSWER_IN_PASSAGE_MIN_CHARS`` are not
    checked (a short answer may well be a passage sentence).
    """
    ids = tuple(p.id for p in passages)
    forms = {normalize_ws(a).casefold() for a in (answer, strip_citations(answer, passage_ids=ids))}
    forms = {f for f in forms if len(f) >= ANSWER_IN_PASSAGE_MIN_CHARS}
    if not forms:
        return []
    holders = [p.id for p in passages
               if any(f in normalize_ws(source).casefold() for f in forms
                      for source in (p.text, p.title or ""))]
    if not holders:
        return []
    return [f"passage(s) {', '.join(holders)} contain the whole answer: check that the test "
            "passes the retrieved passages, not the answer (every claim would be supported)"]


async def _not_grounded(claim_result: ClaimResult, citation: Any, reason: str) -> None:
    """A claim not grounded in the answer (``alignment``, rule 7) is ``unsupported`` without
    a judge call: the answer never made it, so it can lift no score (fail closed)."""
    from .trust.citations import citation_label

    claim_result.verdict = Verdict("unsupported", rationale=f"claim {reason}")
    claim_result.cited_ids = list(citation.passage_ids)
    claim_result.unknown_citations = list(citation.unknown)
    claim_result.citation = citation_label(claim_result.verdict, citation)  # type: ignore[assignment]


def _combine(verdicts: list[Verdict]) -> Verdict:
    for label in ("supported", "contradicted"):
        for v in verdicts:
            if v.label == label:
                return v
    return verdicts[0]


async def _evaluate(answer: str, passages: list[Passage], judge: Judge, concurrency: int,
                    context_budget_chars: int | None,
                    semaphore: asyncio.Semaphore | None = None,
                    coverage: JudgeCoverage | None = None,
                    given: Decomposition | None = None) -> AnswerResult:
    from .judges.protocol import judge_description

    result = AnswerResult(answer=answer, passages=passages, status="unscored",
                          judge=judge_description(judge))
    with usage_scope(result.usage):
        return await _judge_answer(result, judge, semaphore or asyncio.Semaphore(
            max(1, int(concurrency))), context_budget_chars, coverage, given)


def evaluate_decomposed_many(cases: list[tuple[str, list[Passage], Decomposition | None]],
                             judge: Judge, *, concurrency: int = DEFAULT_CONCURRENCY,
                             context_budget_chars: int | None = None,
                             coverage: JudgeCoverage | None = None) -> list[AnswerResult]:
    """Judge answers whose decomposition is already known (blocking): the same path as
    ``evaluate`` (input warnings, coverage guard, alignment, one verify call per claim, the
    quote check of each verdict, fail-closed scoring) without asking the judge to decompose.
    Used to re-judge a saved run with another judge, keeping its claims
    (``runs.rejudge``).

    Args:
        cases: ``(answer, passages, decomposition)`` triples; ``passages`` already
            ``Passage`` records; ``decomposition`` ``None``: decompose as ``evaluate`` does
            (an answer that had no decomposition to keep).
        judge: any judge (see ``evaluate``).
        concurrency: most judge calls in flight at once across the batch.
        context_budget_chars / coverage: as for ``evaluate``.

    Returns:
        one ``AnswerResult`` per case, in order; judge failures are recorded (``error``),
        never raised.
    """
    async def run() -> list[AnswerResult]:
        shared = asyncio.Semaphore(max(1, int(concurrency)))
        return list(await asyncio.gather(*(
            _evaluate(answer, passages, judge, concurrency, context_budget_chars,
                      semaphore=shared, coverage=coverage, given=decomposition)
            for answer, passages, decomposition in cases)))

    return _loop.run_sync(run())


def decompose_claims_many(cases: list[tuple[str, list[Passage]]], judge: Judge, *,
                          concurrency: int = DEFAULT_CONCURRENCY
                          ) -> list[list[str] | BaseException]:
    """The claims ``evaluate`` would score for each ``(answer, passages)`` with ``judge``: its
    decomposition held against the answer (``alignment``), claim texts in order (blocking; at
    most ``concurrency`` decompose calls in flight). Where the judge's ``decompose`` raised,
    the exception stands in that answer's place (returned, not raised)."""
    async def one(answer: str, passages: list[Passage],
                  semaphore: asyncio.Semaphore) -> list[str]:
        async with semaphore:
            decomposition = as_decomposition(await call_judge(judge, "decompose", answer))
        alignment = aligned(memo_of(judge), answer, decomposition,
                            tuple(p.id for p in passages))
        return [c.text for c in alignment.claims]

    async def run() -> list[list[str] | BaseException]:
        semaphore = asyncio.Semaphore(max(1, int(concurrency)))
        return list(await asyncio.gather(*(one(a, p, semaphore) for a, p in cases),
                                         return_exceptions=True))

    return _loop.run_sync(run())


def outside_coverage(result: AnswerResult, judge: Judge, coverage: JudgeCoverage | None,
                     budget: int | None) -> bool:
    """The coverage guard (``judges.coverage.uncovered``): when the answer lies outside the
    judge's coverage (``coverage``, else ``coverage_of(judge)``), mark ``result``
    ``unverified`` with the reason and return ``True``. A judge whose ``coverage`` is not a
    ``JudgeCoverage`` makes the answer ``error`` (kind ``judge``; fails closed)."""
    try:
        declared = coverage if coverage is not None else coverage_of(judge)
    except Exception as exc:
        result.status, result.error_kind = "error", "judge"
        result.error = redact(f"coverage declaration: {type(exc).__name__}: {exc}")
        return True
    reason = uncovered(result.answer, result.passages, declared, budget, found=profiled(
        memo_of(judge), result.answer, identify=ANY_LANGUAGE not in declared.languages))
    if reason is None:
        return False
    result.status, result.unverified_reason = "unverified", reason
    return True


async def _judge_answer(result: AnswerResult, judge: Judge, semaphore: asyncio.Semaphore,
                        context_budget_chars: int | None,
                        coverage: JudgeCoverage | None = None,
                        given: Decomposition | None = None) -> AnswerResult:
    answer, passages = result.answer, result.passages
    if not answer.strip():
        result.warnings.append("empty answer: nothing to score")
        return result
    if not passages:
        result.warnings.append("answer scored against an empty passage list")
    elif any(not p.text.strip() for p in passages):
        empty = ", ".join(p.id for p in passages if not p.text.strip())
        result.warnings.append(f"empty passage text: {empty}")
    result.warnings.extend(answer_in_passages(answer, passages))
    budget = context_budget_chars or context_budget_of(judge)
    if outside_coverage(result, judge, coverage, budget):
        return result
    if given is not None:  # a decomposition kept from an earlier run (``evaluate_decomposed``)
        decomposition = given
    else:
        try:
            async with semaphore:
                decomposition = as_decomposition(await call_judge(judge, "decompose", answer))
        except Exception as exc:  # fail closed: the answer errors, nothing passes
            result.status = "error"
            result.error = redact(f"decompose failed: {type(exc).__name__}: {exc}")
            result.error_kind = error_kind_of(exc)
            return result
    alignment = aligned(memo_of(judge), answer, decomposition, tuple(p.id for p in passages))
    result.dropped = alignment.dropped
    result.warnings.extend(alignment.warnings)
    result.claims = [ClaimResult(text=c.text, spans=c.spans, note=c.note)
                     for c in alignment.claims]
    ungrounded = {id(r): c.ungrounded for r, c in zip(result.claims, alignment.claims)
                  if c.ungrounded}
    if not result.claims:
        return result
    try:
        windows = passage_windows(passages, budget) if passages else []
    except ValueError as exc:
        result.status = "error"
        result.error = str(exc)
        result.error_kind = "input"  # a passage over the judge's context budget
        return result

    from .trust.citations import cite_claims

    citations = cite_claims(answer, passages, [c.spans for c in result.claims],
                            [c.text for c in result.claims])
    outcomes = await asyncio.gather(*(
        _verify_cited(c, cited, passages, windows, budget, judge, semaphore)
        if id(c) not in ungrounded else _not_grounded(c, cited, ungrounded[id(c)])
        for c, cited in zip(result.claims, citations)), return_exceptions=True)
    failures = [(c, o) for c, o in zip(result.claims, outcomes) if isinstance(o, BaseException)]
    missing = [c for c in result.claims if c.verdict is None]
    if failures or missing:
        result.status = "error"
        first = failures[0][1] if failures else None
        detail = f": {type(first).__name__}: {first}" if first is not None else ""
        result.error = redact(f"judge returned no verdict for {len(missing)} of "
                              f"{len(result.claims)} claim(s){detail}")
        result.error_kind = error_kind_of(first) if first is not None else "judge"
        for claim_result, failure in failures:
            claim_result.add_note(redact(f"verify failed: {type(failure).__name__}: {failure}"))
        return result
    result.status = "scored"
    return result
