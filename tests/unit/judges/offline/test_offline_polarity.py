"""The offline judges under the evidence rules (issue 20, item 5): no false ``contradicted`` on
faithful support answers (negation in another clause, labels, tables, key/value passages,
titles, units written out), and every opposite claim of the issue refused.

Both offline verifiers are exercised through ``evaluate()``: ``offline`` (calibrated, the
default) and ``offline-heuristic``; the suite at the end runs through pytest (pytester)."""

from __future__ import annotations

import pytest

from pytest_faithfulness import evaluate, make_judge
from pytest_faithfulness.records import Passage

JUDGES = ("offline", "offline-heuristic")


@pytest.fixture(scope="module", params=JUDGES)
def judge(request):
    return make_judge(request.param)


#: A new user's support bot: ten faithful answers, each with the passage it rests on, in the
#: forms the issue found blocked (written for this project).
SUPPORT_BOT = {
    "negation-in-another-clause": (
        "Items bought on sale cannot be refunded. They can be exchanged within 30 days.",
        [{"id": "refunds", "title": "Refund policy",
          "text": "Sale items can be exchanged but not refunded. Exchanges are accepted within "
                  "30 days of purchase."}]),
    "no-credit-card": (
        "No credit card is required for the free trial.",
        [{"id": "trial", "title": "Free trial",
          "text": "Start your 14-day free trial today: no credit card is required."}]),
    "grams-label": (
        "The starter kit weighs 680 grams.",
        [{"id": "kit", "title": "Starter kit",
          "text": "Weight: 680 g. Includes a charger and two cables."}]),
    "up-to-maximum": (
        "The Team plan supports up to 25 users.",
        [{"id": "plans", "text": "The Team plan supports a maximum of 25 users. Larger teams "
                                 "should choose Enterprise."}]),
    "price-label": (
        "The Pro plan costs $12 per month.",
        [{"id": "pro", "title": "Pro plan",
          "text": "Price: $12 per month, billed annually. Includes priority support."}]),
    "table-row": (
        "The Basic plan includes 50 GB of storage.",
        [{"id": "table", "title": "Plan comparison",
          "text": "| Plan | Storage | Users |\n| --- | --- | --- |\n| Basic | 50 GB | 5 |\n"
                  "| Pro | 200 GB | 20 |"}]),
    "key-value": (
        "The Team plan allows up to 25 users.",
        [{"id": "cfg", "title": "Team plan limits",
          "text": '{"plan": "team", "max_users": 25, "sso": true}'}]),
    "title-names-the-product": (
        "The Orbit router supports WPA3 encryption.",
        [{"id": "orbit", "title": "Orbit router",
          "text": "Supports WPA3 encryption and guest networks. Setup takes about five minutes."}]),
    "negation-with-adjunct": (
        "Support is available 24 hours a day. Support does not answer phone calls on weekends.",
        [{"id": "hours", "title": "Contact us",
          "text": "Our chat support is available 24 hours a day, seven days a week. On weekends "
                  "we do not answer phone calls, but email is answered within a day."}]),
    "bound-kept": (
        "Orders ship within 2 business days. Shipping is free on orders over $50.",
        [{"id": "ship", "title": "Shipping",
          "text": "Orders ship within 2 business days. Shipping is free for orders over $50; "
                  "below that it costs $5."}]),
}

#: The answers of ``SUPPORT_BOT`` whose every claim both offline judges support and the
#: evidence check accepts. The first answer's first claim stays unsupported: "bought on sale"
#: is not worded in the passage ("Sale items"), a paraphrase a word-level judge does not read.
SUPPORTED_TODAY = tuple(name for name in SUPPORT_BOT if name != "negation-in-another-clause")


@pytest.mark.parametrize("case", list(SUPPORT_BOT))
def test_no_faithful_support_answer_is_called_contradicted(judge, case):
    answer, passages = SUPPORT_BOT[case]
    result = evaluate(answer, passages, judge)
    assert result.status == "scored"
    assert not [c for c in result.claims if c.label == "contradicted"
                or c.judge_verdict is not None and c.judge_verdict.label == "contradicted"], [
        (c.text, c.verdict.rationale) for c in result.claims]


def test_the_sale_answer_keeps_its_exchange_claim(judge):
    """"Items bought on sale cannot be refunded." is not contradicted by "... exchanged but
    not refunded" (the negation is in another clause); the exchange claim is supported."""
    answer, passages = SUPPORT_BOT["negation-in-another-clause"]
    labels = [c.label for c in evaluate(answer, passages, judge).claims]
    assert labels == ["unsupported", "supported"]


