"""JUnit XML properties of a test that judged answers (``item.user_properties``)."""

from __future__ import annotations

from ..records import AnswerResult
from .text import printable


def junit_properties(result: AnswerResult, index: int = 1) -> list[tuple[str, str]]:
    """``(name, value)`` pairs for a test's JUnit ``<properties>`` (``item.user_properties``).

    Names: ``faithfulness_score`` (``0.600``, or ``n/a`` when unscored or errored),
    ``faithfulness_status``, ``faithfulness_claims``, ``faithfulness_supported``,
    ``faithfulness_contradicted``, ``faithfulness_unsupported``, ``faithfulness_passed``
    (``true``/``false``), ``faithfulness_judge``; when claims were judged more than once
    (``--faithfulness-votes``, a panel), ``faithfulness_unstable`` (claims whose votes
    disagree); for an answer whose claims cite passages ``faithfulness_citation_precision``
    and ``faithfulness_misattributed``; for a turn of a conversation
    ``faithfulness_conversation`` and ``faithfulness_turn``; for a golden answer
    ``faithfulness_golden`` (``true``); for a turn read from spans
    ``faithfulness_trace_id`` and ``faithfulness_span_id``. The ``index``-th answer of one
    test (``index > 1``) gets the suffix ``_<index>`` on every name. Values are sanitised
    (``text.printable``), so no control character or lone surrogate reaches the XML.
    """
    suffix = "" if index <= 1 else f"_{index}"
    score = result.score
    pairs = [
        ("score", "n/a" if score is None else f"{score:.3f}"),
        ("status", result.status),
        ("claims", str(len(result.claims))),
        ("supported", str(result.supported)),
        ("contradicted", str(result.contradicted)),
        ("unsupported", str(result.unsupported)),
        ("passed", "true" if result.passed else "false"),
        ("judge", printable(result.judge or "unknown")),
    ]
    if result.cited:
        precision = result.citation_precision
        pairs += [("citation_precision", "n/a" if precision is None else f"{precision:.3f}"),
                  ("misattributed", str(result.misattributed))]
    if result.conversation is not None:
        pairs += [("conversation", printable(result.conversation)),
                  ("turn", str(result.turn))]
    if result.golden:  # a golden answer (run.golden)
        pairs.append(("golden", "true"))
    if result.trace is not None:  # a turn read from OpenTelemetry spans
        pairs += [("trace_id", result.trace.trace_id or ""),
                  ("span_id", result.trace.span_id or "")]
    if any(c.votes for c in result.claims):  # several verdicts per claim (judges.votes)
        pairs.append(("unstable", str(sum(1 for c in result.claims if c.unstable))))
    return [(f"faithfulness_{name}{suffix}", value) for name, value in pairs]
