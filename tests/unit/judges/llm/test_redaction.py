"""Secrets never reach a report: a provider that echoes an API key in an error message.

``redaction.redact`` is checked on its own first; then a real pytest run (a subprocess, so
the terminal is the real one) against a scripted server on 127.0.0.1 that answers 401 with
the keys in the body, writing every report the plugin has.
"""

from __future__ import annotations

import json
import re

import pytest
from chat_server import Reply
from scripted_model import MODEL, claims_reply, judge_model, parse_request

from pytest_faithfulness.redaction import REDACTED, redact

OPENAI_KEY = "plain-credential-value-77310"            # not key-shaped: found through the env
CACHE_SECRET = "cache-secret-4471-xyzzy"               # FAITHFULNESS_CACHE_KEY-style variable
SK_TOKEN = "sk-proj-T3BlbkFJ0123456789abcdefXYZ"       # key-shaped, in no variable
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2     # key-shaped
GOOGLE_KEY = "AIza" + "SyD-0123456789abcdefghijklmnopqrstu"  # key-shaped
BEARER = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0"       # after "Bearer"
SECRETS = [OPENAI_KEY, CACHE_SECRET, SK_TOKEN, GITHUB_TOKEN, GOOGLE_KEY, BEARER]


@pytest.mark.parametrize(("text", "secret"), [
    (f"Incorrect API key provided: {SK_TOKEN}.", SK_TOKEN),
    ("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 rejected",
     "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"),
    (f"token {GITHUB_TOKEN} has no access", GITHUB_TOKEN),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop expired",
     "github_pat_11ABCDEFG0123456789_abcdefghijklmnop"),
    (f"API key not valid: {GOOGLE_KEY}", GOOGLE_KEY),
    ("slack xoxb-1234567890-abcdefghij failed", "xoxb-1234567890-abcdefghij"),
    ("AWS AKIAIOSFODNN7EXAMPLE denied", "AKIAIOSFODNN7EXAMPLE"),
    (f"header Authorization: Bearer {BEARER}", BEARER),
    ("GET https://user:s3cr3t-pass@api.example/v1 failed", "s3cr3t-pass"),
    ("url https://gw.example/v1?key=0123456789abcdef0123456789abcdef&x=1",
     "0123456789abcdef0123456789abcdef"),
    ('{"api_key": "Zm9vYmFyYmF6cXV4cXV1eGNvcmdl"}', "Zm9vYmFyYmF6cXV4cXV1eGNvcmdl"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
     "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N"),
])
def test_key_shaped_tokens_are_redacted(text, secret):
    out = redact(text, environ={})
    assert secret not in out and REDACTED in out


def test_values_of_secret_environment_variables_are_redacted():
    env = {"FAITHFULNESS_CACHE_KEY": CACHE_SECRET, "OPENAI_API_KEY": OPENAI_KEY,
           "AUTHORIZATION_HEADER": "plain words here", "MY_DB_PASSWORD": "correct horse battery",
           "HOME": "/home/runner-with-a-long-path", "SHORT_TOKEN": "abc"}
    text = (f"failed with {OPENAI_KEY} and {CACHE_SECRET}, sent 'plain words here' and "
            "correct%20horse%20battery from /home/runner-with-a-long-path (abc)")
    out = redact(text, environ=env)
    for secret in (OPENAI_KEY, CACHE_SECRET, "plain words here", "correct%20horse%20battery"):
        assert secret not in out
    assert "/home/runner-with-a-long-path" in out  # not a secret-looking name
    assert "(abc)" in out                         # too short to redact safely


def test_text_without_secrets_is_unchanged():
    text = ("verify: judge reply could not be read as VerifyReply after 2 attempt(s): "
            "the reply is not exactly one JSON value; prompt_tokens=120, max_tokens=512; "
            "see https://example.com/docs?page=2")
    assert redact(text, environ={"OPENAI_API_KEY": OPENAI_KEY}) == text
    assert redact(None) == ""


SUITE = '''
PASSAGES = [{"id": "1", "text": "The Orbit blender has a 1.5-litre jar."}]


def test_decompose_fails(assert_faithful):
    assert_faithful("first: The Orbit blender has a 1.5-litre jar.", PASSAGES)


def test_verify_fails(assert_faithful):
    assert_faithful("second: The Orbit blender has a 1.5-litre jar.", PASSAGES)
'''


def echoing_401(request: dict) -> Reply:
    """401 whose message echoes the caller's key and other secrets, as some providers do."""
    message = (f"Bad key {OPENAI_KEY}; {SK_TOKEN}; {CACHE_SECRET}; Bearer {BEARER}; "
               f"{GITHUB_TOKEN}; {GOOGLE_KEY}.")
    return Reply.error(401, body={"error": {"message": message, "type": "invalid_request_error",
                                            "code": "invalid_api_key"}})


