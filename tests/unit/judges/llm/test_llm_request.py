"""What the LLM judge sends, and what of it keys the verdict cache: the endpoint (whatever set
it) and the sampling temperature.

Real parts throughout: litellm's client, scripted servers on 127.0.0.1, a diskcache directory
under ``tmp_path``, pytest runs through ``pytester``.
"""

from __future__ import annotations

import json

import pytest
from chat_server import ScriptedChatServer
from scripted_model import (
    MODEL,
    ORBIT_ANSWER,
    ORBIT_PASSAGES,
    claims_reply,
    judge_model,
    supports_verbatim,
    unsupported,
)

import pytest_faithfulness
from pytest_faithfulness import LiteLLMJudge
from pytest_faithfulness.cache import CachedJudge


def server_a_handler():
    """Server A's model: supports the claim."""
    return judge_model(claims_reply([ORBIT_ANSWER]), supports_verbatim)


def server_b_handler():
    """Server B's model: finds no support."""
    return judge_model(claims_reply([ORBIT_ANSWER]), lambda p, c: unsupported())


def run_cached(model: str, directory, **options) -> pytest_faithfulness.AnswerResult:
    """One evaluation through a fresh cache object on ``directory`` (as a new pytest run)."""
    judge = CachedJudge(LiteLLMJudge(model, timeout=10, backoff_base=0.01, **options), directory)
    try:
        return pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)
    finally:
        judge.close()


# --------------------------------------------------------------------------------------------
# The endpoint set through the environment is part of the cache key.

@pytest.mark.parametrize(("model", "variable"), [
    (MODEL, "OPENAI_BASE_URL"),
    (MODEL, "OPENAI_API_BASE"),
    ("litellm_proxy/scripted", "LITELLM_PROXY_API_BASE"),
    ("hosted_vllm/scripted", "HOSTED_VLLM_API_BASE"),  # litellm's <PROVIDER>_API_BASE rule
])
def test_endpoint_switched_through_the_environment_is_a_cache_miss(chat_server, tmp_path,
                                                                  monkeypatch, model, variable):
    directory = tmp_path / "cache"
    chat_server.handler = server_a_handler()
    with ScriptedChatServer(server_b_handler()) as server_b:
        monkeypatch.setenv(variable, chat_server.base_url)
        first = run_cached(model, directory)
        assert first.status == "scored" and first.score == 1.0, first.error
        assert len(chat_server.requests) == 2 and server_b.requests == []

        monkeypatch.setenv(variable, server_b.base_url)
        second = run_cached(model, directory)

        assert len(server_b.requests) == 2  # B was asked: decompose and verify
        assert len(chat_server.requests) == 2
    assert second.status == "scored" and second.score == 0.0  # B's verdict, not A's
    assert [c.label for c in second.claims] == ["unsupported"]
    assert "127.0.0.1:%d" % server_b.port in second.judge


@pytest.mark.parametrize(("model", "variable"), [
    ("hosted_vllm/scripted", "HOSTED_VLLM_API_BASE"),
    ("hosted_vllm/scripted", None),  # the explicit api_base
])
def test_endpoint_differing_only_in_its_query_string_is_a_cache_miss(chat_server, tmp_path,
                                                                     monkeypatch, model, variable):
    """Same host and path, ``?tenant=a`` then ``?tenant=b``: the second run is asked again.
    (litellm appends the route after the query for these providers; the scripted server
    serves that form, see ``chat_server``.)"""
    directory = tmp_path / "cache"
    chat_server.handler = server_a_handler()

    def run(tenant: str):
        url = f"{chat_server.base_url}?tenant={tenant}"
        if variable:
            monkeypatch.setenv(variable, url)
            return run_cached(model, directory)
        return run_cached(model, directory, api_base=url)

    first = run("a")
    chat_server.handler = server_b_handler()  # a served cache hit would keep A's verdict
    second = run("b")

    queries = [record.query for record in chat_server.records]
    assert queries == ["tenant=a", "tenant=a", "tenant=b", "tenant=b"]
    assert first.score == 1.0 and second.score == 0.0


def test_same_environment_endpoint_is_a_cache_hit(chat_server, tmp_path, monkeypatch):
    chat_server.handler = server_a_handler()
    monkeypatch.setenv("OPENAI_BASE_URL", chat_server.base_url)
    first = run_cached(MODEL, tmp_path / "cache")
    second = run_cached(MODEL, tmp_path / "cache")
    assert len(chat_server.requests) == 2
    assert first.score == second.score == 1.0


@pytest.mark.parametrize("secret", ["sk-proj-Q2xhdWRlIGRvZXMgbm90IGxlYWsga2V5cw",
                                    "d3b07384d113edec49eaa6238ad5ff00d3b07384"])