@pytest.mark.parametrize("case", SUPPORTED_TODAY)
def test_faithful_support_answers_are_supported(judge, case):
    answer, passages = SUPPORT_BOT[case]
    result = evaluate(answer, passages, judge)
    assert result.score == 1.0, [(c.text, c.label, c.verdict.rationale, c.note)
                                 for c in result.claims]


@pytest.mark.parametrize("case", ["negation-in-another-clause", "no-credit-card",
                                  "negation-with-adjunct"])
def test_a_negation_in_another_clause_is_no_flip_for_the_heuristic(case):
    """The heuristic's own verdict on the negated claims (before the quote check): not
    contradicted, and supported where every word is in the window."""
    answer, passages = SUPPORT_BOT[case]
    result = evaluate(answer, passages, make_judge("offline-heuristic"))
    negated = [c for c in result.claims if " not " in f" {c.text} " or "No " in c.text
               or "cannot" in c.text]
    assert negated
    for claim in negated:
        own = claim.judge_verdict or claim.verdict
        assert own.label != "contradicted", (claim.text, own.rationale)
        if "cannot" not in claim.text:  # "bought on sale" is not worded in the passage
            assert own.label == "supported", (claim.text, own.rationale)


def test_the_title_carries_the_name_for_the_heuristic():
    answer, passages = SUPPORT_BOT["title-names-the-product"]
    claim = evaluate(answer, passages, make_judge("offline-heuristic")).claims[0]
    own = claim.judge_verdict or claim.verdict
    assert own.label == "supported", own.rationale
    assert own.quote == "Supports WPA3 encryption and guest networks."


#: Each opposite pair of issue 20: (claim, passage), both directions. None may be supported.
OPPOSITES = [
    ("Deposits are refundable.", "Deposits are non-refundable."),
    ("Two-factor login is enabled for all accounts.", "Two-factor login is disabled for all accounts."),
    ("Backups are encrypted at rest.", "Backups are unencrypted at rest."),
    ("The cleaner is safe for wooden floors.", "The cleaner is unsafe for wooden floors."),
    ("Refurbished devices are eligible for the trade-in program.",
     "Refurbished devices are ineligible for the trade-in program."),
    ("The charger is compatible with the Model S dock.",
     "The charger is incompatible with the Model S dock."),
    ("Returns without a receipt are accepted.", "Returns without a receipt are rejected."),
    ("Refunds are issued for late deliveries.", "Refunds are denied for late deliveries."),
    ("Customers incur a fee for early cancellation.", "Customers avoid a fee for early cancellation."),
    ("Legacy API keys are active after migration.", "Legacy API keys are inactive after migration."),
    ("Gift cards are valid in physical stores.", "Gift cards are invalid in physical stores."),
    ("Student accounts qualify for the discount.", "Student accounts are excluded from the discount."),
    ("The nightly job always retries failed uploads.", "The nightly job rarely retries failed uploads."),
    ("The Team plan is for 10 users.", "The Team plan is for 10+ users."),
    ("Refunds are processed within 14 days.", "Refunds are processed within 14 weeks."),
    ("The battery charges in 12 hours.", "The battery charges in 12 minutes."),
    ("The kettle weighs 1.5 kg.", "The kettle weighs 1.5 lb."),
    ("The add-on costs $30.", "The add-on costs \u20ac30."),
    ("The Pro plan costs $99 per year.", "The Pro plan costs $99 per month."),
]
BOTH_WAYS = OPPOSITES + [(passage, claim) for claim, passage in OPPOSITES]


@pytest.mark.parametrize(("claim", "passage"), BOTH_WAYS,
                         ids=[f"{c[:24]}<-{p[:24]}" for c, p in BOTH_WAYS])
def test_every_opposite_claim_is_refused(judge, claim, passage):
    result = evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert [c.label for c in result.claims] != ["supported"], result.claims[0].verdict


