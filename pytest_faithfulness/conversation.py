"""Conversations: the assistant's turns of one conversation, each judged as an answer.

``evaluate_conversation(turns, judge, window=None)`` takes the assistant turns of one
conversation as ``(answer, passages)`` pairs (or dicts with ``answer`` and ``passages``) in
order, and returns one ``AnswerResult`` per turn. Rules:

* each turn's answer is judged against the passages retrieved up to and including its turn:
  the passages of its own turn first, in their order (so ``[1]`` in the answer is the first
  passage retrieved for it), then those of the earlier turns, latest turn first;
* with ``window=K``, only the last ``K`` turns' passages count (``window=1``: its own turn
  only); ``None`` (the default): every turn so far;
* a passage retrieved again in a later turn (same id, same text, same title) counts once; the
  same id with other text is a ``ValueError`` naming both turns (ids must name one passage);
* a turn's own passages are newer than the earlier turns': a claim whose support cites an
  earlier turn's passage is verified again against the turn's own passages alone, and when
  they contradict it (an accepted ``contradicted`` verdict, its evidence checked) the claim is
  ``contradicted``, whatever the older passage says ("$10" in turn 1's passage, "$12 per
  month, not $10" in turn 2's). The older passage's ``supported`` verdict is kept in
  ``judge_verdict`` and named in the claim's note. Claims the turn's own passages support,
  or that no passage supports, cost no further call; a failure of this check fails the turn
  closed (``error``);
* the decomposer still sees only the answer text of its turn (nothing of the other turns);
* every turn is a full answer for the session: thresholds, the gate and the figures count it
  as one. ``AnswerResult.conversation`` names the conversation and ``AnswerResult.turn`` is
  the turn's 1-based number, so reports group the turns and the session summary gives the
  share of conversations with any claim not supported (``SessionSummary``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .accounting import usage_scope
from .errors import error_kind_of
from .inputs import check_cases
from .judges.protocol import Judge, context_budget_of
from .pipeline import (
    DEFAULT_CONCURRENCY,
    evaluate_checked_many,
    passage_windows,
    verify_claim_windows,
)
from .records import AnswerResult, ClaimResult, ErrorKind, Passage
from .redaction import redact


def conversation_cases(turns: Any, *, window: int | None = None
                       ) -> list[tuple[str, list[Passage]]]:
    """The ``(answer, passages)`` each turn is judged on (see the module docstring).

    Args:
        turns: a list or tuple of ``(answer, passages)`` pairs or dicts with ``answer`` and
            ``passages``; ``passages`` as ``inputs.to_passages`` accepts them.
        window: how many of the latest turns' passages count (>= 1), or ``None`` for all.

    Returns:
        one ``(answer, passages)`` per turn, in order.

    Raises:
        TypeError: ``turns`` is not a list or tuple, or a turn is malformed (named by number).
        ValueError: no turns, a bad ``window``, or one passage id given two different texts
            in two turns.
    """
    return _combined(_checked_turns(turns, window), window)


def _checked_turns(turns: Any, window: int | None) -> list[tuple[str, list[Passage]]]:
    """The turns checked (see ``conversation_cases``), each with its own passages."""
    if isinstance(turns, (str, bytes, dict)) or not isinstance(turns, (list, tuple)):
        raise TypeError("turns must be a list of (answer, passages) pairs or dicts with "
                        f"'answer' and 'passages', got {type(turns).__name__}")
    if not turns:
        raise ValueError("a conversation needs at least one turn")
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)
                               or window < 1):
        raise ValueError(f"window must be a positive int (turns) or None, got {window!r}")
    checked = check_cases([_named_by_turn(turn, number)
                           for number, turn in enumerate(turns, start=1)],
                          item="turn", start=1)
    seen: dict[str, tuple[int, Passage]] = {}
    for number, (_, passages) in enumerate(checked, start=1):
        for p in passages:
            if p.id in seen and seen[p.id][1] != p:
                raise ValueError(f"turn {number}: passage id {p.id!r} was retrieved in turn "
                                 f"{seen[p.id][0]} with other text; an id must name one passage")
            seen.setdefault(p.id, (number, p))
    return checked


def _combined(checked: list[tuple[str, list[Passage]]], window: int | None
              ) -> list[tuple[str, list[Passage]]]:
    cases = []
    for index, (answer, _) in enumerate(checked):
        first = 0 if window is None else max(0, index - window + 1)
        combined: dict[str, Passage] = {}
        for _, passages in reversed(checked[first:index + 1]):
            for p in passages:
                combined.setdefault(p.id, p)
        cases.append((answer, list(combined.values())))
    return cases


def evaluate_conversation(turns: Any, judge: Judge, *, window: int | None = None,
                          conversation: str = "conversation",
                          concurrency: int = DEFAULT_CONCURRENCY,
                          context_budget_chars: int | None = None,
                          coverage: Any = None) -> list[AnswerResult]:
    """Judge each assistant turn of one conversation (blocking); one ``AnswerResult`` per
    turn, in order, with ``conversation`` and ``turn`` set. Turns are judged concurrently.

    Args:
        turns / window: see ``conversation_cases``.
        judge: any judge (see ``pipeline.evaluate``).
        conversation: the name the results carry (reports group turns by it).
        concurrency: most judge calls in flight at once across the turns.
        context_budget_chars: overrides the judge's ``context_budget_chars``.
        coverage: overrides the judge's coverage (``pipeline.evaluate``).

    Raises:
        TypeError / ValueError: malformed turns (see ``conversation_cases``); nothing is
        judged then. Judge failures are recorded in the results (``error``), never raised.
    """
    from . import _loop

    cases, own = _cases_and_own(turns, window)
    results = _loop.run_sync(_judge_turns(cases, own, judge, concurrency, context_budget_chars,
                                          coverage))
    return _numbered(results, conversation)


async def aevaluate_conversation(turns: Any, judge: Judge, *, window: int | None = None,
                                 conversation: str = "conversation",
                                 concurrency: int = DEFAULT_CONCURRENCY,
                                 context_budget_chars: int | None = None,
                                 coverage: Any = None) -> list[AnswerResult]:
    """``evaluate_conversation`` as a coroutine."""
    from . import _loop

    cases, own = _cases_and_own(turns, window)
    results = await _loop.run_async(_judge_turns(cases, own, judge, concurrency,
                                                 context_budget_chars, coverage))
    return _numbered(results, conversation)


def _cases_and_own(turns: Any, window: int | None
                   ) -> tuple[list[tuple[str, list[Passage]]], list[list[Passage]]]:
    """The cases each turn is judged on and each turn's own passages (as checked)."""
    checked = _checked_turns(turns, window)
    return _combined(checked, window), [passages for _, passages in checked]


