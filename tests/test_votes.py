"""Votes and panels through the loopback chat-completions server, with scripted replies that
are deliberately inconsistent: the scripted model's verdict depends on the sampling
temperature and on which passage comes first, as a real model's may."""

from __future__ import annotations

import json

import pytest
from chat_server import Reply
from scripted_model import (
    MODEL,
    claims_reply,
    judge_model,
    make_judge,
    ops,
    parse_request,
    unsupported,
    verify_requests,
)

import pytest_faithfulness
from pytest_faithfulness.cache import CachedJudge
from pytest_faithfulness.judges import OfflineJudge
from pytest_faithfulness.judges.votes import PanelJudge, VotingJudge, majority, rotated
from pytest_faithfulness.records import Passage

PASSAGES = [
    {"id": "p1", "text": "The Vela desk lamp has three brightness levels."},
    {"id": "p2", "text": "The Vela desk lamp charges through a USB-C port."},
]
STEADY = "The Vela desk lamp has three brightness levels."       # always supported
FLAKY = "The Vela desk lamp charges through a USB-C port."        # depends on the sample
RECOVERS = "The Vela desk lamp charges over USB-C."               # supported when sampled
ABSENT = "The Vela desk lamp weighs two kilograms."               # never supported
SUPPORTED = {"label": "supported", "passage_ids": ["p2"],
             "quote": "The Vela desk lamp charges through a USB-C port."}


def inconsistent(passages: list[dict], claim: str, request: dict) -> dict:
    """The scripted model: steady claims get the same verdict every time; FLAKY is supported
    only when sampled with p2 first; RECOVERS whenever sampled (temperature > 0)."""
    sampled = (request.get("temperature") or 0) > 0
    if claim == STEADY:
        return {"label": "supported", "passage_ids": ["p1"], "quote": STEADY}
    if claim == FLAKY and sampled and passages[0]["id"] == "p2":
        return SUPPORTED
    if claim == RECOVERS and sampled:
        return SUPPORTED
    return unsupported()


def handler(claims: list[str], verify=inconsistent):
    def handle(request: dict):
        op, first, second = parse_request(request)
        if op == "decompose":
            return {"claims": list(claims), "dropped": []}
        return verify(first, second, request)
    return handle


def answer_of(claims: list[str]) -> str:
    return " ".join(claims)


def test_first_not_supported_is_asked_again_and_the_majority_stands(chat_server):
    chat_server.handler = handler([RECOVERS])
    judge = VotingJudge(make_judge(chat_server), 3)
    result = pytest_faithfulness.evaluate(answer_of([RECOVERS]), PASSAGES, judge)
    claim = result.claims[0]
    assert claim.label == "supported" and result.status == "scored"
    assert [v.label for v in claim.votes] == ["unsupported", "supported", "supported"]
    assert {v.judge for v in claim.votes} == {MODEL}
    assert claim.unstable is True
    verifies = verify_requests(chat_server)
    assert [r.get("temperature") for r in verifies] == [0.0, 0.7, 0.7]
    # vote 2 sees the passages rotated by one place, vote 3 by two (back in order)
    assert [[p["id"] for p in parse_request(r)[1]] for r in verifies] == [
        ["p1", "p2"], ["p2", "p1"], ["p1", "p2"]]


@pytest.mark.parametrize(("claim", "votes", "label", "calls", "unstable"), [
    (STEADY, 3, "supported", 1, False),      # first supported: asked once
    (ABSENT, 3, "unsupported", 2, False),    # two "not supported" of three: decided
    (FLAKY, 3, "unsupported", 3, True),      # U, S, U: majority not supported
    (FLAKY, 2, "unsupported", 2, True),      # U, S: a tie is not supported
    (RECOVERS, 5, "supported", 4, True),     # U, S, S, S: three of five decide
])
def test_votes_stop_when_decided_and_ties_are_not_supported(chat_server, claim, votes, label,
                                                           calls, unstable):
    chat_server.handler = handler([claim])
    result = pytest_faithfulness.evaluate(claim, PASSAGES,
                                          VotingJudge(make_judge(chat_server), votes))
    assert result.claims[0].label == label
    assert len(verify_requests(chat_server)) == calls == len(result.claims[0].votes)
    assert result.claims[0].unstable is unstable


