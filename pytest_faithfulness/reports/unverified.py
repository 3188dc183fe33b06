"""The unverified answers in every report: answers outside their judge's coverage
(``judges.coverage``), not judged, not in the mean, each named with its reason.

One place for the wording, read by the terminal, Markdown, HTML, JSON and pull-request comment
writers (each adds these lines to its own layout).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..records import AnswerResult, SessionSummary
from .verdict import answer_name

#: The heading every report gives the list.
HEADING = "unverified answers (outside the judge's coverage, not judged, not in the mean)"


def unverified_answers(results: Sequence[AnswerResult]) -> list[AnswerResult]:
    """The answers with status ``unverified``, in report order."""
    return [r for r in results if r.status == "unverified"]


def count_text(summary: SessionSummary) -> str:
    """``", 2 unverified"`` for a headline's status counts; empty when there is none."""
    return f", {summary.unverified} unverified" if summary.unverified else ""


def reason_of(result: AnswerResult) -> str:
    """The answer's reason (``"no reason recorded"`` for a record without one)."""
    return result.unverified_reason or "no reason recorded"


def terminal_lines(results: Sequence[AnswerResult],
                   name: Callable[[AnswerResult], str] = answer_name) -> list[str]:
    """``unverified answers (...): N`` then ``  - <name>: <reason>`` for each; empty when
    there is none."""
    found = unverified_answers(results)
    if not found:
        return []
    return [f"{HEADING}: {len(found)}"] + [f"  - {name(r)}: {reason_of(r)}" for r in found]


def markdown_lines(results: Sequence[AnswerResult], escape: Callable[..., str],
                   max_rows: int, name: Callable[[AnswerResult], str] = answer_name
                   ) -> list[str]:
    """A ``### Unverified answers (N)`` section (at most ``max_rows`` named, the rest
    counted), ``escape`` applied to every name and reason; empty when there is none."""
    found = unverified_answers(results)
    if not found:
        return []
    lines = [f"### Unverified answers ({len(found)})", "",
             "Outside the judge's coverage: not judged, not in the mean faithfulness.", ""]
    lines += [f"- {escape(name(r))}: {escape(reason_of(r), 600)}" for r in found[:max_rows]]
    if len(found) > max_rows:
        lines.append(f"- …and {len(found) - max_rows} more (see the JSON report)")
    return lines + [""]
