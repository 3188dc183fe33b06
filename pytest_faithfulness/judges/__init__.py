"""Judges: who decomposes answers and verifies claims.

* ``protocol``: the judge protocol (how to plug in your own), ``call_judge``, the result
  checks, ``judge_description``.
* ``offline``: ``OfflineJudge`` (``"offline"``, the default): rule-based decomposer and
  the calibrated verifier (``offline.calibrated``, features from ``offline.window_features``),
  or the heuristic rules alone (``offline.heuristic``, judge ``"offline-heuristic"``); no
  network, no model download, deterministic. All of it lives in ``judges/offline/``.
* ``llm``: ``LiteLLMJudge`` (any litellm model string, e.g. ``"openai/gpt-4o-mini"``).
* ``prompts``: the LLM judge's versioned prompts. ``progress``: a judge wrapper that prints
  each verdict as it arrives (``-v``).
"""

from __future__ import annotations

from typing import Any

from .llm import LiteLLMJudge
from .offline import OfflineJudge
from .protocol import Judge, JudgeError, judge_description

__all__ = ["Judge", "JudgeError", "LiteLLMJudge", "OfflineJudge", "judge_description",
           "make_judge"]


def make_judge(spec: str | None = None, **options: Any) -> OfflineJudge | LiteLLMJudge:
    """Build a judge from a name: ``"offline"`` (default) or a litellm model string.

    Args:
        spec: ``"offline"``, ``None`` or ``""`` for the offline judge (calibrated verifier);
            ``"offline-heuristic"`` for the offline judge with the heuristic rules alone;
            ``"offline-nli"`` for
            the offline judge with the experimental embedding verifier; anything else is
            passed to ``LiteLLMJudge`` as the model string.
        options: keyword arguments for ``LiteLLMJudge`` (ignored by the offline judge).
    """
    if spec is None or not spec.strip() or spec.strip().lower() == "offline":
        return OfflineJudge()
    if spec.strip().lower() == "offline-heuristic":
        return OfflineJudge(verifier="heuristic")
    if spec.strip().lower() == "offline-nli":
        return OfflineJudge(verifier="nli")
    return LiteLLMJudge(spec, **options)
