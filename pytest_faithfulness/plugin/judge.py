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
    """The configured judge (``run.judge.open_judge``, the ``pytest_faithfulness_make_judge``
    hook's judge first, with the run's shared ledgers) and the function that closes what it
    opened; call that once the judge is done.

    Raises:
        whatever building a judge raises (an unknown judge, a missing extra).
    """
    from ..run.judge import open_judge

    return open_judge(get_settings(config),
                      judge=config.hook.pytest_faithfulness_make_judge(config=config),
                      budget_ledger=config.stash.get(LEDGER_KEY, None),
                      wait_ledger=config.stash.get(WAIT_KEY, None),
                      rate_ledger=config.stash.get(RATE_KEY, None))
