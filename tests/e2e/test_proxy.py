"""Through a judge gateway: the litellm proxy's limits, budgets and virtual key (issue 15).

Two layers, both with litellm's real client:

* The answers a litellm proxy gives, scripted on the loopback chat-completions server
  (``chat_server``): "limit reached" (429, with or without a hint of how long to wait) is
  waited out; "budget exceeded" in each of the proxy's forms (and a provider's spent quota)
  is final at once, errors the answer and fails the gate naming the budget.
* A real ``litellm`` proxy (the ``litellm[proxy]`` extra, in the test extra) started on
  127.0.0.1 in front of loopback servers, with a model rate limit and a budget from its
  config, and a sharded suite (two pytest processes, ``-n 2`` each where no limit is set, one
  process each through the limits) run through it. Skipped, with the reason, where the extra
  is not installed.
"""

from __future__ import annotations

import datetime
import email.utils
import importlib.util
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from chat_server import Reply, ScriptedChatServer
from repo_paths import HELPERS
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
from pytest_faithfulness.run.gate import GateConfig, gate_failures
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

    assert time.monotonic() - started < 30  # gave up after its 0.4 s, not the default 300 s
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
    judge = make_judge(chat_server, max_retries=3, rate_limit_wait=300)

    started = time.monotonic()
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert time.monotonic() - started < 60  # not waited on (a wait would run to 300 s)
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
    ("Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit "
     "30000, Requested 52000."),
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


# --------------------------------------------------------------------------------------------
# A real litellm proxy in front of loopback servers, and a sharded suite run through it.

#: What the proxy needs beyond litellm itself (``litellm[proxy]``, in the test extra).
PROXY_MODULES = ("fastapi", "uvicorn", "backoff", "orjson", "apscheduler", "yaml")

#: The proxy config of the test (and of docs/ci.md's example). Each alias is one upstream
#: loopback server; ``rpm`` is enforced per UTC minute for every client of the proxy by the
#: router's ``enforce_model_rate_limits`` check; ``max_budget`` / ``budget_duration`` on a
#: deployment is a budget the router keeps in memory (or in Redis, shared by proxy
#: replicas), with no database; prices per token make the spend count.
PROXY_CONFIG = """\
model_list:
  - model_name: judge
    litellm_params:
      model: openai/scripted
      api_base: {open}
      api_key: upstream-key-of-the-test
  - model_name: judge-limited
    litellm_params:
      model: openai/scripted
      api_base: {limited}
      api_key: upstream-key-of-the-test
      rpm: {rpm}
  - model_name: judge-budget
    litellm_params:
      model: openai/scripted
      api_base: {budget}
      api_key: upstream-key-of-the-test
      max_budget: 1.0
      budget_duration: 1d
      input_cost_per_token: 0.001
      output_cost_per_token: 0.001
router_settings:
  optional_pre_call_checks: ["enforce_model_rate_limits"]
general_settings:
  master_key: os.environ/FAITHFULNESS_PROXY_MASTER_KEY
"""

#: The proxy process: litellm's own CLI (``litellm --config ... --port ... --host ...``) under
#: the loopback guard; every connection it tries beyond 127.0.0.1 is refused and logged.
PROXY_MAIN = """\
import sys
sys.path.insert(0, {tests!r})
from loopback_guard import install


def refuse(address):
    with open({refused!r}, "a", encoding="utf-8") as log:
        log.write(repr(address) + "\\n")
    return ConnectionRefusedError(f"the test's proxy must stay on loopback ({{address!r}})")


install(refuse)
from litellm.proxy.proxy_cli import run_server

sys.argv[0] = "litellm"
run_server()
"""

MASTER_KEY = "sk-faithfulness-proxy-master-0123456789abcdef"
RPM = 20  # the suite makes 36 calls: one UTC minute cannot serve them all

#: The inner suite: 12 answers in two shard files; a claim is supported when the passage
#: states it word for word (answers 3, 7 and 11 add a sentence no passage states).
CASES = [{"answer": f"The K{i} kettle holds {i + 1} litres. It ships in {i + 2} days." if
          i % 4 != 3 else f"The K{i} kettle holds {i + 1} litres. It is made of copper.",
          "passages": [{"id": "p1", "text": f"The K{i} kettle holds {i + 1} litres. "
                                            f"It ships in {i + 2} days."}]}
         for i in range(12)]

