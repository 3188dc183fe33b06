"""The run's configured judge, built one way for the ``faithfulness_judge`` fixture and for the
judge canaries of the process that finishes the run (``plugin.canaries``): the
``pytest_faithfulness_make_judge`` hook or ``--faithfulness-judge``, the panel, the verdict
cache around each cacheable member, then votes and the panel (``judges.votes.with_votes``),
then the first filter (``judges.first_filter``, ``--faithfulness-first-filter``), with the
run's budget, rate and rate-limit ledgers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from . import LEDGER_KEY, RATE_KEY, WAIT_KEY, get_settings


def open_configured_judge(config: pytest.Config) -> tuple[Any, Callable[[], None]]:
    """The configured judge and the function that closes what it opened (its caches, the
    budget, the rate and wait ledgers' connections); call that once the judge is done.

    Raises:
        whatever building a judge raises (an unknown judge, a missing extra).
    """
    from ..accounting import Budget
    from ..judges import make_judge
    from ..ratelimit import DEFAULT_RUN_WAIT_S, RateLimitWait

    settings = get_settings(config)
    budget = Budget(settings.budget_usd, ledger=config.stash.get(LEDGER_KEY, None))
    run_wait = RateLimitWait(DEFAULT_RUN_WAIT_S if settings.max_rate_limit_wait is None
                             else settings.max_rate_limit_wait,
                             ledger=config.stash.get(WAIT_KEY, None))
    options: dict[str, Any] = {"budget": budget, "run_wait": run_wait}
    if settings.api_base:
        options["api_base"] = settings.api_base
    if settings.timeout is not None:
        options["timeout"] = settings.timeout
    if settings.temperature is not None:
        options["temperature"] = settings.temperature
    rate = None
    if settings.max_rpm is not None or settings.max_tpm is not None:
        from ..ratelimit import RateLimiter

        rate = RateLimiter(settings.max_rpm, settings.max_tpm,
                           ledger=config.stash.get(RATE_KEY, None))
        options["rate"] = rate
    judge = config.hook.pytest_faithfulness_make_judge(config=config)
    if judge is None:
        judge = make_judge(settings.judge, **options)
    judges = [judge] + [make_judge(spec, **options) for spec in settings.panel]
    caches = []
    if not settings.no_cache:
        from ..cache import CachedJudge
        from ..judges.protocol import is_cacheable

        for i, member in enumerate(judges):
            if is_cacheable(member):
                judges[i] = CachedJudge(member, settings.cache_path, mode=settings.cache_mode)
                caches.append(judges[i])
    if settings.votes > 1 or settings.panel:
        from ..judges.votes import with_votes

        built = with_votes(judges[0], settings.votes, judges[1:])
    else:
        built = judges[0]
    from ..judges.first_filter import with_first_filter

    built = with_first_filter(built, settings.first_filter)  # outermost: votes see the rest

    def close() -> None:
        for cached in caches:
            cached.close()
        budget.close()
        run_wait.close()
        _close_rate(rate)

    return built, close


def _close_rate(rate: Any) -> None:
    """Close the rate ledger's connections: this thread's and the judge loop's."""
    if rate is None:
        return
    from .. import _loop

    _loop.close_here_and_on_loop(rate.close)
