"""The judge protocol: what any judge is, and how the pipeline and the cache call one.

How users plug in their own judge::

    class MyJudge:
        def decompose(self, answer: str) -> list[str] | Decomposition: ...
        def verify(self, claim: str, passages: list[Passage]) -> Verdict: ...
        # optional:
        async def adecompose(self, answer: str) -> list[str] | Decomposition: ...
        async def averify(self, claim: str, passages: list[Passage]) -> Verdict: ...
        def fingerprint(self) -> dict: ...   # what makes its verdicts differ; enables caching
        context_budget_chars: int | None     # passages per verify call, in characters
        deterministic: bool                  # same inputs, same verdict: asked once
                                             # whatever --faithfulness-votes says
        def for_vote(self, vote: int) -> Judge: ...  # the judge for vote 2, 3, ... (e.g.
                                             # sampling at a temperature); see judges.votes

``decompose`` receives the answer and nothing else. ``verify`` is called once per claim.
A judge may raise on failure: the pipeline records the answer as ``error`` (never as a pass).
Whatever a judge returns is checked before it is believed (``as_decomposition``,
``as_verdict`` here; then the pipeline's coverage and verdict checks).
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Protocol, runtime_checkable

from ..accounting import record as record_usage
from ..errors import JudgeError as JudgeError  # re-exported: its home before errors.py
from ..records import Decomposition, Passage, Verdict


@runtime_checkable
class Judge(Protocol):
    """The judge protocol; see the module docstring."""

    def decompose(self, answer: str) -> list[str] | Decomposition: ...

    def verify(self, claim: str, passages: list[Passage]) -> Verdict: ...


async def call_judge(judge: Any, name: str, *args: Any) -> Any:
    """Call ``judge.<name>(*args)`` (``"decompose"`` or ``"verify"``) on the running loop.

    Prefers the judge's ``a<name>`` coroutine; a sync method runs in a worker thread unless
    the judge says ``runs_inline`` (pure CPU and fast). A judge that does not account its own
    usage (``accounts_usage``) is counted as one call per invocation.

    Raises:
        TypeError: the judge has no such method. Anything the judge raises, unchanged.
    """
    if not getattr(judge, "accounts_usage", False):  # a user's judge: one call per invocation
        record_usage(calls=1)
    async_method = getattr(judge, "a" + name, None)
    if async_method is not None and inspect.iscoroutinefunction(async_method):
        return await async_method(*args)
    method = getattr(judge, name, None)
    if method is None:
        raise TypeError(f"judge {type(judge).__name__} has no {name}() method")
    if getattr(judge, "runs_inline", False):  # pure CPU and fast: no thread hop
        return method(*args)
    return await asyncio.to_thread(method, *args)


def as_decomposition(value: Any) -> Decomposition:
    """A judge's ``decompose`` result as a ``Decomposition``.

    Raises:
        TypeError: it is neither a ``Decomposition`` nor a list of strings.
    """
    if isinstance(value, Decomposition):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(c, str) for c in value):
        return Decomposition(claims=list(value))
    raise TypeError(f"decompose() must return list[str] or Decomposition, got {type(value).__name__}")


def as_verdict(value: Any) -> Verdict:
    """A judge's ``verify`` result as a ``Verdict`` (a dict is validated).

    Raises:
        TypeError: it is neither a ``Verdict`` nor a dict.
        pydantic.ValidationError: a dict that is not a valid verdict.
    """
    if isinstance(value, Verdict):
        return value
    if isinstance(value, dict):
        return Verdict.model_validate(value)
    raise TypeError(f"verify() must return a Verdict, got {type(value).__name__}")


def judge_description(judge: Any) -> str:
    """A one-line description of any judge, for reports."""
    describe = getattr(judge, "describe", None)
    if callable(describe):
        return str(describe())
    return type(judge).__qualname__
