"""The pytest face of the package: options, fixtures and hooks. Thin: the state lives in
``session.FaithfulnessSession``; the pipeline, judges and cache know nothing of pytest.

Start-up cost matters (the plugin loads in every pytest run once installed): this module
imports nothing of ours at import time, and the session object (with pydantic) is built only
when a test first records an answer or a worker's payload arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from .records import AnswerResult
    from .session import FaithfulnessSession

SESSION_KEY = pytest.StashKey["FaithfulnessSession"]()
SETTINGS_KEY = pytest.StashKey[dict]()
WORKER_OUTPUT_KEY = "faithfulness"

# (flag suffix, ini type, help, default)
_OPTIONS: list[tuple[str, str, str, Any]] = [
    ("judge", "string", "judge: 'offline' (embedded, default) or a litellm model string such as "
     "openai/gpt-4o-mini", "offline"),
    ("api-base", "string", "OpenAI-compatible base URL for the LLM judge (default: the "
     "provider's)", None),
    ("timeout", "string", "seconds per LLM judge request (default 60)", None),
    ("concurrency", "string", "most verify calls in flight per answer (default 8)", None),
    ("min-score", "string", "default min_score for assert_faithful (faithfulness in [0, 1])", None),
    ("max-unsupported", "string", "default max_unsupported for assert_faithful (claims not "
     "supported)", None),
    ("min-mean", "string", "session gate: lowest mean faithfulness over scored answers", None),
    ("max-unsupported-rate", "string", "session gate: highest share of answers with a claim "
     "that is not supported", None),
    ("cache-dir", "string", "verdict cache directory (default .faithfulness_cache under the "
     "rootdir)", None),
    ("report", "string", "write every claim and verdict as JSON to this path", None),
    ("cache-mode", "string", "rw (read and write, default), replay (read only: a miss is an "
     "error, no judge call) or refresh (call the judge for everything, overwrite)", None),
    ("budget-usd", "string", "stop making new LLM judge calls once this many US dollars are "
     "spent (litellm's bundled prices); the gate then fails", None),
    ("context-budget", "string", "most characters of passages per verify call; longer passage "
     "lists are split across calls, never truncated", None),
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("faithfulness", "faithfulness of RAG answers")
    for suffix, ini_type, help_text, _default in _OPTIONS:
        dest = "faithfulness_" + suffix.replace("-", "_")
        group.addoption(f"--faithfulness-{suffix}", dest=dest, default=None, help=help_text)
        parser.addini(dest, help_text, type=ini_type, default=None)
    group.addoption("--faithfulness-no-cache", dest="faithfulness_no_cache", action="store_true",
                    default=None, help="do not read or write the verdict cache")
    parser.addini("faithfulness_no_cache", "do not read or write the verdict cache", type="bool",
                  default=False)


def get_option(config: pytest.Config, suffix: str) -> Any:
    """The flag's value if given, else the ini value, else ``None``."""
    dest = "faithfulness_" + suffix.replace("-", "_")
    value = config.getoption(dest, default=None)
    if value is None:
        value = config.getini(dest)
    if isinstance(value, str) and not value.strip():
        return None
    return value


def _number(config: pytest.Config, suffix: str, kind: type, low: float | None = None,
            high: float | None = None) -> Any:
    raw = get_option(config, suffix)
    if raw is None:
        return None
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"--faithfulness-{suffix} must be a {kind.__name__}, got {raw!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise pytest.UsageError(f"--faithfulness-{suffix} must be between {low} and {high}, "
                                f"got {raw!r}")
    return value


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "faithfulness: a test that judges answer faithfulness")
    settings = {
        "min_mean": _number(config, "min-mean", float, 0, 1),
        "max_unsupported_rate": _number(config, "max-unsupported-rate", float, 0, 1),
        "report": get_option(config, "report"),
    }
    for suffix, kind, low, high in (("min-score", float, 0, 1), ("max-unsupported", int, 0, None),
                                    ("timeout", float, 0, None), ("concurrency", int, 1, None),
                                    ("budget-usd", float, 0, None),
                                    ("context-budget", int, 1, None)):
        _number(config, suffix, kind, low, high)  # fail fast on a bad value
    mode = get_option(config, "cache-mode") or "rw"
    if mode not in ("rw", "replay", "refresh"):
        raise pytest.UsageError(f"--faithfulness-cache-mode must be rw, replay or refresh, got {mode!r}")
    if mode != "rw" and _no_cache(config):
        raise pytest.UsageError(f"--faithfulness-cache-mode {mode} needs the cache: drop "
                                "--faithfulness-no-cache")
    config.stash[SETTINGS_KEY] = settings