SHARD_TEST = """\
import json
import pathlib

import pytest

CASES = json.loads((pathlib.Path(__file__).parent / "cases.json").read_text())


@pytest.mark.parametrize("i", range({start}, {stop}))
def test_answer(i, assert_faithful):
    assert_faithful(CASES[i]["answer"], CASES[i]["passages"], min_score=0)
"""

INNER_CONFTEST = """\
import sys

sys.path.insert(0, {tests!r})
from loopback_guard import install

install(lambda address: ConnectionRefusedError(f"the suite must stay on loopback ({{address!r}})"))
"""


def sentences_model() -> Any:
    """The upstream model: sentences are claims; supported when a passage states them."""
    def decompose(answer: str) -> dict:
        return {"claims": [s.strip() + ("" if s.strip().endswith(".") else ".")
                           for s in answer.split(". ") if s.strip()], "dropped": []}
    return judge_model(decompose, supports_verbatim)


def missing_proxy_modules() -> list[str]:
    missing = []
    for name in PROXY_MODULES + ("litellm.proxy.proxy_cli",):
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            found = None
        if found is None:
            missing.append(name)
    return missing


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of the proxy and the shards: no proxy variables, no provider URLs,
    litellm's bundled price map, no telemetry."""
    env = {k: v for k, v in os.environ.items()
           if k.upper() not in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "GITHUB_STEP_SUMMARY",
                                "PYTEST_ADDOPTS", "OPENAI_BASE_URL", "OPENAI_API_BASE",
                                "LITELLM_PROXY_API_BASE", "LITELLM_PROXY_API_KEY",
                                "USE_LITELLM_PROXY")}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", LITELLM_TELEMETRY="False",
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
               OPENAI_API_KEY="sk-test-dummy-not-a-real-key", PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


class Run:
    """One run of the inner suite: one pytest process per shard file (``-n 2`` each with
    ``xdist``, else ``-p no:xdist``), each
    saving its run as ``shard-N`` in the run's own storage folder (``runs-<name>``), which
    ``merge`` merges with the ``pytest-faithfulness merge`` console script."""

    def __init__(self, folder: Path, name: str, model: str, api_base: str,
                 shards: list[str], xdist: bool = True, **env: str) -> None:
        self.name = name
        self.folder = folder
        self.storage = folder / f"runs-{name}"
        self.reports = [folder / f"{name}-{i}.json" for i in range(len(shards))]
        self.outputs = [folder / f"{name}-{i}.out" for i in range(len(shards))]
        self.merged_report = folder / f"{name}-merged.json"
        self.merge_process: subprocess.Popen | None = None
        self.merge_code: int | None = None
        self.merge_output = ""
        self.started = time.time()
        self.processes = []
        for i, (shard, report, output) in enumerate(zip(shards, self.reports, self.outputs)):
            command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", shard,
                       *(["-n", "2"] if xdist else ["-p", "no:xdist"]),
                       "--faithfulness-judge", model, "--faithfulness-api-base", api_base,
                       "--faithfulness-cache-dir", str(folder / f"cache-{name}"),
                       "--faithfulness-report", str(report), "--faithfulness-min-mean", "0.5",
                       "--faithfulness-storage", str(self.storage),
                       "--faithfulness-save", f"shard-{i}"]
            with open(output, "wb") as sink:
                self.processes.append(subprocess.Popen(
                    command, cwd=folder, env=subprocess_env(**env), stdout=sink,
                    stderr=subprocess.STDOUT))
        self.codes: list[int | None] = []
        self.seconds = 0.0

    def wait(self, timeout: float) -> Run:
        deadline = time.monotonic() + timeout
        for process in self.processes:
            try:
                process.wait(max(deadline - time.monotonic(), 1))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.codes = [p.returncode for p in self.processes]
        self.seconds = time.time() - self.started
        return self

    def text(self) -> str:
        return "\n".join(o.read_text(encoding="utf-8", errors="replace") for o in self.outputs)

    def start_merge(self) -> None:
        """``python -m pytest_faithfulness merge runs-<name> --expect <shards>``, with the
        shards' gate, writing ``<name>-merged.json``."""
        command = [sys.executable, "-m", "pytest_faithfulness", "merge", str(self.storage),
                   "--expect", str(len(self.reports)), "--faithfulness-min-mean", "0.5",
                   "--faithfulness-report", str(self.merged_report)]
        self.merge_process = subprocess.Popen(
            command, cwd=self.folder, env=subprocess_env(), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT)

    def finish_merge(self, timeout: float) -> None:
        assert self.merge_process is not None
        try:
            out, _ = self.merge_process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.merge_process.kill()
            out, _ = self.merge_process.communicate()
        self.merge_code = self.merge_process.returncode
        self.merge_output = out.decode("utf-8", errors="replace")

    def report(self) -> dict[str, Any]:
        """The JSON report of the run: the one shard's, or the merge's of several."""
        path = self.reports[0] if len(self.reports) == 1 else self.merged_report
        assert path.exists(), (f"{self.name}: no report {path.name}\n{self.merge_output}\n"
                               f"{self.text()[-3000:]}")
        return json.loads(path.read_text(encoding="utf-8"))


