"""The embedded offline judge: ``OfflineJudge`` (``judge``) and its rule-based decomposer
(``decomposer``)."""

from __future__ import annotations

from .judge import OfflineJudge

__all__ = ["OfflineJudge"]