def _no_cache(config: pytest.Config) -> bool:
    return bool(config.getoption("faithfulness_no_cache") or config.getini("faithfulness_no_cache"))


def _session(config: pytest.Config) -> FaithfulnessSession:
    """The run's session object, built on first use."""
    state = config.stash.get(SESSION_KEY, None)
    if state is None:
        from .gate import GateConfig
        from .session import FaithfulnessSession

        settings = config.stash[SETTINGS_KEY]
        state = FaithfulnessSession(
            gate=GateConfig(min_mean=settings["min_mean"],
                            max_unsupported_rate=settings["max_unsupported_rate"]),
            report_path=settings["report"])
        config.stash[SESSION_KEY] = state
    return state


def _existing_session(config: pytest.Config) -> FaithfulnessSession | None:
    return config.stash.get(SESSION_KEY, None)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


@pytest.fixture(scope="session")
def faithfulness_judge(pytestconfig: pytest.Config):
    """The configured judge (``--faithfulness-judge``), wrapped in the verdict cache.

    Override this fixture in a conftest to plug in your own judge (see ``judges.Judge``).
    The offline judge is not cached: it is faster than the cache. The cache is opened once
    per process (this fixture is session-scoped).
    """
    from pathlib import Path

    from .accounting import Budget
    from .judges import make_judge

    options: dict[str, Any] = {"budget": Budget(_number(pytestconfig, "budget-usd", float, 0, None))}
    api_base = get_option(pytestconfig, "api-base")
    if api_base:
        options["api_base"] = api_base
    timeout = _number(pytestconfig, "timeout", float, 0, None)
    if timeout is not None:
        options["timeout"] = timeout
    judge = make_judge(get_option(pytestconfig, "judge"), **options)
    if _no_cache(pytestconfig) or not getattr(judge, "cacheable", False):
        yield judge
        return
    from .cache import CachedJudge

    cache_dir = Path(get_option(pytestconfig, "cache-dir") or ".faithfulness_cache")
    if not cache_dir.is_absolute():
        cache_dir = Path(pytestconfig.rootpath) / cache_dir
    cached = CachedJudge(judge, cache_dir, mode=get_option(pytestconfig, "cache-mode") or "rw")
    yield cached
    cached.close()