@pytest.mark.parametrize(("claim", "passage"), [
    ("Deposits are refundable.", "Deposits are non-refundable."),
    ("Two-factor login is enabled for all accounts.", "Two-factor login is disabled for all accounts."),
    ("Gift cards are valid in physical stores.", "Gift cards are invalid in physical stores."),
    ("The nightly job always retries failed uploads.", "The nightly job rarely retries failed uploads."),
    ("Refunds are issued for late deliveries.", "Refunds are denied for late deliveries."),
])
def test_an_opposite_word_on_the_same_topic_is_a_contradiction(claim, passage):
    result = evaluate(claim, [{"id": "p1", "text": passage}], make_judge("offline-heuristic"))
    assert [c.label for c in result.claims] == ["contradicted"], result.claims[0].verdict


@pytest.mark.parametrize(("claim", "passage"), [
    ("Deposits are refundable.", "Deposits are not non-refundable."),
    ("Two-factor login is enabled.", "Two-factor login is not disabled."),
])
def test_a_negated_opposite_agrees(claim, passage):
    """"not disabled" is no opposite of "enabled": the rule refuses nothing for it."""
    from pytest_faithfulness.language.features import text_features
    from pytest_faithfulness.judges.offline.heuristic import opposite_pairs

    assert opposite_pairs(text_features(claim), text_features(passage, sentence_start_exempt=False)) == []


def test_a_faithful_support_suite_passes_its_gate(pytester):
    """A small support-bot suite on the default offline judge (nine of the ten answers above:
    labels, a table row, key/value, a title, units written out, bounds, negation with an
    adjunct): every answer is faithful and the run passes a strict session gate (mean 1.0,
    no claim unsupported)."""
    cases = {name: SUPPORT_BOT[name] for name in SUPPORTED_TODAY}
    pytester.makepyfile(test_support_bot=f'''
import pytest

CASES = {cases!r}

@pytest.mark.parametrize("name", sorted(CASES))
def test_answer(assert_faithful, name):
    answer, passages = CASES[name]
    assert_faithful(answer, passages)
''')
    result = pytester.runpytest("--faithfulness-min-mean", "1.0",
                                "--faithfulness-max-unsupported", "0")
    result.assert_outcomes(passed=len(cases))
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*session gate passed*"])


def test_a_table_row_is_read_with_its_header_and_no_other_row():
    """The heuristic reads a Markdown table row with its header's column names; a number of
    another row is not the claim's ("200 GB" is the Pro plan's)."""
    _, passages = SUPPORT_BOT["table-row"]
    judge = make_judge("offline-heuristic")
    right = evaluate("The Basic plan includes 50 GB of storage.", passages, judge).claims[0]
    assert right.label == "supported" and right.verdict.quote == "| Basic | 50 GB | 5 |"
    for claim in ("The Basic plan includes 200 GB of storage.",
                  "The Pro plan includes 50 GB of storage."):
        for kind in JUDGES:
            verdict = evaluate(claim, passages, make_judge(kind)).claims[0]
            assert verdict.label != "supported", (kind, claim, verdict.verdict)


@pytest.mark.parametrize(("claim", "passage"), [
    ("Refunds are paid in cash.", "Refunds are paid as store credit rather than cash."),
    ("Refunds are paid in cash.", "Refunds are paid as store credit instead of cash."),
])
def test_rather_than_negates_what_follows(judge, claim, passage):
    result = evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert [c.label for c in result.claims] != ["supported"], result.claims[0].verdict


def test_a_rider_the_window_does_not_speak_to_is_not_supported():
    """The calibrated judge keeps its own coverage floor: a claim part no window word speaks
    to ("ships with a descaling kit") is not supported on the rest of the claim's words."""
    passages = [{"id": "9", "text": "The Model K7 kettle has a 2-year warranty."}]
    result = evaluate("The Model K7 kettle ships with a descaling kit.", passages,
                      make_judge("offline"))
    assert [c.label for c in result.claims] == ["unsupported"], result.claims[0].verdict


@pytest.mark.parametrize("claim", ["10.", "It was 10.", "10 of them."])
def test_a_claim_of_numbers_alone_is_judged(judge, claim):
    """A claim whose only content words are numbers (no word to weigh a topic on), against a
    window that bounds its number, is judged, not an error (the opposite-word topic rule
    divided by the claim's word count: found by the training run)."""
    result = evaluate(claim, [{"id": "p1", "text": "At least 10 apply."}], judge)
    assert result.status == "scored", result.error
    assert [c.label for c in result.claims] != ["supported"]


