"""The run's verdict in words, the same in every report: complete or not, the session gate,
and the answers that failed their own thresholds.

A run is ``incomplete`` when the gate did not see every answer (an interrupted or crashed
session): it is never called passed. Otherwise the session gate passed or failed, and the
answers that missed their own thresholds (``assert_faithful(min_score=...)``) are counted
beside it, because they fail their tests (and so the run) even when the session gate passes.
Only an answer of an ``xfail`` test is described as expected; one whose test passed anyway
(its ``AssertionError`` caught, or ``evaluate_many``) is said to have missed its thresholds
without failing its test.
Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..records import AnswerResult

RunStatus = Literal["passed", "failed", "incomplete"]


@dataclass(frozen=True)
class RunVerdict:
    """The run's outcome for the reports.

    Attributes:
        status: ``"incomplete"`` (the gate did not see every answer), ``"failed"`` (the
            session gate failed, an answer failed its own thresholds, or the run failed for
            another reason) or ``"passed"``.
        gate: ``"incomplete" | "failed" | "passed"``: the session gate alone.
        text: one sentence whose first words match the exit status, e.g. ``"session gate
            passed"``, ``"run failed: 3 answers failed their own thresholds; the session gate
            itself passed"`` (the gate passed, the tests failed: never read as a pass),
            ``"session gate failed (1 reason)"`` or ``"incomplete: interrupted: the gate did
            not see every answer"``.
    """

    status: RunStatus
    gate: RunStatus
    text: str

    @property
    def failed(self) -> bool:
        """True unless the run passed."""
        return self.status != "passed"


def _answers(n: int) -> str:
    return f"{n} answer{'s' if n != 1 else ''}"


def run_verdict(failures: Sequence[str], *, incomplete: str | None = None,
                failing: Sequence[Any] = (), unscored: Sequence[Any] = (),
                exit_failed: bool | None = None, silent: Sequence[Any] = (),
                expected: Sequence[Any] = ()) -> RunVerdict:
    """The run's verdict.

    Args:
        failures: the session gate's failure reasons (empty: the gate passed).
        incomplete: why the run is incomplete, or ``None`` when the gate saw every answer.
        failing: the answers that failed their own thresholds.
        unscored: the answers with no claims to score.
        exit_failed: whether the run's exit status says it failed, when known (pytest's,
            once the gate has had its say). The verdict then follows it: a failure outside
            faithfulness is said so.
        silent: those of ``failing`` whose tests did not fail (the ``AssertionError`` was
            caught, or they came from ``evaluate_many``), when known.
        expected: those of ``failing`` whose tests are ``xfail``: the only ones described as
            expected.
    """
    parts = []
    if incomplete is not None:
        gate: RunStatus = "incomplete"
        parts.append(f"incomplete: {incomplete}: the gate did not see every answer")
        if failures:
            parts.append(f"session gate failed on what it saw ({len(failures)} "
                         f"reason{'s' if len(failures) != 1 else ''})")
    elif failures:
        gate = "failed"
        parts.append(f"session gate failed ({len(failures)} "
                     f"reason{'s' if len(failures) != 1 else ''})")
    else:
        gate = "passed"
        parts.append("session gate passed")
    known = {id(r) for r in silent} | {id(r) for r in expected}
    failed_tests = [r for r in failing if id(r) not in known]
    if failed_tests:
        n = len(failed_tests)
        parts.append(f"{_answers(n)} failed {'its' if n == 1 else 'their'} own thresholds")
    if silent:
        n = len(silent)
        parts.append(f"{_answers(n)} missed {'its' if n == 1 else 'their'} own thresholds "
                     f"without failing {'its test' if n == 1 else 'their tests'}")
    if expected:
        n = len(expected)
        parts.append(f"{_answers(n)} missed {'its' if n == 1 else 'their'} own thresholds, "
                     f"as {'its xfail test' if n == 1 else 'their xfail tests'} expected")
    if unscored:
        parts.append(f"{_answers(len(unscored))} not scored (no claims)")
    status: RunStatus = gate
    if gate == "passed":
        if exit_failed is None:
            status = "failed" if failed_tests or silent else "passed"
        elif exit_failed:
            status = "failed"
            if not failing:
                parts.append("tests failed for other reasons (see pytest's summary)")
    if status == "failed" and gate == "passed":
        # the words follow the exit status: the run failed, whatever the session gate said
        return RunVerdict(status=status, gate=gate, text="run failed: " + "; ".join(
            parts[1:]) + "; the session gate itself passed")
    return RunVerdict(status=status, gate=gate, text="; ".join(parts))


def failing_answers(results: Iterable[AnswerResult]) -> list[AnswerResult]:
    """The answers that failed their own thresholds (errored ones included:
    ``run.outcome.failed_own_thresholds``)."""
    from ..run.outcome import failed_own_thresholds

    return [r for r in results if failed_own_thresholds(r)]


def unscored_answers(results: Iterable[AnswerResult]) -> list[AnswerResult]:
    """The answers with no claims to score."""
    return [r for r in results if r.status == "unscored"]


def thresholds_text(thresholds: Sequence[tuple[str, str]] | None) -> str | None:
    """``"session thresholds: min mean 0.80, max unsupported rate 0.10"``, ``"session
    thresholds: none"`` for an empty list, ``None`` when not known (nothing is said then)."""
    if thresholds is None:
        return None
    if not thresholds:
        return "session thresholds: none"
    return "session thresholds: " + ", ".join(f"{name} {value}" for name, value in thresholds)


def thresholds_of_gate(gate: Any) -> list[tuple[str, str]]:
    """The thresholds a ``gate.GateConfig`` (or its ``model_dump``) applies, as
    ``(name, value)`` pairs; used when the session does not say."""
    get = gate.get if isinstance(gate, dict) else (lambda k: getattr(gate, k, None))
    pairs = []
    if get("min_mean") is not None:
        pairs.append(("min mean", f"{get('min_mean'):.2f}"))
    if get("max_unsupported_rate") is not None:
        pairs.append(("max unsupported rate", f"{get('max_unsupported_rate'):.2f}"))
    return pairs


def answer_name(result: AnswerResult, index: int | None = None) -> str:
    """The name of an answer in a report: its test id, else ``answer <index>``."""
    if result.test_id:
        return result.test_id
    return f"answer {index}" if index is not None else "answer"
