"""The offline judge, all of it: ``judge`` (``OfflineJudge``), ``decomposer`` (the rule-based
decomposer), ``heuristic`` (the rule verifier), ``calibrated`` (the logistic-regression verifier),
``window_features`` (the features it reads from the best-aligned passage window) and ``nli`` (the
experimental embedding verifier)."""

from __future__ import annotations

from .judge import OfflineJudge

__all__ = ["OfflineJudge"]
