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
PROGRESS_KEY = pytest.StashKey[dict]()
LEDGER_KEY = pytest.StashKey[str]()  # the run's shared budget ledger (a directory)
LEDGER_INPUT = "faithfulness_budget_ledger"  # its path in an xdist worker's workerinput
_LATEST = "@latest"  # --faithfulness-compare given without a value

# (flag suffix, ini type, help, default)
_OPTIONS: list[tuple[str, str, str, Any]] = [
    ("judge", "string", "judge: 'offline' (embedded, default) or a litellm model string such as "
     "openai/gpt-4o-mini", "offline"),
    ("api-base", "string", "OpenAI-compatible base URL for the LLM judge (default: the "
     "provider's)", None),
    ("timeout", "string", "seconds per LLM judge request (default 60)", None),
    ("temperature", "string", "sampling temperature of the LLM judge (>= 0, default 0; not "
     "sent to models that do not accept it, such as OpenAI's o-series)", None),
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
    ("calibrate", "string", "calibration run: judge this human-labelled JSONL file (claim or "
     "answer level) as tests, instead of the collected tests, and report agreement", None),
    ("min-agreement", "string", "calibration gate: lowest balanced accuracy of the judge "
     "against the human labels", None),
    ("storage", "string", "folder of saved runs (default .faithfulness under the rootdir)", None),
    ("save", "string", "save this run's results as NAME in the storage folder", None),
    ("markdown", "string", "write a Markdown summary to this path (it is also appended to "
     "$GITHUB_STEP_SUMMARY when that variable is set)", None),
    ("html", "string", "write a self-contained HTML report to this path", None),
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
    group.addoption("--faithfulness-require-claims", dest="faithfulness_require_claims",
                    action="store_true", default=None,
                    help="an answer with no claims to score fails assert_faithful")
    parser.addini("faithfulness_require_claims", "an answer with no claims to score fails "
                  "assert_faithful", type="bool", default=False)
    _add_ci_options(parser, group)


def _add_ci_options(parser: pytest.Parser, group: Any) -> None:
    """Baselines and regression gates (flags that are not plain strings)."""
    group.addoption("--faithfulness-autosave", dest="faithfulness_autosave", action="store_true",
                    default=None, help="save this run in the storage folder, named after the "
                    "git commit")
    parser.addini("faithfulness_autosave", "save every run in the storage folder", type="bool",
                  default=False)
    group.addoption("--faithfulness-compare", dest="faithfulness_compare", nargs="?",
                    const=_LATEST, default=None, metavar="NAME|PATH",
                    help="compare with a saved run: a name, counter or file (no value: the "
                    "latest saved run; write --faithfulness-compare=NAME before test paths)")
    parser.addini("faithfulness_compare", "saved run to compare with (a name, counter or file; "
                  "'latest' for the latest)", type="string", default=None)
    group.addoption("--faithfulness-compare-fail", dest="faithfulness_compare_fail",
                    action="append", default=None, metavar="EXPR",
                    help="fail the session on a regression against the compared run, e.g. "
                    "mean:0.02 (mean faithfulness may drop at most 0.02) or unsupported_rate:0.05;"
                    " repeatable or comma-separated")
    parser.addini("faithfulness_compare_fail", "compare-fail expressions (mean:0.02, ...)",
                  type="args", default=[])


def pytest_addhooks(pluginmanager: Any) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def get_option(config: pytest.Config, suffix: str) -> Any:
    """The flag's value if given, else the ini value, else ``None``."""
    dest = "faithfulness_" + suffix.replace("-", "_")
    value = config.getoption(dest, default=None)
    if value is None:
        value = config.getini(dest)
    if value == [] or (isinstance(value, str) and not value.strip()):  # unset (pytest 7: [])
        return None
    return value


def _number(config: pytest.Config, suffix: str, kind: type, low: float | None = None,
            high: float | None = None) -> Any:
    raw = get_option(config, suffix)
    if raw is None:
        return None
    name = f"--faithfulness-{suffix} (ini faithfulness_{suffix.replace('-', '_')})"
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        kind_name = "an integer" if kind is int else "a number"
        raise pytest.UsageError(f"{name} must be {kind_name}, got {raw!r}") from None
    if value != value or value in (float("inf"), float("-inf")):  # NaN or infinite
        raise pytest.UsageError(f"{name} must be a finite number, got {raw!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise pytest.UsageError(f"{name} must be {bound}, got {raw!r}")
    return value


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "faithfulness: a test that judges answer faithfulness")
    from pathlib import Path

    calibrate = get_option(config, "calibrate")
    if calibrate and not Path(calibrate).is_file():
        raise pytest.UsageError(f"--faithfulness-calibrate {calibrate!r}: no such file")
    settings = {
        "calibrate": calibrate,
        "min_agreement": _number(config, "min-agreement", float, 0, 1),
        "min_mean": _number(config, "min-mean", float, 0, 1),
        "max_unsupported_rate": _number(config, "max-unsupported-rate", float, 0, 1),
        "report": get_option(config, "report"),
    }
    for suffix, kind, low, high in (("min-score", float, 0, 1), ("max-unsupported", int, 0, None),
                                    ("timeout", float, 0.001, None), ("concurrency", int, 1, None),
                                    ("temperature", float, 0, None),
                                    ("budget-usd", float, 0, None),
                                    ("context-budget", int, 1, None)):
        _number(config, suffix, kind, low, high)  # fail fast on a bad value
    _check_output_path(settings["report"], "--faithfulness-report")
    _check_judge_name(get_option(config, "judge"))
    mode = get_option(config, "cache-mode") or "rw"
    if mode not in ("rw", "replay", "refresh"):
        raise pytest.UsageError(f"--faithfulness-cache-mode must be rw, replay or refresh, got {mode!r}")
    if mode != "rw" and _no_cache(config):
        raise pytest.UsageError(f"--faithfulness-cache-mode {mode} needs the cache: drop "
                                "--faithfulness-no-cache")
    settings.update(_ci_settings(config))
    config.stash[SETTINGS_KEY] = settings
    _budget_ledger(config)


def _budget_ledger(config: pytest.Config) -> None:
    """With ``--faithfulness-budget-usd``: refuse a model litellm's price map cannot price,
    and give the run one ledger of spend that every xdist worker shares (the controller
    creates it and passes its path in ``workerinput``; it is removed at the end)."""
    if _number(config, "budget-usd", float, 0, None) is None:
        return
    if _is_worker(config):
        ledger = config.workerinput.get(LEDGER_INPUT)
        if ledger:
            config.stash[LEDGER_KEY] = ledger
        return
    spec = (get_option(config, "judge") or "offline").strip()
    if spec.lower() not in ("offline", "offline-nli"):
        from .accounting import model_is_priced

        if not model_is_priced(spec):
            raise pytest.UsageError(
                f"--faithfulness-budget-usd cannot apply to {spec!r}: litellm's bundled price "
                "map has no price for it, so its calls would cost $0 against the budget; use "
                "a priced model string or drop the budget")
    import shutil
    import tempfile

    ledger = tempfile.mkdtemp(prefix="faithfulness-budget-")
    config.add_cleanup(lambda: shutil.rmtree(ledger, ignore_errors=True))
    config.stash[LEDGER_KEY] = ledger


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: hand the run's budget ledger to each worker."""
    ledger = node.config.stash.get(LEDGER_KEY, None)
    if ledger:
        node.workerinput[LEDGER_INPUT] = ledger


def _ci_settings(config: pytest.Config) -> dict[str, Any]:
    """Storage folder, save name, output paths, the saved run to compare with and the
    compare-fail bounds, checked up front (a bad value is a usage error before any test)."""
    from pathlib import Path

    storage = Path(get_option(config, "storage") or ".faithfulness")
    if not storage.is_absolute():
        storage = Path(config.rootpath) / storage
    compare = config.getoption("faithfulness_compare", default=None)
    if compare is None:
        compare = (config.getini("faithfulness_compare") or "").strip() or None
    exprs = config.getoption("faithfulness_compare_fail") or config.getini(
        "faithfulness_compare_fail")
    settings: dict[str, Any] = {
        "storage": storage, "save": get_option(config, "save"),
        "autosave": bool(config.getoption("faithfulness_autosave")
                         or config.getini("faithfulness_autosave")),
        "markdown": get_option(config, "markdown"), "html": get_option(config, "html"),
        "baseline": None, "baseline_path": None, "compare_fail": [], "compare_note": None,
    }
    if exprs and compare is None:  # a regression bound needs a baseline: the latest saved run
        compare = _LATEST
    if not (settings["save"] or exprs or compare is not None):
        return settings  # nothing to import: start-up stays cheap
    from .runs import compare as run_compare
    from .runs import saved as saved_runs

    try:
        if settings["save"]:
            saved_runs.safe_name(settings["save"])
        settings["compare_fail"] = run_compare.parse_compare_fail(exprs)
    except ValueError as exc:
        flag = "--faithfulness-compare-fail" if exprs else "--faithfulness-save"
        raise pytest.UsageError(f"{flag}: {exc}") \
            from None
    if compare is not None and not _is_worker(config):
        ref = "" if compare in (_LATEST, "latest") else compare
        try:
            path = saved_runs.find_run(storage, ref, rootdir=config.rootpath)
            settings["baseline"], settings["baseline_path"] = saved_runs.load_run(path), path
        except saved_runs.BaselineError as exc:
            if ref:  # a named run that is not there is a mistake in the command line
                raise pytest.UsageError(f"--faithfulness-compare: {exc}") from None
            settings["compare_note"] = f"WARNING: nothing to compare with: {exc}"
    return settings


def _check_output_path(path: str | None, flag: str) -> None:
    """Refuse, at start-up, a report path that cannot be written at the end of the run."""
    if not path:
        return
    from pathlib import Path

    target = Path(path)
    if target.is_dir() or not target.name or target.name in (".", ".."):
        raise pytest.UsageError(f"{flag} {path!r} is a directory: give a file path")
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise pytest.UsageError(f"{flag} {path!r}: {parent} is not a directory")
            break


def _check_judge_name(spec: str | None) -> None:
    """A name close to a built-in judge but not it is a typo, not a litellm model string."""
    import difflib

    if not spec or "/" in spec or spec.strip().lower() in ("offline", "offline-nli"):
        return
    close = difflib.get_close_matches(spec.strip().lower(), ["offline", "offline-nli"], n=1,
                                      cutoff=0.75)
    if close:
        raise pytest.UsageError(f"--faithfulness-judge {spec!r}: unknown judge; did you mean "
                                f"{close[0]!r}? (an LLM judge is a litellm model string such as "
                                "openai/gpt-4o-mini)")


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

    budget = Budget(_number(pytestconfig, "budget-usd", float, 0, None),
                    ledger=pytestconfig.stash.get(LEDGER_KEY, None))
    options: dict[str, Any] = {"budget": budget}
    api_base = get_option(pytestconfig, "api-base")
    if api_base:
        options["api_base"] = api_base
    timeout = _number(pytestconfig, "timeout", float, 0.001, None)
    if timeout is not None:
        options["timeout"] = timeout
    temperature = _number(pytestconfig, "temperature", float, 0, None)
    if temperature is not None:
        options["temperature"] = temperature
    judge = pytestconfig.hook.pytest_faithfulness_make_judge(config=pytestconfig)
    if judge is None:
        judge = make_judge(get_option(pytestconfig, "judge"), **options)
    if _no_cache(pytestconfig) or not getattr(judge, "cacheable", False):
        yield judge
        budget.close()
        return
    from .cache import CachedJudge

    cache_dir = Path(get_option(pytestconfig, "cache-dir") or ".faithfulness_cache")
    if not cache_dir.is_absolute():
        cache_dir = Path(pytestconfig.rootpath) / cache_dir
    cached = CachedJudge(judge, cache_dir, mode=get_option(pytestconfig, "cache-mode") or "rw")
    yield cached
    cached.close()
    budget.close()


class FaithfulnessAssertion:
    """What the ``assert_faithful`` fixture returns: call it to judge and assert one answer.

    ``assert_faithful(answer, passages, *, min_score=None, max_unsupported=None,
    require_claims=None)``

    Args:
        answer: the answer text.
        passages: ``Passage`` objects, strings (ids ``p1``, ``p2``, ...), dicts with
            ``id``/``text``, or documents with ``page_content``/``text``.
        min_score: lowest acceptable faithfulness in [0, 1] (default: ``--faithfulness-min-score``,
            else 1.0 is *not* assumed: no bound).
        max_unsupported: most claims that may be not supported (contradicted + unsupported)
            (default: ``--faithfulness-max-unsupported``, else no bound).
        require_claims: an answer with no claims fails (default:
            ``--faithfulness-require-claims``, else an unscored answer passes).

    ``evaluate_many(cases)`` and ``assert_many(cases)`` judge a batch concurrently.

    Returns:
        the ``AnswerResult``, recorded for the session gate whether it passes or not.

    Raises:
        AssertionError: the answer errored or misses a threshold; the message is the
            per-claim report.
        TypeError / ValueError: malformed answer or passages (recorded as an errored answer).
    """

    _item: Any = None  # the pytest item, for JUnit properties and the answer-result hook

    def __init__(self, judge: Any, session: FaithfulnessSession, test_id: str,
                 min_score: float | None, max_unsupported: int | None, concurrency: int | None,
                 context_budget_chars: int | None = None, require_claims: bool = False):
        self._judge = judge
        self._session = session
        self._test_id = test_id
        self._min_score = min_score
        self._max_unsupported = max_unsupported
        self._concurrency = concurrency
        self._context_budget = context_budget_chars
        self._require_claims = require_claims
        self.results: list[AnswerResult] = []

    def __call__(self, answer: Any, passages: Any, *, min_score: float | None = None,
                 max_unsupported: int | None = None,
                 require_claims: bool | None = None) -> AnswerResult:
        from .pipeline import evaluate
        from .reports.terminal import format_answer

        __tracebackhide__ = True
        thresholds = self._thresholds(min_score, max_unsupported, require_claims)
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
                      max_unsupported: int | None = None,
                      require_claims: bool | None = None) -> list[AnswerResult]:
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

        thresholds = self._thresholds(min_score, max_unsupported, require_claims)
        results = evaluate_many(cases, self._judge, **self._pipeline_options())
        for result in results:
            self._record(result, thresholds, numbered=True)
        return results

    def assert_many(self, cases: Any, *, min_score: float | None = None,
                    max_unsupported: int | None = None,
                    require_claims: bool | None = None) -> list[AnswerResult]:
        """``evaluate_many``, then raise ``AssertionError`` with the per-claim report of every
        answer that errored or missed a threshold."""
        from .reports.terminal import format_answer

        __tracebackhide__ = True
        results = self.evaluate_many(cases, min_score=min_score, max_unsupported=max_unsupported,
                                     require_claims=require_claims)
        failing = [r for r in results if not r.passed]
        if failing:
            raise AssertionError(f"{len(failing)} of {len(results)} answers are not faithful "
                                 "enough\n" + "\n".join(format_answer(r) for r in failing))
        return results

    def _pipeline_options(self) -> dict[str, Any]:
        from .pipeline import DEFAULT_CONCURRENCY

        return {"concurrency": self._concurrency or DEFAULT_CONCURRENCY,
                "context_budget_chars": self._context_budget}

    def _thresholds(self, min_score: float | None, max_unsupported: int | None,
                    require_claims: bool | None = None) -> tuple[float | None, int | None, bool]:
        min_score = self._min_score if min_score is None else min_score
        max_unsupported = self._max_unsupported if max_unsupported is None else max_unsupported
        if min_score is not None and (isinstance(min_score, bool)
                                      or not isinstance(min_score, (int, float))
                                      or not 0 <= min_score <= 1):
            raise ValueError(f"min_score must be a number in [0, 1], got {min_score!r}")
        if max_unsupported is not None and (isinstance(max_unsupported, bool)
                                            or not isinstance(max_unsupported, int)
                                            or max_unsupported < 0):
            raise ValueError(f"max_unsupported must be a non-negative int, got {max_unsupported!r}")
        require = self._require_claims if require_claims is None else bool(require_claims)
        return min_score, max_unsupported, require

    def _record_bad_input(self, answer: Any, exc: Exception,
                          thresholds: tuple[float | None, int | None, bool]) -> None:
        from .records import AnswerResult

        shown = answer if isinstance(answer, str) else f"<not a string: {type(answer).__name__} {answer!r:.200}>"
        result = AnswerResult(answer=shown, status="error", error=f"bad input: {exc}")
        self._record(result, thresholds)

    def _record(self, result: AnswerResult, thresholds: tuple[float | None, int | None, bool],
                numbered: bool = False) -> None:
        n = len(self.results) + 1
        result.test_id = f"{self._test_id}#{n}" if numbered or n > 1 else self._test_id
        result.min_score, result.max_unsupported, result.require_claims = thresholds
        self.results.append(result)
        self._session.record(result, self._judge)
        if self._item is not None:
            _publish(self._item, result, len(self.results))


