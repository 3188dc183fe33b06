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
        coverage: JudgeCoverage | None       # what it was checked on (judges.coverage)
        deterministic: bool                  # same inputs, same verdict: asked once
                                             # whatever --faithfulness-votes says
        def for_vote(self, vote: int) -> Judge: ...  # the judge for vote 2, 3, ... (e.g.
                                             # sampling at a temperature); see judges.votes
        accounts_usage: bool                 # it records its own usage (accounting)
        runs_inline: bool                    # pure CPU and fast: no worker thread
        cacheable: bool                      # worth a verdict cache
        def describe(self) -> str: ...       # one line for reports

Every optional capability is declared in ``JudgeCapabilities`` with its default in
``JudgeBase`` (subclass it, or not: a capability a judge lacks reads as the default through
``accounts_usage``, ``runs_inline``, ``is_deterministic``, ``is_cacheable``,
``context_budget_of``, ``coverage_of``, ``fingerprint_of`` and ``judge_description`` here).

``decompose`` receives the answer and nothing else. ``verify`` is called once per claim.
A judge may raise on failure: the pipeline records the answer as ``error`` (never as a pass).
Whatever a judge returns is checked before it is believed (``as_decomposition``,
``as_verdict`` here; then the pipeline's coverage and verdict checks).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

from .. import _loop
from ..accounting import record as record_usage
from ..errors import JudgeError as JudgeError  # re-exported: its home before errors.py
from ..records import Decomposition, Passage, Verdict
from .coverage import DEFAULT_COVERAGE, JudgeCoverage


@runtime_checkable
class Judge(Protocol):
    """The judge protocol: the two methods every judge has (see the module docstring).

    Every optional capability is declared in ``JudgeCapabilities``, with its default (what a
    judge without it gets) in ``JudgeBase``; read them through the helpers below
    (``fingerprint_of``, ``context_budget_of``, ...), never by name.
    """

    def decompose(self, answer: str) -> list[str] | Decomposition: ...

    def verify(self, claim: str, passages: list[Passage]) -> Verdict: ...


class JudgeCapabilities(Judge, Protocol):
    """A judge with every optional capability the package reads (``JudgeBase`` gives each a
    default; a judge need not subclass it: a capability it lacks reads as that default).

    Attributes:
        context_budget_chars: passages per verify call, in characters (``None``: no limit);
            over it the pipeline splits the passages into windows.
        deterministic: same inputs, same verdict: asked once whatever the votes say.
        accounts_usage: the judge records its own calls, tokens and cost (``accounting``);
            otherwise ``call_judge`` counts one call per invocation.
        runs_inline: pure CPU and fast: its sync methods run on the judge loop, no thread.
        cacheable: worth a verdict cache (``--faithfulness-cache``): its calls cost.
        coverage: what it has been checked on (``judges.coverage.JudgeCoverage``: languages,
            content kinds, the longest passage set it sees whole); ``None``: the documented
            default for a judge that declares none (``coverage.DEFAULT_COVERAGE``).
    """

    context_budget_chars: int | None
    coverage: JudgeCoverage | None
    deterministic: bool
    accounts_usage: bool
    runs_inline: bool
    cacheable: bool

    async def adecompose(self, answer: str) -> list[str] | Decomposition:
        """``decompose`` as a coroutine (preferred by ``call_judge`` when present)."""
        ...

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """``verify`` as a coroutine (preferred by ``call_judge`` when present)."""
        ...

    def describe(self) -> str:
        """A one-line description for reports."""
        ...

    def fingerprint(self) -> dict[str, Any] | None:
        """What makes its verdicts differ (kind, model, prompt version...); it keys the
        verdict cache and a saved run's judge. ``None``: none (no cache)."""
        ...

    def for_vote(self, vote: int) -> Judge:
        """The judge for vote ``vote`` (2, 3, ...; e.g. sampling at a temperature)."""
        ...


class JudgeBase:
    """The defaults of every optional capability (``JudgeCapabilities``): subclass it to
    declare only what your judge changes. A judge that does not subclass it reads the same
    defaults through the helpers below."""

    context_budget_chars: int | None = None
    coverage: JudgeCoverage | None = None
    deterministic: bool = False
    accounts_usage: bool = False
    runs_inline: bool = False
    cacheable: bool = False

    def describe(self) -> str:
        """The class's qualified name."""
        return type(self).__qualname__

    def fingerprint(self) -> dict[str, Any] | None:
        """``None``: no fingerprint, so no verdict cache."""
        return None

    def for_vote(self, vote: int) -> Judge:
        """The judge itself, for every vote."""
        return self  # type: ignore[return-value]  # a subclass supplies decompose/verify


_DEFAULTS = JudgeBase()


def _flag(judge: object, name: str) -> bool:
    return bool(getattr(judge, name, getattr(_DEFAULTS, name)))


def accounts_usage(judge: object) -> bool:
    """Whether the judge records its own usage (``JudgeCapabilities.accounts_usage``)."""
    return _flag(judge, "accounts_usage")


def runs_inline(judge: object) -> bool:
    """Whether the judge's sync methods run on the loop (``JudgeCapabilities.runs_inline``)."""
    return _flag(judge, "runs_inline")


def is_deterministic(judge: object) -> bool:
    """Whether the judge is asked once per claim (``JudgeCapabilities.deterministic``)."""
    return _flag(judge, "deterministic")


def is_cacheable(judge: object) -> bool:
    """Whether the judge is worth a verdict cache (``JudgeCapabilities.cacheable``)."""
    return _flag(judge, "cacheable")


def context_budget_of(judge: object) -> int | None:
    """The judge's ``context_budget_chars`` (``None``: no limit, or none declared)."""
    value: int | None = getattr(judge, "context_budget_chars", None)
    return value


def coverage_of(judge: object) -> JudgeCoverage:
    """What the judge has been checked on: its ``coverage`` (a ``JudgeCoverage``), else
    ``coverage.DEFAULT_COVERAGE`` (English; prose and tables; passage sets up to
    ``coverage.LLM_MAX_PASSAGE_CHARS`` characters whole): a judge that declares nothing is
    not taken to cover everything.

    Raises:
        TypeError: its ``coverage`` is neither ``None`` nor a ``JudgeCoverage`` (nor a dict
            that validates as one).
    """
    value = getattr(judge, "coverage", None)
    if value is None:
        return DEFAULT_COVERAGE
    if isinstance(value, JudgeCoverage):
        return value
    if isinstance(value, dict):
        return JudgeCoverage.model_validate(value)
    raise TypeError(f"judge {type(judge).__name__}.coverage must be a JudgeCoverage or None, "
                    f"got {type(value).__name__}")


def has_fingerprint(judge: object) -> bool:
    """Whether the judge declares ``fingerprint()`` (it can be cached)."""
    return callable(getattr(judge, "fingerprint", None))


def fingerprint_of(judge: object) -> dict[str, Any] | None:
    """The judge's ``fingerprint()``, or ``None`` when it has none."""
    method = getattr(judge, "fingerprint", None)
    value: dict[str, Any] | None = method() if callable(method) else None
    return value


#: Every optional capability (``JudgeCapabilities``), by attribute name.
CAPABILITIES: tuple[str, ...] = ("context_budget_chars", "deterministic", "accounts_usage",
                                 "runs_inline", "cacheable", "adecompose", "averify",
                                 "describe", "fingerprint", "for_vote", "coverage")


def declares(judge: object, name: str) -> bool:
    """Whether the judge itself declares the optional capability ``name`` (one of
    ``CAPABILITIES``; a method counts only when callable).

    Raises:
        ValueError: ``name`` is not a capability.
    """
    if name not in CAPABILITIES:
        raise ValueError(f"{name!r} is not a judge capability ({', '.join(CAPABILITIES)})")
    value = getattr(judge, name, None)
    return callable(value) if callable(getattr(JudgeCapabilities, name, None)) else \
        value is not None


def vote_variant(judge: Judge, vote: int) -> Judge:
    """The judge to ask for vote ``vote``: the judge itself for vote 1, else its
    ``for_vote(vote)`` when it has one, else the judge itself."""
    make = getattr(judge, "for_vote", None)
    if vote == 1 or not callable(make):
        return judge
    variant: Judge = make(vote)
    return variant


def async_method(judge: object, name: str) -> Callable[..., Awaitable[Any]] | None:
    """The judge's ``a<name>`` (``adecompose`` / ``averify``) when it is a coroutine
    function, else ``None``."""
    method = getattr(judge, "a" + name, None)
    return method if method is not None and inspect.iscoroutinefunction(method) else None


async def call_judge(judge: Judge, name: str, *args: Any) -> Any:
    """Call ``judge.<name>(*args)`` (``"decompose"`` or ``"verify"``) on the running loop.

    Prefers the judge's ``a<name>`` coroutine; a sync method runs in a worker thread unless
    the judge says ``runs_inline`` (pure CPU and fast). A judge that does not account its own
    usage (``accounts_usage``) is counted as one call per invocation.

    Raises:
        TypeError: the judge has no such method. Anything the judge raises, unchanged.
    """
    if not accounts_usage(judge):  # a user's judge: one call per invocation
        record_usage(calls=1)
    coroutine = async_method(judge, name)
    if coroutine is not None:
        return await coroutine(*args)
    method = getattr(judge, name, None)
    if method is None:
        raise TypeError(f"judge {type(judge).__name__} has no {name}() method")
    if runs_inline(judge):  # pure CPU and fast: no thread hop
        return method(*args)
    return await asyncio.to_thread(method, *args)


class WrappingJudge:
    """The base of a judge that wraps another (votes, panels, the first filter): every
    attribute it does not define (``fingerprint``, ``context_budget_chars``, ``coverage``,
    counters...) is the wrapped ``judge``'s, ``decompose`` is the wrapped judge's, and
    ``verify`` runs the subclass's ``averify`` on the judge loop.

    The wrapped judge's calls are accounted where they are made (``call_judge``), so the
    wrapper declares ``accounts_usage``. A subclass sets ``self.judge`` and defines
    ``averify``.
    """

    judge: Judge
    accounts_usage = True

    def __getattr__(self, name: str) -> Any:
        if name == "judge" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.judge, name)

    def decompose(self, answer: str) -> Any:
        """The wrapped judge's decomposition (a wrapper changes verdicts only)."""
        return _loop.run_sync(self.adecompose(answer))

    async def adecompose(self, answer: str) -> Any:
        """The wrapped judge's decomposition, on the judge loop."""
        return await call_judge(self.judge, "decompose", answer)

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """``averify``, blocking."""
        return _loop.run_sync(self.averify(claim, passages))

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """The subclass's verdict.

        Raises:
            NotImplementedError: always, here.
        """
        raise NotImplementedError(f"{type(self).__name__} must define averify()")


def as_decomposition(value: Any) -> Decomposition:
    """A judge's ``decompose`` result as a ``Decomposition``.

    Raises:
        TypeError: it is neither a ``Decomposition`` nor a list of strings.
    """
    if isinstance(value, Decomposition):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(c, str) for c in value):
        return Decomposition(claims=list(value))
    raise TypeError("decompose() must return list[str] or Decomposition, "
                    f"got {type(value).__name__}")


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


def judge_description(judge: object) -> str:
    """A one-line description of any judge, for reports: its ``describe()``, else its class's
    qualified name (``JudgeBase.describe``)."""
    describe = getattr(judge, "describe", None)
    if callable(describe):
        return str(describe())
    return type(judge).__qualname__
