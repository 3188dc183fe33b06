"""``pytest-faithfulness estimate``: the bill of the next run from a saved run and the verdict
cache, without a judge call. A real pytest run with a scripted judge at the loopback server
saves the run; the estimate is held against what that server then received (calls) and what
litellm counted (tokens); a warm cache turns the calls into hits; a model litellm does not
price costs "unknown", never 0; no saved run is a clear usage error."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from chat_server import Reply
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
    parse_request,
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
    assert est["lower_bound"] is False and est["lower_bound_reason"] is None  # no false alarm
    assert est["claims_unknown"] is None and est["errored_answers"] == 0
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
    assert "answers: 2 (2 judged); claims: 10\n" in out and "lower bound" not in out.lower()
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


def _outage_for(failing: Callable[[str], bool]) -> Callable[[dict], Any]:
    """The judge of ``saved``, whose decompose fails (HTTP 400: no retry) for the answers
    ``failing`` picks, as a provider outage at decomposition does."""
    judged = judge_model(claims_reply(AUDIT_CLAIMS), evidence_verifier(AUDIT_SUPPORT))

    def handler(request: dict) -> Any:
        op, answer, _ = parse_request(request)
        if op == "decompose" and failing(answer):
            return Reply(status=400, body={"error": {"message": "provider outage"}})
        return judged(request)
    return handler


def test_answers_that_errored_before_their_claims_make_the_estimate_a_lower_bound(
        saved, chat_server, capsys):
    """attack 25, finding 7: a saved run whose decompose calls failed (a provider outage)
    has no claims; its estimate said "2 judged; claims: 0", no verify call, no warning. The
    answers are named as errored, the estimate as a lower bound (text and JSON), and their
    verify calls extrapolated from the judged answers when there are some."""
    chat_server.handler = _outage_for(lambda answer: True)
    saved.runpytest("--faithfulness-no-cache", "--faithfulness-save", "outage"
                    ).assert_outcomes(failed=2)
    status, out = _estimate(capsys, "outage", "--no-cache")
    assert status == 0, out
    assert "answers: 2 (0 judged; 2 errored before their claims were known); claims: 0 known" \
        in out, out
    assert "judged)" not in out and "(2 judged" not in out
    assert "LOWER BOUND: 2 answer(s) errored in the saved run before their claims were known " \
        "(judge: 2): test_estimated.py::test_audit, test_estimated.py::test_audit_again;" in out
    assert "their verify calls: unknown (no answer of the saved run has known claims" in out
    assert "-- a LOWER BOUND (2 answer(s) with unknown claims)" in out
    assert "WARNING: comparing" not in out  # the compare's warning is not the estimate's
    assert "note: saved run 0001_outage failed its gate; its answers are counted" in out
    status, out = _estimate(capsys, "outage", "--no-cache", "--json")
    est = json.loads(out)
    assert est["lower_bound"] is True and "before their claims were known" in \
        est["lower_bound_reason"]
    assert (est["judged_answers"], est["errored_answers"], est["claims"]) == (0, 2, 0)
    assert est["claims_unknown"] == {
        "answers": 2, "error_kinds": {"judge": 2}, "extrapolated": None,
        "test_ids": ["test_estimated.py::test_audit", "test_estimated.py::test_audit_again"]}
    assert est["judges"][0]["verify"]["asked"] == 0 and est["calls"] == 2
    # the provider back: the next run makes more calls than the bound, as it said
    chat_server.handler = _outage_for(lambda answer: False)
    chat_server.clear()
    saved.runpytest("--faithfulness-no-cache").assert_outcomes(passed=2)
    actual = len(chat_server.requests)
    assert actual > est["calls"]
    # one answer of two errored: its verify calls extrapolated from the other's five claims
    chat_server.handler = _outage_for(lambda answer: answer.endswith(" "))
    saved.runpytest("--faithfulness-no-cache", "--faithfulness-save", "half"
                    ).assert_outcomes(passed=1, failed=1)
    status, out = _estimate(capsys, "half", "--no-cache", "--json")
    est = json.loads(out)
    assert est["lower_bound"] is True and est["judged_answers"] == 1
    assert est["claims_unknown"]["test_ids"] == ["test_estimated.py::test_audit_again"]
    extrapolated = est["claims_unknown"]["extrapolated"]
    assert extrapolated["mean_claims"] == 5 and extrapolated["claims"] == 5
    assert est["calls"] + extrapolated["calls"] == actual, (est, actual)
    status, out = _estimate(capsys, "half", "--no-cache")
    assert "extrapolated, not counted below: had they split like the 1 judged answer(s) " \
        f"(5.00 claim(s) each), about 5 more claim(s) and {extrapolated['calls']} more verify " \
        f"call(s) (total about {actual} call(s);" in out, out
