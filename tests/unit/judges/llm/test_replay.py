"""Replay mode as a new user meets it (issue 21, item 19): one endpoint is one cache key
however it is spelled, a replay-mode cache miss is headlined as the judge error it is, and an
empty answer is ``unscored``, named in the summary (failing under ``require_claims``).
Through pytest runs (``pytester``), the loopback chat server and real diskcache dirs."""

from __future__ import annotations

import pytest
from scripted_model import judge_model, supports_verbatim

from pytest_faithfulness import LiteLLMJudge

PASSAGES = ["Refunds take 5 days.", "Support answers within 2 hours on weekdays."]
SUITE = f'''
PASSAGES = {PASSAGES!r}

def test_refunds(assert_faithful):
    assert_faithful("Refunds take 5 days.", PASSAGES)
'''


def _args(base_url: str, *more: str) -> list[str]:
    return ["-p", "no:cacheprovider", "--faithfulness-judge", "openai/scripted",
            "--faithfulness-api-base", base_url, "--faithfulness-cache-dir", "c", *more]


@pytest.mark.parametrize("recorded, replayed", [
    ("{base}/", "{base}"),        # a trailing slash when recording
    ("{base}", "{upper}//"),      # ... or when replaying, the scheme in capitals
])
def test_one_endpoint_spelled_two_ways_replays_the_same_cache(pytester, chat_server, recorded,
                                                              replayed):
    chat_server.handler = judge_model(lambda answer: {"claims": [answer], "dropped": []},
                                      supports_verbatim)
    base = chat_server.base_url
    spell = {"base": base, "upper": base.replace("http://", "HTTP://")}
    pytester.makepyfile(SUITE)
    first = pytester.runpytest(*_args(recorded.format(**spell)))
    first.assert_outcomes(passed=1)
    calls = len(chat_server.requests)
    replay = pytester.runpytest(*_args(replayed.format(**spell), "--faithfulness-cache-mode",
                                       "replay"))
    replay.assert_outcomes(passed=1)
    assert len(chat_server.requests) == calls  # every call served by the cache


def test_the_providers_default_base_given_or_unset_is_one_cache_key(monkeypatch):
    """``OPENAI_BASE_URL`` unset, or set to litellm's default (with a trailing slash or
    not), or given as the api base: the same fingerprint, so the same cache keys."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    unset = LiteLLMJudge("openai/gpt-4o-mini").fingerprint()
    given = LiteLLMJudge("openai/gpt-4o-mini", api_base="https://api.openai.com/v1/")
    assert given.fingerprint() == unset
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.openai.com/v1")
    assert LiteLLMJudge("openai/gpt-4o-mini").fingerprint() == unset
    # another endpoint is another key
    monkeypatch.setenv("OPENAI_BASE_URL", "https://gateway.example/v1")
    assert LiteLLMJudge("openai/gpt-4o-mini").fingerprint() != unset


def test_a_replay_miss_is_headlined_as_a_judge_error(pytester, chat_server):
    chat_server.handler = judge_model(lambda answer: {"claims": [answer], "dropped": []},
                                      supports_verbatim)
    pytester.makepyfile(SUITE + '''
def test_not_recorded(assert_faithful):
    assert_faithful("Support answers within 2 hours on weekdays.", PASSAGES)

def test_many_not_recorded(assert_faithful):
    assert_faithful.assert_many([("Support answers within 2 hours on weekdays.", PASSAGES),
                                 ("Refunds take 5 days.", PASSAGES)])
''')
    pytester.runpytest(*_args(chat_server.base_url, "-k", "test_refunds"))
    calls = len(chat_server.requests)
    replay = pytester.runpytest(*_args(chat_server.base_url, "--faithfulness-cache-mode",
                                       "replay"))
    replay.assert_outcomes(passed=1, failed=2)
    out = replay.stdout.str()
    assert "not faithful enough" not in out
    replay.stdout.fnmatch_lines([
        "*AssertionError: judge error: cache miss in replay mode: a judge call for this "
        "answer was not recorded in the verdict cache*",
        "*AssertionError: judge error: 1 of 2 answers could not be judged (cache miss in "
        "replay mode)*",
        "GATE FAILED: 2 answer(s) errored*"])
    assert len(chat_server.requests) == calls


def test_an_empty_answer_is_unscored_and_named_and_fails_under_require_claims(pytester):
    pytester.makepyfile('''
        PASSAGES = ["Refunds take 5 days."]

        def test_empty(assert_faithful):
            result = assert_faithful("", PASSAGES)
            assert result.status == "unscored" and result.score is None

        def test_blank(assert_faithful):
            assert_faithful("  \\n ", PASSAGES)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["answers: 2 (0 scored, 2 unscored, 0 errored)",
                                 "unscored answers (no claims to score, not in the mean): 2",
                                 "  - *::test_blank", "  - *::test_empty",  # test-id order
                                 "*GATE FAILED: no answer was scored, so the run measured "
                                 "no faithfulness*",
                                 "*faithfulness outcome: unmeasurable (exit status 12)*",
                                 "*2 answers not scored (no claims)*"])
    assert result.ret == 12  # nothing measured is never a pass
    strict = pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-require-claims")
    strict.assert_outcomes(failed=2)
    strict.stdout.fnmatch_lines(["*warning: empty answer: nothing to score*"])
