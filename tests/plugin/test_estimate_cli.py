"""``pytest-faithfulness estimate``: the bill of the next run from a saved run and the verdict
cache, without a judge call. A real pytest run with a scripted judge at the loopback server
saves the run; the estimate is held against what that server then received (calls) and what
litellm counted (tokens); a warm cache turns the calls into hits; a model litellm does not
price costs "unknown", never 0; no saved run is a clear usage error."""

from __future__ import annotations

import json

import pytest
from conftest import INI
from scripted_model import (
    AUDIT_ANSWER,
    AUDIT_CLAIMS,
    AUDIT_PASSAGES,
    AUDIT_SUPPORT,
    MODEL,
    claims_reply,
    evidence_verifier,
    judge_model,
    ops,
)

from pytest_faithfulness.cli import main as cli_main
from pytest_faithfulness.runs.saved import list_runs, load_run

TESTS = f'''
AUDIT_PASSAGES = {AUDIT_PASSAGES!r}
AUDIT_ANSWER = {AUDIT_ANSWER!r}


def test_audit(assert_faithful):
    assert_faithful(AUDIT_ANSWER, AUDIT_PASSAGES, min_score=0)


def test_audit_again(assert_faithful):
    assert_faithful(AUDIT_ANSWER + " ", AUDIT_PASSAGES, min_score=0)
'''


@pytest.fixture
def saved(pytester, chat_server):
    """One run of two answers (five claims each) judged at the loopback server, saved as
    ``base``, its cache in ``verdicts/``; the judge named in the ini as a user would."""
    chat_server.handler = judge_model(claims_reply(AUDIT_CLAIMS), evidence_verifier(AUDIT_SUPPORT))
    pytester.makeini(INI + f"faithfulness_judge = {MODEL}\n"
                     f"faithfulness_api_base = {chat_server.base_url}\n"
                     "faithfulness_cache_dir = verdicts\n")
    pytester.makepyfile(test_estimated=TESTS)
    return pytester


def _estimate(capsys, *args: str) -> tuple[int, str]:
    capsys.readouterr()  # what the runs before printed
    status = cli_main(["estimate", *args])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_the_estimate_of_a_cold_cache_is_the_calls_the_run_made(saved, chat_server, capsys):
    # the estimate first, from a run saved without the cache: every call goes out again
    saved.runpytest("--faithfulness-no-cache", "--faithfulness-save", "base"
                    ).assert_outcomes(passed=2)
    made = ops(chat_server)
    run = load_run(list_runs(saved.path / ".faithfulness")[-1])
    status, out = _estimate(capsys, "--json", "--faithfulness-no-cache")  # as the run was
    assert status == 0, out
    est = json.loads(out)
    assert est["answers"] == est["judged_answers"] == 2 and est["claims"] == 10
    assert est["cache_hits"] == 0
    assert est["calls"] == len(made) == run.figures.usage.calls
    main = est["judges"][0]
    assert main["decompose"]["calls"] == made.count("decompose") == 2
    assert main["verify"]["calls"] == made.count("verify")
    # input tokens: the real prompts, counted as the run counted them (within 5 per cent)
    actual = run.figures.usage.input_tokens
    assert abs(est["input_tokens"] - actual) <= 0.05 * actual, (est["input_tokens"], actual)
    # output tokens: the saved run's mean per call, times the calls
    assert abs(est["output_tokens"] - run.figures.usage.output_tokens) <= est["calls"]
    assert est["passages"]["count"] == 4 and est["passages"]["chars"] == 2 * sum(
        len(p["text"]) for p in AUDIT_PASSAGES)
    # openai/scripted is not in litellm's price map: unknown, not free
    assert est["cost_usd"] is None and main["cost_usd"] is None
    assert any("latency per call: assumed" in a for a in est["assumptions"])


def test_a_warm_cache_serves_every_call_and_the_text_says_so(saved, chat_server, capsys):
    saved.runpytest("--faithfulness-save", "base").assert_outcomes(passed=2)  # fills the cache
    first = len(chat_server.requests)
    status, out = _estimate(capsys)
    assert status == 0, out
    assert "total: 0 call(s)" in out, out
    assert f"{MODEL} decompose: 2 asked, 2 cache hit(s) -> 0 call(s)" in out
    assert "cost $0.000000" in out  # no call: nothing to pay, priced or not
    assert "assumptions:" in out
    # with the cache the second answer's claims are served by what the first one wrote
    status, out = _estimate(capsys, "--json", "--cache-dir", "empty")
    assert json.loads(out)["calls"] == first == 2 + 5
    # and the estimate held: a second run makes no call
    saved.runpytest().assert_outcomes(passed=2)
    assert len(chat_server.requests) == first
    # another judge keys other entries: every call goes out (but the ones the run's own
    # first calls serve), priced from litellm's map
    status, out = _estimate(capsys, "--json", "--judge", "openai/gpt-4o-mini",
                            "--latency", "0.5", "--faithfulness-max-rpm", "6")
    est = json.loads(out)
    assert est["calls"] == first and est["cache_hits"] == 5
    assert est["cost_usd"] is not None and est["cost_usd"] > 0
    assert est["wall_s"] == pytest.approx(est["calls"] / 6 * 60)  # the rate limit decides
    assert "max-rpm" in est["wall_basis"]


def test_canaries_and_votes_are_counted(saved, chat_server, capsys):
    saved.runpytest("--faithfulness-no-cache", "--faithfulness-save", "base",
                    "--faithfulness-canaries", "6").assert_outcomes(passed=2)
    made = ops(chat_server)
    status, out = _estimate(capsys, "--json", "--faithfulness-canaries", "6",
                            "--faithfulness-no-cache")
    est = json.loads(out)
    canary = est["judges"][0]["canary"]
    assert canary["calls"] == 6
    assert est["calls"] == len(made), (est, made)
    status, out = _estimate(capsys, "--json", "--votes", "3", "--canaries", "0",
                            "--no-cache")
    voted = json.loads(out)["judges"][0]["verify"]
    assert voted["asked"] == 3 * est["judges"][0]["verify"]["asked"]


def test_no_saved_run_is_a_usage_error(pytester, capsys):
    status, out = _estimate(capsys)
    assert status == 4
    assert "ERROR: estimate needs a saved run: no saved run in" in out
    status, out = _estimate(capsys, "nope", "--storage", "elsewhere")
    assert status == 4 and "elsewhere" in out