@pytest.mark.parametrize("bad_quote", [
    "The Vela desk lamp charges wirelessly.",       # not in the passage
    "USB-C",                                         # too short to carry the claim
    "The Vela desk lamp has three brightness levels.",  # in a passage, but not p2
])
def test_a_vote_that_fails_the_evidence_check_counts_as_not_supported(chat_server, bad_quote):
    def verify(passages, claim, request):
        if (request.get("temperature") or 0) > 0:
            return {"label": "supported", "passage_ids": ["p2"], "quote": bad_quote}
        return unsupported()

    chat_server.handler = handler([FLAKY], verify)
    result = pytest_faithfulness.evaluate(FLAKY, PASSAGES,
                                          VotingJudge(make_judge(chat_server), 3))
    claim = result.claims[0]
    assert claim.label == "unsupported"
    assert [v.label for v in claim.votes] == ["unsupported", "unsupported"]
    assert claim.votes[1].judge_label == "supported" and claim.votes[1].note
    assert claim.unstable is False  # checked labels agree


@pytest.mark.parametrize("failure", [Reply.error(400), Reply.raw("not json at all"),
                                     {"label": "maybe"}])
def test_a_judge_error_on_a_later_vote_errors_the_answer(chat_server, failure):
    def verify(passages, claim, request):
        return failure if (request.get("temperature") or 0) > 0 else unsupported()

    chat_server.handler = handler([ABSENT], verify)
    result = pytest_faithfulness.evaluate(ABSENT, PASSAGES,
                                          VotingJudge(make_judge(chat_server, parse_retries=0,
                                                                 max_retries=0), 3))
    assert result.status == "error" and result.score is None


def test_each_vote_is_its_own_cache_entry_and_replays(chat_server, tmp_path):
    chat_server.handler = handler([FLAKY, RECOVERS, STEADY])
    text = answer_of([FLAKY, RECOVERS, STEADY])
    first = pytest_faithfulness.evaluate(text, PASSAGES, VotingJudge(
        CachedJudge(make_judge(chat_server), tmp_path / "cache"), 3))
    asked = len(chat_server.requests)
    assert asked == 1 + 3 + 3 + 1
    chat_server.clear()
    replay = CachedJudge(make_judge(chat_server), tmp_path / "cache", mode="replay")
    again = pytest_faithfulness.evaluate(text, PASSAGES, VotingJudge(replay, 3))
    assert chat_server.requests == []  # every vote came from the cache
    assert [c.votes for c in again.claims] == [c.votes for c in first.claims]
    assert [c.label for c in again.claims] == ["unsupported", "supported", "supported"]
    assert replay.hits == 1 + 3  # the decomposition and vote 1 of each claim ...
    assert sum(v.hits for v in replay._vote_views.values()) == 4  # ... votes 2 and 3


@pytest.mark.parametrize("votes", [2, 3, 9])
def test_a_deterministic_judge_is_asked_once(votes):
    judge = OfflineJudge()
    result = pytest_faithfulness.evaluate(
        "The Vela desk lamp has three brightness levels. It weighs two kilograms.",
        PASSAGES, VotingJudge(judge, votes))
    assert judge.calls == 1 + len(result.claims)  # one decomposition, one verdict per claim
    assert all(len(c.votes) == 1 for c in result.claims)


def test_a_panel_keeps_every_judges_verdict_and_ties_fail_closed(chat_server):
    def verify(passages, claim, request):
        if "generous" in request["model"]:
            return SUPPORTED
        return unsupported()

    chat_server.handler = handler([FLAKY], verify)
    models = ["openai/strict", "openai/generous"]
    pair = PanelJudge([make_judge(chat_server, model=m) for m in models])
    result = pytest_faithfulness.evaluate(FLAKY, PASSAGES, pair)
    claim = result.claims[0]
    assert claim.label == "unsupported"  # 1 against 1
    assert [(v.judge, v.label) for v in claim.votes] == [("openai/strict", "unsupported"),
                                                         ("openai/generous", "supported")]
    assert claim.unstable
    trio = PanelJudge([make_judge(chat_server, model=m)
                       for m in ["openai/strict", "openai/generous", "openai/generous2"]])
    assert pytest_faithfulness.evaluate(FLAKY, PASSAGES, trio).claims[0].label == "supported"