@pytest.fixture
def assert_faithful(request: pytest.FixtureRequest, faithfulness_judge) -> FaithfulnessAssertion:
    """Judge an answer against its passages and assert it is faithful enough.

    See ``FaithfulnessAssertion`` for the call signature.
    """
    config = request.config
    assertion = FaithfulnessAssertion(
        faithfulness_judge, _session(config), request.node.nodeid,
        min_score=_number(config, "min-score", float, 0, 1),
        max_unsupported=_number(config, "max-unsupported", int, 0, None),
        concurrency=_number(config, "concurrency", int, 1, None),
        context_budget_chars=_number(config, "context-budget", int, 1, None),
        require_claims=bool(config.getoption("faithfulness_require_claims")
                            or config.getini("faithfulness_require_claims")),
    )
    assertion._item = request.node
    assertion._judge = _verbose_judge(config, assertion._judge)
    return assertion


def _publish(item: pytest.Item, result: AnswerResult, index: int) -> None:
    """The answer's JUnit properties, then the report-sink hook."""
    from .reports.junit import junit_properties

    item.user_properties.extend(junit_properties(result, index))
    item.config.hook.pytest_faithfulness_answer_result(result=result, item=item)


def _verbose_judge(config: pytest.Config, judge: Any) -> Any:
    """Under ``-v`` (not in an xdist worker): the judge, wrapped so that each claim's verdict
    is printed as it arrives; otherwise the judge itself."""
    if (config.getoption("verbose", 0) or 0) < 1 or _is_worker(config):
        return judge
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return judge
    wrappers = config.stash.setdefault(PROGRESS_KEY, {})
    if id(judge) not in wrappers:
        from .judges.progress import progress_judge

        capture = config.pluginmanager.get_plugin("capturemanager")

        def emit(line: str) -> None:
            if capture is not None:
                with capture.global_and_fixture_disabled():
                    reporter.write_line(line)
            else:
                reporter.write_line(line)

        wrappers[id(judge)] = (judge, progress_judge(judge, emit))
    return wrappers[id(judge)][1]


