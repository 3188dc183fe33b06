"""Tokens, cost, calls and cache hits per answer and per session; the judge budget; batches."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from repo_paths import ROOT
from scripted_model import (
    AUDIT_ANSWER,
    AUDIT_CLAIMS,
    AUDIT_PASSAGES,
    AUDIT_SUPPORT,
    audit_handler,
    evidence_verifier,
    judge_model,
    make_judge,
)

from pytest_faithfulness.accounting import Budget, BudgetExceeded
from pytest_faithfulness.cache import CachedJudge
from pytest_faithfulness.pipeline import evaluate, evaluate_many

PRICED_MODEL = "openai/gpt-4o-mini"  # in litellm's bundled price map


def test_usage_is_counted_per_answer_from_the_providers_replies(chat_server):
    chat_server.handler = audit_handler()
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, model=PRICED_MODEL))
    usage = result.usage
    assert usage.calls == 6 == len(chat_server.requests)
    reported = [r for r in chat_server.records]
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.cost_usd > 0 and usage.uncosted_calls == 0
    assert usage.cache_hits == 0
    assert len(reported) == 6


def test_unknown_models_are_counted_as_uncosted_not_free(chat_server):
    chat_server.handler = audit_handler()
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, model="openai/scripted"))
    assert result.usage.cost_usd == 0 and result.usage.uncosted_calls == 6


def test_cache_hits_are_counted_and_cost_nothing(chat_server, tmp_path):
    chat_server.handler = audit_handler()
    judge = CachedJudge(make_judge(chat_server, model=PRICED_MODEL), tmp_path / "cache")
    first = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
    second = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
    assert first.usage.calls == 6 and first.usage.cache_hits == 0
    assert second.usage.calls == 0 and second.usage.cache_hits == 6
    assert second.usage.cost_usd == 0 and second.usage.input_tokens == 0


def test_usage_is_attributed_to_the_right_answer_in_a_concurrent_batch(chat_server):
    chat_server.handler = judge_model(
        lambda answer: {"claims": AUDIT_CLAIMS if "audit" in answer else [], "dropped": [answer]},
        evidence_verifier(AUDIT_SUPPORT))
    cases = [(AUDIT_ANSWER, AUDIT_PASSAGES), {"answer": "Hi there!", "passages": AUDIT_PASSAGES},
             (AUDIT_ANSWER, AUDIT_PASSAGES)]
    results = evaluate_many(cases, make_judge(chat_server), concurrency=4)
    assert [r.status for r in results] == ["scored", "unscored", "scored"]
    assert [r.usage.calls for r in results] == [6, 1, 6]
    assert chat_server.max_in_flight <= 4


def test_evaluate_many_names_a_bad_case_before_any_call(chat_server):
    chat_server.handler = audit_handler()
    with pytest.raises(TypeError, match="case 1: answer must be a string"):
        evaluate_many([(AUDIT_ANSWER, AUDIT_PASSAGES), (None, AUDIT_PASSAGES)], make_judge(chat_server))
    with pytest.raises(ValueError, match="case 0: missing key"):
        evaluate_many([{"answer": "x"}], make_judge(chat_server))
    assert chat_server.requests == []


def test_a_spent_budget_stops_new_calls_and_errors_the_answer(chat_server):
    chat_server.handler = audit_handler()
    budget = Budget(limit_usd=0.0)
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, budget=budget))
    assert result.status == "error" and result.score is None
    assert "judge budget of $0.000000 spent" in result.error
    assert chat_server.requests == []


def test_budget_in_a_pytest_run_fails_the_gate_with_a_clear_message(pytester, chat_server):
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_budget=f'''
        ANSWER = {AUDIT_ANSWER!r}
        PASSAGES = {AUDIT_PASSAGES!r}
        def test_one(assert_faithful):
            assert_faithful(ANSWER, PASSAGES)
        def test_two(assert_faithful):
            assert_faithful(ANSWER + " Also, exports are encrypted.", PASSAGES)
    ''')
    result = pytester.runpytest("-p", "no:randomly", "--faithfulness-judge", PRICED_MODEL,
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache", "--faithfulness-budget-usd", "0.0003",
                                "--faithfulness-report", "r.json")
    assert result.ret == 12  # unmeasurable: answers went unjudged
    result.stdout.fnmatch_lines(["*GATE FAILED: the judge budget was spent before 1 answer(s) "
                                 "were judged*"])
    data = json.loads((pytester.path / "r.json").read_text())
    assert [a["status"] for a in data["answers"]] == ["scored", "error"]
    assert data["summary"]["usage"]["cost_usd"] > 0


def test_batch_method_of_the_fixture_records_every_answer(pytester):
    pytester.makepyfile('''
        import pytest
        PASSAGES = ["The Vela desk lamp has three brightness levels."]
        CASES = [("The Vela desk lamp has three brightness levels.", PASSAGES),
                 ("The Vela desk lamp has a USB-C port.", PASSAGES),
                 ("Hello!", PASSAGES)]
        def test_evaluate_many(assert_faithful):
            results = assert_faithful.evaluate_many(CASES)
            assert [r.status for r in results] == ["scored", "scored", "unscored"]
            assert [r.score for r in results] == [1.0, 0.0, None]
        def test_assert_many(assert_faithful):
            with pytest.raises(AssertionError, match="1 of 3 answers are not faithful enough"):
                assert_faithful.assert_many(CASES, min_score=1.0)
    ''')
    result = pytester.runpytest("--faithfulness-report", "r.json")
    result.assert_outcomes(passed=2)
    data = json.loads((pytester.path / "r.json").read_text())
    ids = [a["test_id"].split("::")[-1] for a in data["answers"]]
    # in test-id order (issue 21 item 18), each test's answers in the order it recorded them
    assert ids == [f"test_assert_many#{i}" for i in (1, 2, 3)] + \
                  [f"test_evaluate_many#{i}" for i in (1, 2, 3)]
    assert data["summary"]["answers"] == 6


def test_tokens_and_cost_are_in_the_terminal_summary_and_json_report(pytester, chat_server):
    chat_server.handler = audit_handler()
    pytester.makepyfile(test_cost=f'''
        def test_it(assert_faithful):
            assert_faithful({AUDIT_ANSWER!r}, {AUDIT_PASSAGES!r})
    ''')
    args = ["--faithfulness-judge", PRICED_MODEL, "--faithfulness-api-base", chat_server.base_url,
            "--faithfulness-cache-dir", str(pytester.path / "cache"), "--faithfulness-report", "r.json"]
    first = pytester.runpytest(*args)
    first.stdout.fnmatch_lines(["judge calls: 6, cache hits: 0",
                                "tokens: * input (* from the provider's prompt cache), * output; cost $0.*"])
    usage = json.loads((pytester.path / "r.json").read_text())["summary"]["usage"]
    assert usage["calls"] == 6 and usage["input_tokens"] > 0
    second = pytester.runpytest(*args)
    second.stdout.fnmatch_lines(["judge calls: 0, cache hits: 6"])
    assert len(chat_server.requests) == 6


# ---------------------------------------------------------------------------------------------
# One budget for the whole run, and never a budget that cannot apply.

def test_budgets_on_one_ledger_share_one_total(tmp_path):
    first, second = (Budget(limit_usd=0.01, ledger=tmp_path / "ledger") for _ in range(2))
    first.charge(0.006)
    second.check()  # $0.006 of $0.01: calls may still go out
    second.charge(0.005)
    for budget in (first, second):
        assert budget.spent_usd == pytest.approx(0.011)
        with pytest.raises(BudgetExceeded, match=r"judge budget of \$0.010000 spent"):
            budget.check()
    third = Budget(limit_usd=0.01, ledger=tmp_path / "other-run")  # another run: its own total
    third.check()
    for budget in (first, second, third):
        budget.close()


def test_the_budget_is_one_for_all_xdist_workers(pytester, chat_server):
    """Before the shared ledger, ``-n 2`` let each worker spend the whole budget."""
    chat_server.handler = audit_handler()
    one_answer = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES,
                          make_judge(chat_server, model=PRICED_MODEL)).usage.cost_usd
    chat_server.clear()
    budget = 3.5 * one_answer
    pytester.makepyfile(test_budget=f'''
        import pytest
        @pytest.mark.parametrize("n", range(12))
        def test_answer(assert_faithful, n):
            assert_faithful({AUDIT_ANSWER!r}, {AUDIT_PASSAGES!r})
    ''')
    result = pytester.runpytest("-n", "2", "--faithfulness-judge", PRICED_MODEL,
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache", "--faithfulness-concurrency", "1",
                                "--faithfulness-budget-usd", repr(budget),
                                "--faithfulness-report", "r.json")
    assert result.ret == 12  # unmeasurable: answers went unjudged
    result.stdout.fnmatch_lines(["*GATE FAILED: the judge budget was spent before * answer(s) "
                                 "were judged*"])
    data = json.loads((pytester.path / "r.json").read_text())
    spent = data["summary"]["usage"]["cost_usd"]
    assert data["summary"]["usage"]["calls"] == len(chat_server.requests)
    # two workers judging side by side finish 2 answers (2 x 1.0 of the 3.5 budget), then
    # both run out partway through the next pair; a worker that runs ahead finishes 3
    assert sum(a["status"] == "scored" for a in data["answers"]) >= 2
    # At most one call per worker is in flight when the budget is reached (concurrency 1),
    # and no call costs more than a whole answer: per-worker budgets would spend >= 2 x 3.5.
    assert budget <= spent < budget + 2 * one_answer


@pytest.mark.parametrize("model", ["openai/scripted", "azure/our-gpt-deployment",
                                   "anthropic/claude-that-does-not-exist"])
def test_a_budget_on_a_model_without_a_price_is_a_usage_error(pytester, model):
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest("--faithfulness-judge", model, "--faithfulness-budget-usd", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--faithfulness-budget-usd cannot apply to the judge "
                                 f"{model!r}: litellm's bundled price map has no price for it*"])


@pytest.mark.parametrize("judge", [PRICED_MODEL, "offline"])
def test_a_budget_with_an_unpriced_panel_member_is_a_usage_error(pytester, chat_server, judge):
    """Issue 21 item 15: the panel's models are priced at start-up like the main judge's; a
    member without a price is refused before any test runs (no call goes out)."""
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest("--faithfulness-judge", judge, "--faithfulness-panel",
                                f"{PRICED_MODEL.replace('gpt-4o-mini', 'gpt-4o')},openai/scripted",
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-budget-usd", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--faithfulness-budget-usd cannot apply to the panel member "
                                 "'openai/scripted': litellm's bundled price map has no price*"])
    assert chat_server.requests == []


@pytest.mark.parametrize("model", [PRICED_MODEL, "gpt-4o-mini", "ollama/llama3"])
def test_priced_models_are_known_without_importing_litellm(model):
    code = ("import sys; from pytest_faithfulness.accounting import model_is_priced; "
            f"assert model_is_priced({model!r}); assert not model_is_priced('openai/scripted'); "
            "assert 'litellm' not in sys.modules, 'litellm was imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


@pytest.mark.parametrize("ledger", [False, True], ids=["own", "shared ledger"])
def test_a_call_that_cannot_be_priced_stops_a_budgeted_run(chat_server, tmp_path, ledger):
    """Spend that cannot be counted cannot be bounded: after the first unpriced call no new
    call goes out, and the answer errors (never a pass on a budget that silently stopped)."""
    chat_server.handler = audit_handler()
    budget = Budget(limit_usd=100.0, ledger=tmp_path / "ledger" if ledger else None)
    judge = make_judge(chat_server, model="openai/scripted", budget=budget)
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, judge)
    assert result.status == "error" and not result.passed
    assert "cannot be kept" in (result.error or "")
    assert len(chat_server.requests) == 1  # the decomposition; no verify call went out
    other = Budget(limit_usd=100.0, ledger=tmp_path / "ledger") if ledger else budget
    with pytest.raises(BudgetExceeded, match="price map"):
        other.check()  # every process on the ledger stops too


def test_an_unpriced_call_without_a_budget_is_only_counted(chat_server):
    chat_server.handler = audit_handler()
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, model="openai/scripted",
                                                              budget=Budget()))
    assert result.status == "scored" and result.usage.uncosted_calls > 0