@pytest.mark.parametrize(("claim", "text", "label"), [
    # two sentences about different things are no window (found by a new user)
    ("Acme acquired Globex in 2021.",
     "Acme was founded in 2001. Globex was acquired by Initech in 2021.", "not supported"),
    # a sentence that goes on from the one before is read with it
    ("A keen tennis player, he lives in Leicestershire with his wife and two children.",
     "I live in Leicestershire with my wife and two children. I am a keen tennis player.",
     "supported"),
], ids=["stitched-neighbours", "going-on"])
def test_a_window_joins_only_sentences_that_go_on(judge, claim, text, label):
    (result,) = evaluate(claim, [{"id": "p1", "text": text}], judge).claims
    assert (result.label == "supported") == (label == "supported"), result.verdict.rationale


# Found by a new user attacking main (issue 20, polarity round 2): opposite verbs off the
# curated list, frequency words, names swapped across neighbouring sentences, and a table's
# "No" cell. Both offline judges, through evaluate(); each kind both ways.

PICO = [{"id": "p1", "text": (
    "The Pico 2 weighs 800 grams and costs $49. The battery lasts up to 10 hours. Ana Ruiz "
    "coaches the Tigers. Leo Park coaches the Lions. The Lions beat the Tigers 3-1 in the "
    "final. Prices rose by 5% in 2023. Refunds are issued within 14 days of a return being "
    "received. The seller pays return shipping.")}]
PLANS = [{"id": "p2", "text": "The Pro plan costs $20 per month. The Basic plan includes SSO."}]
PLAN_TABLE = [{"id": "t1", "text": "| Plan | Price | SSO |\n|---|---|---|\n"
                                   "| Pro | $20/month | Yes |\n| Basic | $5/month | No |"}]


def _label(judge, claim, passages):
    (result,) = evaluate(claim, passages, judge).claims
    return result.label, (result.judge_verdict or result.verdict)


@pytest.mark.parametrize(("claim", "passages"), [
    ("Prices dropped by 5% in 2023.", PICO),
    ("Prices shrank by 5% in 2023.", PICO),
    ("Prices plunged by 5% in 2023.", PICO),
    ("Prices rose by 5% in 2023.", [{"id": "p1", "text": "Prices dropped by 5% in 2023."}]),
    ("Prices grew by 5% in 2023.", [{"id": "p1", "text": "Prices slumped by 5% in 2023."}]),
], ids=["dropped", "shrank", "plunged", "rose<-dropped", "grew<-slumped"])
def test_a_direction_verb_against_its_opposite_is_not_supported(judge, claim, passages):
    label, verdict = _label(judge, claim, passages)
    assert label != "supported", verdict
    # the passage's own sentence is supported
    text = passages[0]["text"]
    stated = "Prices rose by 5% in 2023." if "rose" in text else text
    assert _label(judge, stated, passages)[0] == "supported"


@pytest.mark.parametrize("hedge", ["rarely", "seldom", "sometimes", "occasionally", "often",
                                   "usually"])
def test_a_frequency_word_the_passage_does_not_state_is_not_supported(judge, hedge):
    label, verdict = _label(judge, f"The seller {hedge} pays return shipping.", PICO)
    assert label != "supported", verdict
    assert _label(judge, "The seller pays return shipping.", PICO)[0] == "supported"


@pytest.mark.parametrize(("swapped", "true", "passages"), [
    ("Leo Park coaches the Tigers.", "Ana Ruiz coaches the Tigers.", PICO),
    ("Ana Ruiz coaches the Lions.", "Leo Park coaches the Lions.", PICO),
    ("The Pro plan includes SSO.", "The Basic plan includes SSO.", PLANS),
    ("The Basic plan costs $20 per month.", "The Pro plan costs $20 per month.", PLANS),
], ids=["leo-tigers", "ana-lions", "pro-sso", "basic-20"])
def test_names_swapped_across_neighbouring_sentences_are_not_supported(judge, swapped, true,
                                                                       passages):
    label, verdict = _label(judge, swapped, passages)
    assert label != "supported", verdict
    assert _label(judge, true, passages)[0] == "supported"


def test_the_heuristic_reads_no_window_stitched_across_neighbouring_sentences():
    """The heuristic's own verdict (before the quote check): a window "Leo Park coaches the
    Lions. The Lions beat the Tigers 3-1 in the final." does not carry "Tigers" to Leo Park
    through its "The ..." sentence, nor two sentences each with its own name."""
    judge = make_judge("offline-heuristic")
    for claim, passages in (("Leo Park coaches the Tigers.", PICO),
                            ("Ana Ruiz coaches the Lions.", PICO),
                            ("The Pro plan includes SSO.", PLANS),
                            ("The Basic plan costs $20 per month.", PLANS)):
        verdict = judge.verify(claim, [Passage.model_validate(p) for p in passages])
        assert verdict.label != "supported", (claim, verdict.quote)