def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    """A calibration run collects no test files (they may need what it does not)."""
    if config.stash[SETTINGS_KEY].get("calibrate") and collection_path.is_file():
        return True
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """A calibration run judges the labelled file's records as tests, and nothing else."""
    path = config.stash[SETTINGS_KEY].get("calibrate")
    if not path:
        return
    from pathlib import Path

    from .calibration import load_labelled

    try:
        records = load_labelled(path)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from exc
    parent = CalibrationFile.from_parent(session, path=Path(path).resolve())
    config.hook.pytest_deselected(items=list(items))
    items[:] = [pytest.Function.from_parent(parent, name=f"calibrate[{record.id}]",
                                            callobj=_calibration_test(record, config))
                for record in records]


class CalibrationFile(pytest.File):
    """The labelled file of a calibration run (its items are made in
    ``pytest_collection_modifyitems``)."""

    def collect(self):  # pragma: no cover - never collected from the file system
        return []


def _calibration_test(record: Any, config: pytest.Config):
    def calibration_test(faithfulness_judge):
        from .calibration import judge_record

        outcome = judge_record(record, faithfulness_judge)
        _session(config).record_calibration(outcome, faithfulness_judge)
        if outcome.error:
            raise AssertionError(f"judge error on {record.id}: {outcome.error}")

    return calibration_test


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = _existing_session(config)
    if state is None:  # no answer was judged in this process
        return
    if _is_worker(config):
        config.workeroutput[WORKER_OUTPUT_KEY] = state.to_payload()
        return
    state.evaluate_gate()
    state.evaluate_calibration_gate(config.stash[SETTINGS_KEY].get("min_agreement"))
    failures = _ci_gates(config, state)
    try:
        state.write_report()
    except OSError as exc:  # checked at start-up; the disk can still fill or vanish
        failures = [*failures, f"could not write the JSON report: {exc}"]
        state.failures = failures
    _ci_outputs(config, state)
    if failures and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _ci_gates(config: pytest.Config, state: FaithfulnessSession) -> list[str]:
    """Regressions against the saved run, then the conftest gates; returns every failure."""
    settings = config.stash[SETTINGS_KEY]
    if settings.get("baseline") is not None or settings.get("save") or settings.get("autosave"):
        from .runs.saved import git_info

        settings["git"] = git_info(config.rootpath)
    if settings.get("compare_note"):
        state.ci_notes.append(settings["compare_note"])
    if settings.get("baseline") is not None:
        state.compare_with(settings["baseline"], settings["compare_fail"],
                           baseline_path=settings["baseline_path"], git=settings["git"])
    try:
        answers = config.hook.pytest_faithfulness_gate(summary=state.summary(),
                                                       results=list(state.results), config=config)
    except Exception as exc:  # fail closed: a broken custom gate never passes
        answers = [f"a pytest_faithfulness_gate hook raised {type(exc).__name__}: {exc}"]
    for reasons in answers:
        state.add_failures(reasons)
    return state.failures


