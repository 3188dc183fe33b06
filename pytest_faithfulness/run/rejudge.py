"""``--faithfulness-compare-rejudge`` in a run: re-judge the compared run when its judge
differs from this run's (``runs.rejudge``), before the comparison (``finish.compare_with``
then splits it into the answer and the judge effects, ``runs.effects``).

Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .outcome import RunOutcome
from .results import ResultStore


def judge_options(settings: Any, judge: Any) -> dict[str, Any]:
    """``runs.rejudge.rejudge_run``'s pipeline options from the run's settings: concurrency,
    context budget and the judge's coverage widened by ``--faithfulness-judge-covers``, as
    ``assert_faithful`` passes them."""
    from ..pipeline import DEFAULT_CONCURRENCY

    options: dict[str, Any] = {"concurrency": settings.concurrency or DEFAULT_CONCURRENCY,
                               "context_budget_chars": settings.context_budget}
    if settings.judge_covers:
        from ..judges.coverage import declared
        from ..judges.protocol import coverage_of

        options["coverage"] = declared(coverage_of(judge), settings.judge_covers)
    return options


def rejudge_if_needed(store: ResultStore, outcome: RunOutcome, settings: Any,
                      open_judge: Callable[[], tuple[Any, Callable[[], None]]] | None
                      ) -> Any:
    """The compared run (``settings.baseline``) re-judged by this run's judge
    (``runs.rejudge.Rejudged``), or ``None`` when the judges are the same or it cannot be
    done; what happened is added to ``outcome.notes`` (a ``WARNING`` when it could not be
    done: the comparison then mixes the judge's change with the answers', and says so).

    Args:
        store: this run's answers (their judges: ``ResultStore.judge_info``).
        outcome: where the notes go.
        settings: the run's ``settings.Settings`` (storage folder, concurrency, coverage).
        open_judge: ``() -> (judge, close)`` (``finish.RunFaces.judge``), or ``None``.

    Raises:
        OSError: the storage folder cannot be written.
    """
    from ..errors import BaselineError
    from ..runs.rejudge import judge_info, rejudged_baseline

    baseline = settings.baseline
    current = {j.identity() for j in store.judge_info()}
    before = {j.identity() for j in baseline.judges}
    if not current or before == current:
        return None
    if open_judge is None:
        outcome.notes.append("WARNING: --faithfulness-compare-rejudge: the compared run was "
                             "judged by another judge, but this command has no judge to "
                             "re-judge it with; run `pytest-faithfulness rejudge` and "
                             "compare with the run it saves")
        return None
    judge, close = open_judge()
    try:
        info = judge_info(judge)
        if info.identity() not in current:
            outcome.notes.append(
                f"WARNING: --faithfulness-compare-rejudge: the configured judge "
                f"({info.description}) did not judge this run's answers (a conftest "
                "faithfulness_judge fixture?), so the baseline is not re-judged; build that "
                "judge in a pytest_faithfulness_make_judge hook")
            return None
        try:
            found = rejudged_baseline(baseline, judge, settings.storage_path,
                                      baseline_path=settings.baseline_path,
                                      **judge_options(settings, judge))
        except BaselineError as exc:
            outcome.notes.append(f"WARNING: --faithfulness-compare-rejudge: {exc}")
            return None
    finally:
        close()
    outcome.notes.extend(found.notes)
    return found


def open_judge(settings: Any) -> tuple[Any, Callable[[], None]]:
    """The judge ``settings`` configure, built as the ``faithfulness_judge`` fixture builds it
    (``run.judge.open_judge``) in one process (no shared ledgers). Returns ``(judge, close)``.

    Raises:
        whatever building a judge raises (an unknown judge, a missing extra).
    """
    from .judge import open_judge as open_configured

    return open_configured(settings)
