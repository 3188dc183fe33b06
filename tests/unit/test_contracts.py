"""The typed contracts: one base for every error, an ``error_kind`` on every errored answer
(through ``evaluate`` with real judges that fail: a judge of our own, the LLM judge against the
loopback chat server, the verdict cache in replay mode), saved runs without it still loading,
and the judge capabilities read with their defaults."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

import pytest
from chat_server import Reply
from scripted_model import claims_reply, judge_model, make_judge, supports_verbatim

import pytest_faithfulness
from pytest_faithfulness import FaithfulnessError, evaluate
from pytest_faithfulness.accounting import Budget
from pytest_faithfulness.cache import CachedJudge
from pytest_faithfulness.errors import FaithfulnessWarning
from pytest_faithfulness.run.gate import GateConfig, gate_failures
from pytest_faithfulness.judges.protocol import (
    JudgeBase,
    accounts_usage,
    context_budget_of,
    fingerprint_of,
    is_cacheable,
    is_deterministic,
    judge_description,
    runs_inline,
    vote_variant,
)
from pytest_faithfulness.records import ERROR_KINDS, AnswerResult, SessionSummary, Verdict
from pytest_faithfulness.runs.saved import SavedRun, load_run, save_run

ANSWER = "The Orbit blender has a 1.5-litre jar."
PASSAGES = [{"id": "p1", "text": "The Orbit blender has a 1.5-litre jar and six speeds."}]

# modules that need the optional extra or import the training data: checked where importable
_OPTIONAL = {"pytest_faithfulness.nli"}


def _package_classes() -> list[type]:
    found = {}
    for info in pkgutil.walk_packages(pytest_faithfulness.__path__, "pytest_faithfulness."):
        if info.name.endswith("__main__"):  # runs the command line when imported
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            if info.name in _OPTIONAL:
                continue
            raise
        for _, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__.startswith("pytest_faithfulness"):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_every_exception_of_the_package_derives_from_faithfulness_error():
    classes = _package_classes()
    errors = [c for c in classes if issubclass(c, BaseException) and not issubclass(c, Warning)]
    warnings_ = [c for c in classes if issubclass(c, Warning)]
    assert len(errors) >= 10 and len(warnings_) >= 3
    assert [c.__name__ for c in errors if not issubclass(c, FaithfulnessError)] == []
    assert [c.__name__ for c in warnings_ if not issubclass(c, FaithfulnessWarning)] == []
    assert issubclass(FaithfulnessWarning, UserWarning)
    assert "FaithfulnessError" in pytest_faithfulness.__all__


@pytest.mark.parametrize("module, name, builtin", [
    ("judges.protocol", "JudgeError", RuntimeError), ("judges", "JudgeError", RuntimeError),
    ("accounting", "BudgetExceeded", RuntimeError), ("cache", "CacheMiss", LookupError),
    ("cache", "CacheRejected", LookupError), ("runs.saved", "BaselineError", ValueError),
    ("runs.saved", "RunSignatureError", ValueError), ("runs.merge", "MergeError", ValueError),
    ("cachemerge", "CacheToolError", ValueError), ("cli", "UsageError", Exception),
    ("errors", "ConfigError", ValueError), ("cache", "CacheCorruptWarning", UserWarning),
    ("cache", "CacheReadOnlyWarning", UserWarning), ("cache", "CacheIntegrityWarning", UserWarning),
])
def test_each_error_keeps_its_old_home_and_its_builtin_base(module, name, builtin):
    cls = getattr(importlib.import_module(f"pytest_faithfulness.{module}"), name)
    assert cls is getattr(importlib.import_module("pytest_faithfulness.errors"), name)
    assert issubclass(cls, builtin)
    assert issubclass(cls, FaithfulnessWarning if issubclass(cls, Warning) else FaithfulnessError)


# -- error_kind on every error path ---------------------------------------------------------------

class _Failing:
    """A judge of a user's: decomposes into the answer itself, and fails where told."""

    def __init__(self, decompose_error=None, verify_error=None, verify_reply=None):
        self.decompose_error, self.verify_error = decompose_error, verify_error
        self.verify_reply = verify_reply

    def decompose(self, answer):
        if self.decompose_error is not None:
            raise self.decompose_error
        return [answer]

    def verify(self, claim, passages):
        if self.verify_error is not None:
            raise self.verify_error
        if self.verify_reply is not None:
            return self.verify_reply
        return Verdict("supported", passage_ids=["p1"], quote=passages[0].text[:38])