@pytest.mark.parametrize("claim", ["The Pro plan costs $20 per month.",
                                   "The Basic plan costs $5 a month."])
def test_a_table_row_with_a_no_cell_supports_its_own_claims(judge, claim):
    label, verdict = _label(judge, claim, PLAN_TABLE)
    assert label == "supported", verdict


@pytest.mark.parametrize(("claim", "label"), [
    ("The Basic plan does not include SSO.", "not contradicted"),
    ("The Pro plan includes SSO.", "not contradicted"),
    ("The Basic plan includes SSO.", "not supported"),
    ("The Pro plan does not include SSO.", "not supported"),
    ("The Pro plan costs $5 a month.", "not supported"),
    ("The Basic plan costs $20 per month.", "not supported"),
])
def test_a_no_cell_negates_its_column_only(judge, claim, label):
    got, verdict = _label(judge, claim, PLAN_TABLE)
    assert got != label.split()[1], verdict


#: The same quantity in another unit, spelling or writing (found by a new user attacking
#: main): the offline judges compare quantities as the evidence check does. Each with a
#: wrong claim of the same passage that must not be supported.
SAME_QUANTITY = {
    "grams-as-kg": ("The kit weighs 800 grams.", "The kit weighs 0.8 kg.",
                    "The kit weighs 0.9 kg."),
    "litres-as-ml": ("The bottle holds 1.5 litres.", "The bottle holds 1500 ml.",
                     "The bottle holds 1200 ml."),
    "days-as-weeks": ("Returns are accepted within 14 days.",
                      "Returns are accepted within two weeks.",
                      "Returns are accepted within three weeks."),
    "hours-as-minutes": ("The battery lasts 10 hours.", "The battery lasts 600 minutes.",
                         "The battery lasts 500 minutes."),
    "hyphenated-word": ("The watch is waterproof to 50 metres.",
                        "The watch is water-proof to 50 metres.",
                        "The watch is water-proof to 100 metres."),
    "clock-times": ("Support is open 9 am\u20135 pm, Monday to Friday.",
                    "Support is open from 9:00 to 17:00, Monday to Friday.",
                    "Support is open from 9:00 to 18:00, Monday to Friday."),
    "clock-range-dash": ("Support is open 9 am\u20135 pm, Monday to Friday.",
                         "Support is open 9am-5pm, Monday to Friday.",
                         "Support is open 9am-6pm, Monday to Friday."),
    "currency-code": ("The Pico 2 costs $49.", "The Pico 2 costs USD 49.",
                      "The Pico 2 costs USD 59."),
    "number-words": ("The Pico 2 costs $49.", "The Pico 2 costs forty-nine dollars.",
                     "The Pico 2 costs fifty-nine dollars."),
    "hour-abbreviation": ("The battery lasts 10 hours.", "The battery lasts 10 h.",
                          "The battery lasts 10 min."),
}


@pytest.mark.parametrize("case", list(SAME_QUANTITY))
def test_the_same_quantity_written_otherwise_is_supported(judge, case):
    text, right, wrong = SAME_QUANTITY[case]
    (kept,) = evaluate(right, [{"id": "p1", "text": text}], judge).claims
    assert kept.label == "supported", (kept.note, kept.verdict.rationale)
    (refused,) = evaluate(wrong, [{"id": "p1", "text": text}], judge).claims
    assert refused.label != "supported", refused.verdict


@pytest.mark.parametrize(("claim", "text"), [
    ("The Lions beat the Tigers 1-3 in the final.", "The Lions beat the Tigers 3-1 in the final."),
    ("Refunds are issued within 14 business days.", "Refunds are issued within 14 days."),
    ("The battery lasts 10 hours.", "The battery lasts up to 10 hours."),
], ids=["score-reversed", "qualifier-added", "bound-dropped"])
def test_a_number_stated_otherwise_is_not_supported(judge, claim, text):
    (result,) = evaluate(claim, [{"id": "p1", "text": text}], judge).claims
    assert result.label != "supported", result.verdict


