"""Judges: who decomposes answers and verifies claims.

* ``protocol``: the judge protocol (how to plug in your own), ``call_judge``, the result
  checks, ``judge_description``.
* ``builtin``: the table of built-in judges by name (``"offline"``, ``"offline-heuristic"``,
  ``"offline-nli"``) that ``make_judge``, the settings and the plugin read.
* ``offline``: ``OfflineJudge`` (``"offline"``, the default): rule-based decomposer and
  the calibrated verifier (``offline.calibrated``, features from ``offline.window_features``),
  or the heuristic rules alone (``offline.heuristic``, judge ``"offline-heuristic"``); no
  network, no model download, deterministic. All of it lives in ``judges/offline/``.
* ``llm``: ``LiteLLMJudge`` (any litellm model string, e.g. ``"openai/gpt-4o-mini"``).
* ``prompts``: the LLM judge's versioned prompts. ``progress``: a judge wrapper that prints
  each verdict as it arrives (``-v``). ``first_filter``: ``with_first_filter(judge, mode)``,
  the first filter in front of a judge (``--faithfulness-first-filter``; for ``evaluate()``
  called directly, wrap the judge yourself).

The names below are imported on first use, so importing ``judges.builtin`` (plugin start-up)
imports neither pydantic nor a judge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .builtin import builtin_judge

__all__ = ["FirstFilterJudge", "Judge", "JudgeError", "LiteLLMJudge", "OfflineJudge",
           "judge_description", "make_judge", "with_first_filter"]

#: The lazily imported names and the submodule that holds each.
_LAZY = {"Judge": "protocol", "JudgeError": "protocol", "judge_description": "protocol",
         "LiteLLMJudge": "llm", "OfflineJudge": "offline", "FirstFilterJudge": "first_filter",
         "with_first_filter": "first_filter"}


def __getattr__(name: str) -> object:
    """Import ``Judge``, ``JudgeError``, ``judge_description``, ``LiteLLMJudge``,
    ``OfflineJudge``, ``FirstFilterJudge`` and ``with_first_filter`` on first use. Raises
    ``AttributeError`` for any other name."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)


if TYPE_CHECKING:  # pragma: no cover
    from .first_filter import FirstFilterJudge, with_first_filter
    from .llm import LiteLLMJudge
    from .offline import OfflineJudge
    from .protocol import Judge, JudgeError, judge_description


def make_judge(spec: str | None = None, **options: Any) -> OfflineJudge | LiteLLMJudge:
    """Build a judge from a name: ``"offline"`` (default) or a litellm model string.

    Args:
        spec: ``"offline"``, ``None`` or ``""`` for the offline judge (calibrated verifier);
            ``"offline-heuristic"`` for the offline judge with the heuristic rules alone;
            ``"offline-nli"`` for
            the offline judge with the experimental embedding verifier (the built-in judges:
            ``judges.builtin.BUILTIN_JUDGES``); anything else is passed to ``LiteLLMJudge``
            as the model string.
        options: keyword arguments for ``LiteLLMJudge`` (ignored by the offline judge).
    """
    builtin = builtin_judge(spec)
    if builtin is not None:
        from .offline import OfflineJudge

        return OfflineJudge(verifier=builtin.verifier)
    from .llm import LiteLLMJudge

    return LiteLLMJudge(spec or "", **options)
