"""The pytest face of the package: options, fixtures and hooks, and nothing else.

Thin hooks delegating to: ``settings.Settings`` (every option, typed and checked once in
``pytest_configure``), ``run.results.ResultStore`` (every result, and the xdist payload),
``run.finish.finish_run`` (the gates, the exit status and the outputs, shared with
``pytest-faithfulness merge``) and the ``run.outcome.RunOutcome`` it returns (what the
terminal section reads). ``tracker.RunTracker`` follows the tests themselves (finished,
failed, xfail, lost workers). The assertion the fixture returns lives in ``assertion``; the
pipeline, judges and cache know nothing of pytest.

Start-up cost matters (the plugin loads in every pytest run once installed): at import time
this module imports nothing of ours but ``settings`` and ``tracker`` (no pydantic, no
litellm); the result store (with pydantic) is built only when a test first records an
answer, a worker's payload arrives, or an incomplete run must still leave its reports.

Complete or not: a session that was interrupted (exit status 2), hit an internal or usage
error (3, 4), lost an xdist worker, or was stopped by ``-x`` / ``--maxfail`` with tests left
unrun is *incomplete*: the gate reports ``incomplete`` (never passed), the exit status is
never 0, and a saved run is marked incomplete so that it is never compared with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ..settings import Settings
from .checks import (
    check_budget_prices,
    is_worker,
    register_known_keys,
    warn_ignored_options,
    worker_input,
    worker_output,
)
from .options import add_options, settings_from_config
from .tracker import RunTracker

if TYPE_CHECKING:  # pragma: no cover
    from ..assertion import FaithfulnessAssertion
    from ..records import AnswerResult
    from ..run.finish import RunFaces
    from ..run.outcome import RunOutcome
    from ..run.results import ResultStore

SESSION_KEY = pytest.StashKey["ResultStore"]()  # every answer of the run
OUTCOME_KEY = pytest.StashKey["RunOutcome"]()  # the run once finished (what the terminal reads)
SETTINGS_KEY = pytest.StashKey[Settings]()
RUN_KEY = pytest.StashKey[RunTracker]()  # tests finished, workers lost: completeness
WORKER_OUTPUT_KEY = "faithfulness"
PROGRESS_KEY = pytest.StashKey[dict]()
FILTER_KEY = pytest.StashKey[dict]()
LEDGER_KEY = pytest.StashKey[str]()  # the run's shared budget ledger (a directory)
LEDGER_INPUT = "faithfulness_budget_ledger"  # its path in an xdist worker's workerinput
WAIT_KEY = pytest.StashKey[str]()  # the run's shared rate-limit wait ledger (a directory)
WAIT_INPUT = "faithfulness_wait_ledger"
RATE_KEY = pytest.StashKey[str]()  # the run's shared rate ledger (a directory)
RATE_INPUT = "faithfulness_rate_ledger"
CANARY_KEY = pytest.StashKey[Any]()  # plugin.canaries.CanaryRunner: the judge canaries


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The judge and its fingerprint, the prompt version, the cache mode, the session
    thresholds and the canaries (``header.header_lines``; no judge is built or called)."""
    from .header import header_lines

    hook = config.pluginmanager.hook.pytest_faithfulness_make_judge
    return header_lines(get_settings(config), judge_hook=bool(hook.get_hookimpls()))


def pytest_addhooks(pluginmanager: Any) -> None:
    from .. import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "faithfulness(golden=False): a test that judges answer "
                            "faithfulness; golden=True: any claim not supported fails the gate")
    settings = settings_from_config(config)
    config.stash[SETTINGS_KEY] = settings
    warn_ignored_options(config, settings)
    register_known_keys(config, settings)
    tracker = RunTracker()
    config.stash[RUN_KEY] = tracker
    config.pluginmanager.register(tracker, "faithfulness-run-tracker")
    from .golden import GoldenCollector  # golden tests: run.golden

    config.pluginmanager.register(GoldenCollector(
        settings, lambda: _store(config), lambda: _existing_store(config),
        active=not config.getoption("collectonly", False), worker=is_worker(config)),
        "faithfulness-golden")
    from . import traces  # the trace fixtures and their windows (no opentelemetry import)

    config.pluginmanager.register(traces, "faithfulness-traces")
    if settings.canaries:
        from .canaries import CanaryRunner

        runner = CanaryRunner(config)
        config.stash[CANARY_KEY] = runner
        config.pluginmanager.register(runner, "faithfulness-canaries")
    _budget_ledger(config)
    _rate_ledger(config)
    _run_folder(config, WAIT_KEY, WAIT_INPUT, "faithfulness-wait-")