@pytest.mark.parametrize("claim, text", [
    ("Refunds are issued within 14 days of a return being received; exchanges are instant.",
     "Refunds are issued within 14 days of a return being received."),
    ("Refunds take 14 days; returns are free.", "Refunds take 14 days."),
    ("Refunds take 14 days: shipping is free.", "Refunds take 14 days."),
    ("Refunds take 14 days \u2014 exchanges are instant.", "Refunds take 14 days."),
])
def test_a_statement_after_a_semicolon_colon_or_dash_is_judged_on_its_own(judge, claim, text):
    result = evaluate(claim, [{"id": "p1", "text": text}], judge)
    assert [c.supported for c in result.claims] == [True, False], result.claims
    both = evaluate(claim, [{"id": "p1", "text": f"{text} Exchanges are instant. Returns are "
                                                 "free. Shipping is free."}], judge)
    assert [c.supported for c in both.claims] == [True, True], both.claims


@pytest.mark.parametrize("claim, passages", [
    ("The Pico 2 is waterproof.",
     [{"id": "p1", "text": "The Pico 2 weighs 800 g. The Vela lamp is waterproof."}]),
    ("The Pico 2 is waterproof.",
     [{"id": "p1", "text": "Unlike the Pico 2, the Vela lamp is waterproof."}]),
    ("The Basic plan includes SSO.",
     [{"id": "p1", "text": "The Pro plan includes SSO, whereas the Basic plan has only "
                           "password login."}]),
])
def test_a_predicate_said_of_another_name_is_not_supported(judge, claim, passages):
    result = evaluate(claim, passages, judge)
    assert not any(c.supported for c in result.claims), result.claims


#: Numbers written in the forms a new user found read wrongly (issue 20, numbers round 3):
#: (passage, a claim it states, a claim it does not state).
NUMBERS_3 = {
    "minus-word": ("The freezer reaches minus 20 \u00b0C.",
                   "The freezer reaches -20 degrees Celsius.", "The freezer reaches 20 \u00b0C."),
    "below-zero": ("The freezer reaches 20 degrees below zero.",
                   "The freezer reaches minus 20 degrees.", "The freezer reaches 20 degrees."),
    "space-grouped": ("The app has 10 000 users.", "The app has 10,000 users.",
                      "The app has 10 users."),
    "apostrophe-grouped": ("The app has 1'000 users.", "The app has 1000 users.",
                           "The app has 1 user."),
    "indian-grouped": ("The app has 1,00,000 users.", "The app has 100000 users.",
                       "The app has 1 user."),
    "million-letter": ("The server handled 1M requests.", "The server handled 1 million requests.",
                       "The server handled 1 request."),
    "and-a-half": ("The project took 2 and a half years.", "The project took 2.5 years.",
                   "The project took 2 years."),
    "hour-and-a-half": ("The call took an hour and a half.", "The call took 90 minutes.",
                        "The call took an hour."),
    "nearly": ("The event drew nearly 100 users.", "The event drew almost 100 users.",
               "The event drew 100 users."),
    "clock-range-end": ("The office is open from 9 am to 5 pm.", "The office is open until 5 pm.",
                        "The office opens at 5 pm."),
    "clock-range-closing": ("The office is open from 9 am to 5 pm.",
                            "The office closes at 5 pm.", "The office closes at 9 am."),
    "minimum-noun": ("Orders must be at least $10.", "The minimum order is $10.",
                     "The minimum order is $20."),
    "per-slash": ("The plan costs $10/team.", "The plan costs $10 per team.",
                  "The plan costs $10 per user."),
    "per-team": ("The plan costs $10 per team.", "The plan costs $10 per team.",
                 "The plan costs $10 per user."),
    "24-7": ("The support line is staffed 24/7.", "The support line is staffed 24 hours a day.",
             "The support line is staffed 12 hours a day."),
    "1.2-million": ("The company raised $1.2 million.", "The company raised $1.2M.",
                    "The company raised $1.5M."),
    "celsius": ("The freezer reaches -20 \u00b0C.", "The freezer reaches minus 20 degrees Celsius.",
                "The freezer reaches minus 20 degrees Fahrenheit."),
    "first": ("The team finished first.", "The team finished 1st.", "The team finished 3rd."),
    "iso-date": ("The contract starts on 2024-03-04.", "The contract starts on 4 March 2024.",
                 "The contract starts on 3 April 2024."),
    "no-more-than": ("The plan allows up to 5 users.", "The plan allows no more than 5 users.",
                     "The plan allows 5 users."),
    "at-most": ("The plan allows up to 5 users.", "The plan allows at most 5 users.",
                "The plan allows at least 5 users."),
}