def test_endpoint_credentials_never_reach_a_report(monkeypatch, secret):
    """User info and key-like query values are hidden in the fingerprint and description; the
    cache key still tells two keys apart."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"https://judge:hunter2-pass@gw.example/v1"
                                          f"?api-version=2024-06-01&subscription-key={secret}")
    judge = LiteLLMJudge(MODEL)
    fingerprint = judge.fingerprint()
    shown = json.dumps(fingerprint) + judge.describe()

    assert secret not in shown and "hunter2" not in shown
    assert "https://gw.example/v1?api-version=2024-06-01&subscription-key=[REDACTED]" in shown
    assert fingerprint["endpoint"].startswith("https://gw.example/v1")

    monkeypatch.setenv("OPENAI_BASE_URL", f"https://judge:hunter2-pass@gw.example/v1"
                                          f"?api-version=2024-06-01&subscription-key={secret}x")
    assert judge.fingerprint()["endpoint_key"] != fingerprint["endpoint_key"]


def test_explicit_api_base_wins_over_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    judge = LiteLLMJudge(MODEL, api_base="http://127.0.0.1:8/v1")
    assert judge.fingerprint()["endpoint"] == "http://127.0.0.1:8/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:7/v1")
    assert LiteLLMJudge(MODEL, api_base="http://127.0.0.1:8/v1").fingerprint() == \
        judge.fingerprint()


# --------------------------------------------------------------------------------------------
# Temperature.

@pytest.mark.parametrize("model", ["openai/o3-mini", "openai/gpt-5-mini", "openai/o1"])
def test_reasoning_model_with_a_fixed_temperature_is_sent_none(chat_server, model):
    """litellm knows these models take only their default temperature: the judge sends none
    and still works (it used to fail every call with temperature 0)."""
    chat_server.handler = server_a_handler()
    judge = LiteLLMJudge(model, api_base=chat_server.base_url, timeout=10)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert result.status == "scored" and result.score == 1.0, result.error
    assert len(chat_server.requests) == 2
    assert all("temperature" not in request for request in chat_server.requests)
    assert "temperature: provider default" in judge.describe()


def test_temperature_is_sent_where_the_model_accepts_it(chat_server):
    chat_server.handler = server_a_handler()
    judge = LiteLLMJudge("openai/gpt-4o-mini", api_base=chat_server.base_url, temperature=0.7)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert result.status == "scored", result.error
    assert [r["temperature"] for r in chat_server.requests] == [0.7, 0.7]
    assert "temperature 0.7" in judge.describe()


def test_temperature_is_in_the_fingerprint():
    default = LiteLLMJudge(MODEL).fingerprint()
    assert default["temperature"] == 0.0
    assert LiteLLMJudge(MODEL, temperature=0.7).fingerprint() != default
    assert LiteLLMJudge(MODEL, temperature=0).fingerprint() == default


@pytest.mark.parametrize("value", [-0.1, float("nan"), float("inf"), "0.5", True])
def test_bad_temperature_is_refused(value):
    with pytest.raises(ValueError, match="temperature"):
        LiteLLMJudge(MODEL, temperature=value)


SUITE = f'''
def test_it(assert_faithful):
    assert_faithful({ORBIT_ANSWER!r}, {ORBIT_PASSAGES!r})
'''


@pytest.mark.parametrize("how", ["flag", "ini"])
def test_temperature_option_reaches_the_request_and_the_report(chat_server, pytester, how):
    chat_server.handler = server_a_handler()
    pytester.makepyfile(test_temp=SUITE)
    args = ["-p", "no:cacheprovider", "--faithfulness-judge", MODEL,
            "--faithfulness-api-base", chat_server.base_url, "--faithfulness-no-cache",
            "--faithfulness-report", "r.json",
            "--faithfulness-first-filter", "off"]  # every claim reaches the server
    if how == "flag":
        args += ["--faithfulness-temperature", "0.7"]
    else:
        pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n"
                         "faithfulness_temperature = 0.7\nfaithfulness_canaries = 0\n")

    result = pytester.runpytest(*args)

    assert result.ret == 0, result.stdout.str()
    assert [r["temperature"] for r in chat_server.requests] == [0.7, 0.7]
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert "temperature 0.7" in report["answers"][0]["judge"]


@pytest.mark.parametrize("value", ["-1", "warm", "nan"])
def test_bad_temperature_option_is_a_usage_error(pytester, value):
    pytester.makepyfile(test_temp="def test_it():\n    pass\n")
    result = pytester.runpytest("--faithfulness-temperature", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--faithfulness-temperature*"])
