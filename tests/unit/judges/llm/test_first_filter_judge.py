"""The first filter in front of ``LiteLLMJudge`` (``judges.first_filter``), through
``evaluate()`` and the loopback chat-completions server: a claim a passage states word for word
makes no verify request; with the filter off it does; votes apply only to what reaches the
judge; canaries always reach it; the fingerprint tells the two apart."""

from __future__ import annotations

import pytest
from scripted_model import (
    claims_reply,
    judge_model,
    make_judge,
    parse_request,
    supports_verbatim,
    verify_requests,
)

import pytest_faithfulness
from pytest_faithfulness.canaries import build_canaries
from pytest_faithfulness.judges import OfflineJudge
from pytest_faithfulness.judges.first_filter import (
    FirstFilterJudge,
    is_settled,
    with_first_filter,
    without_first_filter,
)
from pytest_faithfulness.judges.protocol import fingerprint_of, judge_description
from pytest_faithfulness.judges.votes import VotingJudge
from pytest_faithfulness.run.canaries import judge_canaries
from pytest_faithfulness.trust.first_filter import RULES_VERSION

PASSAGES = [
    {"id": "p1", "text": "The Pro plan costs $10 per month, and the Basic plan costs $20 per "
                         "month. Refunds are issued within 14 days."},
]
STATED = "Refunds are issued within 14 days."          # a passage sentence: settled
BOUND = "The Basic plan costs $20 per month."         # a run of one clause: settled
SWAPPED = "The Basic plan costs $10 per month."       # bound to the other plan: to the judge
ANSWER = f"{STATED} {BOUND} {SWAPPED}"
CLAIMS = [STATED, BOUND, SWAPPED]


@pytest.fixture
def server(chat_server):
    chat_server.handler = judge_model(claims_reply(CLAIMS), supports_verbatim)
    return chat_server


def _verified_claims(server) -> list[str]:
    return [parse_request(r)[2] for r in verify_requests(server)]


def test_a_settled_claim_makes_no_verify_request(server):
    judge = with_first_filter(make_judge(server), "on")
    result = pytest_faithfulness.evaluate(ANSWER, PASSAGES, judge)
    assert result.status == "scored"
    settled = {c.text: is_settled(c.verdict) for c in result.claims}
    assert settled == {STATED: True, BOUND: True, SWAPPED: False}
    assert _verified_claims(server) == [SWAPPED]  # the server saw one verify request
    assert result.usage.calls == 2  # decompose + one verify
    by_text = {c.text: c for c in result.claims}
    assert by_text[BOUND].verdict.evidence[0].quote == (
        "The Pro plan costs $10 per month, and the Basic plan costs $20 per month.")
    assert "settled by the first filter" in by_text[BOUND].verdict.rationale
    assert by_text[SWAPPED].verdict.label == "unsupported"  # the judge's verdict, not ours


def test_with_the_filter_off_every_claim_goes_to_the_judge(server):
    judge = with_first_filter(make_judge(server), "off")
    result = pytest_faithfulness.evaluate(ANSWER, PASSAGES, judge)
    assert not any(is_settled(c.verdict) for c in result.claims)
    assert sorted(_verified_claims(server)) == sorted(CLAIMS)
    assert result.usage.calls == 4


def test_auto_puts_the_filter_in_front_of_model_judges_only(server):
    llm = make_judge(server)
    assert isinstance(with_first_filter(llm), FirstFilterJudge)
    offline = OfflineJudge()
    assert with_first_filter(offline) is offline
    assert isinstance(with_first_filter(offline, "on"), FirstFilterJudge)
    filtered = with_first_filter(llm, "on")
    assert with_first_filter(filtered, "on") is filtered  # never wrapped twice
    assert without_first_filter(filtered) is llm
    with pytest.raises(ValueError, match="auto, on, off"):
        with_first_filter(llm, "sometimes")


def test_the_fingerprint_and_description_say_whether_the_filter_is_on(server):
    llm = make_judge(server)
    on, off = with_first_filter(llm, "on"), with_first_filter(llm, "off")
    assert fingerprint_of(on) == {**fingerprint_of(off), "first_filter": RULES_VERSION}
    assert fingerprint_of(on) != fingerprint_of(off)
    assert judge_description(on) == judge_description(off) + "; first filter on"


def test_votes_apply_only_to_the_claims_that_reach_the_judge(server):
    judge = with_first_filter(VotingJudge(make_judge(server), 3), "on")
    result = pytest_faithfulness.evaluate(ANSWER, PASSAGES, judge)
    by_text = {c.text: c for c in result.claims}
    assert by_text[STATED].votes == [] and by_text[BOUND].votes == []
    assert len(by_text[SWAPPED].votes) == 2  # two agreeing votes decide 3
    assert _verified_claims(server) == [SWAPPED, SWAPPED]


def test_canaries_never_go_through_the_filter(server):
    built = build_canaries([PASSAGES], 4)
    assert built.canaries
    report = judge_canaries(built, with_first_filter(make_judge(server), "on"))
    assert sorted(_verified_claims(server)) == sorted(c.claim for c in built.canaries)
    assert report.usage.calls == len(built.canaries)
    assert "first filter" not in report.judge
