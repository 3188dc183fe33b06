"""Secrets never reach a report: a provider that echoes an API key in an error message.

``redaction.redact`` is checked on its own first; then a real pytest run (a subprocess, so
the terminal is the real one) against a scripted server on 127.0.0.1 that answers 401 with
the keys in the body, writing every report the plugin has.
"""

from __future__ import annotations

import json

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
        "--faithfulness-html", "r.html", "--junitxml", "j.xml", timeout=120)

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
