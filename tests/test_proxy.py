"""Through a judge gateway: the litellm proxy's limits, budgets and virtual key (issue 15).

Two layers, both with litellm's real client:

* The answers a litellm proxy gives, scripted on the loopback chat-completions server
  (``chat_server``): "limit reached" (429, with or without a hint of how long to wait) is
  waited out; "budget exceeded" in each of the proxy's forms (and a provider's spent quota)
  is final at once, errors the answer and fails the gate naming the budget.
* A real ``litellm`` proxy (the ``litellm[proxy]`` extra, in the test extra) started on
  127.0.0.1 in front of loopback servers, with a model rate limit and a budget from its
  config, and a sharded suite (two pytest processes, ``-n 2`` each) run through it. Skipped,
  with the reason, where the extra is not installed.
"""

from __future__ import annotations

import datetime
import email.utils
import importlib.util
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from chat_server import Reply, ScriptedChatServer
from scripted_model import (
    KESTREL_ANSWER,
    KESTREL_PASSAGES,
    ORBIT_ANSWER,
    ORBIT_PASSAGES,
    claims_reply,
    judge_model,
    make_judge,
    parse_request,
    sequence_per_call,
    supports_verbatim,
    verify_requests,
)

import pytest_faithfulness
from pytest_faithfulness import LiteLLMJudge
from pytest_faithfulness.accounting import GATEWAY_BUDGET_SPENT
from pytest_faithfulness.gate import GateConfig, gate_failures
from pytest_faithfulness.records import SessionSummary

SUPPORTED = {"label": "supported", "passage_ids": ["1"], "quote": KESTREL_ANSWER}

#: The proxy's model rate limit (litellm 1.108: router_utils/pre_call_checks/
#: model_rate_limit_check.py): HTTP 429, no Retry-After relayed to the client.
PROXY_RATE_LIMITED = Reply.error(429, body={"error": {
    "message": "litellm.RateLimitError: Model rate limit exceeded. RPM limit=3, current "
               "usage=4\n\nLiteLLM: model group 'judge' failed with the error above. No "
               "fallback was attempted.", "type": "throttling_error", "param": None,
    "code": "429"}})


def authorization(record) -> str | None:
    return {k.lower(): v for k, v in record.headers.items()}.get("authorization")


def gate_reasons(result: pytest_faithfulness.AnswerResult) -> list[str]:
    return gate_failures(SessionSummary.of([result]), [result], GateConfig(min_mean=0.5))


# --------------------------------------------------------------------------------------------
# "Limit reached": waited out, beyond max_retries, within rate_limit_wait.

def test_proxy_rate_limit_without_a_hint_is_waited_out_beyond_max_retries(chat_server):
    """The proxy's 429 carries no Retry-After: five of them, then the verdict; max_retries=1
    bounds failures, not waits for a limit."""
    chat_server.handler = judge_model(
        claims_reply([KESTREL_ANSWER]),
        sequence_per_call(*[PROXY_RATE_LIMITED] * 5, SUPPORTED))
    judge = make_judge(chat_server, max_retries=1, backoff_base=0.01, backoff_max=0.05)

    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES, judge)

    assert result.status == "scored" and result.score == 1.0, result.error
    assert len(verify_requests(chat_server)) == 6
    assert judge.retries == 5


def _http_date(seconds_ahead: float) -> str:
    when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds_ahead)
    return email.utils.format_datetime(when, usegmt=True)


@pytest.mark.parametrize(("headers", "at_least"), [
    ({"retry-after-ms": "600"}, 0.55),
    ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "0.6s"}, 0.55),
    ({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "600ms",
      "x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "6m0s"}, 0.55),
    (None, 0.9),  # Retry-After as an HTTP date, 2 s ahead (one-second resolution)
], ids=["retry-after-ms", "reset-requests", "reset-tokens", "retry-after-date"])
def test_rate_limit_hint_is_honoured_in_full(chat_server, headers, at_least):
    """The reply's hint is waited in full, though backoff_max (0.05 s) is far shorter."""
    def verify(passages, claim):
        if len(verify_requests(chat_server)) == 1:
            return Reply.error(429, headers=headers or {"Retry-After": _http_date(2)})
        return SUPPORTED

    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]), verify)
    judge = make_judge(chat_server, max_retries=0, backoff_base=0.01, backoff_max=0.05)

    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES, judge)

    assert result.status == "scored", result.error
    first, second = [r for r in chat_server.records if parse_request(r.json)[0] == "verify"]
    assert second.received_at - first.received_at >= at_least