class FaithfulnessAssertion:
    """What the ``assert_faithful`` fixture returns: call it to judge and assert one answer.

    ``assert_faithful(answer, passages, *, min_score=None, max_unsupported=None)``

    Args:
        answer: the answer text.
        passages: ``Passage`` objects, strings (ids ``p1``, ``p2``, ...), dicts with
            ``id``/``text``, or documents with ``page_content``/``text``.
        min_score: lowest acceptable faithfulness in [0, 1] (default: ``--faithfulness-min-score``,
            else 1.0 is *not* assumed: no bound).
        max_unsupported: most claims that may be not supported (contradicted + unsupported)
            (default: ``--faithfulness-max-unsupported``, else no bound).

    Returns:
        the ``AnswerResult``, recorded for the session gate whether it passes or not.

    Raises:
        AssertionError: the answer errored or misses a threshold; the message is the
            per-claim report.
        TypeError / ValueError: malformed answer or passages (recorded as an errored answer).
    """

    def __init__(self, judge: Any, session: FaithfulnessSession, test_id: str,
                 min_score: float | None, max_unsupported: int | None, concurrency: int | None,
                 context_budget_chars: int | None = None):
        self._judge = judge
        self._session = session
        self._test_id = test_id
        self._min_score = min_score
        self._max_unsupported = max_unsupported
        self._concurrency = concurrency
        self._context_budget = context_budget_chars
        self.results: list[AnswerResult] = []

    def __call__(self, answer: Any, passages: Any, *, min_score: float | None = None,
                 max_unsupported: int | None = None) -> AnswerResult:
        from .pipeline import evaluate
        from .report import format_answer

        __tracebackhide__ = True
        thresholds = self._thresholds(min_score, max_unsupported)
        try:
            result = evaluate(answer, passages, self._judge, **self._pipeline_options())
        except (TypeError, ValueError) as exc:
            self._record_bad_input(answer, exc, thresholds)
            raise
        self._record(result, thresholds)
        if not result.passed:
            raise AssertionError("answer is not faithful enough\n" + format_answer(result))
        return result

    def evaluate_many(self, cases: Any, *, min_score: float | None = None,
                      max_unsupported: int | None = None) -> list[AnswerResult]:
        """Judge many answers concurrently and record each for the gate; never raises on a
        failing answer (see ``assert_many``).

        Args:
            cases: ``(answer, passages)`` pairs or dicts with ``answer`` and ``passages``.

        Returns:
            one ``AnswerResult`` per case, in order; test ids are ``<node id>#<n>``.

        Raises:
            TypeError / ValueError: a malformed case (named by index); nothing is judged then.
        """
        from .pipeline import evaluate_many

        thresholds = self._thresholds(min_score, max_unsupported)
        results = evaluate_many(cases, self._judge, **self._pipeline_options())
        for result in results:
            self._record(result, thresholds, numbered=True)
        return results

    def assert_many(self, cases: Any, *, min_score: float | None = None,
                    max_unsupported: int | None = None) -> list[AnswerResult]:
        """``evaluate_many``, then raise ``AssertionError`` with the per-claim report of every
        answer that errored or missed a threshold."""
        from .report import format_answer

        __tracebackhide__ = True
        results = self.evaluate_many(cases, min_score=min_score, max_unsupported=max_unsupported)
        failing = [r for r in results if not r.passed]
        if failing:
            raise AssertionError(f"{len(failing)} of {len(results)} answers are not faithful "
                                 "enough\n" + "\n".join(format_answer(r) for r in failing))
        return results

    def _pipeline_options(self) -> dict[str, Any]:
        from .pipeline import DEFAULT_CONCURRENCY

        return {"concurrency": self._concurrency or DEFAULT_CONCURRENCY,
                "context_budget_chars": self._context_budget}

    def _thresholds(self, min_score: float | None,
                    max_unsupported: int | None) -> tuple[float | None, int | None]:
        min_score = self._min_score if min_score is None else min_score
        max_unsupported = self._max_unsupported if max_unsupported is None else max_unsupported
        if min_score is not None and (isinstance(min_score, bool) or not 0 <= min_score <= 1):
            raise ValueError(f"min_score must be in [0, 1], got {min_score!r}")
        if max_unsupported is not None and (isinstance(max_unsupported, bool)
                                            or not isinstance(max_unsupported, int)
                                            or max_unsupported < 0):
            raise ValueError(f"max_unsupported must be a non-negative int, got {max_unsupported!r}")
        return min_score, max_unsupported

    def _record_bad_input(self, answer: Any, exc: Exception,
                          thresholds: tuple[float | None, int | None]) -> None:
        from .records import AnswerResult

        result = AnswerResult(answer=answer if isinstance(answer, str) else repr(answer),
                              status="error", error=f"bad input: {exc}")
        self._record(result, thresholds)

    def _record(self, result: AnswerResult, thresholds: tuple[float | None, int | None],
                numbered: bool = False) -> None:
        n = len(self.results) + 1
        result.test_id = f"{self._test_id}#{n}" if numbered or n > 1 else self._test_id
        result.min_score, result.max_unsupported = thresholds
        self.results.append(result)
        self._session.record(result, self._judge)


@pytest.fixture
def assert_faithful(request: pytest.FixtureRequest, faithfulness_judge) -> FaithfulnessAssertion:
    """Judge an answer against its passages and assert it is faithful enough.

    See ``FaithfulnessAssertion`` for the call signature.
    """
    config = request.config
    return FaithfulnessAssertion(
        faithfulness_judge, _session(config), request.node.nodeid,
        min_score=_number(config, "min-score", float, 0, 1),
        max_unsupported=_number(config, "max-unsupported", int, 0, None),
        concurrency=_number(config, "concurrency", int, 1, None),
        context_budget_chars=_number(config, "context-budget", int, 1, None),
    )


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = _existing_session(config)
    if state is None:  # no answer was judged in this process
        return
    if _is_worker(config):
        config.workeroutput[WORKER_OUTPUT_KEY] = state.to_payload()
        return
    failures = state.evaluate_gate()
    state.write_report()
    if failures and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    payload = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY)
    if payload:
        _session(node.config).merge_payload(payload)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    state = _existing_session(config)
    if _is_worker(config) or state is None or not state.results:
        return
    terminalreporter.section("faithfulness")
    for line in state.terminal_lines():
        terminalreporter.write_line(line)
    if state.report_path is not None:
        terminalreporter.write_line(f"JSON report: {state.report_path}")