@pytest.mark.parametrize("case", list(NUMBERS_3))
def test_a_number_written_another_way_is_read_as_its_quantity(judge, case):
    text, right, wrong = NUMBERS_3[case]
    (kept,) = evaluate(right, [{"id": "p1", "text": text}], judge).claims
    assert kept.label == "supported", (kept.note, kept.verdict.rationale)
    (refused,) = evaluate(wrong, [{"id": "p1", "text": text}], judge).claims
    assert refused.label != "supported", refused.verdict


#: Found by a new user (issue 20, polarity round 3): passages that frame the claim as false,
#: negate it by degree or elsewhere in the sentence, make an exception of its name, or put
#: a condition or a modal on it; the offline judges support none of them.
DENIED = [
    ("Exports are encrypted.", "A common misconception is that exports are encrypted."),
    ("Exports are encrypted.", "Some users wrongly believe that exports are encrypted."),
    ("Exports are encrypted.", "An older FAQ incorrectly states that exports are encrypted."),
    ("The Pico 2 is waterproof.",
     "Contrary to some reviews claiming the Pico 2 is waterproof, it is only splash resistant."),
    ("The Pico 2 is waterproof.", "It is unclear whether the Pico 2 is waterproof."),
    ("The Pico 2 is waterproof.", "Reports that the Pico 2 is waterproof remain unconfirmed."),
    ("The Pico 2 is waterproof.", "Many people think the Pico 2 is waterproof, but it is not."),
    ("The Pico 2 is waterproof.", "Is the Pico 2 waterproof? Unfortunately not."),
    ("The Pico 2 is waterproof.", "Is the Pico 2 waterproof? Nope."),
    ("Exports are encrypted.",
     "Exports, which are not encrypted, are stored in S3; backups are encrypted."),
    ("Admins can delete exports.",
     "Admins can view exports but cannot delete them; owners can delete exports."),
    ("The Basic plan includes SSO.", "All plans include SSO except the Basic plan."),
    ("The Basic plan includes SSO.", "Every plan other than the Basic plan includes SSO."),
    ("The Pico 2 is waterproof.", "The Pico 2 is hardly waterproof."),
    ("The Pico 2 is waterproof.", "The Pico 2 is far from waterproof."),
    ("The Pico 2 is waterproof.", "The Pico 2 is anything but waterproof."),
    ("The Pico 2 is waterproof.", "The Pico 2 is too fragile to be waterproof."),
    ("The Pico 2 supports USB-C.", "The Pico 2 ceased to support USB-C."),
    ("The Pico 2 is waterproof.", "The Pico 2 used to be waterproof before the redesign."),
    ("The Basic plan includes SSO.",
     "| Plan | SSO |\n| --- | --- |\n| Basic | \u2014 |\n| Pro | Yes |"),
    ("Shipping is free.", "If you spend over $50, shipping is free."),
    ("Shipping is free.", "Shipping is free only for members."),
    ("Refunds are issued within 14 days.", "Refunds may be issued within 14 days."),
    ("The Pico 2 supports USB-C.", "The Pico 2 is planned to support USB-C next year."),
    ("The Pico 2 supports USB-C.", "We hope the Pico 2 will support USB-C."),
    ("The Pico 2 is waterproof.", "The Pico 2 would be waterproof if it had a sealed case."),
]


@pytest.mark.parametrize(("claim", "passage"), DENIED, ids=[p[:40] for _, p in DENIED])
def test_a_passage_that_denies_or_hedges_the_claim_does_not_support_it(judge, claim, passage):
    result = evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert [c.label for c in result.claims] != ["supported"], result.claims[0].verdict


@pytest.mark.parametrize(("claim", "passage"), [
    ("The Pico 2 is waterproof.", "Tests confirm that the Pico 2 is waterproof."),
    ("Shipping is free for members.", "Shipping is free only for members."),
    ("Exports are encrypted.", "Exports, which are encrypted, are stored in S3."),
])
def test_the_asserted_claim_is_still_supported(judge, claim, passage):
    result = evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert [c.label for c in result.claims] == ["supported"], result.claims[0].verdict