def _ci_outputs(config: pytest.Config, state: FaithfulnessSession) -> None:
    """The Markdown summary (and $GITHUB_STEP_SUMMARY), the HTML report, the saved run."""
    import os

    settings = config.stash[SETTINGS_KEY]
    state.write_markdown(settings.get("markdown"), os.environ.get("GITHUB_STEP_SUMMARY") or None)
    if settings.get("html"):
        state.write_html(settings["html"])
    name = settings.get("save")
    if not name and settings.get("autosave"):
        git = settings.get("git")
        name = (git.commit[:12] + ("-dirty" if git.dirty else "")) if git and git.commit \
            else "autosave"
    if name:
        state.save_run(settings["storage"], name, settings.get("git"))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    payload = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY)
    if payload:
        _session(node.config).merge_payload(payload)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config):
    """The faithfulness section, written after pytest's own summaries (the short test summary
    included), so that the run's verdict is the last line before pytest's final count, in the
    colour of the exit status."""
    result = yield
    state = _existing_session(config)
    if _is_worker(config) or state is None or not (state.results or state.calibration):
        return result
    from .reports import terminal, verdict

    incomplete = getattr(state, "incomplete_reason", None)
    if incomplete is None and exitstatus == pytest.ExitCode.INTERRUPTED:
        incomplete = "interrupted"  # never read an interrupted run as a pass
    failures = list(state.failures)
    # the plugin's sessionfinish turns a failed gate into exit status 1 after pytest passed
    # this hook its exit status; an incomplete run never exits 0
    exit_failed = int(exitstatus) not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) \
        or bool(failures) or incomplete is not None
    reporter = terminalreporter
    if state.calibration:
        reporter.section("faithfulness calibration")
        for line in state.calibration_lines():
            reporter.write_line(terminal.terminal_text(line))
    failing: list[Any] = []
    unscored: list[Any] = []
    if state.results:
        def answers(name: str, fallback: Any) -> list[Any]:
            found = getattr(state, name, None)
            return list(found()) if callable(found) else fallback(state.results)

        failing = answers("answers_failing_own_thresholds", verdict.failing_answers)
        unscored = answers("unscored_answers", verdict.unscored_answers)
        applied = getattr(state, "thresholds_applied", None)
        thresholds = list(applied()) if callable(applied) else verdict.thresholds_of_gate(state.gate)
        reporter.section("faithfulness")
        for line in terminal.summary_lines(state.summary(), state.judges(), failures,
                                           thresholds=thresholds, unscored=unscored,
                                           verdict=False):
            reporter.write_line(line)
        verbose = (config.getoption("verbose", 0) or 0) > 0
        for line in terminal.failing_answer_lines(state.results, verbose=verbose):
            reporter.write_line(line)
        if state.report_path is not None:
            reporter.write_line(terminal.terminal_text(f"JSON report: {state.report_path}"))
        _write_ci_lines(reporter, state)
    outcome = verdict.run_verdict(failures, incomplete=incomplete, failing=failing,
                                  unscored=unscored, exit_failed=exit_failed)
    lines = terminal.verdict_lines(failures, outcome)
    for line in lines[:-1]:
        reporter.write_line(line, red=True, bold=True)
    colour = {"red": True} if outcome.failed else {"green": True}
    reporter.write_sep("=", lines[-1], bold=True, **colour)
    return result


def _write_ci_lines(terminalreporter: Any, state: FaithfulnessSession) -> None:
    """Files written, baseline notes, and the comparison with the saved run (loud warnings);
    every line sanitised for the terminal."""
    from .reports.text import terminal_text

    for line in state.ci_notes:
        loud = line.startswith("WARNING")
        terminalreporter.write_line(terminal_text(line), red=loud, bold=loud)
    lines = state.comparison_lines()
    if lines:
        terminalreporter.section("faithfulness comparison")
        for line in lines:
            loud = line.startswith(("WARNING", "REGRESSION"))
            terminalreporter.write_line(terminal_text(line), red=loud, bold=loud)
