"""The LLM judge end to end: LiteLLMJudge -> litellm's real client -> a real HTTP server.

Every test here talks to ``chat_server`` (``tests/chat_server.py``), an OpenAI-compatible
chat-completions server on 127.0.0.1 scripted per test. Nothing of ours and nothing of
litellm's is mocked: the judge builds its prompts, litellm sends them over HTTP, the server
answers like a model (or like a failing provider), and the pipeline reads the replies.

The scripted model understands the judge's two prompts: it tells a decompose request from a
verify request by the system message, and reads the ANSWER, or the PASSAGES array and the
CLAIM, back out of the user message.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from chat_server import Reply, ScriptedChatServer, free_closed_port
from scripted_model import (  # noqa: F401 - shared fixtures and constants
    AUDIT_ANSWER,
    AUDIT_CLAIMS,
    AUDIT_PASSAGES,
    AUDIT_SUPPORT,
    KESTREL_ANSWER,
    KESTREL_PASSAGES,
    MODEL,
    ORBIT_ANSWER,
    ORBIT_PASSAGES,
    STORE_ANSWER,
    STORE_PASSAGES,
    VELA_ANSWER,
    VELA_CLAIMS,
    VELA_PASSAGES,
    audit_handler,
    claim_view,
    claims_reply,
    evidence_verifier,
    judge_model,
    make_judge,
    ops,
    parse_request,
    sequence_per_call,
    supports_verbatim,
    unsupported,
    verify_requests,
)

import pytest_faithfulness
from pytest_faithfulness.cache import CachedJudge

# --------------------------------------------------------------------------------------------
# The audit-log example, request by request.

def test_audit_log_example_scores_three_of_five(chat_server):
    chat_server.handler = audit_handler()
    judge = make_judge(chat_server)

    result = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)

    assert chat_server.errors == []
    assert result.status == "scored", result.error
    assert result.score == 0.6
    assert [c.text for c in result.claims] == AUDIT_CLAIMS
    assert [c.label for c in result.claims] == ["supported"] * 3 + ["unsupported"] * 2
    for claim in result.claims[:3]:
        pid, quote = AUDIT_SUPPORT[claim.text]
        assert claim.verdict.passage_ids == [pid]
        assert claim.verdict.quote == quote
        assert claim.judge_verdict is None and claim.note is None
    for claim in result.claims[3:]:
        assert claim.verdict.passage_ids == [] and claim.verdict.quote is None
    assert [d.text for d in result.dropped] == ["Yes"]
    assert "openai/scripted" in result.judge

    # one decompose request, then one verify request per claim; nothing retried
    kinds = ops(chat_server)
    assert kinds[0] == "decompose"
    assert sorted(kinds) == ["decompose"] + ["verify"] * 5
    assert judge.calls == 6 and judge.retries == 0

    for request in chat_server.requests:
        assert request["model"] == "scripted"
        assert request["temperature"] == 0
        assert request["response_format"] == {"type": "json_object"}

    # the decomposer sees the answer and nothing else
    _, answer_sent, _ = parse_request(chat_server.requests[0])
    assert answer_sent == AUDIT_ANSWER
    decompose_text = json.dumps(chat_server.requests[0]["messages"])
    assert "customer-owned" not in decompose_text and "Enterprise" not in decompose_text

    # each verify call: every passage, verbatim, then the claim
    verifies = verify_requests(chat_server)
    assert sorted(parse_request(r)[2] for r in verifies) == sorted(AUDIT_CLAIMS)
    prefixes = set()
    for request in verifies:
        _, passages_sent, claim_sent = parse_request(request)
        assert passages_sent == AUDIT_PASSAGES
        system, block, claim_message = request["messages"]
        assert block["content"].startswith("PASSAGES:") and "CLAIM" not in block["content"]
        assert claim_message["content"].endswith(json.dumps(claim_sent, ensure_ascii=False))
        # everything up to the claim is the same for every claim: a provider's prefix cache hits
        prefixes.add((system["content"], block["content"]))
    assert len(prefixes) == 1


# --------------------------------------------------------------------------------------------
# Verdict checking: a judge's evidence must check out.

@pytest.mark.parametrize(
    ("passage_ids", "quote", "reason"),
    [
        (["p-9999"], "Audit log export is available on the Business and Enterprise plans.",
         "unknown passage id"),
        (["p-2071"], "Audit log export is available on every plan, including Free.",
         "quote does not occur"),
        (["p-2072"], "Audit log export is available on the Business and Enterprise plans.",
         "quote does not occur"),
        (["p-2071"], None, "no quote"),
        ([], "Audit log export is available on the Business and Enterprise plans.",
         "cites no passage id"),
    ],
    ids=["unknown-id", "invented-quote", "quote-from-other-passage", "no-quote", "no-id"],
)
def test_supported_verdict_with_bad_evidence_becomes_unsupported(chat_server, passage_ids,
                                                                 quote, reason):
    claim = AUDIT_CLAIMS[0]
    bad = {"label": "supported", "passage_ids": passage_ids, "quote": quote,
           "rationale": "trust me"}
    chat_server.handler = judge_model(claims_reply([claim]), lambda passages, c: bad)

    result = pytest_faithfulness.evaluate(claim, AUDIT_PASSAGES, make_judge(chat_server))

    assert result.status == "scored", result.error
    assert result.score == 0.0
    (claim_result,) = result.claims
    assert claim_result.label == "unsupported"
    assert claim_result.judge_verdict is not None
    assert claim_result.judge_verdict.label == "supported"
    assert claim_result.judge_verdict.passage_ids == passage_ids
    assert claim_result.judge_verdict.quote == quote
    assert claim_result.note and reason in claim_result.note
    assert ops(chat_server) == ["decompose", "verify"]


def test_contradicted_verdict_with_invented_quote_becomes_unsupported(chat_server):
    claim = "Audit log export is available on the Free plan."
    bad = {"label": "contradicted", "passage_ids": ["p-2071"],
           "quote": "Audit log export is not available on the Free plan.", "rationale": "no"}
    chat_server.handler = judge_model(claims_reply([claim]), lambda passages, c: bad)

    result = pytest_faithfulness.evaluate("Audit log export is available on the Free plan.",
                                          AUDIT_PASSAGES, make_judge(chat_server))

    (claim_result,) = result.claims
    assert claim_result.label == "unsupported"
    assert claim_result.judge_verdict.label == "contradicted"
    assert "quote does not occur" in claim_result.note


def test_quote_matches_after_whitespace_and_typographic_quote_normalisation(chat_server):
    passages = [{"id": "d1", "text": "The   bucket policy\nmust allow s3:PutObject for our "
                                     "export role."}]
    claim = "The bucket policy must allow s3:PutObject for the export role."
    reply = {"label": "supported", "passage_ids": ["d1"],
             "quote": "The bucket policy must allow s3:PutObject for our export role."}
    chat_server.handler = judge_model(claims_reply([claim]), lambda p, c: reply)

    result = pytest_faithfulness.evaluate(claim, passages, make_judge(chat_server))

    assert result.score == 1.0
    assert result.claims[0].note is None


# --------------------------------------------------------------------------------------------
# Reading replies: exactly one JSON value (or one fence around it), else a retry, then an error.

@pytest.mark.parametrize("reply", [
    # CASE-06: preamble, a ```json fence, a verdict list, a trailing comma
    ("Here is the result:\n```json\n[\n  {\"claim\": 1, \"verdict\": \"supported\", "
     "\"passage_ids\": [\"1\"], \"quote\": \"The Orbit blender has a 1.5-litre jar.\"},\n"
     "]\n```"),
    # a sentence of preamble that cites a passage, then the verdict
    ('Passage [1] states this directly:\n{"label": "supported", "passage_ids": ["1"], '
     '"quote": "The Orbit blender has a 1.5-litre jar.", "rationale": "stated"}'),
    # trailing commas are not JSON: not repaired
    ('{"label": "supported", "passage_ids": ["1"], "quote": "The Orbit blender has a '
     '1.5-litre jar.", "rationale": "stated",}'),
], ids=["fence-after-preamble", "preamble-citing-a-passage", "trailing-comma"])
def test_verify_reply_that_is_not_one_json_value_is_an_error_after_the_parse_retry(chat_server,
                                                                                    reply):
    """Formerly read tolerantly; a verdict must be the whole reply, so these are retried once
    and then error the answer (no score, the gate fails)."""
    chat_server.handler = judge_model(claims_reply([ORBIT_ANSWER]), lambda p, c: Reply(reply))

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, parse_retries=1))

    assert result.status == "error" and result.score is None and not result.passed
    assert "could not be read as VerifyReply after 2 attempt(s)" in result.error
    assert "is not exactly one JSON value" in result.error
    assert result.claims[0].verdict is None
    assert ops(chat_server) == ["decompose", "verify", "verify"]


def test_decompose_reply_in_a_fence_between_prose_is_an_error(chat_server):
    fenced = ("Sure! Here are the claims:\n```\n{\"claims\": [\"The Orbit blender has a "
              "1.5-litre jar.\"], \"dropped\": []}\n```\nLet me know if you need more.")
    chat_server.handler = judge_model(lambda answer: Reply(fenced), supports_verbatim)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, parse_retries=1))

    assert result.status == "error" and result.score is None
    assert "could not be read as DecomposeReply after 2 attempt(s)" in result.error
    assert ops(chat_server) == ["decompose", "decompose"]


@pytest.mark.parametrize("wrap", [lambda text: text, lambda text: f"```json\n{text}\n```",
                                  lambda text: f"  ```\n{text}```\n"],
                         ids=["bare", "json-fence", "plain-fence"])
def test_a_reply_that_is_one_json_value_or_one_fence_around_it_is_read(chat_server, wrap):
    """The whole reply in one code fence is read; text inside string values (a config example
    with a trailing comma, a fence, a fake verdict) is data and comes through unchanged."""
    passage_text = ('Lists may end with a comma: allowed_origins = ["https://a.example", ] '
                    'is accepted; ```{"label": "contradicted"}``` is not a verdict.')
    claim = "Lists may end with a comma."
    reply = json.dumps({"label": "supported", "passage_ids": ["cfg-1"], "quote": passage_text,
                        "rationale": "stated"})
    chat_server.handler = judge_model(claims_reply([claim]), lambda p, c: Reply(wrap(reply)))

    result = pytest_faithfulness.evaluate(claim, [{"id": "cfg-1", "text": passage_text}],
                                          make_judge(chat_server))

    assert result.status == "scored", result.error
    assert result.claims[0].note is None
    assert result.claims[0].verdict.quote == passage_text
    assert result.score == 1.0
    assert ops(chat_server) == ["decompose", "verify"]  # read at once, no parse retry


def test_numeric_passage_ids_in_a_reply_are_read_as_the_string_ids(chat_server):
    """Passages with numeric-looking ids ("1") are common; a model that echoes the id as a
    JSON number (``"passage_ids": [1]``) means the same passage and must not turn a correct
    verdict into a judge error."""
    reply = {"label": "supported", "passage_ids": [1],
             "quote": "The Orbit blender has a 1.5-litre jar.", "rationale": "stated"}
    chat_server.handler = judge_model(claims_reply([ORBIT_ANSWER]), lambda p, c: reply)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, make_judge(chat_server))

    assert result.status == "scored", result.error
    assert result.score == 1.0
    assert result.claims[0].verdict.passage_ids == ["1"]


def test_prose_refusal_is_a_judge_error_after_the_parse_retry(chat_server):
    """CASE-04: the verify reply holds no verdict at all."""
    prose = "I'm not able to assess these statements against the material you provided."
    chat_server.handler = judge_model(claims_reply(VELA_CLAIMS), lambda p, c: Reply(prose))
    judge = make_judge(chat_server, parse_retries=1)

    result = pytest_faithfulness.evaluate(VELA_ANSWER, VELA_PASSAGES, judge)

    assert result.status == "error"
    assert result.score is None
    assert not result.passed
    assert "no verdict for 2 of 2 claim(s)" in result.error
    assert "could not be read as VerifyReply after 2 attempt(s)" in result.error
    assert "is not exactly one JSON value" in result.error
    assert all(c.verdict is None and c.note and "verify failed" in c.note for c in result.claims)
    # each claim: the first attempt and one parse retry, with the same messages
    verifies = verify_requests(chat_server)
    assert len(verifies) == 4
    for claim in VELA_CLAIMS:
        sent = [r["messages"] for r in verifies if parse_request(r)[2] == claim]
        assert len(sent) == 2 and sent[0] == sent[1]


def test_parse_retry_recovers_from_one_unreadable_reply(chat_server):
    prose = "I'm not able to assess these statements against the material you provided."
    good = {"label": "supported", "passage_ids": ["1"], "quote": ORBIT_ANSWER}
    chat_server.handler = judge_model(claims_reply([ORBIT_ANSWER]),
                                      sequence_per_call(Reply(prose), good))

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, parse_retries=1))

    assert result.status == "scored", result.error
    assert result.score == 1.0
    assert ops(chat_server) == ["decompose", "verify", "verify"]


def test_verdicts_cut_off_mid_json_are_an_error_not_a_partial_score(chat_server):
    """CASE-05: two claims get verdicts, the replies for the other two are cut off mid-JSON
    (as at max_tokens); those two are re-asked, and the answer errors with no score."""
    passages = [{"id": "1", "text": "The Kestrel e-bike has a 500 Wh battery."},
                {"id": "2", "text": "The Kestrel e-bike weighs 23 kg."},
                {"id": "3", "text": "The Kestrel e-bike's top assisted speed is 25 km/h."}]
    claims = ["The Kestrel e-bike has a 500 Wh battery.", "The Kestrel e-bike weighs 23 kg.",
              "The Kestrel e-bike's top assisted speed is 32 km/h.",
              "The Kestrel e-bike comes in four colours."]
    cut = Reply('{"label": "contradicted", "passage_ids": ["3"], "quote": "The Kestrel e-bike\'s '
                'top assis', finish_reason="length")

    def verify(passages_sent, claim):
        return supports_verbatim(passages_sent, claim) if claim in claims[:2] else cut

    chat_server.handler = judge_model(claims_reply(claims), verify)

    result = pytest_faithfulness.evaluate(" ".join(claims), passages,
                                          make_judge(chat_server, parse_retries=1))

    assert result.status == "error"
    assert result.score is None
    assert "no verdict for 2 of 4 claim(s)" in result.error
    assert [c.label for c in result.claims] == ["supported", "supported", None, None]
    retried = [parse_request(r)[2] for r in verify_requests(chat_server)]
    assert sorted(retried) == sorted(claims[:2] + claims[2:] * 2)


@pytest.mark.parametrize("reply", [
    {"claims": "The Orbit blender has a 1.5-litre jar."},      # wrong type
    {"verdicts": []},                                          # wrong schema
    Reply(""),                                                 # empty content
])
def test_unreadable_decompose_reply_is_a_judge_error(chat_server, reply):
    chat_server.handler = judge_model(lambda answer: reply, supports_verbatim)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, parse_retries=1))

    assert result.status == "error" and result.score is None
    assert result.error.startswith("decompose failed: JudgeError: decompose: judge reply could "
                                   "not be read as DecomposeReply after 2 attempt(s)")
    assert ops(chat_server) == ["decompose", "decompose"]


def test_invalid_verdict_label_is_not_accepted(chat_server):
    reply = {"label": "partially supported", "passage_ids": ["1"], "quote": ORBIT_ANSWER}
    chat_server.handler = judge_model(claims_reply([ORBIT_ANSWER]), lambda p, c: reply)

    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, parse_retries=0))

    assert result.status == "error" and result.score is None
    assert "VerifyReply" in result.error and "label" in result.error


# --------------------------------------------------------------------------------------------
# Transport: rate limits, server errors, hangs, refused connections.

def test_rate_limit_with_retry_after_is_waited_out(chat_server):
    """CASE-19: 429 (Retry-After: 1) twice, then a normal reply."""
    rate_limited = Reply.error(429, headers={"Retry-After": "1"},
                               body={"error": {"message": "Rate limit reached",
                                               "type": "rate_limit_error"}})
    good = {"label": "supported", "passage_ids": ["1"], "quote": KESTREL_ANSWER}
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]),
                                      sequence_per_call(rate_limited, rate_limited, good))
    judge = make_judge(chat_server, backoff_base=0.01, max_retries=3)

    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES, judge)

    assert result.status == "scored", result.error
    assert result.score == 1.0
    assert result.claims[0].verdict.passage_ids == ["1"]
    records = [r for r in chat_server.records if parse_request(r.json)[0] == "verify"]
    assert len(records) == 3                      # two 429s, then the verdict
    assert len(chat_server.requests) == 4         # plus the decompose call
    assert judge.retries == 2
    # Retry-After is honoured (backoff_base alone would have waited ~0.01 s)
    gaps = [b.received_at - a.received_at for a, b in zip(records, records[1:])]
    assert all(gap >= 0.9 for gap in gaps), gaps


def test_persistent_server_error_is_a_judge_error_after_bounded_retries(chat_server,
                                                                         litellm_loaded):
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]),
                                      lambda p, c: Reply.error(500))
    judge = make_judge(chat_server, backoff_base=0.01, max_retries=2)

    started = time.monotonic()
    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES, judge)

    # a bound on behaviour, not a speed target: the default backoff (seconds, growing) was not used
    assert time.monotonic() - started < 30
    assert result.status == "error" and result.score is None and not result.passed
    assert "no verdict for 1 of 1 claim(s)" in result.error
    assert "InternalServerError after 3 attempt(s)" in result.error
    assert ops(chat_server) == ["decompose", "verify", "verify", "verify"]
    retried = chat_server.records[1:]
    assert retried[-1].received_at - retried[0].received_at < 10  # small backoff, no Retry-After
    assert result.claims[0].verdict is None
    assert "verify failed" in result.claims[0].note


def test_persistent_rate_limit_is_a_judge_error(chat_server):
    """Waited out for rate_limit_wait (not max_retries: a limit resets by waiting), asking
    again at least every backoff_base even when told to retry after 0 s."""
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]),
                                      lambda p, c: Reply.error(429, headers={"Retry-After": "0"}))
    result = pytest_faithfulness.evaluate(
        KESTREL_ANSWER, KESTREL_PASSAGES,
        make_judge(chat_server, max_retries=2, backoff_base=0.1, rate_limit_wait=0.5))

    assert result.status == "error" and result.score is None
    assert "rate limit still reached after waiting 0.5 s" in result.error
    assert "RateLimitError" in result.error
    assert 3 <= len(verify_requests(chat_server)) <= 7


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_not_retried(chat_server, status):
    chat_server.handler = lambda request: Reply.error(status)
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, max_retries=3))

    assert result.status == "error" and result.score is None
    assert result.error.startswith("decompose failed: JudgeError: decompose:")
    assert len(chat_server.requests) == 1


@pytest.mark.parametrize("body", [b"", b'{"id": "chatcmpl-1", "object": "chat.completion", "cho'],
                         ids=["empty-body", "truncated-body"])
def test_broken_http_body_is_a_judge_error(chat_server, body):
    chat_server.handler = judge_model(claims_reply([ORBIT_ANSWER]),
                                      lambda p, c: Reply.raw(body))
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, max_retries=1))

    assert result.status == "error" and result.score is None
    assert result.claims[0].verdict is None
    assert len(verify_requests(chat_server)) == 2


def test_connection_cut_mid_body_is_a_judge_error(chat_server):
    chat_server.handler = lambda request: Reply.raw(b'{"id": "chatcmpl-1"', content_length=4096)
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                          make_judge(chat_server, max_retries=1))

    assert result.status == "error" and result.score is None
    assert result.error.startswith("decompose failed:")
    assert len(chat_server.requests) == 2


def test_hanging_server_times_out(chat_server, litellm_loaded):
    chat_server.handler = lambda request: Reply(content="{}", delay=30)
    judge = make_judge(chat_server, timeout=1, max_retries=1)

    started = time.monotonic()
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)
    elapsed = time.monotonic() - started

    assert result.status == "error" and result.score is None and not result.passed
    assert "decompose failed" in result.error and "Timeout after 2 attempt(s)" in result.error
    # the server hangs 30 s per request: two waits to the end would take 60 s
    assert elapsed < 25, f"the judge waited {elapsed:.1f}s for a 1s timeout, twice"
    assert len(chat_server.requests) == 2


def test_connection_refused_is_a_judge_error(litellm_loaded):
    url = f"http://127.0.0.1:{free_closed_port()}/v1"
    judge = make_judge(url, max_retries=1)

    started = time.monotonic()
    result = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert time.monotonic() - started < 30  # refused at once, not retried for long
    assert result.status == "error" and result.score is None and not result.passed
    assert result.error.startswith("decompose failed: JudgeError: decompose:")
    assert "after 2 attempt(s)" in result.error
    assert "connection" in result.error.lower()
    assert judge.calls == 2


def test_one_failing_answer_does_not_fail_the_next(chat_server):
    """A judge failure stays with its answer: the next answer with the same judge scores."""
    broken = {"on": True}

    def handler(request):
        if broken["on"]:
            return Reply.error(503)
        return judge_model(claims_reply([ORBIT_ANSWER]), supports_verbatim)(request)

    chat_server.handler = handler
    judge = make_judge(chat_server, max_retries=0)
    first = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)
    broken["on"] = False
    second = pytest_faithfulness.evaluate(ORBIT_ANSWER, ORBIT_PASSAGES, judge)

    assert first.status == "error" and "ServiceUnavailableError" in first.error
    assert second.status == "scored" and second.score == 1.0


# --------------------------------------------------------------------------------------------
# What the LLM decomposer returns.

def test_no_claims_is_unscored_without_verify_calls(chat_server):
    """CASE-01: a refusal decomposes to no claims: unscored, score None, never 0 or 1."""
    answer = ("I'm sorry, I couldn't find any warranty information for the Model K7 in the "
              "documents I have.")
    chat_server.handler = judge_model(claims_reply([], dropped=[answer]), supports_verbatim)

    result = pytest_faithfulness.evaluate(
        answer, [{"id": "1", "text": "The Model K7 kettle holds 1.7 litres."}],
        make_judge(chat_server))

    assert result.status == "unscored" and result.score is None
    assert result.claims == [] and [d.text for d in result.dropped] == [answer]
    assert result.passed
    assert ops(chat_server) == ["decompose"]


def test_citation_markers_from_the_decomposer_never_reach_verification(chat_server):
    """CASE-17: "[1]" in a decomposed claim is stripped before the claim is verified."""
    passages = [{"id": "1", "text": "The Lumo 2 projector has a brightness of 900 lumens."},
                {"id": "2", "text": "The Lumo 2 projector supports 1080p input."}]
    chat_server.handler = judge_model(
        claims_reply(["The Lumo 2 projector supports 1080p input [1].",
                      "The Lumo 2 projector has a brightness of 900 lumens [1]."]),
        lambda p, claim: supports_verbatim(p, claim.rstrip(".")))

    result = pytest_faithfulness.evaluate(
        "The Lumo 2 supports 1080p input [1]. Its brightness is 900 lumens [1].", passages,
        make_judge(chat_server))

    assert [c.text for c in result.claims] == ["The Lumo 2 projector supports 1080p input.",
                                               "The Lumo 2 projector has a brightness of 900 "
                                               "lumens."]
    assert all("[" not in parse_request(r)[2] for r in verify_requests(chat_server))
    assert result.score == 1.0
    assert [c.verdict.passage_ids for c in result.claims] == [["2"], ["1"]]


@pytest.mark.parametrize(("concurrency", "expected"), [(1, 1), (8, 5)])
def test_verify_calls_run_concurrently_up_to_the_limit(chat_server, concurrency, expected):
    def verify(passages, claim):
        # hold each reply until `expected` requests are in flight (or 10 s pass), so the
        # figure does not depend on how loaded the machine is; then a short delay, so that a
        # client sending more than its limit would be seen
        deadline = time.monotonic() + 10
        while chat_server.max_in_flight < expected and time.monotonic() < deadline:
            time.sleep(0.01)
        reply = evidence_verifier(AUDIT_SUPPORT)(passages, claim)
        return Reply.json(reply, delay=0.05)

    chat_server.handler = judge_model(claims_reply(AUDIT_CLAIMS), verify)

    result = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server),
                                          concurrency=concurrency)

    assert result.score == 0.6
    assert chat_server.max_in_flight == expected


# --------------------------------------------------------------------------------------------
# Passages: none, and more than the judge's context budget.

def test_empty_passage_list_makes_no_verify_call(chat_server):
    """CASE-14: claims are still extracted; nothing can support them."""
    answer = "The Pico speaker's battery lasts 12 hours."
    chat_server.handler = judge_model(claims_reply([answer]), supports_verbatim)

    result = pytest_faithfulness.evaluate(answer, [], make_judge(chat_server))

    assert result.status == "scored" and result.score == 0.0
    assert [c.label for c in result.claims] == ["unsupported"]
    assert "answer scored against an empty passage list" in result.warnings
    assert ops(chat_server) == ["decompose"]


def test_passages_over_the_context_budget_are_split_never_cut(chat_server):
    """CASE-16: nine passages, budget 1000 characters, the evidence is the last passage."""
    claims = ["The Model K7 kettle has a 2-year warranty.",
              "The Model K7 kettle ships with a descaling kit."]
    support = {claims[0]: ("9", "The Model K7 kettle has a 2-year warranty.")}
    chat_server.handler = judge_model(claims_reply(claims), evidence_verifier(support))

    result = pytest_faithfulness.evaluate(STORE_ANSWER, STORE_PASSAGES,
                                          make_judge(chat_server, context_budget_chars=1000))

    assert result.status == "scored", result.error
    assert result.score == 0.5
    assert [c.label for c in result.claims] == ["supported", "unsupported"]
    assert result.claims[0].verdict.passage_ids == ["9"]
    originals = {p["id"]: p["text"] for p in STORE_PASSAGES}
    for claim in claims:
        windows = [parse_request(r)[1] for r in verify_requests(chat_server)
                   if parse_request(r)[2] == claim]
        assert len(windows) > 1
        seen = [p["id"] for window in windows for p in window]
        assert sorted(seen, key=int) == [str(i) for i in range(1, 10)]  # each passage once
        for window in windows:
            assert sum(len(p["text"]) for p in window) <= 1000
            assert all(p["text"] == originals[p["id"]] for p in window)  # never cut


# --------------------------------------------------------------------------------------------
# The verdict cache in front of the LLM judge.

def test_cache_hit_makes_no_request_and_returns_identical_verdicts(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    cached = CachedJudge(make_judge(chat_server), tmp_path / "cache")
    try:
        first = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, cached)
        assert len(chat_server.requests) == 6
        assert (cached.hits, cached.misses) == (0, 6)

        second = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, cached)
    finally:
        cached.close()

    assert len(chat_server.requests) == 6  # nothing went out
    assert (cached.hits, cached.misses) == (6, 6)
    assert second.status == "scored" and second.score == first.score == 0.6
    assert claim_view(second) == claim_view(first)
    assert second.dropped == first.dropped


def test_cache_survives_a_new_judge_object_on_the_same_directory(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    first_judge = CachedJudge(make_judge(chat_server), tmp_path / "cache")
    first = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, first_judge)
    first_judge.close()

    # timeouts and retries do not change verdicts: same key
    again = CachedJudge(make_judge(chat_server, timeout=3, max_retries=0), tmp_path / "cache")
    try:
        second = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, again)
    finally:
        again.close()

    assert len(chat_server.requests) == 6
    assert claim_view(second) == claim_view(first)


def test_changed_passage_text_is_a_cache_miss(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    cached = CachedJudge(make_judge(chat_server), tmp_path / "cache")
    try:
        pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, cached)
        chat_server.clear()

        edited = [AUDIT_PASSAGES[0],
                  {"id": "p-2072", "text": "Configure the destination bucket under Settings > "
                                           "Security > Audit Log Export."}]
        result = pytest_faithfulness.evaluate(AUDIT_ANSWER, edited, cached)
    finally:
        cached.close()

    # the answer is unchanged (decompose hit); every verify call is asked again
    assert ops(chat_server) == ["verify"] * 5
    assert all(parse_request(r)[1] == edited for r in chat_server.requests)
    assert [c.label for c in result.claims] == ["supported"] * 2 + ["unsupported"] * 3
    assert result.score == 0.4


def test_changed_passage_id_is_a_cache_miss(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    cached = CachedJudge(make_judge(chat_server), tmp_path / "cache")
    try:
        pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, cached)
        chat_server.clear()
        renamed = [{"id": "p-1", "text": AUDIT_PASSAGES[0]["text"]}, AUDIT_PASSAGES[1]]
        result = pytest_faithfulness.evaluate(AUDIT_ANSWER, renamed, cached)
    finally:
        cached.close()

    # "[p-2071, p-2072]" still cites p-2072 and an id shaped like the passages' that names no
    # passage now (p-2071): each claim is verified against p-2072 first, and against both
    # passages when p-2072 does not support it (claims 1, 4, 5): 2 + 3 * 2 calls, none cached
    assert ops(chat_server) == ["verify"] * 8
    assert result.claims[0].label == "unsupported"  # the script cites p-2071, now absent
    assert result.claims[0].unknown_citations == ["p-2071"]
    assert result.claims[0].citation == "unsupported"


def test_other_model_is_a_cache_miss(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    directory = tmp_path / "cache"
    first = CachedJudge(make_judge(chat_server), directory)
    pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, first)
    first.close()
    chat_server.clear()

    other = CachedJudge(make_judge(chat_server, model="openai/scripted-v2"), directory)
    try:
        result = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, other)
    finally:
        other.close()

    assert sorted(ops(chat_server)) == ["decompose"] + ["verify"] * 5
    assert {r["model"] for r in chat_server.requests} == {"scripted-v2"}
    assert (other.hits, other.misses) == (0, 6)
    assert result.score == 0.6


def test_other_endpoint_is_a_cache_miss(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    directory = tmp_path / "cache"
    first = CachedJudge(make_judge(chat_server), directory)
    pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, first)
    first.close()

    with ScriptedChatServer(audit_handler()) as other_server:
        other = CachedJudge(make_judge(other_server), directory)
        try:
            pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, other)
        finally:
            other.close()
        assert len(other_server.requests) == 6


def test_judge_errors_are_never_cached(chat_server, tmp_path):
    failing = {"on": True}
    good = audit_handler()
    chat_server.handler = lambda request: Reply.error(500) if failing["on"] else good(request)
    cached = CachedJudge(make_judge(chat_server, max_retries=0), tmp_path / "cache")
    try:
        first = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, cached)
        failing["on"] = False
        chat_server.clear()
        second = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, cached)
    finally:
        cached.close()

    assert first.status == "error"
    assert second.status == "scored" and second.score == 0.6
    assert sorted(ops(chat_server)) == ["decompose"] + ["verify"] * 5


def test_fully_cached_evaluate_does_not_import_litellm(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    directory = tmp_path / "cache"
    base_url = chat_server.base_url
    warm = CachedJudge(make_judge(chat_server), directory)
    expected = pytest_faithfulness.evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, warm)
    warm.close()
    chat_server.close()  # the subprocess has no server to talk to

    script = textwrap.dedent("""
        import json, sys
        import pytest_faithfulness
        from pytest_faithfulness import LiteLLMJudge
        from pytest_faithfulness.cache import CachedJudge

        args = json.loads(sys.argv[1])
        assert "litellm" not in sys.modules, "importing the package imported litellm"
        judge = CachedJudge(LiteLLMJudge(args["model"], api_base=args["base_url"], timeout=2,
                                         max_retries=0), args["directory"])
        result = pytest_faithfulness.evaluate(args["answer"], args["passages"], judge)
        print(json.dumps({
            "litellm_imported": "litellm" in sys.modules,
            "status": result.status, "score": result.score, "error": result.error,
            "claims": [c.model_dump(mode="json") for c in result.claims],
            "hits": judge.hits, "misses": judge.misses, "calls": judge.judge.calls,
        }))
    """)
    args = {"model": MODEL, "base_url": base_url, "directory": str(directory),
            "answer": AUDIT_ANSWER, "passages": AUDIT_PASSAGES}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run([sys.executable, "-c", script, json.dumps(args)], capture_output=True,
                          text=True, timeout=60, cwd=tmp_path, env=env)

    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["litellm_imported"] is False
    assert out["status"] == "scored", out["error"]
    assert out["score"] == 0.6
    assert out["claims"] == claim_view(expected)
    assert (out["hits"], out["misses"], out["calls"]) == (6, 0, 0)


# --------------------------------------------------------------------------------------------
# Under a running event loop (pytest-asyncio) and after it closed.

@pytest.mark.asyncio
async def test_aevaluate_and_evaluate_inside_a_running_loop(chat_server):
    """CASE-18: the same result from ``await aevaluate`` and from sync ``evaluate`` called
    while the test's own loop is running."""
    chat_server.handler = judge_model(claims_reply(["The Vela desk lamp has three brightness "
                                                    "levels."]), supports_verbatim)
    judge = make_judge(chat_server)
    answer = "The Vela desk lamp has three brightness levels."

    awaited = await pytest_faithfulness.aevaluate(answer, VELA_PASSAGES, judge)
    blocking = pytest_faithfulness.evaluate(answer, VELA_PASSAGES, judge)

    for result in (awaited, blocking):
        assert result.status == "scored", result.error
        assert result.score == 1.0
        assert result.claims[0].verdict.passage_ids == ["1"]
    assert claim_view(awaited) == claim_view(blocking)
    assert ops(chat_server) == ["decompose", "verify"] * 2