#: The summary figures that count attempts, not decisions: a call the proxy refused with its
#: 429 ("limit reached") and that was waited out and asked again is a judge call, and a call
#: in the usage, with no tokens. They differ from the reference only where a limit was hit.
ATTEMPTS = ("judge_calls", "usage.calls")


def decided(report: dict[str, Any], ignore: tuple[str, ...] = ()) -> dict[str, Any]:
    """What a run decided: the summary (less the ``ignore`` figures, ``usage.calls`` naming
    a field of ``usage``), the gate, and each answer's figures and verdicts, in report
    order. Never compared: the judges' descriptions, and each answer's usage, timings and
    judge identity (``verdicts`` keeps only what was decided)."""
    summary = json.loads(json.dumps(report["summary"]))
    for name in ignore:
        *parents, leaf = name.split(".")
        holder = summary
        for parent in parents:
            holder = holder[parent]
        del holder[leaf]
    gate = report["gate"]
    return {"summary": summary,
            "gate": {k: gate[k] for k in ("status", "passed", "incomplete", "failures",
                                          "thresholds", "unscored",
                                          "failing_own_thresholds", "verdict")},
            "order": [a["test_id"] for a in report["answers"]],
            "answers": verdicts(report)}


def verdicts(report: dict[str, Any]) -> dict[str, Any]:
    """What a run decided, answer by answer: the figures and every verdict, not who judged."""
    answers = {a["test_id"]: a for a in report["answers"]}
    assert len(answers) == len(report["answers"]), "a test id appears twice"
    return {test_id: {"status": a["status"], "score": a["score"], "passed": a["passed"],
                      "error": a["error"], "dropped": a["dropped"],
                      "claims": [{k: c[k] for k in ("text", "verdict", "judge_verdict", "note",
                                                    "spans")} for c in a["claims"]]}
            for test_id, a in sorted(answers.items())}


