"""Hooks a ``conftest.py`` (or another plugin) can implement to extend pytest-faithfulness.

Published through ``pytest_addhooks``; implement any of them in a ``conftest.py`` under the
same name, with any subset of the arguments. This module imports pluggy only (no pytest, no
pydantic), so start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("pytest")


@hookspec(firstresult=True)
def pytest_faithfulness_make_judge(config: Any) -> Any:
    """Provide the session's judge instead of the one ``--faithfulness-judge`` names.

    Called once per session (per xdist worker), when the ``faithfulness_judge`` fixture is
    first needed; the first implementation that returns something other than ``None`` wins.
    The judge follows the judge protocol (``decompose`` / ``verify``; see ``judges``); if it
    has ``cacheable = True`` and a ``fingerprint()``, it is wrapped in the verdict cache like
    the built-in judges.

    Args:
        config: the ``pytest.Config`` (read your own options or ini keys from it).

    Returns:
        a judge, or ``None`` to leave the choice to the next implementation / the default.
    """


def pytest_faithfulness_answer_result(result: Any, item: Any) -> None:
    """A report sink: called once for every answer ``assert_faithful`` judges, pass or fail,
    right after it is recorded and before the test's assertion is raised.

    Runs in the process that ran the test (an xdist worker under ``-n``). An exception raised
    here errors the test, so a sink that must never fail the build should catch its own.

    Args:
        result: the ``AnswerResult`` (``test_id``, ``score``, ``status``, ``claims`` with
            ``verdict``...; ``result.model_dump(mode="json")`` for a JSON-ready dict).
        item: the ``pytest.Item`` of the test that judged it.
    """


def pytest_faithfulness_gate(summary: Any, results: Any, config: Any) -> Any:
    """Add a custom condition to the session gate.

    Called once at the end of the session, in the controller (never in an xdist worker),
    after the built-in thresholds and the baseline comparison, with every answer of the run.
    It is called for an incomplete run too (interrupted, crashed, stopped by ``-x``): such a
    run never passes whatever the hook answers, but its reasons are still reported.

    Args:
        summary: the ``SessionSummary`` (``mean_faithfulness``, ``unsupported_answer_rate``,
            ``contradicted``, ``errored``, ``usage``...).
        results: the list of every ``AnswerResult``.
        config: the ``pytest.Config``.

    Returns:
        ``None`` or an empty list when the condition holds; a reason string, or a list of
        reason strings, when it does not (each one fails the session and is reported as
        ``GATE FAILED: <reason>``). Anything else (a bool, a number, a dict, an empty or
        ``None`` item) fails the gate with a reason naming the value, and so does a hook that
        raises: never a silent pass, and every report is still written.
    """