def test_rate_limit_still_reached_after_rate_limit_wait_errors_the_answer(chat_server):
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]),
                                      lambda p, c: PROXY_RATE_LIMITED)
    judge = make_judge(chat_server, max_retries=3, backoff_base=0.05, backoff_max=0.1,
                       rate_limit_wait=0.4)

    started = time.monotonic()
    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES, judge)

    assert time.monotonic() - started < 5
    assert result.status == "error" and result.score is None and not result.passed
    assert "rate limit still reached after waiting 0.4 s" in result.error
    assert len(verify_requests(chat_server)) >= 3  # asked again while the wait lasted
    assert any("errored" in reason for reason in gate_reasons(result))


def test_rate_limit_wait_must_be_a_number_of_seconds():
    for bad in (-1, float("inf"), float("nan"), True, "60"):
        with pytest.raises(ValueError, match="rate_limit_wait"):
            LiteLLMJudge("openai/scripted", rate_limit_wait=bad)


# --------------------------------------------------------------------------------------------
# "Budget exceeded": final at once, whatever the status; the gate names the budget.

def _error(status: int, message: str, type_: str, code: str | None = None) -> Reply:
    return Reply.error(status, body={"error": {"message": message, "type": type_,
                                               "param": None, "code": code or str(status)}})


SPENT = {
    # litellm's proxy from 1.108 (litellm.budget_exceeded_status_code = 422)
    "proxy-422": _error(422, "Budget has been exceeded! Current cost: 0.2, Max budget: 0.1",
                        "budget_exceeded"),
    # the same from older proxies, as a 429: waiting would only burn rate_limit_wait
    "proxy-429": _error(429, "Budget has been exceeded! Current cost: 0.2, Max budget: 0.1",
                        "budget_exceeded"),
    # a virtual key's budget
    "proxy-key-400": _error(400, "ExceededTokenBudget: Current spend for token: 0.2; Max "
                                 "Budget for Token: 0.1", "budget_exceeded"),
    # the proxy's router: a deployment budget from the config (no database needed), a 429
    # whose type says nothing of budgets
    "router-429": _error(429, "No deployments available - crossed budget: Exceeded budget "
                              "for deployment model_name: judge-budget, litellm_params.model: "
                              "openai/scripted: 0.126 >= 1d\n", "internal_server_error"),
    # a provider's own quota (OpenAI), and a credit balance (Anthropic's words)
    "openai-quota-429": _error(429, "You exceeded your current quota, please check your plan "
                                    "and billing details.", "insufficient_quota",
                               "insufficient_quota"),
    "credit-400": _error(400, "Your credit balance is too low to access the API.",
                         "invalid_request_error"),
}


@pytest.mark.parametrize("name", sorted(SPENT))
def test_spent_budget_is_final_and_fails_the_gate_naming_it(chat_server, name):
    chat_server.handler = lambda request: SPENT[name]
    judge = make_judge(chat_server, max_retries=3, rate_limit_wait=30)

    started = time.monotonic()
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert time.monotonic() - started < 5  # not waited on
    assert len(chat_server.requests) == 1  # and not asked again
    assert result.status == "error" and result.score is None and not result.passed
    assert GATEWAY_BUDGET_SPENT in result.error
    assert f"127.0.0.1:{chat_server.port}" in result.error  # where it was refused
    reasons = gate_reasons(result)
    assert any("budget or quota is spent" in reason for reason in reasons), reasons


def test_spent_budget_on_a_claim_fails_the_gate_naming_it(chat_server):
    """Decomposed, then the budget ran out on the verify call: the claim's note and the
    answer's error both say so."""
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]),
                                      lambda p, c: SPENT["router-429"])
    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES,
                                          make_judge(chat_server))

    assert result.status == "error" and result.claims[0].verdict is None
    assert GATEWAY_BUDGET_SPENT in result.claims[0].note
    assert len(verify_requests(chat_server)) == 1
    assert any("budget or quota is spent" in reason for reason in gate_reasons(result))