@pytest.mark.parametrize("judge, kind", [
    (_Failing(decompose_error=RuntimeError("boom")), "judge"),
    (_Failing(decompose_error=pytest_faithfulness.JudgeError("down")), "judge"),
    (_Failing(verify_error=ConnectionError("reset")), "judge"),
    (_Failing(verify_reply=42), "judge"),  # not a verdict
], ids=["decompose-raises", "decompose-judge-error", "verify-raises", "verify-not-a-verdict"])
def test_a_failing_judge_records_kind_judge(judge, kind):
    result = evaluate(ANSWER, PASSAGES, judge)
    assert result.status == "error" and result.error_kind == kind


def test_a_passage_over_the_context_budget_records_kind_input():
    judge = _Failing()
    judge.context_budget_chars = 10
    result = evaluate(ANSWER, PASSAGES, judge)
    assert result.status == "error" and result.error_kind == "input"
    assert "over the judge's context budget" in result.error


def test_a_spent_budget_records_kind_budget_and_the_gate_counts_it(chat_server):
    chat_server.handler = judge_model(claims_reply([ANSWER]), supports_verbatim)
    result = evaluate(ANSWER, PASSAGES, make_judge(chat_server, budget=Budget(limit_usd=0.0)))
    assert result.status == "error" and result.error_kind == "budget"
    reasons = gate_failures(SessionSummary.of([result]), [result], GateConfig())
    assert any("judge budget was spent before 1 answer(s)" in r for r in reasons), reasons
    # the kind, not the text, is what the gate counts
    other = result.model_copy(update={"error_kind": "judge"})
    reasons = gate_failures(SessionSummary.of([other]), [other], GateConfig())
    assert not any("judge budget was spent" in r for r in reasons), reasons


def test_an_unreadable_reply_records_kind_parse(chat_server):
    chat_server.handler = judge_model(claims_reply([ANSWER]), lambda p, c: Reply("not json"))
    result = evaluate(ANSWER, PASSAGES, make_judge(chat_server, parse_retries=0))
    assert result.status == "error" and result.error_kind == "parse"
    assert "could not be read as VerifyReply" in result.error


def test_a_spent_gateway_budget_records_kind_gateway_budget(chat_server):
    chat_server.handler = lambda request: Reply.error(422, body={"error": {
        "message": "Budget has been exceeded! Current cost: 0.2, Max budget: 0.1",
        "type": "budget_exceeded", "param": None, "code": "422"}})
    result = evaluate(ANSWER, PASSAGES, make_judge(chat_server))
    assert result.status == "error" and result.error_kind == "gateway_budget"


def test_a_persistent_rate_limit_records_kind_rate_limit(chat_server):
    chat_server.handler = judge_model(claims_reply([ANSWER]),
                                      lambda p, c: Reply.error(429, headers={"Retry-After": "0"}))
    result = evaluate(ANSWER, PASSAGES, make_judge(chat_server, backoff_base=0.05,
                                                   rate_limit_wait=0.2))
    assert result.status == "error" and result.error_kind == "rate_limit"


def test_a_replay_miss_records_kind_cache_miss(chat_server, tmp_path):
    chat_server.handler = judge_model(claims_reply([ANSWER]), supports_verbatim)
    judge = CachedJudge(make_judge(chat_server), tmp_path / "cache", mode="replay")
    try:
        result = evaluate(ANSWER, PASSAGES, judge)
    finally:
        judge.close()
    assert result.status == "error" and result.error_kind == "cache_miss"
    assert chat_server.requests == []


def test_scored_answers_have_no_error_kind_and_every_kind_is_documented():
    result = evaluate(ANSWER, PASSAGES, _Failing())
    assert result.status == "scored" and result.error_kind is None
    from pytest_faithfulness import records

    for kind in ERROR_KINDS:
        assert f"``{kind}``" in inspect.getsource(records)


# -- saved runs -------------------------------------------------------------------------------

def test_a_saved_run_records_error_kind_and_one_saved_without_it_still_loads(tmp_path):
    errored = evaluate(ANSWER, PASSAGES, _Failing(decompose_error=RuntimeError("boom")))
    scored = evaluate(ANSWER, PASSAGES, _Failing())
    results = [errored, scored]
    run = SavedRun.of(results, SessionSummary.of(results), name="kinds")
    path = save_run(run, tmp_path / "runs", signing_key=None)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [a["error_kind"] for a in data["answers"]] == ["judge", None]
    assert [r["error_kind"] for r in data["results"]] == ["judge", None]

    for record in data["answers"] + data["results"]:  # as a run saved before the field
        del record["error_kind"]
    path.write_text(json.dumps(data), encoding="utf-8")
    loaded = load_run(path, signing_key=None)
    assert [a.error_kind for a in loaded.answers] == [None, None]
    assert [AnswerResult.model_validate(r).error_kind for r in loaded.results] == [None, None]
    assert loaded.answers[0].status == "error"


