"""Shared fixtures: a scripted OpenAI-compatible server per test, and no network ever.

* ``chat_server``: a ``chat_server.ScriptedChatServer`` (``tests/helpers/``) on 127.0.0.1 (a
  free port), started for the test and closed after it. Script it with
  ``chat_server.handler = ...``.
* Every test runs with a dummy ``OPENAI_API_KEY`` and without provider base-URL or proxy
  variables, so nothing can reach a real provider.
* The whole session runs with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (litellm reads its price
  map from the package instead of fetching it) and with outbound connections limited to
  loopback: a connect to any other address fails at once with ``NetworkBlocked``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HELPERS = str(Path(__file__).resolve().parent / "helpers")
if _HELPERS not in sys.path:  # ``tests/helpers`` importable whatever the import mode
    sys.path.insert(0, _HELPERS)

from chat_server import ScriptedChatServer  # noqa: E402
from loopback_guard import install as install_loopback_guard  # noqa: E402

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
               "all_proxy")
_PROVIDER_VARS = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION",
                  "OPENAI_PROJECT", "LITELLM_PROXY_API_BASE", "LITELLM_PROXY_API_KEY",
                  "USE_LITELLM_PROXY")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """pytest-xdist on by default for this suite: ``-n auto`` (one worker per CPU) unless the
    command line says otherwise (``-n 0`` runs in one process; ``-p no:xdist`` drops the
    plugin). Here and not in the ini's ``addopts``: the root ini also serves the example
    suite (``pytest conftest_examples``), which runs without the test extra and so without
    xdist, where ``-n`` would be an unknown option. This conftest is read only for runs under
    ``tests/``; it runs before xdist's own ``pytest_cmdline_main``, which turns the worker
    count into ``--dist load``. Off in the workers, under ``--pdb`` and for
    ``--collect-only``."""
    if (not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput")
            or config.getoption("numprocesses", None) is not None
            or config.getoption("usepdb", False) or config.getoption("collectonly", False)):
        return
    config.option.numprocesses = "auto"


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to open a connection to a non-loopback address."""


@pytest.fixture(scope="session", autouse=True)
def _offline_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Session-wide: local litellm cost map, no proxies, loopback-only connections, and a
    ``XDG_CACHE_HOME`` of the session's own (the checks' memo key, ``checkmemo``, is never
    written to the home directory of whoever runs the tests)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        mp.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        mp.setenv("LITELLM_TELEMETRY", "False")
        for name in _PROXY_VARS:
            mp.delenv(name, raising=False)
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        uninstall = install_loopback_guard(
            lambda address: NetworkBlocked(f"tests must not touch the network (connect to "
                                           f"{address!r})"))
        try:
            yield
        finally:
            uninstall()


@pytest.fixture(autouse=True)
def _dummy_provider_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dummy OpenAI key and no provider base URL from the environment, for every test."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-real-key")
    for name in _PROVIDER_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def chat_server(litellm_loaded: None) -> Iterator[ScriptedChatServer]:
    """A scripted chat-completions server for this test (see ``tests/helpers/chat_server.py``).

    litellm is imported in this process first: pytester's in-process runs snapshot and
    restore ``sys.modules``, and a litellm first imported inside an inner run, then unloaded,
    breaks entry-point plugin discovery for the next inner run.

    The server answers 500 when the test's own script raises; the test then errors at
    teardown with that exception, so a broken script never passes for a judge failure.
    """
    server = ScriptedChatServer()
    try:
        yield server
    finally:
        server.close()
    if server.errors:
        first = server.errors[0]
        pytest.fail(f"the chat_server script raised {len(server.errors)} time(s); first: "
                    f"{type(first).__name__}: {first}", pytrace=False)


@pytest.fixture(scope="session")
def litellm_loaded() -> None:
    """litellm imported once, before any function-scoped fixture: timings then measure the
    judge and not the import, and pytester's per-test ``sys.modules`` snapshots never unload
    and reload it (a reload breaks plugin and package-metadata discovery in later runs)."""
    import litellm  # noqa: F401


INI = ("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
       "addopts = -p no:hypothesispytest -p no:langsmith_plugin\nfaithfulness_canaries = 0\n")


@pytest.fixture(autouse=True)
def _quiet_inner_runs(request):
    """Inner runs get an ini that settles pytest-asyncio's default (it warns otherwise) and
    leaves Hypothesis's pytest plugin out: no inner suite uses it, and loading it costs about
    a second of CPU in each process an inner run starts (a subprocess, each xdist worker).
    It also turns the judge canaries off (``faithfulness_canaries = 0``): the inner suites
    count their judge calls and print their sections exactly, and the canaries (their own
    extra calls and section) are tested where they are the subject
    (``tests/plugin/test_canaries_run.py``, which turns them on)."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester").makeini(INI)


@pytest.fixture(autouse=True)
def _no_github_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest runs must not append their Markdown summaries to the real GitHub Actions
    step summary of the run that tests this project, nor print workflow commands (error
    annotations) into its log: a test that wants them sets these itself."""
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """The scripted CI suite of ``faithfulness_ci_suite.write_suite``, written into pytester."""
    from faithfulness_ci_suite import write_suite

    return write_suite(pytester)
