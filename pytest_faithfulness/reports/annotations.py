"""GitHub Actions annotations of the run: workflow commands (``::error ...::``) that put the
worst failing answers on their tests' lines in the pull request's diff, written from the run's
``run.outcome.RunOutcome``.

Which answers: those that failed their own thresholds (``run.outcome.failed_own_thresholds``,
``RunOutcome.failing``), the same "failing" the verdict counts and the JSON, Markdown and
pull-request comment list, less those of xfail tests (expected misses are not errors). An
answer that only *shows* among the failing ones (a claim not supported within its bounds:
``shows_as_failing``) passed its thresholds: an error annotation on it would be a false alarm.
The worst come first: errored answers, then unscored failing ones, then by faithfulness, lowest
first; at most ``MAX_ANNOTATIONS`` (GitHub shows at most 10 error annotations per step), then
one ``::notice::`` counting the rest.

Escaping follows GitHub's workflow-command rules (``escape_data``, ``escape_property``), so an
answer's text can never end the command or start another. Nothing here imports pytest.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from .terminal import format_answer
from .text import terminal_text

if TYPE_CHECKING:  # pragma: no cover
    from ..records import AnswerResult
    from ..run.outcome import RunOutcome

#: The most error annotations written (GitHub shows at most 10 per step).
MAX_ANNOTATIONS = 10
#: The longest message of one annotation, in characters before escaping (the rest is cut).
MAX_MESSAGE_CHARS = 4000
#: Claims quoted per annotation (the report has the rest).
MAX_CLAIM_LINES = 12


def escape_data(text: str) -> str:
    """``text`` as the message of a workflow command: ``%``, ``\\r`` and ``\\n`` escaped as
    ``%25``, ``%0D`` and ``%0A`` (GitHub's rules), so a multi-line message stays one
    command and nothing in it can start another."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """``text`` as a property value of a workflow command (``file=``, ``title=``): as
    ``escape_data``, and ``:`` and ``,`` escaped as ``%3A`` and ``%2C`` (they end a value)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def repo_path(path: str | os.PathLike[str], rootdir: str | os.PathLike[str],
              workspace: str | os.PathLike[str] | None = None) -> str:
    """``path`` as GitHub names a file of the repository: relative to ``workspace`` (the
    repository root, ``$GITHUB_WORKSPACE``) when given and ``path`` is under it, else
    relative to ``rootdir`` when under it, else as given; ``/`` separators. A relative
    ``path`` is taken as relative to ``rootdir``."""
    found = Path(path)
    if not found.is_absolute():
        found = Path(rootdir) / found
    found = Path(os.path.normpath(found))
    for base in ([workspace] if workspace else []) + [rootdir]:
        try:
            return found.relative_to(Path(os.path.normpath(Path(base).absolute()))).as_posix()
        except ValueError:
            continue
    return found.as_posix()


def location_of(result: AnswerResult) -> tuple[str | None, int | None]:
    """``(file, line)`` of the answer's test: those recorded with it
    (``AnswerResult.test_file`` / ``test_line``), else the file of its test id (the part
    before ``::``, relative to the rootdir) and no line, else ``(None, None)``."""
    if result.test_file:
        return result.test_file, result.test_line
    test_id = result.test_id or ""
    if "::" in test_id:
        return PurePosixPath(test_id.split("::", 1)[0].replace("\\", "/")).as_posix(), None
    return None, None


def worst_first(results: Sequence[AnswerResult]) -> list[AnswerResult]:
    """``results`` worst first: errored answers, then those with no score (unscored), then
    by faithfulness, lowest first; ties keep their order."""
    def rank(result: AnswerResult) -> tuple[int, float]:
        if result.status == "error":
            return 0, 0.0
        score = result.score
        return (1, 0.0) if score is None else (2, score)

    return sorted(results, key=rank)


def to_annotate(outcome: RunOutcome) -> list[AnswerResult]:
    """The answers annotated, worst first (see the module docstring): those that failed
    their own thresholds, less those of xfail tests."""
    expected = {id(r) for r in outcome.expected}
    return worst_first([r for r in outcome.failing if id(r) not in expected])


def _title(result: AnswerResult) -> str:
    if result.status == "error":
        kind = f" ({result.error_kind})" if result.error_kind else ""
        return f"faithfulness: judge error{kind}"
    reasons = result.threshold_failures
    return "faithfulness: " + (reasons[0] if reasons else "failed its thresholds")


def _message(result: AnswerResult, name: str) -> str:
    lines = format_answer(result, only_failing_claims=True).splitlines()
    if not result.test_id:
        lines[0] = terminal_text(name) + lines[0][len("answer"):]
    if len(lines) > MAX_CLAIM_LINES + 1:
        cut = len(lines) - MAX_CLAIM_LINES - 1
        lines = lines[:MAX_CLAIM_LINES + 1] + [f"  ...and {cut} more line(s): see the report"]
    text = "\n".join(lines)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[:MAX_MESSAGE_CHARS - 1] + "…"
    return text


def annotation(result: AnswerResult, name: str) -> str:
    """One ``::error file=...,line=...,title=...::message`` command for ``result``
    (``name``: its name in the reports). ``line`` is left out when not known, ``file`` too."""
    file, line = location_of(result)
    props = []
    if file:
        props.append(f"file={escape_property(file)}")
        if line is not None:
            props.append(f"line={int(line)}")
    props.append(f"title={escape_property(terminal_text(_title(result)))}")
    return f"::error {','.join(props)}::{escape_data(_message(result, name))}"


def annotation_lines(outcome: RunOutcome, *, limit: int = MAX_ANNOTATIONS) -> list[str]:
    """The run's workflow commands: one ``::error`` per annotated answer, worst first, at
    most ``limit``, then one ``::notice::`` counting the rest (none when there is no rest).
    Empty when no answer failed its own thresholds.

    Raises:
        ValueError: ``limit`` is below 0.
    """
    if limit < 0:
        raise ValueError(f"limit must be 0 or more, got {limit}")
    chosen = to_annotate(outcome)
    lines = [annotation(r, outcome.name_of(r)) for r in chosen[:limit]]
    rest = len(chosen) - len(lines)
    if rest > 0:
        lines.append("::notice title=faithfulness::" + escape_data(
            f"{rest} more answer(s) failed their own thresholds and are not annotated (at most "
            f"{limit} are): see the job summary or the faithfulness report"))
    return lines