def test_majority_and_rotation_rules():
    assert majority(["supported"]) == "supported"
    assert majority(["unsupported", "supported"]) == "unsupported"
    assert majority(["contradicted", "unsupported", "contradicted"]) == "contradicted"
    assert majority(["contradicted", "unsupported"]) == "unsupported"
    ps = [Passage(f"p{i}", "x") for i in range(3)]
    assert [p.id for p in rotated(ps, 2)] == ["p1", "p2", "p0"]
    assert [p.id for p in rotated(ps, 4)] == ["p0", "p1", "p2"]
    with pytest.raises(ValueError, match="votes must be"):
        VotingJudge(OfflineJudge(), 0)


# -- through pytest: options, reports, xdist -------------------------------------------------

ANSWERS = [[STEADY, FLAKY], [RECOVERS], [ABSENT, STEADY], [FLAKY, RECOVERS], [STEADY]]


def _suite(pytester):
    pytester.makepyfile(test_votes_suite=f'''
        import pytest
        ANSWERS = {[answer_of(a) for a in ANSWERS]!r}
        @pytest.mark.parametrize("text", ANSWERS)
        def test_answer(assert_faithful, text):
            assert_faithful(text, {PASSAGES!r}, record_only=True)
    ''')


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_votes_in_every_report_and_the_same_under_xdist(pytester, chat_server, xdist):
    by_answer = {answer_of(a): a for a in ANSWERS}

    def handle(request):
        op, first, second = parse_request(request)
        if op == "decompose":
            return {"claims": by_answer[first], "dropped": []}
        return inconsistent(first, second, request)

    chat_server.handler = handle
    _suite(pytester)
    result = pytester.runpytest(*xdist, "--faithfulness-judge", MODEL,
                                "--faithfulness-api-base", chat_server.base_url,
                                "--faithfulness-no-cache", "--faithfulness-votes", "3",
                                "--faithfulness-report", "r.json", "--faithfulness-markdown",
                                "r.md", "--faithfulness-html", "r.html", "--junitxml", "j.xml")
    data = json.loads((pytester.path / "r.json").read_text())
    claims = [c for a in sorted(data["answers"], key=lambda a: a["answer"]) for c in a["claims"]]
    flaky = [c for c in claims if c["text"] == FLAKY]
    assert all(c["unstable"] and [v["label"] for v in c["votes"]] ==
               ["unsupported", "supported", "unsupported"] for c in flaky)
    assert all(v["judge"] == MODEL for c in claims for v in c["votes"])
    summary = data["summary"]
    # 8 claims: FLAKY x2 and RECOVERS x2 unstable; STEADY x3 and ABSENT agree
    assert (summary["unstable_claims"], summary["unanimous_share"]) == (4, 0.5)
    assert summary["voted_claims"] == 5
    # the intervals do not depend on the order the workers finished in
    from pytest_faithfulness.runs.statistics import bootstrap_ci

    assert summary["ci"]["mean"] == list(bootstrap_ci(sorted([0.5, 1.0, 0.5, 0.5, 1.0])))
    result.stdout.fnmatch_lines(["*votes: 5 claim(s) judged more than once; 4 UNSTABLE*",
                                 "*UNSTABLE: votes unsupported (openai/scripted), supported*"])
    assert "UNSTABLE: votes" in (pytester.path / "r.md").read_text()
    assert 'class="note votes unstable"' in (pytester.path / "r.html").read_text()
    junit = (pytester.path / "j.xml").read_text()
    assert junit.count('name="faithfulness_unstable" value="2"') == 1  # [FLAKY, RECOVERS]
    assert junit.count('name="faithfulness_unstable" value="0"') == 2  # STEADY-only answers


