"""The run's configured judge, built one way for every face: the ``faithfulness_judge``
fixture and the canaries (``plugin.judge``), and ``pytest-faithfulness rejudge``
(``run.rejudge``). ``--faithfulness-judge`` (or a judge given, e.g. by the
``pytest_faithfulness_make_judge`` hook) and the panel, the verdict cache around each
cacheable member, then votes and the panel (``judges.votes.with_votes``), then the first
filter (``judges.first_filter``, ``--faithfulness-first-filter``, outermost: votes see the
rest), with the run's budget, rate-limit wait and request rate. Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def open_judge(settings: Any, *, judge: Any = None, budget_ledger: Any = None,
               wait_ledger: Any = None,
               rate_ledger: Any = None) -> tuple[Any, Callable[[], None]]:
    """The judge ``settings`` (``settings.Settings``) configure, and the function that closes
    what it opened (its caches, the budget, the wait and rate ledgers' connections); call that
    once the judge is done.

    Args:
        settings: the run's settings.
        judge: the main judge, already built (a conftest hook's); ``None``: built from
            ``settings.judge``.
        budget_ledger / wait_ledger / rate_ledger: the run's shared ledgers (``accounting``,
            ``ratelimit``) when several processes share one run; ``None``: this process alone.

    Raises:
        whatever building a judge raises (an unknown judge, a missing extra).
    """
    from ..accounting import Budget
    from ..judges import make_judge
    from ..judges.first_filter import with_first_filter
    from ..ratelimit import DEFAULT_RUN_WAIT_S, RateLimitWait

    budget = Budget(settings.budget_usd, ledger=budget_ledger)
    run_wait = RateLimitWait(DEFAULT_RUN_WAIT_S if settings.max_rate_limit_wait is None
                             else settings.max_rate_limit_wait, ledger=wait_ledger)
    options: dict[str, Any] = {"budget": budget, "run_wait": run_wait}
    for name in ("api_base", "timeout", "temperature"):
        if getattr(settings, name) not in (None, ""):
            options[name] = getattr(settings, name)
    rate = None
    if settings.max_rpm is not None or settings.max_tpm is not None:
        from ..ratelimit import RateLimiter

        rate = RateLimiter(settings.max_rpm, settings.max_tpm, ledger=rate_ledger)
        options["rate"] = rate
    if judge is None:
        judge = make_judge(settings.judge, **options)
    judges = [judge] + [make_judge(spec, **options) for spec in settings.panel]
    caches: list[Any] = []
    if not settings.no_cache:
        from ..cache import CachedJudge
        from ..judges.protocol import is_cacheable

        for i, member in enumerate(judges):
            if is_cacheable(member):
                judges[i] = CachedJudge(member, settings.cache_path, mode=settings.cache_mode)
                caches.append(judges[i])
    built: Any = judges[0]
    if settings.votes > 1 or settings.panel:
        from ..judges.votes import with_votes

        built = with_votes(judges[0], settings.votes, judges[1:])
    built = with_first_filter(built, settings.first_filter)

    def close() -> None:
        for cached in caches:
            cached.close()
        budget.close()
        run_wait.close()
        if rate is not None:  # this thread's connection and the judge loop's
            from .. import _loop

            _loop.close_here_and_on_loop(rate.close)

    return built, close