def _budget_ledger(config: pytest.Config) -> None:
    """With ``--faithfulness-budget-usd``: refuse a model litellm's price map cannot price
    (the main judge's or a ``--faithfulness-panel`` member's), and give the run one ledger of
    spend that every xdist worker shares (``_run_folder``)."""
    settings = get_settings(config)
    if settings.budget_usd is None:
        return
    if not is_worker(config):
        check_budget_prices(settings)
    _run_folder(config, LEDGER_KEY, LEDGER_INPUT, "faithfulness-budget-")


def _rate_ledger(config: pytest.Config) -> None:
    """With ``--faithfulness-max-rpm`` / ``-max-tpm``: one rate ledger for every xdist worker
    of this run, and for this run only (``_run_folder``): a later run, or a CI machine that
    restores the verdict cache, does not wait out an earlier run's spacing."""
    settings = get_settings(config)
    if settings.max_rpm is not None or settings.max_tpm is not None:
        _run_folder(config, RATE_KEY, RATE_INPUT, "faithfulness-rate-")


def _run_folder(config: pytest.Config, key: Any, input_name: str, prefix: str) -> None:
    """A folder for this run alone, shared by its xdist workers: the controller creates it
    (removed at the end) and passes its path in ``workerinput[input_name]``; it is kept in
    ``config.stash[key]``."""
    if is_worker(config):
        folder = worker_input(config).get(input_name)
        if folder:
            config.stash[key] = folder
        return
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix=prefix)
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    config.stash[key] = folder


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: hand the run's budget, rate and rate-limit wait ledgers to each worker."""
    for key, input_name in ((LEDGER_KEY, LEDGER_INPUT), (RATE_KEY, RATE_INPUT),
                            (WAIT_KEY, WAIT_INPUT)):
        folder = node.config.stash.get(key, None)
        if folder:
            node.workerinput[input_name] = folder


def get_settings(config: pytest.Config) -> Settings:
    """The run's ``Settings`` (built in ``pytest_configure``)."""
    return config.stash[SETTINGS_KEY]


def _store(config: pytest.Config) -> ResultStore:
    """The run's result store, built on first use."""
    store = config.stash.get(SESSION_KEY, None)
    if store is None:
        from ..run.results import ResultStore

        store = ResultStore()
        config.stash[SESSION_KEY] = store
    return store


def _existing_store(config: pytest.Config) -> ResultStore | None:
    return config.stash.get(SESSION_KEY, None)


# Fixtures ------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def faithfulness_judge(pytestconfig: pytest.Config):
    """The configured judge (``--faithfulness-judge``), wrapped in the verdict cache, with
    ``--faithfulness-votes`` and ``--faithfulness-panel`` applied (``judges.votes``).

    Override this fixture in a conftest to plug in your own judge (see ``judges.Judge``).
    The offline judge is not cached: it is faster than the cache. The cache is opened once
    per process (this fixture is session-scoped).
    """
    from .judge import open_configured_judge

    judge, close = open_configured_judge(pytestconfig)
    yield judge
    close()


@pytest.fixture
def assert_faithful(request: pytest.FixtureRequest, faithfulness_judge) -> FaithfulnessAssertion:
    """Judge an answer against its passages and assert it is faithful enough.

    With no ``min_score`` / ``max_unsupported`` from the call, the options or the ini, it
    asserts that every claim is supported. See ``assertion.FaithfulnessAssertion`` for the
    call signature.
    """
    from ..assertion import FaithfulnessAssertion
    from .golden import item_is_golden

    config = request.config
    settings = get_settings(config)
    item = request.node
    return FaithfulnessAssertion(
        _verbose_judge(config, _filtered_judge(config, faithfulness_judge)), _store(config),
        item.nodeid,
        min_score=settings.min_score, max_unsupported=settings.max_unsupported,
        concurrency=settings.concurrency, context_budget_chars=settings.context_budget,
        require_claims=settings.require_claims,
        publish=lambda result, index: _publish(item, result, index),
        conversation_window=settings.conversation_window, location=_location(item),
        judge_covers=settings.judge_covers, golden=item_is_golden(item, settings.golden))


def _location(item: pytest.Item) -> tuple[str | None, int | None]:
    """The test's file, relative to the repository root (``$GITHUB_WORKSPACE`` when set,
    else the rootdir), and its 1-based line (``None`` when pytest does not know it)."""
    import os

    from ..reports.annotations import repo_path

    line = item.location[1]
    return (repo_path(item.path, item.config.rootpath, os.environ.get("GITHUB_WORKSPACE")),
            None if line is None else line + 1)


@pytest.fixture
def assert_faithful_conversation(assert_faithful: FaithfulnessAssertion):
    """Judge the assistant turns of one conversation and assert each is faithful enough.

    ``assert_faithful_conversation(turns, *, window=None, min_score=None, ...)``: ``turns``
    are ``(answer, passages)`` pairs in order; each answer is judged against the passages of
    its turn and the earlier ones (the last ``window`` turns; default
    ``--faithfulness-conversation-window``, else all). See
    ``assertion.FaithfulnessAssertion.conversation``.
    """
    return assert_faithful.conversation


