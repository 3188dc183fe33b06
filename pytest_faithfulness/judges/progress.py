"""Live progress: report each claim's verdict as the judge returns it.

``progress_judge(judge, emit)`` wraps a judge so that every decomposition and every verdict is
passed to ``emit(line)`` the moment it arrives (the plugin does this under ``pytest -v``).
The wrapper follows the judge protocol and forwards every other attribute (``fingerprint``,
``describe``, ``cacheable``, ``context_budget_chars``, counters...) to the wrapped judge, so
caching, accounting and descriptions are unchanged. Nothing here imports pytest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..records import Decomposition, Passage, Verdict
from ..trust.quote_check import check_verdict
from .protocol import Judge, async_method

_MARK = {"supported": "supported", "contradicted": "CONTRADICTED",
         "unsupported": "UNSUPPORTED"}


def _short(text: str, limit: int = 100) -> str:
    # no control character of a claim reaches the terminal
    from ..reports.text import printable

    text = " ".join(printable(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict_line(claim: str, verdict: Any, passages: list[Passage]) -> str:
    """One progress line for a verdict: the accepted label (after the evidence check), the
    claim, the cited passage ids, and the judge's confidence when it gives one."""
    if not isinstance(verdict, Verdict):
        try:
            verdict = Verdict.model_validate(verdict)
        except Exception:  # the pipeline reports a malformed verdict; say so here too
            return f"    [no verdict] {_short(claim)}"
    accepted, reason = check_verdict(verdict, passages, claim)
    where = f" ({', '.join(accepted.passage_ids)})" if accepted.passage_ids else ""
    note = f" -- judge said {verdict.label}: {reason}" if reason else ""
    if reason is None and verdict.confidence is not None:
        where += f" confidence {verdict.confidence:.2f}"
    return f"    [{_MARK.get(accepted.label, accepted.label)}] {_short(claim)}{where}{note}"


def decomposition_line(value: Any) -> str:
    """One progress line for a decomposition: how many claims it found."""
    if isinstance(value, Decomposition):
        claims = len(value.claims)
    elif isinstance(value, (list, tuple)):
        claims = len(value)
    else:
        return "    decomposed: unexpected reply"
    return f"    decomposed into {claims} claim(s)"


class ProgressJudge:
    """A judge that reports to ``emit`` as verdicts arrive (see the module docstring).

    Args:
        judge: any judge.
        emit: called with one line of text per decomposition and per verdict; may be called
            from the judge's event-loop thread (calls are serialised with a lock).
    """

    def __init__(self, judge: Judge, emit: Callable[[str], None]) -> None:
        self.judge = judge
        self._emit = emit
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if name in ("judge", "_emit", "_lock"):
            raise AttributeError(name)
        return getattr(self.judge, name)

    def describe(self) -> str:
        """The wrapped judge's description (never this wrapper's class name)."""
        from .protocol import judge_description

        return judge_description(self.judge)

    def _say(self, make_line: Callable[[], str]) -> None:
        with self._lock:
            try:
                self._emit(make_line())
            except Exception:  # progress must never change a verdict
                pass

    def decompose(self, answer: str) -> Any:
        """The wrapped ``decompose``, reported."""
        value = self.judge.decompose(answer)
        self._say(lambda: decomposition_line(value))
        return value

    def verify(self, claim: str, passages: list[Passage]) -> Any:
        """The wrapped ``verify``, reported."""
        verdict = self.judge.verify(claim, passages)
        self._say(lambda: verdict_line(claim, verdict, passages))
        return verdict


class _AsyncDecompose:
    judge: Any  # (declared for the type checker: ProgressJudge sets them)
    _say: Callable[[Callable[[], str]], None]

    async def adecompose(self, answer: str) -> Any:
        """The wrapped ``adecompose``, reported."""
        value = await self.judge.adecompose(answer)
        self._say(lambda: decomposition_line(value))
        return value


class _AsyncVerify:
    judge: Any
    _say: Callable[[Callable[[], str]], None]

    async def averify(self, claim: str, passages: list[Passage]) -> Any:
        """The wrapped ``averify``, reported."""
        verdict = await self.judge.averify(claim, passages)
        self._say(lambda: verdict_line(claim, verdict, passages))
        return verdict


_CLASSES: dict[tuple[bool, bool], type[ProgressJudge]] = {}


def progress_judge(judge: Judge, emit: Callable[[str], None]) -> ProgressJudge:
    """Wrap ``judge`` so each decomposition and verdict is reported to ``emit`` on arrival.

    The wrapper has ``adecompose`` / ``averify`` exactly when the judge has them as
    coroutine functions, so the pipeline calls it the same way it would call the judge.
    """
    has_ad = async_method(judge, "decompose") is not None
    has_av = async_method(judge, "verify") is not None
    cls = _CLASSES.get((has_ad, has_av))
    if cls is None:
        bases = tuple(b for b, on in ((_AsyncDecompose, has_ad), (_AsyncVerify, has_av)) if on)
        cls = type("ProgressJudge", (*bases, ProgressJudge), {}) if bases else ProgressJudge
        _CLASSES[(has_ad, has_av)] = cls
    return cls(judge, emit)
