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
#: The claims here are passage sentences, which the first filter would settle before any vote:
#: these tests are about the votes, so it is off (its own tests: test_first_filter_judge.py).
NO_FILTER = ("--faithfulness-first-filter", "off")
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
    (STEADY, 1, "supported", 1, False),      # one vote: asked once
    (STEADY, 2, "supported", 2, False),      # a first supported is questioned too
    (STEADY, 3, "supported", 2, False),      # two "supported" of three: decided
    (STEADY, 5, "supported", 3, False),      # three of five: decided
    (ABSENT, 3, "unsupported", 2, False),    # two "not supported" of three: decided
    (FLAKY, 3, "unsupported", 3, True),      # U, S, U: majority not supported
    (FLAKY, 2, "unsupported", 1, False),     # a first U of two: decided (S at best ties)
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
    assert asked == 1 + 3 + 3 + 2  # STEADY: S, S decide
    chat_server.clear()
    replay = CachedJudge(make_judge(chat_server), tmp_path / "cache", mode="replay")
    again = pytest_faithfulness.evaluate(text, PASSAGES, VotingJudge(replay, 3))
    assert chat_server.requests == []  # every vote came from the cache
    assert [c.votes for c in again.claims] == [c.votes for c in first.claims]
    assert [c.label for c in again.claims] == ["unsupported", "supported", "supported"]
    assert replay.hits == 1 + 3  # the decomposition and vote 1 of each claim ...
    assert sum(v.hits for v in replay._vote_views.values()) == 5  # ... votes 2 (and 3)


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
    assert majority(["contradicted", "unsupported"]) == "contradicted"  # checked: kept
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
    _by_answer_handler(chat_server)
    _suite(pytester)
    result = pytester.runpytest(*xdist, "--faithfulness-judge", MODEL, *NO_FILTER,
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
    assert summary["voted_claims"] == 8  # every claim gets its votes (STEADY: two)
    # the intervals do not depend on the order the workers finished in
    from pytest_faithfulness.runs.statistics import bootstrap_ci

    assert summary["ci"]["mean"] == list(bootstrap_ci(sorted([0.5, 1.0, 0.5, 0.5, 1.0])))
    result.stdout.fnmatch_lines(["*votes: 8 claim(s) judged more than once; 4 UNSTABLE*",
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
    pytester.runpytest(*NO_FILTER, "--faithfulness-judge", "openai/strict", "--faithfulness-panel",
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


# -- symmetric votes (issue 21, item 2) ------------------------------------------------------

#: Two sources that disagree on a number: the claim is supported by p1 and contradicted by p2,
#: and either verdict's evidence passes the check (each quote is a whole passage).
SOURCES = [{"id": "p1", "text": "The Vela desk lamp weighs 1.2 kg."},
           {"id": "p2", "text": "The Vela desk lamp weighs 1.5 kg."}]
WEIGHT = "The Vela desk lamp weighs 1.2 kg."
S = {"label": "supported", "passage_ids": ["p1"], "quote": SOURCES[0]["text"]}
C = {"label": "contradicted", "passage_ids": ["p2"], "quote": SOURCES[1]["text"]}
U = unsupported()
#: A contradiction whose quote is in no passage: it fails the check and counts as unsupported.
C_UNCHECKED = {"label": "contradicted", "passage_ids": ["p2"],
               "quote": "The Vela desk lamp is made of gold."}
SHORT = {"S": S, "C": C, "U": U, "X": C_UNCHECKED}


def in_order(script: str):
    """The scripted model's verify replies, one per request in the order asked (``"SCU"``:
    supported, contradicted, unsupported); a request past the script gets a reply that is not
    a verdict, so asking more than expected errors the answer."""
    replies = [SHORT[k] for k in script]

    def verify(passages, claim, request):
        return replies.pop(0) if replies else {"label": "asked too often"}
    return verify


def judged(chat_server, script: str, votes: int):
    chat_server.handler = handler([WEIGHT], in_order(script))
    judge = VotingJudge(make_judge(chat_server, parse_retries=0, max_retries=0), votes)
    result = pytest_faithfulness.evaluate(WEIGHT, SOURCES, judge)
    assert result.status != "error", result.error
    return result.claims[0], len(verify_requests(chat_server))


@pytest.mark.parametrize(("script", "label"), [
    ("SUU", "unsupported"),    # a first "supported" is questioned and outvoted
    ("SCU", "contradicted"),   # ... the checked contradiction is kept
    ("SUC", "contradicted"),
    ("SCC", "contradicted"),
    ("SXX", "unsupported"),    # contradictions whose evidence fails the check: unsupported
])
def test_a_supported_first_verdict_is_outvoted_by_checked_votes(chat_server, script, label):
    """Issue 21.2: before, a ``supported`` first verdict was never asked again."""
    claim, calls = judged(chat_server, script, 3)
    assert (claim.label, calls) == (label, 3)
    assert [v.label for v in claim.votes] == [
        {"S": "supported", "C": "contradicted"}.get(k, "unsupported") for k in script]
    assert claim.unstable
    if "X" in script:
        assert [v.judge_label for v in claim.votes] == [None, "contradicted", "contradicted"]
    if label == "contradicted":  # the verdict that stands is the checked contradiction
        assert claim.verdict.passage_ids == ["p2"] and claim.judge_verdict is None


@pytest.mark.parametrize(("script", "votes", "label"), [
    ("CSU", 3, "contradicted"),   # 1 of the 2 later votes says supported: kept
    ("CU", 3, "contradicted"),    # decided after two: the third is not asked
    ("C", 2, "contradicted"),     # of two, a supported second vote could only tie: decided
    ("CSSUU", 5, "contradicted"),  # 2 of 5 supported: no majority
    ("CSS", 3, "supported"),      # a strict majority of checked supported votes overturns it
    ("CSUSS", 5, "supported"),    # 3 of 5
    ("CX", 3, "contradicted"),    # an unchecked contradiction counts as unsupported; C kept
    ("UC", 3, "contradicted"),    # a later checked contradiction is kept as well
])
def test_a_checked_contradiction_stands_unless_a_strict_majority_says_supported(
        chat_server, script, votes, label):
    """Issue 21.2: before, sampled ``supported`` votes outvoted a checked contradiction by a
    majority over the votes asked after it."""
    claim, calls = judged(chat_server, script, votes)
    assert claim.label == label and calls == len(script) == len(claim.votes)
    assert claim.unstable == (len({v.label for v in claim.votes}) > 1)


@pytest.mark.parametrize(("script", "votes", "label"), [
    ("SU", 2, "unsupported"),
    ("SC", 2, "contradicted"),
    ("SSUU", 4, "unsupported"),
    ("SSCC", 4, "contradicted"),
    ("SUSU", 4, "unsupported"),
])
def test_a_tie_is_not_supported(chat_server, script, votes, label):
    claim, calls = judged(chat_server, script, votes)
    assert (claim.label, calls) == (label, votes)
    assert claim.unstable


@pytest.mark.parametrize(("script", "votes", "calls"), [
    ("SSSSS", 3, 2),   # S, S: two of three decided; the third is never asked
    ("SSSSS", 5, 3),
    ("CCCCC", 5, 3),
    ("UUUUU", 3, 2),
    ("SUSSS", 3, 3),   # split after two: the third decides
    ("SSUSS", 4, 4),   # S, S, U of four: a fourth S decides, a U would tie
    ("SSSSS", 4, 3),   # three of four
])
def test_votes_stop_once_the_majority_is_decided(chat_server, script, votes, calls):
    """Counted at the server: the requests the judge sent for the claim."""
    claim, asked = judged(chat_server, script, votes)
    assert asked == calls == len(claim.votes)
    assert len(chat_server.requests) == 1 + calls  # and one decomposition


def test_decided_and_majority_rules():
    from pytest_faithfulness.judges.votes import decided

    assert majority(["supported", "contradicted", "supported"]) == "supported"
    assert majority(["contradicted", "supported"]) == "contradicted"
    assert majority(["unsupported", "contradicted", "unsupported"]) == "contradicted"
    assert majority(["supported", "unsupported", "supported", "unsupported"]) == "unsupported"
    assert decided(2, 2, 3) and decided(0, 2, 3) and not decided(1, 2, 3)
    assert not decided(1, 1, 2) and decided(0, 1, 2) and decided(1, 1, 1)
    assert decided(3, 3, 4) and not decided(2, 3, 4)


# -- the unstable-claim gate: --faithfulness-max-unstable(-rate), in the plugin and merge ------

def _by_answer_handler(chat_server):
    by_answer = {answer_of(a): a for a in ANSWERS}

    def handle(request):
        op, first, second = parse_request(request)
        if op == "decompose":
            return {"claims": by_answer[first], "dropped": []}
        return inconsistent(first, second, request)

    chat_server.handler = handle


def _judge_args(chat_server, votes="3"):
    return ["--faithfulness-judge", MODEL, "--faithfulness-api-base", chat_server.base_url,
            "--faithfulness-no-cache", "--faithfulness-votes", votes, *NO_FILTER]


#: The first line of an ini file written by a test (pytest-asyncio warns without it).
INI_HEAD = "asyncio_default_fixture_loop_scope = function\n"


#: ANSWERS judged with 3 votes: 8 claims, 4 of them unstable (FLAKY x2, RECOVERS x2).
@pytest.mark.parametrize(("where", "option", "value", "fails"), [
    ("flag", "max-unstable", "3", "4 unstable claim(s) (their votes disagree) > max unstable 3"),
    ("flag", "max-unstable", "4", None),
    ("ini", "max-unstable", "3", "4 unstable claim(s)"),
    ("flag", "max-unstable-rate", "0.4", "share of unstable claims 0.500 (4 of 8 claims judged "
                                         "by votes) > max unstable rate 0.400"),
    ("flag", "max-unstable-rate", "0.5", None),
    ("ini", "max-unstable-rate", "0.45", "share of unstable claims 0.500"),
])
def test_the_unstable_bounds_fail_the_gate(pytester, chat_server, where, option, value, fails):
    _by_answer_handler(chat_server)
    _suite(pytester)
    given = [f"--faithfulness-{option}", value]
    if where == "ini":
        pytester.makeini(f"[pytest]\n{INI_HEAD}faithfulness_{option.replace('-', '_')} = "
                         f"{value}\n")
        given = []
    result = pytester.runpytest(*_judge_args(chat_server), *given,
                                "--faithfulness-report", "r.json")
    result.assert_outcomes(passed=5)  # recorded only: only the gate can fail the run
    gate = json.loads((pytester.path / "r.json").read_text())["gate"]
    assert gate[option.replace("-", "_")] == float(value)
    if fails:
        assert result.ret == 1
        assert any(fails in f for f in gate["failures"]), gate["failures"]
        result.stdout.fnmatch_lines([f"*{fails}*"])
    else:
        assert result.ret == 0, gate["failures"]
        assert gate["failures"] == []


@pytest.mark.parametrize("option", ["max-unstable", "max-unstable-rate"])
def test_an_unstable_bound_without_votes_cannot_be_met(pytester, chat_server, option):
    """With one verdict per claim nothing measures instability: the bound fails closed."""
    _by_answer_handler(chat_server)
    _suite(pytester)
    result = pytester.runpytest(*_judge_args(chat_server, "1"), f"--faithfulness-{option}",
                                "1")
    assert result.ret == 12  # unmeasurable
    result.stdout.fnmatch_lines(["*no claim was judged by votes*cannot be measured*"])


@pytest.mark.parametrize("bad", [("max-unstable", "-1"), ("max-unstable", "1.5"),
                                 ("max-unstable-rate", "1.2")])
def test_a_bad_unstable_bound_is_a_usage_error(pytester, bad):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest(f"--faithfulness-{bad[0]}", bad[1])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--faithfulness-{bad[0]} (ini faithfulness_"
                                 f"{bad[0].replace('-', '_')}) must be*"])


def _voted_shards(pytester, chat_server, *one_job: str) -> list[str]:
    """ANSWERS in two shards (test files), each judged with 3 votes and saved; ``one_job``
    are extra flags of the first shard's job only."""
    from pytest_faithfulness.runs.saved import list_runs

    _by_answer_handler(chat_server)
    for name, part in (("one", ANSWERS[:3]), ("two", ANSWERS[3:])):
        pytester.makepyfile(**{f"test_{name}": f'''
            import pytest
            @pytest.mark.parametrize("text", {[answer_of(a) for a in part]!r})
            def test_answer(assert_faithful, text):
                assert_faithful(text, {PASSAGES!r}, record_only=True)
        '''})
    for n, name in enumerate(("one", "two"), start=1):
        extra = list(one_job) if n == 1 else []
        pytester.runpytest(f"test_{name}.py", *_judge_args(chat_server), *extra,
                           "--faithfulness-storage", "shards", "--faithfulness-save",
                           f"shard{n}").assert_outcomes(passed=3 if n == 1 else 2)
    return [str(p) for p in list_runs(pytester.path / "shards")]


def _merge(pytester, capsys, *args: str) -> tuple[int, dict]:
    from pytest_faithfulness.cli import main as cli_main

    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        status = cli_main(["merge", *args, "--expect", "2", "--faithfulness-report", "m.json"])
    return status, json.loads((pytester.path / "m.json").read_text())["gate"]


def test_merge_applies_the_unstable_bounds(pytester, chat_server, capsys):
    """Shard 1 has 2 unstable claims of 5, shard 2 has 2 of 3: merged, 4 of 8. Each bound fails
    the merge from a flag of merge, from the ini file it reads, and from the one shard that ran
    with it (the strictest wins); a looser bound passes."""
    shards = _voted_shards(pytester, chat_server, "--faithfulness-max-unstable", "3",
                           "--faithfulness-max-unstable-rate", "0.45")
    status, gate = _merge(pytester, capsys, *shards)  # the thresholds shard 1 ran with
    assert status == 1
    assert (gate["max_unstable"], gate["max_unstable_rate"]) == (3, 0.45)
    assert any("4 unstable claim(s) (their votes disagree) > max unstable 3" in f
               for f in gate["failures"]), gate["failures"]
    assert any("share of unstable claims 0.500 (4 of 8 claims judged by votes) > max unstable "
               "rate 0.450" in f for f in gate["failures"])
    # flags of merge override the shards' values: looser bounds pass ...
    status, gate = _merge(pytester, capsys, *shards, "--max-unstable", "4",
                          "--faithfulness-max-unstable-rate", "0.5")
    assert (status, gate["failures"]) == (0, [])
    # ... stricter ones fail, each on its own
    status, gate = _merge(pytester, capsys, *shards, "--max-unstable", "2",
                          "--max-unstable-rate", "1")
    assert status == 1 and [f for f in gate["failures"] if "unstable" in f] == [
        "4 unstable claim(s) (their votes disagree) > max unstable 2"]
    status, gate = _merge(pytester, capsys, *shards, "--max-unstable", "8",
                          "--max-unstable-rate", "0.25")
    assert status == 1 and [f for f in gate["failures"] if "unstable" in f] == [
        "share of unstable claims 0.500 (4 of 8 claims judged by votes) > max unstable rate "
        "0.250"]


@pytest.mark.parametrize("key, value, failure", [
    ("faithfulness_max_unstable", "3", "> max unstable 3"),
    ("faithfulness_max_unstable_rate", "0.4", "> max unstable rate 0.400"),
])
def test_merge_reads_the_unstable_bounds_from_the_ini(pytester, chat_server, capsys, key, value,
                                                     failure):
    shards = _voted_shards(pytester, chat_server)
    assert _merge(pytester, capsys, *shards)[0] == 0  # no bound anywhere: the gate passes
    pytester.makeini(f"[pytest]\n{INI_HEAD}{key} = {value}\n")
    status, gate = _merge(pytester, capsys, *shards)
    assert status == 1 and any(failure in f for f in gate["failures"]), gate["failures"]


# -- panels: one set of rules, one vote (issue 21, item 8) -----------------------------------

@pytest.mark.parametrize("members", [
    ["offline", "offline-heuristic"],
    ["offline-heuristic", "offline"],
])
def test_a_panel_refuses_judges_that_share_the_offline_rules(chat_server, members):
    """Before, ``offline`` and ``offline-heuristic`` (the same rules) outvoted an LLM member
    two to one."""
    from pytest_faithfulness.judges import make_judge as build

    llm = make_judge(chat_server)
    with pytest.raises(ValueError, match=r"panel judges 2 \(offline\) and 3 \(offline\) judge "
                                         r"by the same rules \('offline'\).*one set of rules, "
                                         r"one vote"):
        PanelJudge([llm, *(build(m) for m in members)])
    with pytest.raises(ValueError, match="same rules"):  # also through the vote wrappers
        PanelJudge([VotingJudge(llm, 3), *(VotingJudge(build(m), 3) for m in members)])
    with pytest.raises(ValueError, match="the same judge"):  # and one model twice
        PanelJudge([llm, make_judge(chat_server)])
    # one offline judge beside an LLM judge is a panel of two independent judges
    chat_server.handler = handler([STEADY])
    pair = PanelJudge([llm, build(members[0])])
    claim = pytest_faithfulness.evaluate(STEADY, PASSAGES, pair).claims[0]
    assert claim.label == "supported" and len(claim.votes) == 2


@pytest.mark.parametrize("args", [
    ["--faithfulness-panel", "offline-heuristic"],  # beside the default judge, offline
    ["--faithfulness-judge", "openai/x", "--faithfulness-panel", "offline,offline-heuristic"],
    ["--faithfulness-judge", "offline-heuristic", "--faithfulness-panel", "openai/x,offline"],
    ["--faithfulness-judge", "openai/x", "--faithfulness-panel", "OFFLINE,offline"],
])
def test_a_panel_of_offline_judges_is_a_usage_error(pytester, args):
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*judge by the same offline rules (verification), so they are "
                                 "one judge, one vote: a panel takes at most one of them*"])


def test_one_offline_judge_in_a_panel_is_accepted(pytester, chat_server):
    """The rule refuses only judges that share rules: an LLM judge and one offline judge judge
    together (a tie between them is not supported)."""
    def verify(passages, claim, request):
        return SUPPORTED if claim == FLAKY else inconsistent(passages, claim, request)

    chat_server.handler = handler([FLAKY, ABSENT], verify)
    pytester.makepyfile(test_panel=f'''
        def test_answer(assert_faithful):
            assert_faithful({answer_of([FLAKY, ABSENT])!r}, {PASSAGES!r}, record_only=True)
    ''')
    pytester.runpytest(*NO_FILTER, "--faithfulness-judge", MODEL, "--faithfulness-panel",
                       "offline-heuristic", "--faithfulness-api-base", chat_server.base_url,
                       "--faithfulness-no-cache", "--faithfulness-report",
                       "r.json").assert_outcomes(passed=1)
    claims = json.loads((pytester.path / "r.json").read_text())["answers"][0]["claims"]
    assert [[v["judge"] for v in c["votes"]] for c in claims] == [[MODEL, "offline"]] * 2
    assert claims[0]["verdict"]["label"] == "supported"  # both judges agree
    assert claims[1]["verdict"]["label"] != "supported"