# -- judge capabilities -------------------------------------------------------------------------

def test_a_plain_judge_reads_every_capability_as_judge_base_defaults():
    plain, base = _Failing(), JudgeBase()
    assert isinstance(plain, pytest_faithfulness.Judge)
    assert accounts_usage(plain) is base.accounts_usage is False
    assert runs_inline(plain) is base.runs_inline is False
    assert is_deterministic(plain) is base.deterministic is False
    assert is_cacheable(plain) is base.cacheable is False
    assert context_budget_of(plain) is base.context_budget_chars is None
    assert fingerprint_of(plain) is base.fingerprint() is None
    assert vote_variant(plain, 2) is plain
    assert judge_description(plain) == "_Failing"


def test_the_built_in_judges_declare_their_capabilities(chat_server):
    llm = make_judge(chat_server)
    assert isinstance(llm, JudgeBase) and is_cacheable(llm) and accounts_usage(llm)
    assert fingerprint_of(llm)["model"] == llm.model
    assert vote_variant(llm, 2) is not llm
    offline = pytest_faithfulness.make_judge("offline")
    assert is_deterministic(offline) and runs_inline(offline) and not is_cacheable(offline)


def test_a_budget_error_recorded_before_error_kind_still_counts_as_budget_in_the_gate():
    old = AnswerResult.model_validate({  # as a shard of an older version recorded it
        "answer": ANSWER, "status": "error",
        "error": "decompose failed: BudgetExceeded: judge budget of $0.000000 spent"})
    assert old.error_kind == "budget"
    reasons = gate_failures(SessionSummary.of([old]), [old], GateConfig())
    assert any("judge budget was spent before 1 answer(s)" in r for r in reasons), reasons
    recorded = AnswerResult.model_validate({**old.model_dump(mode="json"), "error_kind": None})
    assert recorded.error_kind is None  # a kind that was recorded is never guessed


def test_one_built_in_judge_table_builds_the_judges_and_settings_reads_it_without_pydantic():
    import subprocess
    import sys

    from pytest_faithfulness.judges import OfflineJudge
    from pytest_faithfulness.judges import make_judge as build
    from pytest_faithfulness.judges.builtin import BUILTIN_JUDGES, builtin_judge
    from pytest_faithfulness.settings import BUILTIN_JUDGES as NAMES

    assert NAMES == tuple(BUILTIN_JUDGES) == ("offline", "offline-heuristic", "offline-nli")
    assert builtin_judge(None) is builtin_judge(" Offline ") is BUILTIN_JUDGES["offline"]
    assert builtin_judge("openai/gpt-4o-mini") is None
    for name in ("offline", "offline-heuristic"):
        assert isinstance(build(name), OfflineJudge)
    code = ("import sys, pytest_faithfulness.settings; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'pydantic')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_bad_input_records_kind_input():
    from pytest_faithfulness.assertion import FaithfulnessAssertion
    from pytest_faithfulness.run.results import ResultStore

    check = FaithfulnessAssertion(pytest_faithfulness.make_judge("offline"), ResultStore(),
                                  "test_x", None, None, None)
    with pytest.raises((TypeError, ValueError)):
        check(ANSWER, 42)
    assert check.results[-1].status == "error" and check.results[-1].error_kind == "input"


@pytest.mark.parametrize("kind, words, phrase", [
    ("gateway_budget", "refused calls because its budget or quota is spent", "GATEWAY"),
    ("rate_limit", "kept answering 'limit reached'", "RATE"),
])
def test_the_gate_counts_refusals_and_rate_limits_by_kind_and_old_results_by_text(
        kind, words, phrase):
    from pytest_faithfulness.accounting import GATEWAY_BUDGET_SPENT
    from pytest_faithfulness.ratelimit import RATE_LIMIT_WAIT_SPENT

    text = GATEWAY_BUDGET_SPENT if phrase == "GATEWAY" else RATE_LIMIT_WAIT_SPENT
    by_kind = AnswerResult(answer=ANSWER, status="error", error="refused", error_kind=kind)
    other = AnswerResult(answer=ANSWER, status="error", error=f"x: {text}", error_kind="judge")
    old = AnswerResult.model_validate({"answer": ANSWER, "status": "error",
                                       "error": f"verify failed: {text}"})
    assert old.error_kind is None
    for results, counted in (([by_kind], 1), ([other], 0), ([old], 1), ([by_kind, old], 2)):
        reasons = gate_failures(SessionSummary.of(results), results, GateConfig())
        named = [r for r in reasons if words in r]
        assert (named[0].startswith(f"{counted} answer(s)") if counted else not named), reasons