def _publish(item: pytest.Item, result: AnswerResult, index: int) -> None:
    """The answer's JUnit properties, then the report-sink hook."""
    from ..reports.junit import junit_properties

    item.user_properties.extend(junit_properties(result, index))
    item.config.hook.pytest_faithfulness_answer_result(result=result, item=item)


def _filtered_judge(config: pytest.Config, judge: Any) -> Any:
    """The judge behind the first filter as ``--faithfulness-first-filter`` says
    (``judges.first_filter.with_first_filter``; a judge from a conftest fixture too), one
    wrapper per judge for the whole session."""
    from ..judges.first_filter import with_first_filter

    wrappers = config.stash.setdefault(FILTER_KEY, {})
    if id(judge) not in wrappers:
        wrappers[id(judge)] = (judge, with_first_filter(judge, get_settings(config).first_filter))
    return wrappers[id(judge)][1]


def _verbose_judge(config: pytest.Config, judge: Any) -> Any:
    """Under ``-v`` (not in an xdist worker): the judge, wrapped so that each claim's verdict
    is printed as it arrives; otherwise the judge itself."""
    if (config.getoption("verbose", 0) or 0) < 1 or is_worker(config):
        return judge
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return judge
    wrappers = config.stash.setdefault(PROGRESS_KEY, {})
    if id(judge) not in wrappers:
        from ..judges.progress import progress_judge

        capture = config.pluginmanager.get_plugin("capturemanager")

        def emit(line: str) -> None:
            if capture is not None:
                with capture.global_and_fixture_disabled():
                    reporter.write_line(line)
            else:
                reporter.write_line(line)

        wrappers[id(judge)] = (judge, progress_judge(judge, emit))
    return wrappers[id(judge)][1]


# Calibration runs ----------------------------------------------------------------------------

def pytest_ignore_collect(collection_path: Any, config: pytest.Config) -> bool | None:
    """A calibration run collects no test files (they may need what it does not)."""
    if get_settings(config).calibrate and collection_path.is_file():
        return True
    return None


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """A calibration run judges the labelled file's records as tests, and nothing else."""
    path = get_settings(config).calibrate
    if not path:
        return
    from pathlib import Path

    from ..calibration import load_labelled

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
        from ..calibration import judge_record

        outcome = judge_record(record, faithfulness_judge)
        _store(config).record_calibration(outcome, faithfulness_judge)
        if outcome.error:
            raise AssertionError(f"judge error on {record.id}: {outcome.error}")

    return calibration_test