def test_echoed_keys_reach_no_report_and_no_terminal(chat_server, pytester, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("FAITHFULNESS_CACHE_KEY", CACHE_SECRET)
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    # the claim holds every word of the answer, so the pipeline adds no claim of its own
    decompose_ok = judge_model(claims_reply(["second: The Orbit blender has a 1.5-litre jar."]),
                               lambda p, c: echoing_401({}))

    def handler(request: dict) -> Reply:
        op, answer, _ = parse_request(request)
        if op == "decompose" and answer.startswith("first"):
            return echoing_401(request)
        return decompose_ok(request)

    chat_server.handler = handler
    pytester.makepyfile(test_keys=SUITE)

    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-rA", "-v", "--faithfulness-judge", MODEL,
        "--faithfulness-api-base", chat_server.base_url, "--faithfulness-no-cache",
        "--faithfulness-report", "r.json", "--faithfulness-markdown", "m.md",
        "--faithfulness-html", "r.html", "--junitxml", "j.xml", timeout=300)

    assert result.ret != 0
    result.assert_outcomes(failed=2)
    assert len(chat_server.requests) == 3  # decompose x2, verify x1: 401s are not retried
    outputs = {"terminal": "\n".join(result.outlines + result.errlines)}
    for name in ("r.json", "m.md", "r.html", "j.xml", "step_summary.md"):
        outputs[name] = (pytester.path / name).read_text(encoding="utf-8")
    for name, text in outputs.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} leaked into {name}"
    report = json.loads(outputs["r.json"])
    errors = {a["error"] for a in report["answers"]}
    # every secret was in the stored text (redacted before the 300-character cut)
    assert all("AuthenticationError" in e and e.count(REDACTED) == 6 for e in errors), errors
    notes = [c["note"] for a in report["answers"] for c in a["claims"] if c.get("note")]
    assert notes and all(REDACTED in n for n in notes)


# issue 21 item 13: keys echoed back through a litellm proxy --------------------------------

PROXY_KEY = "sk-1234"                                   # the proxy's virtual key: 7 characters
UPSTREAM = {"groq": "gsk_" + "Qw3rTy9UiOp0AsDfGhJkLzXc",
            "hugging face": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ",
            "xai": "xai-" + "Zx9Cv8Bn7Mq6Wl5Ek4Rj3Th2",
            "replicate": "r8_" + "Ab12Cd34Ef56Gh78Ij90Kl"}


@pytest.mark.parametrize("provider", sorted(UPSTREAM))
def test_provider_key_shapes_are_redacted(provider):
    key = UPSTREAM[provider]
    out = redact(f"upstream said: Incorrect API key provided: {key}.", environ={})
    assert key not in out and out.endswith(f"{REDACTED}.")


def test_a_short_known_key_is_redacted_whole_at_token_boundaries_only():
    env = {"LITELLM_PROXY_API_KEY": PROXY_KEY, "FAITHFULNESS_CACHE_KEY": "c4ch3",
           "SOME_OTHER_TOKEN": "abc"}
    out = redact(f"key {PROXY_KEY}; 'c4ch3'; ask-1234 sk-12345 {PROXY_KEY}x abc", environ=env)
    assert out == f"key {REDACTED}; '{REDACTED}'; ask-1234 sk-12345 {PROXY_KEY}x abc"


def test_short_keys_are_named_with_their_length():
    from pytest_faithfulness.redaction import short_keys

    env = {"LITELLM_PROXY_API_KEY": PROXY_KEY, "FAITHFULNESS_CACHE_KEY": "long-enough-key",
           "GROQ_API_KEY": "abc"}
    assert short_keys(["LITELLM_PROXY_API_KEY", "FAITHFULNESS_CACHE_KEY", "GROQ_API_KEY"],
                      env) == [("GROQ_API_KEY", 3), ("LITELLM_PROXY_API_KEY", 7)]


def authorization(record) -> str | None:
    return {k.lower(): v for k, v in record.headers.items()}.get("authorization")


def test_keys_echoed_by_a_litellm_proxy_reach_no_output(chat_server, pytester, monkeypatch):
    """The proxy answers 401 echoing its upstream keys (Groq, Hugging Face, xAI, Replicate:
    in no variable of this run), the run's 7-character virtual key and the cache key; no
    output holds any of them: terminal, JSON, Markdown, HTML, JUnit, step summary and the
    pull-request comment; the short virtual key is warned of at start-up, by name only."""
    monkeypatch.setenv("LITELLM_PROXY_API_KEY", PROXY_KEY)
    monkeypatch.setenv("FAITHFULNESS_CACHE_KEY", CACHE_SECRET)
    summary = pytester.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    secrets = [PROXY_KEY, CACHE_SECRET, *UPSTREAM.values()]
    message = ("litellm.AuthenticationError: AuthenticationError: GroqException - Invalid API "
               "Key " + "; ".join(secrets) + ". Received Model Group=judge")
    chat_server.handler = lambda request: Reply.error(401, body={"error": {
        "message": message, "type": "auth_error", "param": "None", "code": "401"}})
    pytester.makepyfile(test_keys=SUITE)

    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-rA", "-v", "--faithfulness-judge", "litellm_proxy/judge",
        "--faithfulness-api-base", chat_server.base_url.rsplit("/v1", 1)[0],
        "--faithfulness-no-cache", "--faithfulness-report", "r.json",
        "--faithfulness-markdown", "m.md", "--faithfulness-html", "r.html",
        "--faithfulness-pr-comment", "c.md", "--junitxml", "j.xml", timeout=300)

    result.assert_outcomes(failed=2)
    assert all(authorization(r) == f"Bearer {PROXY_KEY}" for r in chat_server.records)
    outputs = {"terminal": "\n".join(result.outlines + result.errlines)}
    for name in ("r.json", "m.md", "r.html", "j.xml", "c.md", "step_summary.md"):
        outputs[name] = (pytester.path / name).read_text(encoding="utf-8")
    for name, text in outputs.items():
        for secret in secrets:
            assert not re.search(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", text), \
                f"{secret!r} leaked into {name}"
    result.stdout.fnmatch_lines(["*LITELLM_PROXY_API_KEY is 7 character(s) long: it is "
                                 "redacted from every error text*"])
    report = json.loads(outputs["r.json"])
    errors = [a["error"] for a in report["answers"]]
    assert all(e.count(REDACTED) == len(secrets) for e in errors), errors
