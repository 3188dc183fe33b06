"""``FaithfulnessAssertion``: what the ``assert_faithful`` fixture returns.

It judges an answer, records the result for the session gate, and raises ``AssertionError``
when the answer misses its thresholds. With no threshold from the call, the options or the
ini, it asserts that every claim is supported (``max_unsupported=0``): an assertion never
passes a contradicted answer for want of a configured bound.

Imported by the fixture only (not at plugin start-up); it knows pytest only through the item
it is handed, for the JUnit properties and the answer-result hook.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .records import AnswerResult
    from .run.results import ResultStore

#: Added to the assertion message when the strict default applied.
STRICT_DEFAULT_NOTE = ("no min_score or max_unsupported was set (call, options or ini), so "
                       "every claim must be supported")


class FaithfulnessAssertion:
    """What the ``assert_faithful`` fixture returns: call it to judge and assert one answer.

    ``assert_faithful(answer, passages, *, min_score=None, max_unsupported=None,
    require_claims=None, record_only=False, min_citation_precision=None)``

    Args:
        answer: the answer text.
        passages: ``Passage`` objects, strings (ids ``p1``, ``p2``, ...), dicts with
            ``id``/``text``, or documents with ``page_content``/``text``.
        min_score: lowest acceptable faithfulness in [0, 1] (default:
            ``--faithfulness-min-score``).
        max_unsupported: most claims that may be not supported (contradicted + unsupported)
            (default: ``--faithfulness-max-unsupported``). When neither bound is given by the
            call, the options or the ini, ``max_unsupported`` is 0: **every claim must be
            supported** (a contradicted or unsupported claim fails the assertion).
            ``min_score=0`` alone does not turn the assertion off: a
            ``--faithfulness-max-unsupported`` from the options or the ini still applies.
        require_claims: an answer with no claims fails (default:
            ``--faithfulness-require-claims``, else an unscored answer passes).
        record_only: judge and record the answer for the session gate and the reports
            without asserting on its claims: no threshold of the call, the options or the ini
            applies (passing one as well is a ``ValueError``). An errored answer still fails
            (a judge fault is never a pass).
        min_citation_precision: lowest acceptable citation precision of the answer
            (claims a cited passage supports / claims that cite a passage, see
            ``citations``); an answer with claims but no citation misses it. It adds to the
            other bounds: a cited but unsupported claim still fails them as before.

    ``evaluate_many(cases)`` and ``assert_many(cases)`` judge a batch concurrently.

    In a golden test (``@pytest.mark.faithfulness(golden=True)``, ``--faithfulness-golden``)
    every answer recorded is golden: one with a claim not supported fails the session gate,
    whatever its own thresholds and the aggregate (``run.golden``).

    An answer outside the judge's coverage (``judges.coverage``: a language, a code block,
    JSON or a tool's output as the answer, passages over what the judge sees whole) is
    ``unverified``: not judged, and never a pass: the assertion fails naming the reason and
    how to declare the coverage (``--faithfulness-judge-covers``, after a calibration run).
    With ``record_only=True`` it is recorded only, and the session's
    ``--faithfulness-max-unverified-rate`` bounds how many there may be.

    An answer that misses its own thresholds in a test that does not fail (its
    ``AssertionError`` caught, or from ``evaluate_many``) fails the session gate: a missed
    bound never passes silently. Use ``record_only=True`` to record without a bound, or mark
    a test that expects a miss ``xfail``.

    Returns:
        the ``AnswerResult``, recorded for the session gate whether it passes or not.

    Raises:
        AssertionError: the answer errored or misses a threshold; the message is the
            per-claim report.
        TypeError / ValueError: malformed answer or passages (recorded as an errored answer).
    """

    def __init__(self, judge: Any, session: ResultStore, test_id: str,
                 min_score: float | None, max_unsupported: int | None, concurrency: int | None,
                 context_budget_chars: int | None = None, require_claims: bool = False,
                 publish: Callable[[AnswerResult, int], None] | None = None,
                 conversation_window: int | None = None,
                 location: tuple[str | None, int | None] = (None, None),
                 judge_covers: tuple[str, ...] = (), golden: bool = False):
        self._judge = judge
        self._session = session
        self._test_id = test_id
        self._min_score = min_score
        self._max_unsupported = max_unsupported
        self._concurrency = concurrency
        self._context_budget = context_budget_chars
        self._require_claims = require_claims
        self._publish = publish  # JUnit properties and the answer-result hook (pytest side)
        self._conversation_window = conversation_window
        self._location = location  # the test's (file, line), for GitHub annotations
        self._judge_covers = tuple(judge_covers)  # --faithfulness-judge-covers
        self._golden = golden  # a golden test (run.golden): every answer recorded is golden
        self._conversations = 0
        self.results: list[AnswerResult] = []

    def __call__(self, answer: Any, passages: Any, *, min_score: float | None = None,
                 max_unsupported: int | None = None,
                 require_claims: bool | None = None, record_only: bool = False,
                 min_citation_precision: float | None = None) -> AnswerResult:
        from .pipeline import evaluate
        from .reports.terminal import format_answer

        __tracebackhide__ = True
        thresholds = self._thresholds(min_score, max_unsupported, require_claims, record_only)
        citation = _citation_bound(min_citation_precision, record_only)
        try:
            result = evaluate(answer, passages, self._judge, **self._pipeline_options())
        except (TypeError, ValueError) as exc:
            self._record_bad_input(answer, exc, thresholds)
            raise
        result.min_citation_precision = citation
        self._record(result, thresholds)
        if not result.passed:
            raise AssertionError(f"{_headline(result, thresholds)}\n" + format_answer(result))
        return result

    def evaluate_many(self, cases: Any, *, min_score: float | None = None,
                      max_unsupported: int | None = None,
                      require_claims: bool | None = None,
                      record_only: bool = False,
                      min_citation_precision: float | None = None) -> list[AnswerResult]:
        """Judge many answers concurrently and record each for the gate; never raises on a
        failing answer (see ``assert_many``). The thresholds still apply (as for the
        assertion): an answer that misses them fails the session gate unless its test fails
        or is ``xfail``; pass ``record_only=True`` to record without any threshold.

        Args:
            cases: ``(answer, passages)`` pairs or dicts with ``answer`` and ``passages``.
            min_score / max_unsupported / require_claims / record_only /
                min_citation_precision: as for the call.

        Returns:
            one ``AnswerResult`` per case, in order; test ids are ``<node id>#<n>``.

        Raises:
            TypeError / ValueError: a malformed case (named by index); nothing is judged then.
        """
        from .pipeline import evaluate_many

        thresholds = self._thresholds(min_score, max_unsupported, require_claims, record_only)
        citation = _citation_bound(min_citation_precision, record_only)
        results = evaluate_many(cases, self._judge, **self._pipeline_options())
        for result in results:
            result.min_citation_precision = citation
            self._record(result, thresholds, numbered=True)
        return results

    def assert_many(self, cases: Any, *, min_score: float | None = None,
                    max_unsupported: int | None = None,
                    require_claims: bool | None = None,
                    min_citation_precision: float | None = None) -> list[AnswerResult]:
        """``evaluate_many``, then raise ``AssertionError`` with the per-claim report of every
        answer that errored or missed a threshold."""
        __tracebackhide__ = True
        results = self.evaluate_many(cases, min_score=min_score, max_unsupported=max_unsupported,
                                     require_claims=require_claims,
                                     min_citation_precision=min_citation_precision)
        _raise_if_any_failed(results, "answers",
                             self._thresholds(min_score, max_unsupported))
        return results

    def conversation(self, turns: Any, *, window: int | None = None,
                     min_score: float | None = None, max_unsupported: int | None = None,
                     require_claims: bool | None = None, record_only: bool = False,
                     min_citation_precision: float | None = None) -> list[AnswerResult]:
        """Judge the assistant turns of one conversation, record each turn as an answer and
        raise ``AssertionError`` with the per-claim report of every turn that errored or
        missed a threshold (what the ``assert_faithful_conversation`` fixture calls).

        Args:
            turns: ``(answer, passages)`` pairs (or dicts) of the assistant's turns, in order.
            window: how many of the latest turns' passages each turn is judged against
                (default: ``--faithfulness-conversation-window``, else every turn so far).
            min_score / max_unsupported / require_claims / record_only /
                min_citation_precision: as for the call, applied to each turn.

        Returns:
            one ``AnswerResult`` per turn; test ids are ``<node id>#turn<n>`` (and
            ``conversation`` the node id, ``#conversation<k>`` added from the second
            conversation of a test on).

        Raises:
            AssertionError: a turn errored or missed a threshold.
            TypeError / ValueError: malformed turns or window (nothing is judged then).
        """
        from .conversation import evaluate_conversation

        __tracebackhide__ = True
        thresholds = self._thresholds(min_score, max_unsupported, require_claims, record_only)
        citation = _citation_bound(min_citation_precision, record_only)
        self._conversations += 1
        name = self._test_id if self._conversations == 1 else \
            f"{self._test_id}#conversation{self._conversations}"
        results = evaluate_conversation(
            turns, self._judge, conversation=name,
            window=self._conversation_window if window is None else window,
            **self._pipeline_options())
        for result in results:
            result.min_citation_precision = citation
            self._record(result, thresholds, test_id=f"{name}#turn{result.turn}")
        _raise_if_any_failed(results, "turns of the conversation", thresholds)
        return results

    def assert_prepared(self, cases: list[Any], *, what: str = "answers",
                        min_score: float | None = None, max_unsupported: int | None = None,
                        require_claims: bool | None = None, record_only: bool = False,
                        min_citation_precision: float | None = None) -> list[AnswerResult]:
        """Judge and record cases prepared elsewhere (the turns of a trace: what
        ``assert_faithful_trace`` calls), then raise as ``assert_many`` does.

        Args:
            cases: ``(answer, passages, annotate)`` triples, judged concurrently, each result
                handed to ``annotate(result)`` (``None``: nothing) before it is recorded; or
                ready ``AnswerResult``s (an errored turn), recorded as they are.
            what: the plural noun of the assertion message ("turns of the trace").
            min_score / max_unsupported / require_claims / record_only /
                min_citation_precision: as for the call.

        Returns:
            one ``AnswerResult`` per case, in order.

        Raises:
            AssertionError: a case errored or missed a threshold (every failing one's report).
        """
        from .pipeline import evaluate_many
        from .records import AnswerResult

        __tracebackhide__ = True
        thresholds = self._thresholds(min_score, max_unsupported, require_claims, record_only)
        citation = _citation_bound(min_citation_precision, record_only)
        to_judge = [c for c in cases if not isinstance(c, AnswerResult)]
        judged = iter(evaluate_many([(a, p) for a, p, _ in to_judge], self._judge,
                                    **self._pipeline_options()) if to_judge else ())
        results: list[AnswerResult] = []
        for case in cases:
            if isinstance(case, AnswerResult):
                result = case
            else:
                result = next(judged)
                if case[2] is not None:
                    case[2](result)
            result.min_citation_precision = citation
            self._record(result, thresholds, numbered=len(cases) > 1)
            results.append(result)
        _raise_if_any_failed(results, what, thresholds)
        return results

    def _pipeline_options(self) -> dict[str, Any]:
        from .pipeline import DEFAULT_CONCURRENCY

        options: dict[str, Any] = {"concurrency": self._concurrency or DEFAULT_CONCURRENCY,
                                   "context_budget_chars": self._context_budget}
        if self._judge_covers:  # the judge's own declaration, widened by the option
            from .judges.coverage import declared
            from .judges.protocol import coverage_of

            options["coverage"] = declared(coverage_of(self._judge), self._judge_covers)
        return options

    def _thresholds(self, min_score: float | None, max_unsupported: int | None,
                    require_claims: bool | None = None, record_only: bool = False
                    ) -> tuple[float | None, int | None, bool, bool]:
        if record_only:
            given = [name for name, value in (("min_score", min_score),
                                              ("max_unsupported", max_unsupported),
                                              ("require_claims", require_claims))
                     if value is not None]
            if given:
                raise ValueError(f"record_only=True takes no threshold, got {', '.join(given)}")
            return None, None, False, False
        min_score = self._min_score if min_score is None else min_score
        max_unsupported = self._max_unsupported if max_unsupported is None else max_unsupported
        if min_score is not None and (isinstance(min_score, bool)
                                      or not isinstance(min_score, (int, float))
                                      or not 0 <= min_score <= 1):
            raise ValueError(f"min_score must be a number in [0, 1], got {min_score!r}")
        if max_unsupported is not None and (isinstance(max_unsupported, bool)
                                            or not isinstance(max_unsupported, int)
                                            or max_unsupported < 0):
            raise ValueError(f"max_unsupported must be a non-negative int, got {max_unsupported!r}")
        require = self._require_claims if require_claims is None else bool(require_claims)
        strict = min_score is None and max_unsupported is None
        if strict:  # an assertion asserts: with no bound, every claim must be supported
            max_unsupported = 0
        return min_score, max_unsupported, require, strict

    def _record_bad_input(self, answer: Any, exc: Exception,
                          thresholds: tuple[Any, ...]) -> None:
        from .records import AnswerResult

        shown = answer if isinstance(answer, str) else \
            f"<not a string: {type(answer).__name__} {answer!r:.200}>"
        result = AnswerResult(answer=shown, status="error", error=f"bad input: {exc}",
                              error_kind="input")
        self._record(result, thresholds)

    def _record(self, result: AnswerResult, thresholds: tuple[Any, ...],
                numbered: bool = False, test_id: str | None = None) -> None:
        n = len(self.results) + 1
        result.test_id = test_id or (f"{self._test_id}#{n}" if numbered or n > 1
                                     else self._test_id)
        result.min_score, result.max_unsupported, result.require_claims = thresholds[:3]
        result.test_file, result.test_line = self._location
        result.golden = self._golden
        self.results.append(result)
        self._session.record(result, self._judge)
        if self._publish is not None:
            self._publish(result, len(self.results))




def _citation_bound(value: Any, record_only: bool) -> float | None:
    """``min_citation_precision`` checked: a number in [0, 1] or ``None``.

    Raises:
        ValueError: another value, or one given with ``record_only=True``.
    """
    if value is None:
        return None
    if record_only:
        raise ValueError("record_only=True takes no threshold, got min_citation_precision")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"min_citation_precision must be a number in [0, 1], got {value!r}")
    return float(value)


def _raise_if_any_failed(results: list[AnswerResult], what: str,
                         thresholds: tuple[Any, ...]) -> None:
    """Raise ``AssertionError`` listing every result that did not pass (``N of M <what> are
    not faithful enough``, or ``judge error: ...`` first when some errored, with how many
    were cache misses in replay mode; each failing answer's report below); nothing when all
    passed."""
    __tracebackhide__ = True
    from .reports.terminal import format_answer
    from .run.outcome import failed_own_thresholds

    failing = [r for r in results if failed_own_thresholds(r)]
    if not failing:
        return
    errored = [r for r in failing if r.status == "error"]
    if not errored:
        head = f"{len(failing)} of {len(results)} {what} are not faithful enough" \
            f"{_note(thresholds)}"
    else:
        misses = sum(1 for r in errored if _replay_miss(r))
        kind = (" (cache miss in replay mode)" if misses == len(errored)
                else f" ({misses} a cache miss in replay mode)" if misses else "")
        rest = len(failing) - len(errored)
        source = "trace" if all((r.error_kind or "").startswith("trace_") for r in errored) \
            else "judge"  # a turn read from spans errs before any judge is asked
        head = (f"{source} error: {len(errored)} of {len(results)} {what} could not be judged"
                f"{kind}" + (f"; {rest} not faithful enough{_note(thresholds)}" if rest else ""))
    raise AssertionError(head + "\n" + "\n".join(format_answer(r) for r in failing))


#: The judge errors a replay-mode cache raises (``cache.CacheMiss`` and its subclass
#: ``CacheRejected``), as the pipeline records them (``<type name>: <message>``).
_REPLAY_ERRORS = ("CacheMiss:", "CacheRejected:")


def _replay_miss(result: AnswerResult) -> bool:
    """Whether ``result`` errored because a judge call missed the cache in replay mode."""
    return any(name in (result.error or "") for name in _REPLAY_ERRORS)


def _headline(result: AnswerResult, thresholds: tuple[Any, ...]) -> str:
    """The first line of a failed assertion: a judge error says so (a cache miss in replay
    mode by name), never "not faithful enough", which is a verdict on the answer."""
    if result.status == "error":
        if _replay_miss(result):
            return ("judge error: cache miss in replay mode: a judge call for this answer was "
                    "not recorded in the verdict cache (or its entry was refused), so it was "
                    "not judged; record it with --faithfulness-cache-mode rw")
        return "judge error: the answer could not be judged (an error never passes)"
    if result.status == "unverified":
        return ("answer not verified: it is outside the judge's coverage, so it was not judged "
                "and cannot pass; record it with record_only=True to leave it to "
                "--faithfulness-max-unverified-rate")
    return f"answer is not faithful enough{_note(thresholds)}"


def _note(thresholds: tuple[Any, ...]) -> str:
    """`` (no min_score ... set: ...)`` when the strict default is the bound that applied."""
    return f" ({STRICT_DEFAULT_NOTE})" if thresholds[3] else ""
