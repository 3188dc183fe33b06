"""Shared fixtures: a scripted OpenAI-compatible server per test, and no network ever.

* ``chat_server``: a ``chat_server.ScriptedChatServer`` on 127.0.0.1 (a free port), started
  for the test and closed after it. Script it with ``chat_server.handler = ...``.
* Every test runs with a dummy ``OPENAI_API_KEY`` and without provider base-URL or proxy
  variables, so nothing can reach a real provider.
* The whole session runs with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (litellm reads its price
  map from the package instead of fetching it) and with outbound connections limited to
  loopback: a connect to any other address fails at once with ``NetworkBlocked``.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # ``chat_server`` is importable whatever the import mode
    sys.path.insert(0, _HERE)

from chat_server import ScriptedChatServer  # noqa: E402

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
               "all_proxy")
_PROVIDER_VARS = ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION",
                  "OPENAI_PROJECT", "LITELLM_PROXY_API_BASE")


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to open a connection to a non-loopback address."""


def _is_loopback(address: object) -> bool:
    host = address[0] if isinstance(address, tuple) and address else address
    if not isinstance(host, str):
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(scope="session", autouse=True)
def _offline_session() -> Iterator[None]:
    """Session-wide: local litellm cost map, no proxies, loopback-only connections."""
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex

    def guarded(sock: socket.socket, address: object) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address):
            raise NetworkBlocked(f"tests must not touch the network (connect to {address!r})")

    def connect(self: socket.socket, address: object) -> None:
        guarded(self, address)
        return original_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        guarded(self, address)
        return original_connect_ex(self, address)

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        mp.setenv("LITELLM_TELEMETRY", "False")
        for name in _PROXY_VARS:
            mp.delenv(name, raising=False)
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket.socket, "connect_ex", connect_ex)
        yield


@pytest.fixture(autouse=True)
def _dummy_provider_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dummy OpenAI key and no provider base URL from the environment, for every test."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy-not-a-real-key")
    for name in _PROVIDER_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def chat_server(litellm_loaded: None) -> Iterator[ScriptedChatServer]:
    """A scripted chat-completions server for this test (see ``tests/chat_server.py``).

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


INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"


@pytest.fixture(autouse=True)
def _quiet_inner_runs(request):
    """Inner runs get an ini that settles pytest-asyncio's default (it warns otherwise)."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester").makeini(INI)


@pytest.fixture(autouse=True)
def _no_github_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest runs must not append their Markdown summaries to the real GitHub Actions
    step summary of the run that tests this project."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
