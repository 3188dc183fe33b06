"""Golden answers: answers that must stay fully supported, whatever the aggregate.

A test is golden when ``@pytest.mark.faithfulness(golden=True)`` marks it or its node id
matches a pattern of ``--faithfulness-golden`` (ini ``faithfulness_golden``; fnmatch-style,
``tests/test_rag.py::test_refund*``). The plugin records every golden test it collects in a
``GoldenTests`` (with what became of it: ran, skipped, deselected) and flags each answer a
golden test records (``AnswerResult.golden``); ``apply_golden`` then, at the end of the run:

* fails the gate (reason kind ``"golden"``) for each golden answer that is not fully
  supported: a claim unsupported, contradicted or without a verdict, or the answer errored,
  unscored or unverified (fail closed: a golden answer that was not checked is not a pass);
* lists the golden tests that were skipped, deselected, did not run or recorded no answer,
  and those golden in the compared saved run that are not golden tests of this run
  (missing since the baseline): tolerated with a warning, or gate failures under
  ``--faithfulness-strict-baseline``.

Saved runs keep the golden tests (``SavedRun.golden_tests``, skipped and deselected ones
too), so the next comparison knows what went missing; xdist workers send theirs in their
payload and ``pytest-faithfulness merge`` adds up its shards'. Nothing here imports pytest.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:  # records import pydantic: kept out of pytest's start-up and collection
    from ..records import AnswerResult

#: What became of a golden test, the strongest first: ``ran`` (a report of its call, or a
#: setup that failed), ``skipped``, ``selected`` (collected, never reported: the run stopped
#: first), ``deselected`` (``-k``, ``-m``, ``--deselect``, ``--lf``...). Merging two records
#: of one test keeps the stronger (an xdist worker that did not run it says ``selected``).
GOLDEN_STATUSES: tuple[str, ...] = ("ran", "skipped", "selected", "deselected", "unmatched")
#: The id under which a golden pattern that matched no collected test is recorded (status
#: ``unmatched``): a pattern that names no test (a typo, a path written from another folder,
#: ``./tests/...``) protects nothing, and says so instead of passing silently.
PATTERN_PREFIX = "golden pattern "
#: The keyword arguments ``@pytest.mark.faithfulness(...)`` takes.
MARKER_KWARGS: tuple[str, ...] = ("golden",)
#: The reason kind of a golden failure (``run.outcome.REASON_KINDS``).
GOLDEN_KIND = "golden"


class GoldenMarkerError(ConfigError):
    """A ``@pytest.mark.faithfulness(...)`` the plugin cannot read (an unknown keyword, a
    positional argument, a ``golden`` that is not a bool); the message names the test."""


def marker_golden(test_id: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> bool | None:
    """What one ``faithfulness`` marker says of ``golden``: ``True``/``False`` when it sets it,
    ``None`` when it does not (a bare ``@pytest.mark.faithfulness``).

    Raises:
        GoldenMarkerError: a positional argument, an unknown keyword (``MARKER_KWARGS``), or a
            ``golden`` that is not a bool (``golden="yes"``, ``golden=1``); the message names
            ``test_id``.
    """
    if args:
        raise GoldenMarkerError(f"{test_id}: @pytest.mark.faithfulness takes keyword arguments "
                                f"only ({', '.join(MARKER_KWARGS)}), got {list(args)!r}")
    unknown = sorted(set(kwargs) - set(MARKER_KWARGS))
    if unknown:
        raise GoldenMarkerError(f"{test_id}: @pytest.mark.faithfulness got unknown keyword "
                                f"argument(s) {', '.join(unknown)}; it takes "
                                f"{', '.join(MARKER_KWARGS)}")
    if "golden" not in kwargs:
        return None
    value = kwargs["golden"]
    if not isinstance(value, bool):
        raise GoldenMarkerError(f"{test_id}: @pytest.mark.faithfulness(golden=...) must be True "
                                f"or False, got {value!r}")
    return value


def matches(test_id: str, patterns: Iterable[str]) -> bool:
    """Whether ``test_id`` (a pytest node id) matches one of ``patterns`` (``fnmatch``, case
    sensitive: ``*`` also crosses ``/`` and ``::``)."""
    return any(fnmatch.fnmatchcase(test_id, p) for p in patterns)


def is_golden(test_id: str, marks: Iterable[tuple[Sequence[Any], Mapping[str, Any]]],
              patterns: Iterable[str]) -> bool:
    """Whether a test is golden: the nearest ``faithfulness`` marker (``marks``: each
    marker's ``(args, kwargs)``, nearest first) that sets ``golden`` says so, else whether
    its node id matches ``patterns``. Every marker is checked (``marker_golden``).

    Raises:
        GoldenMarkerError: a marker it cannot read (the message names the test).
    """
    said = [marker_golden(test_id, args, kwargs) for args, kwargs in marks]
    for value in said:
        if value is not None:
            return value
    return matches(test_id, patterns)


class GoldenTests:
    """The golden tests of a run, each with its status (``GOLDEN_STATUSES``).

    Attributes:
        statuses: test id (a node id) to status.
    """

    def __init__(self, statuses: Mapping[str, str] | None = None) -> None:
        self.statuses: dict[str, str] = {}
        self.merge(statuses or {})

    def __bool__(self) -> bool:
        return bool(self.statuses)

    def note(self, test_id: str, status: str) -> None:
        """Record ``status`` for ``test_id``, keeping the stronger of it and any earlier one.

        Raises:
            ValueError: ``status`` is not one of ``GOLDEN_STATUSES``.
        """
        if status not in GOLDEN_STATUSES:
            raise ValueError(f"unknown golden test status {status!r}; expected one of "
                             f"{', '.join(GOLDEN_STATUSES)}")
        old = self.statuses.get(test_id)
        if old is None or GOLDEN_STATUSES.index(status) < GOLDEN_STATUSES.index(old):
            self.statuses[test_id] = status

    def update(self, test_id: str, status: str) -> None:
        """``note`` for a test already known to be golden; others are left alone (a report
        of a test that is not golden, or not yet known here)."""
        if test_id in self.statuses:
            self.note(test_id, status)

    def merge(self, other: Mapping[str, str] | GoldenTests | None) -> None:
        """Add another record (an xdist worker's, a shard's ``SavedRun.golden_tests``); an
        unknown status (a newer version's) reads as ``selected``."""
        found = other.statuses if isinstance(other, GoldenTests) else (other or {})
        for test_id, status in found.items():
            self.note(str(test_id), status if status in GOLDEN_STATUSES else "selected")

    def to_dict(self) -> dict[str, str]:
        """``{test id: status}`` in test-id order (JSON-safe: the payload, the saved run)."""
        return dict(sorted(self.statuses.items()))


@dataclass
class GoldenReport:
    """What the run found of its golden tests (``RunOutcome.golden``, read by every report).

    Attributes:
        tests: every golden test of the run with its status (``GoldenTests.to_dict``).
        answers: the names of the golden answers recorded.
        failing: ``"<name>: <why>"`` for each golden answer that is not fully supported.
        not_checked: ``"<test id> (<what happened>)"`` for each golden test skipped,
            deselected, not run, or that recorded no answer.
        missing: the test ids golden in the compared saved run that are not golden tests of
            this run.
        baseline: the compared saved run's label, or ``None``.
        strict: whether ``not_checked`` and ``missing`` fail the gate
            (``--faithfulness-strict-baseline``).
    """

    tests: dict[str, str] = field(default_factory=dict)
    answers: list[str] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    baseline: str | None = None
    strict: bool = False

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (the JSON report's ``golden``)."""
        return {"tests": dict(self.tests), "answers": list(self.answers),
                "failing": list(self.failing), "not_checked": list(self.not_checked),
                "missing": list(self.missing), "baseline": self.baseline,
                "strict": self.strict}

    def lines(self) -> list[str]:
        """The report for people, one line each (empty when the run has no golden test and
        none went missing): the count, then each failing, unchecked and missing test."""
        if not (self.tests or self.answers or self.missing):
            return []
        bad = len(self.failing)
        out = [f"golden: {len(self.tests)} golden test(s), {len(self.answers)} golden "
               f"answer(s), {bad} not fully supported"]
        out += [f"golden answer FAILED: {f}" for f in self.failing]
        word = "FAILS the gate" if self.strict else "not checked"
        out += [f"golden test {word}: {t}" for t in self.not_checked]
        since = f" {self.baseline}" if self.baseline else ""
        out += [f"golden test missing since the baseline{since}: {t}" for t in self.missing]
        return out


def answer_problem(result: AnswerResult) -> str | None:
    """Why a golden answer is not fully supported, or ``None`` when every claim is
    supported: errored, unscored (no claim), unverified, or claims not supported (each
    named with its verdict, ``no verdict`` when none came back)."""
    if result.status == "error":
        return f"errored ({result.error_kind or 'error'}: {(result.error or '')[:200]})"
    if result.status == "unverified":
        return f"unverified, not judged ({(result.unverified_reason or '')[:200]})"
    if result.status == "unscored" or not result.claims:
        return "unscored: no claim to check"
    bad = [(c.text, c.label or "no verdict") for c in result.claims if c.label != "supported"]
    if not bad:
        return None
    shown = "; ".join(f"{label}: {text[:120]!r}" for text, label in bad[:3])
    more = f"; and {len(bad) - 3} more" if len(bad) > 3 else ""
    return f"{len(bad)} of {len(result.claims)} claim(s) not supported ({shown}{more})"


def _of_test(test_id: str, results: Sequence[AnswerResult]) -> list[AnswerResult]:
    """The answers a test recorded (its id, or its id with the assertion's ``#`` suffix)."""
    return [r for r in results if r.test_id == test_id
            or (r.test_id or "").startswith(test_id + "#")]


def golden_report(results: Sequence[AnswerResult], tests: GoldenTests | Mapping[str, str],
                  *, baseline_tests: Mapping[str, str] | None = None,
                  baseline: str | None = None, strict: bool = False,
                  name_of: Any = None) -> GoldenReport:
    """Read the golden answers and tests of a run (``apply_golden`` gates on it).

    Args:
        results: every answer of the run (``AnswerResult.golden`` says which are golden).
        tests: the run's golden tests with their statuses.
        baseline_tests: the compared saved run's ``golden_tests`` (``None``: no baseline).
        baseline: the compared saved run's label, for the report.
        strict: ``--faithfulness-strict-baseline``.
        name_of: ``(result) -> str``, an answer's name in the reports (default: its test id).
    """
    statuses = tests.to_dict() if isinstance(tests, GoldenTests) else dict(sorted(tests.items()))
    name = name_of or (lambda r: r.test_id or "?")
    golden = [r for r in results if r.golden]
    report = GoldenReport(tests=statuses, answers=[name(r) for r in golden],
                          baseline=baseline, strict=strict)
    for result in golden:
        problem = answer_problem(result)
        if problem is not None:
            report.failing.append(f"{name(result)}: {problem}")
    said = {"skipped": "skipped", "deselected": "deselected",
            "selected": "did not run",
            "unmatched": "matches no collected test: check it against the node ids of "
                         "pytest --collect-only -q"}
    for test_id, status in statuses.items():
        if status in said:
            report.not_checked.append(f"{test_id} ({said[status]})")
        elif not _of_test(test_id, golden):
            report.not_checked.append(f"{test_id} (ran, but recorded no golden answer)")
    if baseline_tests:
        report.missing = sorted(t for t in baseline_tests if t not in statuses
                                and not t.startswith(PATTERN_PREFIX))
    return report


def apply_golden(outcome: Any, tests: GoldenTests | Mapping[str, str], *,
                 baseline_run: Any = None, strict: bool = False) -> list[str]:
    """The golden gate: keep a ``GoldenReport`` in ``outcome.golden`` and add its failures
    to ``outcome`` (a ``run.outcome.RunOutcome``), kind ``"golden"``. A golden answer that is
    not fully supported always fails; a golden test not checked or missing since
    ``baseline_run`` (a ``runs.saved.SavedRun``, or ``None``) fails under ``strict``, else is
    tolerated (``outcome.tolerated_given``) with a ``WARNING`` note. Returns the failures
    added."""
    report = golden_report(
        outcome.results, tests, baseline_tests=getattr(baseline_run, "golden_tests", None),
        baseline=baseline_run.label() if baseline_run is not None else None, strict=strict,
        name_of=outcome.name_of)
    outcome.golden = report
    added: list[str] = outcome.add_failures(
        [f"golden answer {f}: a golden answer must have every claim supported"
         for f in report.failing], GOLDEN_KIND)
    problems = [f"golden test not checked: {t}" for t in report.not_checked]
    problems += [f"golden test missing since the baseline {report.baseline}: {t} (golden "
                 "there, not a golden test of this run: removed, renamed, no longer marked or "
                 "not collected)" for t in report.missing]
    if strict:
        added += outcome.add_failures(
            [f"{p} (--faithfulness-strict-baseline)" for p in problems], GOLDEN_KIND)
    elif problems:
        outcome.tolerated_given.extend(problems)
        outcome.notes.append(f"WARNING: {len(problems)} golden test(s) not checked or missing "
                             "since the baseline (listed under 'golden'): they fail the gate "
                             "under --faithfulness-strict-baseline")
    return added