def over_limit_minutes(arrivals: list[float], limit: int, skew: float = 1.0) -> dict[int, int]:
    """UTC minutes (epoch minute -> requests) in which the upstream saw more than ``limit``
    requests. The proxy counts a request in the minute it admits it; a request admitted just
    before a minute ends reaches the upstream just after, so each arrival within ``skew``
    seconds of a minute's start may count for the minute before while that one has room."""
    counts: dict[int, int] = defaultdict(int)
    early: dict[int, int] = defaultdict(int)
    for t in arrivals:
        minute = int(t // 60)
        counts[minute] += 1
        early[minute] += (t - minute * 60) < skew
    for minute in sorted(counts):
        room = limit - counts.get(minute - 1, 0)
        moved = min(early[minute], max(room, 0)) if minute - 1 in counts else 0
        counts[minute] -= moved
        if moved:
            counts[minute - 1] += moved
    return {m: n for m, n in counts.items() if n > limit}


@pytest.fixture(scope="module")
def through_proxy(tmp_path_factory):
    """A litellm proxy on 127.0.0.1 in front of loopback servers, and runs of the suite: the
    whole suite straight to its upstream (the reference), and as two shards through the
    proxy: an alias with no limit (``-n 2`` each shard), the rate-limited one and the
    budgeted one (one process each shard: the proxy holds its limits whoever calls, and two
    xdist workers less per shard are four process starts less per run). Each sharded run's
    saved shards are then merged by ``pytest-faithfulness merge``."""
    missing = missing_proxy_modules()
    if missing:
        pytest.skip("the litellm proxy is not installed (pip install 'litellm[proxy]', part of "
                    f"the test extra): missing {', '.join(missing)}")
    import litellm  # noqa: F401 - the servers count tokens with it

    folder = tmp_path_factory.mktemp("through-proxy")
    tests = str(HELPERS)
    (folder / "cases.json").write_text(json.dumps(CASES), encoding="utf-8")
    (folder / "conftest.py").write_text(INNER_CONFTEST.format(tests=tests), encoding="utf-8")
    # without Hypothesis's plugin: about 1 s of CPU in each of the runs' processes
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:hypothesispytest\n"
                                       "faithfulness_canaries = 0\n"
                                       # every claim goes through the proxy (the calls are
                                       # counted): no first filter
                                       "faithfulness_first_filter = off\n",
                                       encoding="utf-8")
    shards = ["test_shard_a.py", "test_shard_b.py"]
    for name, (start, stop) in zip(shards, [(0, 6), (6, 12)]):
        (folder / name).write_text(SHARD_TEST.format(start=start, stop=stop), encoding="utf-8")

    servers = {name: ScriptedChatServer(sentences_model())
               for name in ("direct", "open", "limited", "budget")}
    port = free_port()
    (folder / "proxy.yaml").write_text(PROXY_CONFIG.format(
        rpm=RPM, **{name: s.base_url for name, s in servers.items() if name != "direct"}),
        encoding="utf-8")
    refused = folder / "refused.log"
    (folder / "proxy_main.py").write_text(PROXY_MAIN.format(tests=tests, refused=str(refused)),
                                          encoding="utf-8")
    log = open(folder / "proxy.log", "wb")  # noqa: SIM115 - open while the proxy lives
    started = time.time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_before = children.ru_utime + children.ru_stime
    proxy = subprocess.Popen(
        [sys.executable, str(folder / "proxy_main.py"), "--config", str(folder / "proxy.yaml"),
         "--port", str(port), "--host", "127.0.0.1"],
        cwd=folder, env=subprocess_env(FAITHFULNESS_PROXY_MASTER_KEY=MASTER_KEY),
        stdout=log, stderr=subprocess.STDOUT)
    runs: dict[str, Run] = {}
    try:
        # the reference: the whole suite in one process, straight to the upstream
        runs["direct"] = Run(folder, "direct", "openai/scripted", servers["direct"].base_url,
                             ["."], xdist=False)
        base = f"http://127.0.0.1:{port}"
        _wait_until_ready(proxy, base, folder / "proxy.log", timeout=240)
        ready = time.time() - started
        key = {"LITELLM_PROXY_API_KEY": MASTER_KEY}
        runs["open"] = Run(folder, "open", "litellm_proxy/judge", base, shards, **key)
        runs["limited"] = Run(folder, "limited", "litellm_proxy/judge-limited", base, shards,
                              xdist=False, **key)
        runs["budget"] = Run(folder, "budget", "litellm_proxy/judge-budget", base, shards,
                             xdist=False, **key)
        for run in runs.values():
            run.wait(timeout=300)
        sharded = [run for run in runs.values() if len(run.reports) > 1]
        for run in sharded:  # the merges run side by side: a few seconds, not one per run
            run.start_merge()
        for run in sharded:
            run.finish_merge(timeout=120)
        seconds = time.time() - started
        _stop(proxy)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        yield {"runs": runs, "servers": servers, "folder": folder, "refused": refused,
               "ready": ready, "seconds": seconds,
               "cpu": children.ru_utime + children.ru_stime - cpu_before}
    finally:
        for run in runs.values():
            for process in [*run.processes, *filter(None, [run.merge_process])]:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        _stop(proxy)
        log.close()
        for server in servers.values():
            server.close()


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_ready(proxy: subprocess.Popen, base: str, log: Path, timeout: float) -> None:
    """Until the proxy answers ``GET /health/liveliness`` (it needs no key)."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proxy.poll() is not None:
            pytest.fail(f"the litellm proxy exited ({proxy.returncode}):\n"
                        f"{log.read_text(errors='replace')[-4000:]}", pytrace=False)
        try:
            if httpx.get(f"{base}/health/liveliness", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    pytest.fail(f"the litellm proxy was not ready after {timeout:.0f} s:\n"
                f"{log.read_text(errors='replace')[-4000:]}", pytrace=False)


def test_proxy_merged_result_equals_the_direct_result(through_proxy):
    """The shards run through the proxy, merged by ``pytest-faithfulness merge``, decide what
    the whole suite run straight to its upstream decides: the same summary,
    gate and verdicts, answer by answer, in the same order. No limit is hit, so every
    figure of the summary agrees, the judge calls and token counts among them."""
    runs, servers = through_proxy["runs"], through_proxy["servers"]
    direct, open_ = runs["direct"], runs["open"]
    assert direct.codes == [0], direct.text()[-3000:]
    assert open_.codes == [0, 0], open_.text()[-3000:]
    assert open_.merge_code == 0, open_.merge_output
    assert "merged 2 shard(s)" in open_.merge_output
    saved = sorted(p.name.split("_", 1)[1] for p in open_.storage.glob("[0-9]*_*.json"))
    assert saved == ["shard-0.json", "shard-1.json"]
    reference = decided(direct.report())
    assert len(reference["answers"]) == 12
    assert {a["status"] for a in reference["answers"].values()} == {"scored"}
    assert sorted(a["score"] for a in reference["answers"].values()) == [0.5] * 3 + [1.0] * 9
    assert reference["summary"]["answers"] == 12 and reference["gate"]["passed"]
    assert decided(open_.report()) == reference
    # every call went through the proxy to its upstream, none elsewhere
    assert len(servers["open"].requests) == len(servers["direct"].requests) == 36
    assert {r.json["model"] for r in servers["open"].records} == {"scripted"}


def test_proxy_rate_limit_holds_across_shards_and_is_waited_out(through_proxy):
    runs, servers = through_proxy["runs"], through_proxy["servers"]
    limited = runs["limited"]
    assert limited.codes == [0, 0], limited.text()[-3000:]
    assert limited.merge_code == 0, limited.merge_output
    # the same decisions as without the proxy: every 429 was waited out, none became an
    # error; only the count of attempts shows the refused calls
    merged = limited.report()
    assert decided(merged, ATTEMPTS) == decided(runs["direct"].report(), ATTEMPTS)
    assert merged["summary"]["judge_calls"] > 36
    records = servers["limited"].records
    offset = time.time() - time.monotonic()
    arrivals = [r.received_at + offset for r in records]
    assert len(arrivals) == 36
    assert over_limit_minutes(arrivals, RPM) == {}, sorted(arrivals)
    # the limit was reached: 36 calls took two UTC minutes
    assert len({int(t // 60) for t in arrivals}) >= 2


def test_proxy_budget_exceeded_fails_the_gate_naming_it(through_proxy):
    """Each shard's gate fails naming the budget, and so does the merge of the two: exit
    status 12 (unmeasurable: answers went unjudged), the budget named in its output and its
    report; no answer passes unjudged."""
    runs, servers = through_proxy["runs"], through_proxy["servers"]
    budget = runs["budget"]
    assert 12 in budget.codes and set(budget.codes) <= {0, 12}, budget.text()[-3000:]
    assert "budget or quota is spent" in budget.text()  # the shards' terminals say it
    assert budget.merge_code == 12, budget.merge_output
    assert "budget or quota is spent" in budget.merge_output
    merged = budget.report()
    answers = merged["answers"]
    assert len(answers) == 12
    refused = [a for a in answers
               if a["status"] == "error" and GATEWAY_BUDGET_SPENT in (a["error"] or "")]
    assert refused, budget.merge_output
    assert "crossed budget" in refused[0]["error"]
    assert all(a["status"] in ("scored", "error") for a in answers)
    assert not any(a["status"] == "scored" and a["passed"] is None for a in answers)
    assert merged["summary"]["errored"] == len([a for a in answers if a["status"] == "error"])
    assert merged["gate"]["passed"] is False and merged["gate"]["status"] == "failed"
    failures = merged["gate"]["failures"]
    assert any("budget or quota is spent" in f for f in failures), failures
    assert len(servers["budget"].requests) < 36  # the proxy stopped the calls


def test_proxy_virtual_key_never_reaches_a_report(through_proxy):
    for run in through_proxy["runs"].values():
        files = [*run.reports, run.merged_report, *run.storage.glob("*.json")]
        shown = run.text() + run.merge_output + "".join(
            f.read_text(encoding="utf-8") for f in files if f.exists())
        assert MASTER_KEY not in shown, run.name


def test_proxy_stays_on_loopback(through_proxy):
    refused = through_proxy["refused"]
    assert not refused.exists(), refused.read_text()
    timing = {name: round(run.seconds, 1) for name, run in through_proxy["runs"].items()}
    print(f"proxy ready after {through_proxy['ready']:.1f} s; runs {timing}; "
          f"all {through_proxy['seconds']:.1f} s; CPU of the processes "
          f"{through_proxy['cpu']:.1f} s")