# The end of the session ----------------------------------------------------------------------

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Finish the run (``run.finish.finish_run``): a worker sends its results instead."""
    config = session.config
    store = _store_to_finish(session, exitstatus)
    if store is None:
        return
    if is_worker(config):
        worker_output(config)[WORKER_OUTPUT_KEY] = store.to_payload()
        return
    from ..run.finish import finish_run

    store.sort_results()  # every report lists the answers in test-id order
    outcome = finish_run(store, get_settings(config), test_exitstatus=int(session.exitstatus),
                         faces=_faces(config))
    config.stash[OUTCOME_KEY] = outcome
    if outcome.exitstatus is not None:  # always set by finish_run
        session.exitstatus = outcome.exitstatus


def _store_to_finish(session: pytest.Session, exitstatus: int) -> ResultStore | None:
    """The run's result store, told whether the run is complete; ``None`` when there is
    nothing to finish: no answer was judged, and no output or session threshold asks for
    one (a ``--collect-only`` run judges nothing by design)."""
    config = session.config
    settings = get_settings(config)
    store = _existing_store(config)
    if store is None:
        asked = settings.outputs_configured() or settings.session_threshold_flags()
        if is_worker(config) or config.getoption("collectonly", False) or not asked:
            return None
        store = _store(config)  # judged nothing: the gate and the outputs still say so
    incomplete = config.stash[RUN_KEY].incomplete_reason(session, exitstatus)
    if incomplete:
        store.mark_incomplete(incomplete if not is_worker(config) else
                              f"xdist worker {worker_input(config).get('workerid', '?')}: "
                              f"{incomplete}")
    return store


def _faces(config: pytest.Config) -> RunFaces:
    """What pytest adds to the end of the run: the tests' outcomes tell the silent misses,
    the git state of the rootdir, the ``pytest_faithfulness_gate`` hooks."""
    from ..run.finish import RunFaces
    from ..runs.saved import git_info

    def hooks(summary: Any, results: list[AnswerResult]) -> list[object]:
        answers: list[object] = config.hook.pytest_faithfulness_gate(
            summary=summary, results=results, config=config)
        return answers

    def emit(line: str) -> None:  # a line of its own: GitHub reads a command at a line's start
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            # xdist's progress line ("[100%]") may still be open; not known: end the line
            if getattr(getattr(reporter, "_tw", None), "width_of_current_line", 1):
                reporter.write_line("")
            reporter.write_line(line)
        else:
            print(line, flush=True)

    def judge() -> Any:  # --faithfulness-compare-rejudge: the configured judge, opened late
        from .judge import open_configured_judge

        return open_configured_judge(config)

    runner = config.stash.get(CANARY_KEY, None)
    return RunFaces(classify=config.stash[RUN_KEY].by_outcome,
                    find_git=lambda: git_info(config.rootpath), hooks=hooks, emit=emit,
                    canaries=runner.report if runner is not None else None, judge=judge)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Merge an xdist worker's payload; a worker that went down with an error (crashed)
    makes the run incomplete: the answers it judged since its last payload are lost."""
    config = node.config
    payload = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY)
    if payload:
        _store(config).merge_payload(payload)
    if error is not None:
        worker = getattr(node, "gateway", None)
        name = getattr(worker, "id", None) or str(node)
        config.stash[RUN_KEY].lost_workers.append(f"xdist worker {name} went down ({error})")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config):
    """The faithfulness section, written after pytest's own summaries (the short test summary
    included), so that the run's verdict is the last line before pytest's final count, in the
    colour of the exit status."""
    result = yield
    outcome = config.stash.get(OUTCOME_KEY, None)
    if is_worker(config) or outcome is None:
        return result
    from ..reports import terminal

    incomplete = outcome.incomplete
    if incomplete is None and exitstatus == pytest.ExitCode.INTERRUPTED:
        incomplete = "interrupted"  # never read an interrupted run as a pass
    # the plugin's sessionfinish set the run's final exit status (``outcome.exitstatus``)
    # after pytest passed this hook its own; an incomplete run never exits 0
    final = outcome.exitstatus if outcome.exitstatus is not None else int(exitstatus)
    exit_failed = final not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) \
        or int(exitstatus) not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) \
        or incomplete is not None
    reporter = terminalreporter
    if outcome.calibration is not None:
        reporter.section("faithfulness calibration")
        for line in terminal.calibration_section(outcome):
            reporter.write_line(terminal.terminal_text(line))
    if outcome.results or outcome.calibration is None:  # a run that judged nothing says so
        reporter.section("faithfulness")
        verbose = (config.getoption("verbose", 0) or 0) > 0
        reported = [] if verbose else _reported_in_failures(config, outcome)
        for line in terminal.outcome_lines(outcome, verbose=verbose, reported=reported):
            reporter.write_line(line)
        if outcome.report_path is not None:
            reporter.write_line(terminal.terminal_text(f"JSON report: {outcome.report_path}"))
        _write_ci_lines(reporter, outcome)
    verdict = outcome.verdict(exit_failed=exit_failed, incomplete=incomplete)
    lines = terminal.closing_lines(outcome, verdict)
    for line in outcome.closing_notes:  # the draft labels (runs.promote): above the outcome
        loud = line.startswith("WARNING")
        reporter.write_line(terminal.terminal_text(line), red=loud, bold=loud)
    for line in lines[:-1]:
        reporter.write_line(line, red=True, bold=True)
    colour = {"red": True} if verdict.failed else {"green": True}
    reporter.write_sep("=", lines[-1], bold=True, **colour)
    return result


def _reported_in_failures(config: pytest.Config, outcome: RunOutcome) -> list[AnswerResult]:
    """The answers whose per-claim report pytest already printed: those that missed their
    own thresholds in a test that failed (not xfail), when tracebacks show the
    ``AssertionError``'s message (``--tb`` auto, long, short or native). The faithfulness
    section names them without their claims, so that no claim is printed twice; under
    ``-v`` it repeats them with the judge's rationale."""
    if (config.getoption("tbstyle", "auto") or "auto") not in ("auto", "long", "short",
                                                                "native"):
        return []
    return config.stash[RUN_KEY].reported_in_failures(outcome.failing)


def _write_ci_lines(terminalreporter: Any, outcome: RunOutcome) -> None:
    """Files written, baseline notes, and the comparison with the saved run (loud warnings);
    every line sanitised for the terminal."""
    from ..reports.terminal import comparison_lines, terminal_text

    for line in outcome.notes:
        loud = line.startswith("WARNING")
        terminalreporter.write_line(terminal_text(line), red=loud, bold=loud)
    lines = comparison_lines(outcome.comparison) if outcome.comparison is not None else []
    if lines:
        terminalreporter.section("faithfulness comparison")
        for line in lines:
            loud = line.startswith(("WARNING", "REGRESSION"))
            terminalreporter.write_line(terminal_text(line), red=loud, bold=loud)