@pytest.mark.parametrize("message", [
    "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit "
    "30000, Requested 52000.",
    "Request too large for model on tokens per min. Limit 1000, Requested 4000.",
])
def test_request_larger_than_the_limit_is_not_waited_on(chat_server, message):
    chat_server.handler = lambda request: _error(429, message, "tokens", "rate_limit_exceeded")
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, rate_limit_wait=30))

    assert result.status == "error" and "larger than the rate limit allows" in result.error
    assert len(chat_server.requests) == 1


def test_rate_limit_words_without_a_budget_are_waited_out(chat_server):
    """"limit exceeded" is not "budget exceeded": a 429 saying only that is waited out."""
    limited = _error(429, "Rate limit exceeded: limit_type=requests, max 3 per minute",
                     "throttling_error")
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]),
                                      sequence_per_call(limited, limited, SUPPORTED))
    result = pytest_faithfulness.evaluate(
        KESTREL_ANSWER, KESTREL_PASSAGES,
        make_judge(chat_server, max_retries=0, backoff_base=0.01, backoff_max=0.05))

    assert result.status == "scored", result.error
    assert len(verify_requests(chat_server)) == 3


# --------------------------------------------------------------------------------------------
# The virtual key: litellm's LITELLM_PROXY_API_KEY; never in a report, never in the cache key.

VIRTUAL_KEY = "sk-proxy-virtual-key-0123456789abcdef"


def test_virtual_key_is_sent_and_the_endpoint_not_the_key_keys_the_cache(chat_server,
                                                                         monkeypatch):
    monkeypatch.setenv("LITELLM_PROXY_API_KEY", VIRTUAL_KEY)
    chat_server.handler = judge_model(claims_reply([ORBIT_ANSWER]), supports_verbatim)
    judge = make_judge(chat_server.base_url.rsplit("/v1", 1)[0], model="litellm_proxy/judge")

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert result.status == "scored" and result.score == 1.0, result.error
    assert {authorization(r) for r in chat_server.records} == {f"Bearer {VIRTUAL_KEY}"}
    assert {r.json["model"] for r in chat_server.records} == {"judge"}  # the proxy's alias
    fingerprint = judge.fingerprint()
    monkeypatch.setenv("LITELLM_PROXY_API_KEY", "sk-proxy-another-key-fedcba9876543210")
    assert judge.fingerprint() == fingerprint  # the key is a credential, not the judge
    other = make_judge("http://127.0.0.1:1", model="litellm_proxy/judge")
    assert other.fingerprint()["endpoint_key"] != fingerprint["endpoint_key"]
    shown = json.dumps(fingerprint) + judge.describe() + json.dumps(result.model_dump(mode="json"))
    assert VIRTUAL_KEY not in shown


@pytest.mark.parametrize("model", ["litellm_proxy/judge", "openai/judge"])
def test_missing_virtual_key_names_the_variable(chat_server, monkeypatch, model):
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("LITELLM_PROXY_API_KEY", raising=False)
    monkeypatch.setenv("USE_LITELLM_PROXY", "true")  # litellm: every model via the proxy
    monkeypatch.setenv("LITELLM_PROXY_API_BASE", chat_server.base_url)
    judge = LiteLLMJudge(model, timeout=10, backoff_base=0.01)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert result.status == "error"
    assert f"no API key for {model}: set LITELLM_PROXY_API_KEY" in result.error
    assert chat_server.requests == []


@pytest.mark.parametrize("echo", [
    "Authentication Error, Invalid proxy server token passed. Received API Key = {key}",
    'Authentication Error: {{"api_key": "{key}"}} is not a valid key',
])
def test_virtual_key_echoed_by_the_proxy_is_redacted(chat_server, monkeypatch, echo):
    monkeypatch.setenv("LITELLM_PROXY_API_KEY", VIRTUAL_KEY)
    chat_server.handler = lambda request: _error(401, echo.format(key=VIRTUAL_KEY), "auth_error")
    result = pytest_faithfulness.evaluate(
        ORBIT_ANSWER, ORBIT_PASSAGES, make_judge(chat_server, model="litellm_proxy/judge"))

    assert result.status == "error" and "AuthenticationError" in result.error
    assert VIRTUAL_KEY not in json.dumps(result.model_dump(mode="json"))
    assert "[REDACTED]" in result.error