@pytest.mark.asyncio
async def test_concurrent_aevaluate_calls_share_the_judge(chat_server):
    chat_server.handler = audit_handler()
    judge = make_judge(chat_server)

    results = await asyncio.gather(*(pytest_faithfulness.aevaluate(AUDIT_ANSWER, AUDIT_PASSAGES,
                                                                   judge) for _ in range(3)))

    assert [r.score for r in results] == [0.6, 0.6, 0.6]
    assert len(chat_server.requests) == 18


@pytest.mark.asyncio
async def test_aevaluate_reports_transport_errors_instead_of_raising(chat_server):
    chat_server.handler = lambda request: Reply.error(500)
    result = await pytest_faithfulness.aevaluate(ORBIT_ANSWER, ORBIT_PASSAGES,
                                                 make_judge(chat_server, max_retries=0))
    assert result.status == "error" and result.score is None


def test_sync_evaluate_after_the_async_tests_closed_their_loops(chat_server):
    """CASE-18 (c): a later sync test, after pytest-asyncio closed the previous loops."""
    chat_server.handler = judge_model(claims_reply([KESTREL_ANSWER]), supports_verbatim)
    result = pytest_faithfulness.evaluate(KESTREL_ANSWER, KESTREL_PASSAGES,
                                          make_judge(chat_server))
    assert result.status == "scored" and result.score == 1.0