async def _judge_turns(cases: list[tuple[str, list[Passage]]], own: list[list[Passage]],
                       judge: Judge, concurrency: int, context_budget_chars: int | None,
                       coverage: Any = None) -> list[AnswerResult]:
    """Judge every turn, then hold each claim whose support cites an earlier turn's passage
    to the turn's own passages (the module docstring)."""
    results = await evaluate_checked_many(cases, judge, concurrency, context_budget_chars,
                                          coverage=coverage)
    semaphore = asyncio.Semaphore(max(1, int(concurrency)))
    await asyncio.gather(*(_own_passages_first(result, passages, judge, semaphore,
                                               context_budget_chars)
                           for result, passages in zip(results, own)))
    return results


async def _own_passages_first(result: AnswerResult, own: list[Passage], judge: Judge,
                              semaphore: asyncio.Semaphore,
                              context_budget_chars: int | None) -> None:
    """Verify each claim of ``result`` whose support cites an older passage against the
    turn's own passages; a ``contradicted`` verdict there replaces the older support."""
    own_ids = {p.id for p in own}
    if result.status != "scored" or not own or all(p.id in own_ids for p in result.passages):
        return
    stale = [c for c in result.claims  # supported by evidence from an earlier turn at all
             if c.supported and c.verdict is not None
             and any(pid not in own_ids for pid in c.verdict.passage_ids)]
    if not stale:
        return
    budget = context_budget_chars or context_budget_of(judge)
    checks = [ClaimResult(text=c.text) for c in stale]
    windows_failed = False
    with usage_scope(result.usage):
        try:
            windows = passage_windows(own, budget)
        except ValueError as exc:
            windows_failed = True  # a passage over the judge's context budget
            outcomes: list[Any] = [exc] * len(checks)
        else:
            outcomes = await asyncio.gather(*(verify_claim_windows(check, windows, judge, semaphore)
                                              for check in checks), return_exceptions=True)
    failed: ErrorKind | None = None
    for claim, check, outcome in zip(stale, checks, outcomes):
        if isinstance(outcome, BaseException) or check.verdict is None:
            failed = failed or _kind_of(outcome, windows_failed)
            detail = f"{type(outcome).__name__}: {outcome}" \
                if isinstance(outcome, BaseException) else "no verdict"
            claim.add_note(redact("the check against its own turn's passages failed: "
                                  + detail))
            continue
        claim.votes = [*claim.votes, *check.votes]
        claim.unstable = claim.unstable or check.unstable
        if check.label != "contradicted":
            continue
        older = claim.verdict
        assert older is not None
        claim.judge_verdict = claim.judge_verdict or older
        claim.verdict = check.verdict
        claim.add_note(f"contradicted by its own turn's passage(s) "
                       f"{', '.join(check.verdict.passage_ids) or '?'}; an earlier turn's "
                       f"passage(s) {', '.join(older.passage_ids) or '?'} supported it: the "
                       "turn's own passages come first")
        if check.note:
            claim.add_note(check.note)
        if claim.citation not in (None, "uncited"):
            claim.citation = "unsupported"  # cited, and not supported
    if failed:
        result.status = "error"
        result.error = ("the check of claims supported only by an earlier turn's passages "
                        "against the turn's own passages returned no verdict")
        result.error_kind = failed


def _kind_of(outcome: object, windows_failed: bool) -> ErrorKind:
    """The error kind of a failed own-turn check: ``input`` when a passage is over the judge's
    context budget, the failure's own kind when the judge raised, ``judge`` for no verdict."""
    if windows_failed:
        return "input"
    return error_kind_of(outcome) if isinstance(outcome, BaseException) else "judge"


def _numbered(results: list[AnswerResult], conversation: str) -> list[AnswerResult]:
    for number, result in enumerate(results, start=1):
        result.conversation = conversation
        result.turn = number
    return results


def _named_by_turn(turn: Any, number: int) -> Any:
    """``turn`` with plain-string passages named ``t<number>-p<i>`` (1-based), so that two
    turns' unnamed passages never share an id; anything else is left for ``check_cases``."""
    if isinstance(turn, dict):
        passages = turn.get("passages")
    elif isinstance(turn, (tuple, list)) and len(turn) == 2:
        passages = turn[1]
    else:
        return turn
    if not isinstance(passages, (list, tuple)) or not any(isinstance(p, str) for p in passages):
        return turn
    named = [{"id": f"t{number}-p{i}", "text": p} if isinstance(p, str) else p
             for i, p in enumerate(passages, start=1)]
    return {**turn, "passages": named} if isinstance(turn, dict) else (turn[0], named)