def test_bad_votes_option_is_a_usage_error(pytester):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("--faithfulness-votes", "0")
    result.stderr.fnmatch_lines(["*--faithfulness-votes (ini faithfulness_votes) must be at "
                                 "least 1*"])


def test_a_panel_from_the_command_line_keeps_each_judges_vote(pytester, chat_server):
    def handle(request):
        op, first, second = parse_request(request)
        if op == "decompose":
            return {"claims": [FLAKY, STEADY], "dropped": []}
        if second == FLAKY and "generous" in request["model"]:
            return SUPPORTED
        return inconsistent(first, second, request)

    chat_server.handler = handle
    pytester.makepyfile(test_panel=f'''
        def test_answer(assert_faithful):
            assert_faithful({answer_of([FLAKY, STEADY])!r}, {PASSAGES!r}, record_only=True)
    ''')
    pytester.runpytest("--faithfulness-judge", "openai/strict", "--faithfulness-panel",
                       "openai/generous, openai/generous2", "--faithfulness-api-base",
                       chat_server.base_url, "--faithfulness-cache-dir", "cache",
                       "--faithfulness-report", "r.json").assert_outcomes(passed=1)
    claims = json.loads((pytester.path / "r.json").read_text())["answers"][0]["claims"]
    assert [(v["judge"], v["label"]) for v in claims[0]["votes"]] == [
        ("openai/strict", "unsupported"), ("openai/generous", "supported"),
        ("openai/generous2", "supported")]
    assert claims[0]["verdict"]["label"] == "supported" and claims[0]["unstable"]
    assert {v["label"] for v in claims[1]["votes"]} == {"supported"}
    assert not claims[1]["unstable"]


@pytest.mark.parametrize("panel", ["offlin", "nosuchprovider/model", "gpt-nonexistent-9"])
def test_an_unknown_panel_judge_is_a_usage_error(pytester, panel):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("--faithfulness-panel", panel)
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_votes_with_the_offline_judge_warn_that_they_do_not_apply(pytester):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest("--faithfulness-votes", "3")
    result.stdout.fnmatch_lines(["*--faithfulness-votes 3 does not apply to the 'offline'*"])


def test_a_forged_cached_vote_is_checked_like_a_fresh_one(chat_server, tmp_path):
    """Every cached vote goes through the evidence check: verify entries rewritten to
    ``supported`` with a quote that is in no passage count as unsupported on replay."""
    import diskcache

    chat_server.handler = handler([FLAKY, ABSENT])
    text = answer_of([FLAKY, ABSENT])
    pytest_faithfulness.evaluate(text, PASSAGES, VotingJudge(
        CachedJudge(make_judge(chat_server), tmp_path / "cache"), 3))
    with diskcache.Cache(str(tmp_path / "cache"), disk=diskcache.JSONDisk) as raw:
        forged = 0
        for key in list(raw.iterkeys()):
            if isinstance(raw[key], dict) and "label" in raw[key]:
                raw[key] = {"label": "supported", "passage_ids": ["p2"],
                            "quote": "The Vela desk lamp is made of gold."}
                forged += 1
    assert forged == 3 + 2  # FLAKY: U, S, U; ABSENT: U, U
    chat_server.clear()
    replay = CachedJudge(make_judge(chat_server), tmp_path / "cache", mode="replay")
    result = pytest_faithfulness.evaluate(text, PASSAGES, VotingJudge(replay, 3))
    assert chat_server.requests == []
    assert [c.label for c in result.claims] == ["unsupported", "unsupported"]
    assert all(v.label == "unsupported" and v.judge_label == "supported"
               for c in result.claims for v in c.votes)


@pytest.mark.parametrize("args", [
    ["--faithfulness-panel", "openai/liar,openai/liar"],
    ["--faithfulness-panel", "openai/a, openai/b ,openai/a"],
    ["--faithfulness-judge", "openai/liar", "--faithfulness-panel", "openai/liar,openai/b"],
    ["--faithfulness-panel", "offline,offline"],
])
def test_a_judge_named_twice_in_a_panel_is_a_usage_error(pytester, args):
    """One judge, one vote: a model named twice (or the main judge named again) would let
    one model outvote the rest of the panel."""
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*one judge, one vote*"])
