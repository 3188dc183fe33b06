"""Issue 20: the evidence check proves what evidence can prove, in both directions.

Every case runs through ``pytest_faithfulness.evaluate`` with a judge that quotes (a scripted
judge object giving ``Verdict.evidence`` items, or the loopback LLM judge), and the audit-log
gate through a real pytest run (pytester). Two kinds:

* false alarms: a correct ``supported`` verdict with the evidence a careful reader quotes must be
  kept (the audit-log answer scores 0.60, the Vela claim is kept with "three brightness
  levels", typography, units, key/value and table passages, Q&A, titles, computed figures,
  two sentences, negation in another clause);
* opposite pairs: the passage states one side, the judge says ``supported`` to the other side
  with the passage sentence as its quote: refused, in both directions (in-word negation,
  curated antonyms, "N"/"N+", units, currencies, rates).
"""

from __future__ import annotations

import pytest
from judges import EvidenceJudge, QuotingJudge
from scripted_model import (  # noqa: F401 - shared fixtures
    AUDIT_PASSAGES,
    claims_reply,
    judge_model,
    make_judge,
)

from pytest_faithfulness import Verdict, evaluate


def supported(*items: tuple[str, str]) -> Verdict:
    """``supported`` with one evidence item per ``(passage_id, quote)``."""
    return Verdict("supported", evidence=[{"passage_id": p, "quote": q} for p, q in items])


def judged(claim: str, passages: list[dict], verdict: Verdict):
    result = evaluate(claim, passages, QuotingJudge({claim: verdict}))
    (claim_result,) = result.claims
    return result, claim_result


# --------------------------------------------------------------------------------------------
# False alarms: a correct verdict is kept.

AUDIT_ANSWER = (
    "Yes \u2014 audit log export to S3 is available on the Business plan. Configure the "
    "destination under Settings > Security > Audit Log Export, and make sure the bucket policy "
    "allows s3:PutObject for our export role. Exports run hourly and are retained in your "
    "bucket indefinitely.")
AUDIT_VERDICTS = {
    "Audit log export to S3 is available on the Business plan.": supported(
        ("p-2071", "available on the Business and Enterprise plans"),
        ("p-2071", "Exports are delivered to a customer-owned S3 bucket.")),
    "The audit log export destination is configured under Settings > Security > Audit Log "
    "Export.": supported(("p-2072", "Configure the destination bucket under Settings > Security "
                                    "> Audit Log Export.")),
    "The bucket policy must allow s3:PutObject for the export role.": supported(
        ("p-2072", "The bucket policy must allow s3:PutObject for our export role.")),
    "Audit log exports run hourly.": Verdict("unsupported"),
    "Audit log exports are retained in the customer's bucket indefinitely.": Verdict("unsupported"),
}


def test_the_audit_log_answer_scores_three_of_five_with_two_evidence_items():
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, QuotingJudge(AUDIT_VERDICTS, ["Yes"]))

    assert result.score == pytest.approx(0.6)
    assert [c.supported for c in result.claims] == [True, True, True, False, False]
    first = result.claims[0]
    assert first.note is None and len(first.verdict.evidence) == 2
    assert first.evidence_coverage is not None and 0.5 < first.evidence_coverage <= 1.0
    assert result.claims[3].evidence_coverage is None  # no quote: nothing to cover


def test_the_audit_log_gate_passes_at_0_6_in_a_pytest_run(pytester):
    pytester.makeconftest(f'''
        import pytest
        from pytest_faithfulness import Decomposition, Verdict

        VERDICTS = {{claim: Verdict.model_validate(v) for claim, v in {
            {c: v.model_dump(include={"label", "evidence"}) for c, v in AUDIT_VERDICTS.items()}!r}.items()}}

        class QuotingJudge:
            def decompose(self, text):
                return Decomposition(claims=list(VERDICTS), dropped=["Yes"])
            def verify(self, claim, passages):
                return VERDICTS[claim]

        @pytest.fixture(scope="session")
        def faithfulness_judge():
            return QuotingJudge()
    ''')
    pytester.makepyfile(test_audit=f'''
        def test_passes_at_0_6(assert_faithful):
            result = assert_faithful({AUDIT_ANSWER!r}, {AUDIT_PASSAGES!r}, min_score=0.6)
            assert [c.supported for c in result.claims] == [True, True, True, False, False]

        def test_fails_at_0_7(assert_faithful):
            assert_faithful({AUDIT_ANSWER!r}, {AUDIT_PASSAGES!r}, min_score=0.7)
    ''')
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)


VELA = [{"id": "v1", "text": "The Vela lamp has three brightness levels and a USB-C port."}]

KEPT = {
    "vela-name-in-the-sentence": (
        "The Vela lamp has three brightness levels.", VELA,
        supported(("v1", "three brightness levels"))),
    "alphanumeric-name-is-no-number": (
        "The Vela lamp has a USB-C port.", VELA, supported(("v1", "a USB-C port"))),
    "typography": (
        'The "Pro" plan\u2019s trial lasts 14 days - no card needed.',
        [{"id": "p1", "text": "The \u201cPro\u201d plan\u2019s trial lasts 14\u00a0days \u2014 "
                              "no card needed."}],
        supported(("p1", 'The "Pro" plan\'s trial lasts 14 days - no card needed.'))),
    "ligature-and-zero-width-space": (
        "The office is closed on Fridays.",
        [{"id": "p1", "text": "The o\ufb03ce is clo\u200bsed on Fridays."}],
        supported(("p1", "The office is closed on Fridays."))),
    "litres-as-millilitres": (
        "The bottle holds 1.5 litres.", [{"id": "p1", "text": "The bottle holds 1500 ml."}],
        supported(("p1", "The bottle holds 1500 ml."))),
    "decimal-comma": (
        "The tent weighs 2.5 kg.", [{"id": "p1", "text": "Das Zelt wiegt 2,5 kg."}],
        supported(("p1", "Das Zelt wiegt 2,5 kg."))),
    "grams-as-g": (
        "The bag weighs 680 grams.", [{"id": "p1", "text": "Weight: 680 g."}],
        supported(("p1", "Weight: 680 g."))),
    "thousands-comma": (
        "The deposit is $1,200.", [{"id": "p1", "text": "A deposit of $1200 is due at signing."}],
        supported(("p1", "A deposit of $1200 is due at signing."))),
    "key-value-passage": (
        "The Team plan allows up to 25 users.",
        [{"id": "p1", "title": "Team plan", "text": '{"plan": "team", "max_users": 25}'}],
        supported(("p1", '"max_users": 25'))),
    "markdown-table-row": (
        "The Team plan allows 25 users.",
        [{"id": "p1", "text": "| Plan | Users |\n|---|---|\n| Team | 25 |"}],
        supported(("p1", "| Team | 25 |"))),
    "price-label": (
        "The Basic plan costs $49 per month.",
        [{"id": "p1", "text": "Basic plan. Price: $49 per month."}],
        supported(("p1", "Basic plan."), ("p1", "Price: $49 per month."))),
    "bare-yes-answer": (
        "You can pause your subscription.",
        [{"id": "p1", "text": "Q: Can I pause my subscription? A: Yes."}],
        supported(("p1", "Can I pause my subscription?"), ("p1", "A: Yes."))),
    "bare-no-answer": (
        "You cannot pause your subscription.",
        [{"id": "p1", "text": "Q: Can I pause my subscription? A: No."}],
        supported(("p1", "Can I pause my subscription? A: No."))),
    "name-in-the-title": (
        "The Orbit X2 weighs 2 kg.",
        [{"id": "p1", "title": "Orbit X2 specifications", "text": "It weighs 2 kg."}],
        supported(("p1", "It weighs 2 kg."))),
    "total-from-two-passages": (
        "Both add-ons together cost $30 per month.",
        [{"id": "p1", "text": "The backup add-on costs $10 per month."},
         {"id": "p2", "text": "The audit add-on costs $20 per month."}],
        supported(("p1", "The backup add-on costs $10 per month."),
                  ("p2", "The audit add-on costs $20 per month."))),
    "two-sentences-of-one-passage": (
        "Refunds go to the original card within 5 days.",
        [{"id": "p1", "text": "Refunds go to the original card. They arrive within 5 days."}],
        supported(("p1", "Refunds go to the original card."),
                  ("p1", "They arrive within 5 days."))),
    "negation-in-another-clause": (
        "Items bought on sale cannot be refunded.",
        [{"id": "p1", "text": "Items bought on sale can be exchanged but not refunded."}],
        supported(("p1", "Items bought on sale can be exchanged but not refunded."))),
    "no-credit-card-required": (
        "No credit card is required to start the trial.",
        [{"id": "p1", "text": "Start your 14-day trial today: no credit card is required."}],
        supported(("p1", "Start your 14-day trial today: no credit card is required."))),
    "paraphrase": (
        "Deposits cannot be refunded.", [{"id": "p1", "text": "Deposits are non-refundable."}],
        supported(("p1", "Deposits are non-refundable."))),
    # a common word opening the claim is no name (found by a new user: "Markup is shown...";
    # a word as rare as "markup" is not on the common-word list and still reads as a name)
    "common-word-opening-the-claim": (
        "Links in comments are displayed as plain text.",
        [{"id": "p1", "text": "URLs in comments are displayed as plain text."}],
        supported(("p1", "URLs in comments are displayed as plain text."))),
    # a judge quotes the words of a passage without its emphasis markup (found by a new user)
    "markdown-emphasis-quoted-without-it": (
        "Returns are free within 30 days.",
        [{"id": "p1", "text": "Returns are **free** within _30 days_."}],
        supported(("p1", "Returns are free within 30 days."))),
    "html-emphasis-quoted-without-it": (
        "The Pro plan includes SSO.",
        [{"id": "p1", "text": "The <b>Pro</b> plan includes <em>SSO</em>."}],
        supported(("p1", "The Pro plan includes SSO."))),
    # one thing in two spellings or two names (found by a new user)
    "ceo-as-chief-executive": (
        "Dana Osei is the CEO of Globex.",
        [{"id": "p1", "text": "Dana Osei, chief executive of Globex, spoke first."}],
        supported(("p1", "Dana Osei, chief executive of Globex, spoke first."))),
    "british-and-american-spelling": (
        "The case comes in three colors and is licensed for commercial use.",
        [{"id": "p1", "text": "The case comes in three colours and is licenced for "
                              "commercial use."}],
        supported(("p1", "The case comes in three colours and is licenced for commercial "
                         "use."))),
    "discourse-word-opening-the-claim": (
        "Unfortunately, gift cards cannot be refunded.",
        [{"id": "p1", "text": "Gift cards cannot be refunded."}],
        supported(("p1", "Gift cards cannot be refunded."))),
}


@pytest.mark.parametrize(("claim", "passages", "verdict"), list(KEPT.values()), ids=list(KEPT))
def test_a_correct_verdict_with_careful_evidence_is_kept(claim, passages, verdict):
    result, claim_result = judged(claim, passages, verdict)
    assert claim_result.label == "supported", claim_result.note
    assert claim_result.note is None and result.score == 1.0
    assert claim_result.evidence_coverage is not None


def test_evidence_coverage_is_reported_in_json(tmp_path):
    claim, passages, verdict = KEPT["vela-name-in-the-sentence"]
    result, claim_result = judged(claim, passages, verdict)
    dumped = result.model_dump(mode="json")
    # "three brightness levels" states 3 of the claim's 5 content words (vela, lamp, 3,
    # brightness, level): coverage is reported, and decides nothing by itself
    assert dumped["claims"][0]["evidence_coverage"] == pytest.approx(0.6)
    assert claim_result.supported


def test_the_vela_claim_is_kept_through_the_llm_judge(chat_server):
    claim = "The Vela lamp has three brightness levels."
    chat_server.handler = judge_model(
        claims_reply([claim]),
        lambda passages, c: {"label": "supported", "passage_ids": ["v1"],
                             "quote": "three brightness levels", "rationale": "stated"})
    result = evaluate(claim, VELA, make_judge(chat_server))
    assert result.score == 1.0 and result.claims[0].note is None


# --------------------------------------------------------------------------------------------
# Opposite pairs: the judge says the other side with the passage sentence; refused both ways.

PAIRS = [
    ("Deposits are non-refundable.", "Deposits are refundable."),
    # dys- negates as dis- does (a SummEdits edit the last round missed)
    ("The team had a dysfunctional design meeting.", "The team had a functional design meeting."),
    ("Two-factor authentication is disabled by default.",
     "Two-factor authentication is enabled by default."),
    ("Backups are unencrypted at rest.", "Backups are encrypted at rest."),
    ("The water is unsafe to drink.", "The water is safe to drink."),
    ("Contractors are ineligible for the bonus.", "Contractors are eligible for the bonus."),
    ("The charger is incompatible with the Zeta phone.",
     "The charger is compatible with the Zeta phone."),
    ("Late applications are rejected.", "Late applications are accepted."),
    ("Refunds are denied after 30 days.", "Refunds are issued after 30 days."),
    ("The plan excludes phone support.", "The plan includes phone support."),
    ("Annual billing lets customers avoid the setup fee.",
     "Annual billing makes customers incur the setup fee."),
    ("Trial accounts are inactive after 14 days.", "Trial accounts are active after 14 days."),
    ("Coupons are invalid on sale items.", "Coupons are valid on sale items."),
    ("Students are excluded from the discount.", "Students qualify for the discount."),
    ("The service is rarely available on weekends.",
     "The service is always available on weekends."),
    ("The Team plan supports 10+ users.", "The Team plan supports 10 users."),
    ("The Team plan supports at least 10 users.", "The Team plan supports 10 users."),
    ("Refunds take 14 days.", "Refunds take 14 weeks."),
    ("The battery charges in 12 hours.", "The battery charges in 12 minutes."),
    ("The tent weighs 1.5 kg.", "The tent weighs 1.5 lb."),
    ("The plan costs $20 per month.", "The plan costs \u20ac20 per month."),
    ("The licence costs $300 per year.", "The licence costs $300 per month."),
    ("All plans include SSO.", "Some plans include SSO."),
    ("The screen is not covered by the warranty.", "The screen is covered by the warranty."),
]
DIRECTIONS = [(stated, other) for stated, other in PAIRS] + [(o, s) for s, o in PAIRS]


@pytest.mark.parametrize(("stated", "claim"), DIRECTIONS,
                         ids=[f"{c[:40]}<-{s[:40]}" for s, c in DIRECTIONS])
def test_the_opposite_claim_is_refused_with_the_passage_sentence(stated, claim):
    passages = [{"id": "p1", "text": stated}]
    result, claim_result = judged(claim, passages, supported(("p1", stated)))
    assert claim_result.label == "unsupported", "opposite claim accepted"
    assert claim_result.judge_verdict.label == "supported"  # kept, with the reason
    assert claim_result.note and "quote" in claim_result.note
    assert result.score == 0.0


@pytest.mark.parametrize(("stated", "claim"), [
    ("Deposits are non-refundable.", "Deposits are refundable."),
    ("Two-factor authentication is disabled by default.",
     "Two-factor authentication is enabled by default."),
    ("Refunds take 14 days.", "Refunds take 14 weeks."),
    ("The plan costs $20 per month.", "The plan costs \u20ac20 per month."),
], ids=["non-refundable", "disabled", "days-weeks", "usd-eur"])
def test_the_opposite_claim_is_refused_through_the_llm_judge(chat_server, stated, claim):
    chat_server.handler = judge_model(
        claims_reply([claim]),
        lambda passages, c: {"label": "supported", "passage_ids": ["p1"], "quote": stated,
                             "rationale": "stated"})
    result = evaluate(claim, [{"id": "p1", "text": stated}], make_judge(chat_server))
    (claim_result,) = result.claims
    assert claim_result.label == "unsupported" and claim_result.judge_verdict is not None
    assert result.score == 0.0


REFUSED = {
    "rider": ("Refunds take 14 days, and shipping is free worldwide.",
              [{"id": "p1", "text": "Refunds take 14 days."}], supported(("p1", "Refunds take 14 days.")),
              "does not speak to a part"),
    "computed-from-the-rationale-only": (
        "Both add-ons together cost $35 per month.",
        [{"id": "p1", "text": "The backup add-on costs $10 per month."},
         {"id": "p2", "text": "The audit add-on costs $20 per month."}],
        supported(("p1", "The backup add-on costs $10 per month."),
                  ("p2", "The audit add-on costs $20 per month.")),
        "35"),
    "name-in-no-sentence-nor-title": (
        "The Nova lamp has three brightness levels.", VELA,
        supported(("v1", "three brightness levels")), "nova"),
    "bare-no-for-a-yes-claim": (
        "You can pause your subscription.",
        [{"id": "p1", "text": "Q: Can I pause my subscription? A: No."}],
        supported(("p1", "Can I pause my subscription? A: No.")), "negat"),
    "quote-changed-beyond-typography": (
        "The office is closed on Fridays.",
        [{"id": "p1", "text": "The office is closed on Fridays."}],
        supported(("p1", "The office is shut on Fridays.")), "does not occur"),
}


@pytest.mark.parametrize(("claim", "passages", "verdict", "why"), list(REFUSED.values()),
                         ids=list(REFUSED))
def test_evidence_that_does_not_carry_the_claim_is_refused(claim, passages, verdict, why):
    result, claim_result = judged(claim, passages, verdict)
    assert claim_result.label == "unsupported" and why in claim_result.note, claim_result.note
    assert result.score == 0.0


# --------------------------------------------------------------------------------------------
# Swaps (issue 20, benchmark kind ``swap``): a number or name of the claim traded for another
# one of the same passage; the judge says ``supported`` with the evidence of the true claim.

CYCLIST = [{"id": "c1", "text": "Marta Lenz, born on 4 May 1971, is a Chilean former cyclist who "
                                "raced from 1990 to 2004. She now coaches in Santiago."}]
CYCLIST_QUOTE = supported(("c1", "Marta Lenz, born on 4 May 1971, is a Chilean former cyclist who "
                                 "raced from 1990 to 2004."))
FESTIVAL = [{"id": "f1", "text": "Organiser Ana Ruiz said the harbour festival opened on Friday "
                                 "with twelve stages."}]
FESTIVAL_QUOTE = supported(("f1", "Organiser Ana Ruiz said the harbour festival opened on "
                                  "Friday with twelve stages."))

SWAPS = {
    # a year of the passage said of something else (the birth), where the part that states
    # the claim's words gives another year
    "year-said-of-another-thing": (
        "Marta Lenz is a Chilean former cyclist who raced from 1990 to 2004.",
        "Marta Lenz is a Chilean former cyclist who raced from 1990 to 1971.",
        CYCLIST, CYCLIST_QUOTE, "1971 only apart from what the claim says with it"),
    # a name of the passage put where it says "on Friday"
    "name-in-the-day-slot": (
        "The harbour festival opened on Friday with twelve stages.",
        "The harbour festival opened on Ruiz with twelve stages.",
        FESTIVAL, FESTIVAL_QUOTE, "does not state 'on Ruiz'"),
    # a day of the passage used as the name of who spoke
    "day-as-the-speaker": (
        "Ana Ruiz said the harbour festival opened on Friday.",
        "Friday said the harbour festival opened with twelve stages.",
        FESTIVAL, FESTIVAL_QUOTE, "a day or month word where the claim needs a name"),
    # a common word the passages use as a name ("Hull" the club), put where the quote names
    # another: the opening word is a name because the passages write it as one
    "common-word-the-passages-use-as-a-name": (
        "Cambiasso has been superb for Leicester this season.",
        "Hull has been superb for Leicester this season.",
        [{"id": "s1", "text": "Cambiasso has been superb for Leicester this season."},
         {"id": "s2", "text": "Leicester beat Hull 2-0 on Saturday."}],
        supported(("s1", "Cambiasso has been superb for Leicester this season.")),
        "does not state the claim's hull"),
    # a name of the passage put right after a word the evidence writes with another name
    "name-in-another-name's-place": (
        "The club said coach Ana Ruiz praised striker Leo Park.",
        "The club said coach Leo Park praised striker Ana Ruiz.",
        [{"id": "a1", "text": "After the match, coach Ana Ruiz praised striker Leo Park."}],
        supported(("a1", "coach Ana Ruiz praised striker Leo Park")),
        "another name in the same place"),
}


@pytest.mark.parametrize(("true_claim", "swapped", "passages", "verdict", "why"),
                         list(SWAPS.values()), ids=list(SWAPS))
def test_a_swapped_claim_is_refused_and_the_true_claim_kept(true_claim, swapped, passages,
                                                            verdict, why):
    _, kept = judged(true_claim, passages, verdict)
    assert kept.label == "supported", kept.note
    result, refused = judged(swapped, passages, verdict)
    assert refused.label == "unsupported" and why in refused.note, refused.note
    assert result.score == 0.0


@pytest.mark.parametrize("claim, true_claim, passage, quote", [
    ("The Pro plan costs $10 per month.", "The Pro plan costs $20 per month.",
     "The Basic plan costs $10 per month and the Pro plan costs $20 per month.",
     "the Pro plan costs $20 per month"),
    ("The Basic plan includes SSO.", "The Pro plan includes SSO.",
     "The Pro plan includes SSO, which the Basic plan lacks.", "The Pro plan includes SSO"),
], ids=["number", "name"])
def test_a_name_or_number_around_the_quote_does_not_replace_a_rival_in_it(claim, true_claim,
                                                                          passage, quote):
    """The sentence around a quote may state a claim's name or number the quote leaves out
    (Vela), never one the quote states otherwise: "$10" from beside a quote that says "$20"."""
    judge = EvidenceJudge([{"passage_id": "p1", "quote": quote}])
    wrong = evaluate(claim, [{"id": "p1", "text": passage}], judge)
    assert wrong.score == 0.0 and wrong.claims[0].label == "unsupported"
    assert "found only around the quote" in wrong.claims[0].note
    assert wrong.claims[0].judge_verdict.label == "supported"
    right = evaluate(true_claim, [{"id": "p1", "text": passage}], judge)
    assert right.score == 1.0 and not right.claims[0].note


def test_a_negation_inside_a_word_in_capitals_is_read():
    """"NON-REFUNDABLE" negates as "non-refundable" does (found by a new user)."""
    judge = EvidenceJudge([{"passage_id": "p1", "quote": "Deposits are NON-REFUNDABLE."}])
    wrong = evaluate("Deposits are refundable.",
                     [{"id": "p1", "text": "Deposits are NON-REFUNDABLE."}], judge)
    assert wrong.score == 0.0 and wrong.claims[0].label == "unsupported"
    right = evaluate("Deposits are non-refundable.",
                     [{"id": "p1", "text": "Deposits are NON-REFUNDABLE."}], judge)
    assert right.score == 1.0


# --------------------------------------------------------------------------------------------
# Found by a new user with a lying judge (issue 20, polarity round): each family both ways.

def _one(text: str) -> list[dict]:
    return [{"id": "p1", "text": text}]


FRAMED_AS_FALSE = [
    "It is a myth that the battery lasts two days.",
    "We deny that the battery lasts two days.",
    "Contrary to rumours that the battery lasts two days, it lasts one day.",
    "It is false that the battery lasts two days.",
    "There is no evidence that the battery lasts two days.",
    "Reports that the battery lasts two days are wrong.",
]


@pytest.mark.parametrize("text", FRAMED_AS_FALSE)
def test_a_quote_inside_a_sentence_that_calls_it_false_is_refused(text):
    claim = "The battery lasts two days."
    result, refused = judged(claim, _one(text), supported(("p1", "the battery lasts two days")))
    assert refused.label == "unsupported" and refused.judge_verdict.label == "supported"
    assert result.score == 0.0
    # the same quote in a sentence that asserts it is kept
    _, kept = judged(claim, _one("Tests confirm that the battery lasts two days."),
                     supported(("p1", "the battery lasts two days")))
    assert kept.label == "supported", kept.note


def test_a_quoted_question_is_read_with_its_bare_answer():
    claim = "The plan includes SSO."
    _, refused = judged(claim, _one("Does the plan include SSO? No."),
                        supported(("p1", "the plan include SSO")))
    assert refused.label == "unsupported"
    _, kept = judged(claim, _one("Does the plan include SSO? Yes."),
                     supported(("p1", "the plan include SSO")))
    assert kept.label == "supported", kept.note


NEW_PAIRS = [
    ("The car is uninsured.", "The car is insured."),
    ("The laptop lacks a backlit keyboard.", "The laptop has a backlit keyboard."),
    ("The account was deactivated.", "The account was activated."),
    ("Sales went down last year.", "Sales went up last year."),
    ("The seller pays the shipping fee.", "The buyer pays the shipping fee."),
    ("The landlord pays for repairs.", "The tenant pays for repairs."),
]
NEW_DIRECTIONS = NEW_PAIRS + [(o, s) for s, o in NEW_PAIRS]


@pytest.mark.parametrize(("stated", "claim"), NEW_DIRECTIONS,
                         ids=[f"{c[:30]}<-{s[:30]}" for s, c in NEW_DIRECTIONS])
def test_more_opposite_words_are_refused(stated, claim):
    result, refused = judged(claim, _one(stated), supported(("p1", stated)))
    assert refused.label == "unsupported", "opposite claim accepted"
    assert result.score == 0.0
    _, kept = judged(stated, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note


@pytest.mark.parametrize(("claim", "text"), [
    ("Refunds are issued in cash within 14 days.", "Refunds are issued within 14 days."),
    ("Orders ship in 2 days with free return shipping.", "Orders ship in 2 days."),
], ids=["in-cash", "with-free-return-shipping"])
def test_a_rider_without_a_comma_is_refused(claim, text):
    _, refused = judged(claim, _one(text), supported(("p1", text)))
    assert refused.label == "unsupported" and "does not speak to" in refused.note
    # a phrase the evidence states is no rider
    _, kept = judged(claim, _one(claim), supported(("p1", claim)))
    assert kept.label == "supported", kept.note


LENZ = "Marta Lenz (born 8 August 1966){} is a former cyclist who competed from 1985 to 1998."


@pytest.mark.parametrize("comma", [",", ""], ids=["comma", "no-comma"])
@pytest.mark.parametrize("claim", ["Marta Lenz competed from 1985 to 1966.",
                                   "Marta Lenz, a cyclist, competed from 1985 to 1966."],
                         ids=["plain", "apposition"])
def test_a_year_said_of_the_birth_is_not_the_end_of_a_career(comma, claim):
    text = LENZ.format(comma)
    _, refused = judged(claim, _one(text), supported(("p1", text)))
    assert refused.label == "unsupported" and "1966" in refused.note, refused.note
    _, kept = judged(claim.replace("1966", "1998"), _one(text), supported(("p1", text)))
    assert kept.label == "supported", kept.note


def test_a_name_and_a_predicate_stitched_from_different_passages_are_refused():
    passages = [{"id": "p1", "text": "The Pro plan costs $20."},
                {"id": "p2", "text": "The Enterprise plan includes SSO."}]
    _, refused = judged("The Pro plan includes SSO.", passages,
                        supported(("p1", "The Pro plan costs $20."),
                                  ("p2", "The Enterprise plan includes SSO.")))
    assert refused.label == "unsupported" and "enterprise" in refused.note, refused.note
    passages[1]["text"] = "The Pro and Enterprise plans include SSO."
    _, kept = judged("The Pro plan includes SSO.", passages,
                     supported(("p1", "The Pro plan costs $20."),
                               ("p2", "The Pro and Enterprise plans include SSO.")))
    assert kept.label == "supported", kept.note


def test_a_name_from_around_the_quote_does_not_take_the_place_of_the_rival_beside_it():
    text = "Alice Grant said that Bob Lee wrote the report."
    _, refused = judged("Alice Grant wrote the report.", _one(text),
                        supported(("p1", "wrote the report")))
    assert refused.label == "unsupported" and "bob lee" in refused.note, refused.note
    _, kept = judged("Bob Lee wrote the report.", _one(text),
                     supported(("p1", "Bob Lee wrote the report")))
    assert kept.label == "supported", kept.note


SAME_THING = [
    ("There is no fee for returns.", "Returns are free."),
    ("Accidental damage is excluded.", "The warranty does not cover accidental damage."),
    ("Sale items are not refundable.", "Sale items are non-refundable."),
    ("The update failed to fix the login bug.", "The update did not fix the login bug."),
]


def test_failed_to_is_a_negation():
    """"failed to fix" says "did not fix": the claim that it fixed the bug is refused."""
    stated = "The update failed to fix the login bug."
    _, refused = judged("The update fixed the login bug.", _one(stated), supported(("p1", stated)))
    assert refused.label == "unsupported", refused.note


@pytest.mark.parametrize(("stated", "claim"),
                         SAME_THING + [(c, s) for s, c in SAME_THING],
                         ids=[f"{c[:30]}<-{s[:30]}" for s, c in SAME_THING + [(c, s) for s, c in SAME_THING]])
def test_a_negation_said_another_way_is_kept(stated, claim):
    result, kept = judged(claim, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert result.score == 1.0


# Numbers (found by a new user with a lying judge that quotes the passage sentence): a sign, a
# range, a multiplier, a version, a date, an ordinal, a power and a computed total are part of
# what a number states; the same quantity in other units or in words is still stated.

NUMBERS = {
    # (passage sentence, claim the judge lies about, a correct claim from the same sentence)
    "minus-sign": ("The freezer runs at -20 degrees.", "The freezer runs at 20 degrees.",
                   "The freezer runs at \u221220 degrees."),
    "unicode-minus-sign": ("The freezer runs at \u221220 degrees.",
                           "The freezer runs at 20 degrees.", "The freezer runs at -20 degrees."),
    "no-sign": ("The freezer runs at 20 degrees.", "The freezer runs at -20 degrees.",
                "The freezer runs at 20 degrees."),
    "no-sign-unicode": ("The freezer runs at 20 degrees.",
                        "The freezer runs at \u221220 degrees.", "The freezer runs at 20 degrees."),
    "range-low-end": ("Delivery takes 3-5 days.", "Delivery takes 3 days.",
                      "Delivery takes at least 3 days."),
    "range-high-end": ("Delivery takes 3\u20135 days.", "Delivery takes 5 days.",
                       "Delivery takes up to 5 days."),
    "range-with-to": ("Delivery takes 3 to 5 days.", "Delivery takes 3 days.",
                      "Delivery takes 3-5 days."),
    "range-with-between": ("Delivery takes between 3 and 5 days.", "Delivery takes 5 days.",
                           "Delivery takes 3 to 5 days."),
    "range-end-in-other-units": ("Delivery takes 3-5 days.", "Delivery takes 72 hours.",
                                 "Delivery takes up to 120 hours."),
    "multiplier-is-no-percent": ("The new engine is 2% faster.", "The new engine is 2x faster.",
                                 "The new engine is 2 percent faster."),
    "percent-is-no-multiplier": ("The new engine is 2x faster.", "The new engine is 2% faster.",
                                 "The new engine is 2\u00d7 faster."),
    "version-2.10-is-not-2.1": ("The fix shipped in version 2.10.",
                                "The fix shipped in version 2.1.",
                                "The fix shipped in version 2.10."),
    "version-2.1-is-not-2.10": ("The fix shipped in version 2.1.",
                                "The fix shipped in version 2.10.", "The fix shipped in v2.1."),
    "dotted-number": ("The fix shipped in release 1.2.3.", "The fix shipped in release 3.2.1.",
                      "The fix shipped in release 1.2.3."),
    "date-day-and-month-swapped": ("The contract starts on 03/04/2025.",
                                   "The contract starts on 04/03/2025.",
                                   "The contract starts on 03/04/2025."),
    "iso-date-swapped": ("The contract starts on 2025-03-04.",
                         "The contract starts on 2025-04-03.",
                         "The contract starts on 2025-03-04."),
    "ordinal-is-no-count": ("The team moved up 3 places.", "The team finished in third place.",
                            "The team moved up three places."),
    "count-is-no-ordinal": ("The team finished 3rd in the league.",
                            "The team finished with 3 points in the league.",
                            "The team finished third in the league."),
    "superscript-is-a-power": ("The room measures 10\u00b2 square metres.",
                               "The room measures 102 square metres.",
                               "The room measures 10\u00b2 square metres."),
    "two-weeks-is-14-days": ("Returns are accepted within 14 days.",
                             "Returns are accepted within three weeks.",
                             "Returns are accepted within two weeks."),
    "14-days-is-two-weeks": ("Returns are accepted within two weeks.",
                             "Returns are accepted within 21 days.",
                             "Returns are accepted within 14 days."),
    "a-week-is-7-days": ("Shipping takes a week.", "Shipping takes 5 days.",
                         "Shipping takes 7 days."),
    "an-hour-is-60-minutes": ("The session lasts an hour.", "The session lasts 30 minutes.",
                              "The session lasts 60 minutes."),
    "60-minutes-is-an-hour": ("The session lasts 60 minutes.", "The session lasts half an hour.",
                              "The session lasts an hour."),
    "half-an-hour-is-30-minutes": ("The session lasts half an hour.",
                                   "The session lasts an hour.",
                                   "The session lasts 30 minutes."),
}


@pytest.mark.parametrize(("stated", "wrong", "right"), list(NUMBERS.values()), ids=list(NUMBERS))
def test_a_number_is_stated_with_its_sign_range_unit_and_kind(stated, wrong, right):
    passages = [{"id": "p1", "text": stated}]
    result, refused = judged(wrong, passages, supported(("p1", stated)))
    assert refused.label == "unsupported", "wrong number accepted"
    assert refused.judge_verdict.label == "supported" and "quote" in refused.note
    assert result.score == 0.0
    result, kept = judged(right, passages, supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert kept.note is None and result.score == 1.0


def test_a_quote_of_a_superscript_is_not_its_digits():
    """NFKC alone reads "10\u00b2" as "102": a quote "102" does not occur in "10\u00b2"."""
    passages = [{"id": "p1", "text": "The room measures 10\u00b2 square metres."}]
    _, refused = judged("The room measures 102 square metres.", passages,
                        supported(("p1", "The room measures 102 square metres.")))
    assert refused.label == "unsupported" and "does not occur" in refused.note


COURSE = [{"id": "p1", "text": "The course has three modules. Module A takes 20 hours, module B "
                               "takes 10 hours and module C takes 5 hours."}]
COURSE_QUOTE = supported(("p1", "Module A takes 20 hours, module B takes 10 hours and module C "
                                "takes 5 hours."))
ADD_ONS = [{"id": "p1", "text": "The backup add-on costs $10 per month."},
           {"id": "p2", "text": "The audit add-on costs $20 per month."}]
ADD_ONS_QUOTE = supported(("p1", "The backup add-on costs $10 per month."),
                          ("p2", "The audit add-on costs $20 per month."))
PLANS = [{"id": "p1", "text": "The Basic plan costs $10 per month."},
         {"id": "p2", "text": "The Pro plan costs $25 per month."}]
PLANS_QUOTE = supported(("p1", "The Basic plan costs $10 per month."),
                        ("p2", "The Pro plan costs $25 per month."))


@pytest.mark.parametrize(("claim", "passages", "verdict"), [
    ("The course takes 35 hours.", COURSE, COURSE_QUOTE),
    ("The backup and audit add-ons cost $30 per month.", ADD_ONS, ADD_ONS_QUOTE),
    ("The Pro plan costs $15 per month.", PLANS, PLANS_QUOTE),
], ids=["sum-of-three", "sum-of-two", "difference"])
def test_a_computed_number_needs_a_word_of_computation(claim, passages, verdict):
    result, refused = judged(claim, passages, verdict)
    assert refused.label == "unsupported" and "needs a word of the claim" in refused.note
    assert result.score == 0.0


@pytest.mark.parametrize(("claim", "passages", "verdict"), [
    ("The course takes 35 hours in total.", COURSE, COURSE_QUOTE),
    ("Altogether the modules take 35 hours.", COURSE, COURSE_QUOTE),
    ("The backup and audit add-ons cost $30 per month in total.", ADD_ONS, ADD_ONS_QUOTE),
    ("Together, the backup and audit add-ons cost $30 per month.", ADD_ONS, ADD_ONS_QUOTE),
    ("The backup add-on and the audit add-on together cost $30 per month.", ADD_ONS,
     ADD_ONS_QUOTE),
    ("The Pro plan costs $15 more per month than the Basic plan.", PLANS, PLANS_QUOTE),
], ids=["in-total", "altogether", "x-and-y-in-total", "together-opening", "x-and-y-together",
        "more-than"])
def test_a_computed_number_with_a_word_of_computation_is_kept(claim, passages, verdict):
    result, kept = judged(claim, passages, verdict)
    assert kept.label == "supported", kept.note
    assert result.score == 1.0


def test_a_contradicted_verdict_must_quote_something_opposite():
    claim = "The Pro plan includes SSO."
    text = "FAQ: The Pro plan includes SSO? Yes, since 2024."
    result = evaluate(claim, _one(text), QuotingJudge({claim: Verdict(
        "contradicted", evidence=[{"passage_id": "p1", "quote": "The Pro plan includes SSO"}])}))
    (refused,) = result.claims
    assert refused.label == "unsupported" and "states the claim as it is" in refused.note
    for stated in ("The Pro plan does not include SSO.", "The Pro plan excludes SSO.",
                   "The Enterprise plan includes SSO."):
        result = evaluate(claim, _one(stated), QuotingJudge({claim: Verdict(
            "contradicted", evidence=[{"passage_id": "p1", "quote": stated}])}))
        assert result.claims[0].label == "contradicted", result.claims[0].note


@pytest.mark.parametrize(("claim", "stated"), [
    ("The airline flies the Boeing 737.", "The airline flies the Boeing 737-800 on short routes."),
    ("The festival ran from 10 to 12 March.", "The festival ran 10-12 March."),
    ("Prices rose to $5.", "Prices rose from $3 to $5."),
    ("She raced until 2004.", "She raced from 1990 to 2004."),
    ("The plan costs $20 a month.", "The plan costs $20 per month."),
    ("He trains twice a week.", "He trains twice a week."),
    ("The fifth edition was released in 2020.", "The 5th edition was released in 2020."),
], ids=["model-number-is-no-range", "both-ends-of-a-range", "from-to-is-a-change",
        "a-span-of-years", "a-month-is-a-rate", "twice-a-week", "ordinal-word"])
def test_what_looks_like_a_range_or_a_spelled_quantity_is_kept(claim, stated):
    result, kept = judged(claim, [{"id": "p1", "text": stated}], supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert result.score == 1.0


PICO_SPECS = "The Pico 2 weighs 800 grams and costs $49."


@pytest.mark.parametrize("claim", [
    "The Pico 2 causes cancer.", "The Pico 2 is discontinued.", "The Pico 2 is waterproof.",
    "Pico 2 owners get a lifetime warranty.",
])
def test_a_quote_that_only_names_the_subject_carries_nothing_said_of_it(claim):
    """Found by a new user: any everyday predicate passed with a quote naming the subject."""
    _, refused = judged(claim, _one(PICO_SPECS), supported(("p1", PICO_SPECS)))
    assert refused.label == "unsupported" and "none of what the claim says of it" in refused.note
    _, kept = judged("The Pico 2 weighs 800 grams.", _one(PICO_SPECS),
                     supported(("p1", PICO_SPECS)))
    assert kept.label == "supported", kept.note


def test_a_joined_predicate_resting_only_on_a_name_is_refused():
    """Found by a new user: "... and ships from Ohio" passed on "Our warehouse is in Ohio."."""
    passages = [{"id": "p2", "text": "The Pro plan costs $20 per month."},
                {"id": "p3", "text": "Our warehouse is in Ohio."}]
    verdict = supported(("p2", "The Pro plan costs $20 per month."),
                        ("p3", "Our warehouse is in Ohio."))
    _, refused = judged("The Pro plan costs $20 per month and ships from Ohio.", passages,
                        verdict)
    assert refused.label == "unsupported" and "does not speak to ship" in refused.note
    _, kept = judged("The Pro plan costs $20 per month and the warehouse is in Ohio.",
                     passages, verdict)
    assert kept.label == "supported", kept.note


# --------------------------------------------------------------------------------------------
# Found by a new user attacking main (issue 20, polarity round 2): opposite verbs off the
# curated list, frequency and degree words, names swapped inside one two-sentence quote, and
# a Markdown table's "No" cell read as negating the whole table. Each kind both ways.

PICO = ("The Pico 2 weighs 800 grams and costs $49. The battery lasts up to 10 hours. Ana Ruiz "
        "coaches the Tigers. Leo Park coaches the Lions. The Lions beat the Tigers 3-1 in the "
        "final. Prices rose by 5% in 2023. Refunds are issued within 14 days of a return being "
        "received. The seller pays return shipping.")

DIRECTION_UP = ["rose", "climbed", "grew", "increased", "gained", "jumped", "soared", "surged"]
DIRECTION_DOWN = ["dropped", "fell", "declined", "decreased", "shrank", "slumped", "plunged",
                  "dipped", "slid", "sank", "tumbled", "plummeted"]


@pytest.mark.parametrize("verb", DIRECTION_DOWN)
def test_a_direction_verb_is_refused_against_its_opposite(verb):
    claim = f"Prices {verb} by 5% in 2023."
    result, refused = judged(claim, _one(PICO), supported(("p1", "Prices rose by 5% in 2023.")))
    assert refused.label == "unsupported", f"'{verb}' accepted against 'rose'"
    assert result.score == 0.0
    # the other way round: a passage saying the verb refuses every rising verb
    stated = f"Prices {verb} by 5% in 2023."
    for up in DIRECTION_UP:
        _, other = judged(f"Prices {up} by 5% in 2023.", _one(stated), supported(("p1", stated)))
        assert other.label == "unsupported", f"'{up}' accepted against '{verb}'"


@pytest.mark.parametrize(("stated", "claim"), [
    ("Prices rose by 5% in 2023.", "Prices climbed by 5% in 2023."),
    ("Prices rose by 5% in 2023.", "Prices increased by 5% in 2023."),
    ("Prices fell by 5% in 2023.", "Prices dropped by 5% in 2023."),
    ("Prices fell by 5% in 2023.", "Prices declined by 5% in 2023."),
    ("Prices rose in spring and fell by 5% in the autumn.", "Prices dropped by 5% in the autumn."),
], ids=["climbed<-rose", "increased<-rose", "dropped<-fell", "declined<-fell", "both-sides"])
def test_a_direction_verb_of_the_same_side_is_kept(stated, claim):
    result, kept = judged(claim, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert result.score == 1.0


# --------------------------------------------------------------------------------------------
# Found by a new user attacking main (numbers, second round): each family both ways, with the
# sloppy judge's quote of the passage sentence.

NUMBERS_2 = {
    # a score or result joined by a hyphen is ordered
    "score-reversed": ("The Lions beat the Tigers 3-1 in the final.",
                       "The Lions beat the Tigers 1-3 in the final.",
                       "The Lions beat the Tigers 3-1 in the final."),
    "result-reversed-no-name": ("The home side won 2\u20130 on Sunday.",
                                "The home side won 0-2 on Sunday.",
                                "The home side won 2-0 on Sunday."),
    # a word between a number and its unit qualifies the unit: the claim's must be stated
    "business-days-added": ("Refunds are issued within 14 days.",
                            "Refunds are issued within 14 business days.",
                            "Refunds are issued within two weeks."),
    "calendar-days-added": ("Refunds are issued within 14 days.",
                            "Refunds are issued within 14 calendar days.",
                            "Refunds are issued within 14 days."),
    "working-days-added": ("Refunds are issued within 14 days.",
                           "Refunds are issued within 14 working days.",
                           "Refunds are issued in under 14 days."),
    "school-days-added": ("The course runs for 20 days.", "The course runs for 20 school days.",
                          "The course runs for 20 days."),
    "qualifier-stated": ("Refunds are issued within 14 business days.",
                         "Refunds are issued within 14 working days.",
                         "Refunds are issued within 14 business days."),
    # an upper bound of the evidence that the claim drops
    "up-to-dropped": ("The battery lasts up to 10 hours.", "The battery lasts 10 hours.",
                      "The battery lasts as much as 10 hours."),
    "within-read-as-after": ("Refunds are issued within 14 days.",
                             "Refunds are issued 14 days after a return is received.",
                             "Refunds are issued within two weeks."),
    "at-most-dropped-in-other-units": ("The call lasts at most 60 minutes.",
                                       "The call lasts an hour.",
                                       "The call lasts at most an hour."),
    # clock times and their ranges are quantities, a dash between them no minus sign
    "clock-range-dash": ("Support is open 9 am\u20135 pm, Monday to Friday.",
                         "Support is open 9am-6pm on weekdays.",
                         "Support is open 9am-5pm on weekdays."),
    "clock-range-to": ("Support is open 9 am\u20135 pm, Monday to Friday.",
                       "Support is open 9 am to 6 pm.", "Support is open 9 am to 5 pm."),
    "clock-24-hour": ("Support is open 9 am-5 pm, Monday to Friday.",
                      "Support is open from 9:00 to 18:00.",
                      "Support is open from 9:00 to 17:00."),
    "clock-half-hour": ("The store opens at 9:30 a.m.", "The store opens at 9 am.",
                        "The store opens at 09:30."),
    # a currency code before its number is its unit
    "currency-code-before": ("The Pico 2 costs $49.", "The Pico 2 costs USD 59.",
                             "The Pico 2 costs USD 49."),
    "currency-code-other": ("The Pico 2 costs $49.", "The Pico 2 costs EUR 49.",
                            "The Pico 2 costs usd 49."),
    # hyphenated and compound number words
    "tens-and-units-words": ("The Pico 2 costs $49.", "The Pico 2 costs fifty-nine dollars.",
                             "The Pico 2 costs forty-nine dollars."),
    "hundred-and-words": ("The box holds 120 pens.", "The box holds one hundred and two pens.",
                          "The box holds one hundred and twenty pens."),
    "tens-then-a-hyphenated-word": ("The class has 20 one-year-old children.",
                                    "The class has 21 children.",
                                    "The class has twenty one-year-old children."),
    # unit abbreviations right after a number
    "hours-h": ("The battery lasts 10 hours.", "The battery lasts 10 min.",
                "The battery lasts 10 h."),
    "hours-hr": ("The battery lasts 10 hours.", "The battery lasts 10 s.",
                 "The battery lasts 10 hr."),
    "days-d": ("The trial lasts 14 days.", "The trial lasts 14 h.", "The trial lasts 14 d."),
    "seconds-sec": ("The timer runs 30 seconds.", "The timer runs 30 min.",
                    "The timer runs 30 sec."),
}


@pytest.mark.parametrize(("stated", "wrong", "right"), list(NUMBERS_2.values()),
                         ids=list(NUMBERS_2))
def test_a_number_is_stated_as_the_quantity_it_is(stated, wrong, right):
    passages = _one(stated)
    result, refused = judged(wrong, passages, supported(("p1", stated)))
    assert refused.label == "unsupported", "wrong number accepted"
    assert refused.judge_verdict.label == "supported" and "quote" in refused.note
    assert result.score == 0.0
    result, kept = judged(right, passages, supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert kept.note is None and result.score == 1.0


@pytest.mark.parametrize(("claim", "stated"), [
    ("Five members of the same family died in the flat.",
     "Five members of the same family, including three children under five, died in the "
     "flat."),
    ("The pump's maximum speed is 3,200 revolutions per minute.",
     "Pump profile B: max_rpm=3200, duty=40%."),
    ("Refunds take 3 days.", "Refunds take 3 business days."),
    ("The festival ran from 10 to 12 March.", "The festival ran 10-12 March."),
], ids=["the-number-stated-unbounded-too", "a-bound-the-claim-names", "a-qualifier-dropped",
        "a-range-both-ends"])
def test_a_bound_or_qualifier_the_claim_states_otherwise_is_kept(claim, stated):
    result, kept = judged(claim, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert result.score == 1.0


@pytest.mark.parametrize(("stated", "claim"), [
    ("We offer a wide range of plans.", "We offer a narrow range of plans."),
    ("The startup is struggling financially.", "The startup is thriving financially."),
    ("The government is banning the app on work phones.",
     "The government is endorsing the app on work phones."),
    ("The recall addresses a specific electrical issue.",
     "The recall addresses a generic electrical issue."),
])
def test_more_opposite_families_are_refused_both_ways(stated, claim):
    _, refused = judged(claim, _one(stated), supported(("p1", stated)))
    assert refused.label == "unsupported", "opposite claim accepted"
    _, back = judged(stated, _one(claim), supported(("p1", claim)))
    assert back.label == "unsupported", "opposite claim accepted (other way)"
    _, kept = judged(stated, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note


HEDGES = ["rarely", "seldom", "sometimes", "occasionally", "often", "usually", "normally",
          "hardly ever"]


@pytest.mark.parametrize("hedge", HEDGES)
def test_a_frequency_word_the_evidence_does_not_state_is_refused(hedge):
    claim = f"The seller {hedge} pays return shipping."
    result, refused = judged(claim, _one(PICO),
                             supported(("p1", "The seller pays return shipping.")))
    assert refused.label == "unsupported", f"'{hedge}' accepted"
    assert result.score == 0.0
    # stated with the same frequency (or a word of its class), it is kept
    stated = f"The seller {hedge} pays return shipping."
    _, kept = judged(claim, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note


@pytest.mark.parametrize(("claim", "stated", "kept_claim"), [
    ("Prices rose sharply by 5% in 2023.", "Prices rose by 5% in 2023.",
     "Prices rose by 5% in 2023."),
    ("Prices rose slightly by 5% in 2023.", "Prices rose significantly by 5% in 2023.",
     "Prices rose considerably by 5% in 2023."),
    ("The seller seldom pays return shipping.", "The seller often pays return shipping.",
     "The seller frequently pays return shipping."),
    ("The value will rise significantly.", "The value will skyrocket.",
     "The value will rise significantly."),
], ids=["degree-unstated", "slightly-vs-significantly", "seldom-vs-often", "skyrocket"])
def test_a_degree_word_must_be_the_evidence_degree(claim, stated, kept_claim):
    if claim != kept_claim:
        _, refused = judged(claim, _one(stated), supported(("p1", stated)))
        assert refused.label == "unsupported", refused.note
    _, kept = judged(kept_claim, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note


P2 = "The Pro plan costs $20 per month. The Basic plan includes SSO."
TWO_SENTENCE_SWAPS = [
    # (passage, one quote of two sentences, swapped claim, true claim)
    (PICO, "Ana Ruiz coaches the Tigers. Leo Park coaches the Lions.",
     "Leo Park coaches the Tigers.", "Ana Ruiz coaches the Tigers."),
    (PICO, "Ana Ruiz coaches the Tigers. Leo Park coaches the Lions.",
     "Ana Ruiz coaches the Lions.", "Leo Park coaches the Lions."),
    (P2, P2, "The Pro plan includes SSO.", "The Basic plan includes SSO."),
    (P2, P2, "The Basic plan costs $20 per month.", "The Pro plan costs $20 per month."),
]


@pytest.mark.parametrize(("text", "quote", "swapped", "true"), TWO_SENTENCE_SWAPS,
                         ids=["leo-tigers", "ana-lions", "pro-sso", "basic-20"])
def test_names_swapped_inside_one_two_sentence_quote_are_refused(text, quote, swapped, true):
    result, refused = judged(swapped, _one(text), supported(("p1", quote)))
    assert refused.label == "unsupported", "swapped claim accepted from one two-sentence quote"
    assert "where the claim says" in refused.note, refused.note
    assert result.score == 0.0
    # the same two sentences as two evidence items: refused the same way
    first, second = (s.strip() + "." for s in quote.rstrip(".").split(". "))
    _, two_items = judged(swapped, _one(text), supported(("p1", first), ("p1", second)))
    assert two_items.label == "unsupported"
    # the claim each sentence states is kept from the same quote
    _, kept = judged(true, _one(text), supported(("p1", quote)))
    assert kept.label == "supported", kept.note


PLAN_TABLE = ("| Plan | Price | SSO |\n|---|---|---|\n| Pro | $20/month | Yes |\n"
              "| Basic | $5/month | No |")


@pytest.mark.parametrize("claim", [
    "The Pro plan costs $20 per month.",
    "The Basic plan costs $5 a month.",
    "The Basic plan does not include SSO.",
    "The Pro plan includes SSO.",
])
def test_a_no_cell_answers_its_column_only(claim):
    """A judge quoting the whole table: each row is read with its header on its own, "No"
    under "SSO" reads "not SSO" (found by a new user: the "No" cell negated every claim)."""
    result, kept = judged(claim, _one(PLAN_TABLE), supported(("p1", PLAN_TABLE)))
    assert kept.label == "supported", kept.note
    assert result.score == 1.0
    # one row quoted alone reads the same
    row = PLAN_TABLE.splitlines()[2 if "Pro" in claim else 3]
    _, alone = judged(claim, _one(PLAN_TABLE), supported(("p1", row)))
    assert alone.label == "supported", alone.note


@pytest.mark.parametrize("claim", [
    "The Basic plan includes SSO.",
    "The Pro plan does not include SSO.",
    "The Pro plan costs $5 a month.",
    "The Basic plan costs $20 per month.",
])
def test_a_claim_stitched_from_two_table_rows_is_refused(claim):
    result, refused = judged(claim, _one(PLAN_TABLE), supported(("p1", PLAN_TABLE)))
    assert refused.label == "unsupported", "a value of one row accepted for another row's name"
    assert result.score == 0.0
    rows = "\n".join(PLAN_TABLE.splitlines()[2:])  # the two body rows, no header
    _, two_rows = judged(claim, _one(PLAN_TABLE), supported(("p1", rows)))
    assert two_rows.label == "unsupported"


# --------------------------------------------------------------------------------------------
# Found by a new user (issue 20, parts round): a statement set beside the stated one after a
# semicolon, a colon or a dash; a claim's name taken from one clause while the clause stating
# what is said of it is about another name. Both ways, through a judge quoting the passage.

BESIDE = [
    ("Refunds are issued within 14 days of a return being received; exchanges are instant.",
     "Refunds are issued within 14 days of a return being received."),
    ("Refunds take 14 days; returns are free.", "Refunds take 14 days."),
    ("Refunds take 14 days: shipping is free.", "Refunds take 14 days."),
    ("Refunds take 14 days \u2014 exchanges are instant.", "Refunds take 14 days."),
    ("Refunds take 14 days - exchanges are instant.", "Refunds take 14 days."),
]


@pytest.mark.parametrize("claim, text", BESIDE)
def test_a_statement_after_a_semicolon_colon_or_dash_must_be_spoken_to(claim, text):
    result, refused = judged(claim, _one(text), supported(("p1", text)))
    assert refused.label == "unsupported", "a second statement rode along unsaid"
    assert result.score == 0.0
    both = f"{text} Exchanges are instant. Returns are free. Shipping is free."
    _, kept = judged(claim, _one(both), supported(("p1", both)))
    assert kept.label == "supported", kept.note


STITCHED_SUBJECT = [
    ("The Pico 2 is waterproof.", "The Vela lamp is waterproof.",
     [{"id": "p1", "text": "The Pico 2 weighs 800 g. The Vela lamp is waterproof."}]),
    ("The Pico 2 is waterproof.", "The Vela lamp is waterproof.",
     [{"id": "p1", "text": "The Pico 2 weighs 800 g."},
      {"id": "p2", "text": "The Vela lamp is waterproof."}]),
    ("The Pico 2 is waterproof.", "The Vela lamp is waterproof.",
     [{"id": "p1", "text": "Unlike the Pico 2, the Vela lamp is waterproof."}]),
    ("The Basic plan includes SSO.", "The Pro plan includes SSO.",
     [{"id": "p1", "text": "The Pro plan includes SSO, whereas the Basic plan has only "
                           "password login."}]),
]


@pytest.mark.parametrize("claim, true_claim, passages", STITCHED_SUBJECT)
def test_a_predicate_said_of_another_name_is_refused(claim, true_claim, passages):
    quotes = supported(*((p["id"], p["text"]) for p in passages))
    result, refused = judged(claim, passages, quotes)
    assert refused.label == "unsupported", "a name stitched to another name's predicate"
    assert result.score == 0.0
    _, kept = judged(true_claim, passages, quotes)
    assert kept.label == "supported", kept.note


@pytest.mark.parametrize("text", [
    "The Pico 2 weighs 800 g. It is waterproof.",
    "The Pico 2 weighs 800 g. Made in Ohio, the lamp is waterproof.",
    "The Pico 2 is sold by Acme. The Pico 2 is waterproof.",
])
def test_a_predicate_said_of_the_same_thing_in_another_sentence_is_kept(text):
    _, kept = judged("The Pico 2 is waterproof.", _one(text), supported(("p1", text)))
    assert kept.label == "supported", kept.note


# Found by a new user (issue 20, numbers round 3): a sloppy judge saying supported with the
# passage sentence as its quote. Each kind both ways: (stated, wrong claim, right claim).

NUMBERS_3 = {
    # a sign said in words is part of the number
    "minus-word": ("The freezer reaches minus 20 \u00b0C.", "The freezer reaches 20 \u00b0C.",
                   "The freezer reaches -20 degrees Celsius."),
    "negative-word": ("The account balance is negative 40 dollars.",
                      "The account balance is 40 dollars.", "The account balance is -$40."),
    "below-zero": ("The freezer reaches 20 degrees below zero.",
                   "The freezer reaches 20 degrees.", "The freezer reaches minus 20 degrees."),
    "minus-sign-word-claim": ("The freezer reaches 20 \u00b0C.",
                              "The freezer reaches minus 20 \u00b0C.",
                              "The freezer reaches 20 degrees Celsius."),
    "celsius-is-no-fahrenheit": ("The freezer reaches -20 \u00b0C.",
                                 "The freezer reaches -20 \u00b0F.",
                                 "The freezer reaches minus 20 degrees Celsius."),
    # thousands grouped with a space, a narrow no-break space, an apostrophe, the Indian way
    "space-grouped": ("The app has 10 000 users.", "The app has 10 users.",
                      "The app has 10,000 users."),
    "narrow-space-grouped": ("The app has 10\u202f000 users.", "The app has 10 users.",
                             "The app has 10000 users."),
    "apostrophe-grouped": ("The app has 1'000'000 users.", "The app has 1 user.",
                           "The app has 1 million users."),
    "indian-grouped": ("The app has 1,00,000 users.", "The app has 1 user.",
                       "The app has 100,000 users."),
    # a magnitude letter after the digits
    "million-letter": ("The server handled 1M requests.", "The server handled 1 request.",
                       "The server handled 1 million requests."),
    "billion-letter": ("The company is valued at $2.5B.", "The company is valued at $2.5.",
                       "The company is valued at $2.5 billion."),
    # "and a half" adds .5
    "and-a-half": ("The project took 2 and a half years.", "The project took 2 years.",
                   "The project took 2.5 years."),
    "words-and-a-half": ("The project took two and a half years.",
                         "The project took two years.", "The project took 30 months."),
    "unit-and-a-half": ("The call took an hour and a half.", "The call took an hour.",
                        "The call took 90 minutes."),
    # an approximation from below is a bound
    "nearly": ("The event drew nearly 100 users.", "The event drew 100 users.",
               "The event drew almost 100 users."),
    "almost": ("The event drew almost 100 users.", "The event drew 100 users.",
               "The event drew under 100 users."),
    "close-to": ("The event drew close to 100 users.", "The event drew 100 users.",
                 "The event drew nearly 100 users."),
    # an end of a range of clock times is the opening or the closing time
    "clock-range-end": ("The office is open 9am-5pm.", "The office opens at 5 pm.",
                        "The office is open until 5 pm."),
    "clock-range-from-to": ("The office is open from 9 am to 5 pm.",
                            "The office opens at 5 pm.", "The office opens at 9:00."),
    "clock-range-24-hour": ("The office is open from 09:00 to 17:00.",
                            "The office opens at 5 pm.", "The office is open until 17:00."),
    # a rate's denominator
    "per-user-per-team": ("The plan costs $10 per team.", "The plan costs $10 per user.",
                          "The plan costs $10 per team."),
    "per-slash": ("The plan costs $10/user.", "The plan costs $10 per team.",
                  "The plan costs $10 per user."),
    "clock-range-closing": ("The office is open from 9 am to 5 pm.", "The office closes at 9 am.",
                            "The office closes at 5 pm."),
    "per-seat-each-user": ("The add-on costs $4 per seat per month.",
                           "The add-on costs $4 per user per month.",
                           "The add-on costs $4 per seat per month."),
    # fractions are percentages
    "half-is-50": ("20% of the users chose Pro.", "Half of the users chose Pro.",
                   "One in five users chose Pro."),
    "a-third": ("50% of the users chose Pro.", "A third of the users chose Pro.",
                "Half the users chose Pro."),
    "a-quarter": ("A quarter of the users chose Pro.", "10% of the users chose Pro.",
                  "25% of the users chose Pro."),
}


@pytest.mark.parametrize(("stated", "wrong", "right"), list(NUMBERS_3.values()),
                         ids=list(NUMBERS_3))
def test_a_number_is_read_as_the_quantity_it_writes(stated, wrong, right):
    """The third round's number forms, checked as the second round's are."""
    test_a_number_is_stated_as_the_quantity_it_is(stated, wrong, right)


@pytest.mark.parametrize(("claim", "stated"), [
    ("The call took an hour and a half.", "The call took 90 minutes."),
    ("The support line is staffed 24 hours a day.", "The support line is staffed 24/7."),
    ("The company raised $1.2M.", "The company raised $1.2 million."),
    ("The company raised $1.2 million.", "The company raised $1.2m."),
    ("The freezer reaches minus 20 degrees Celsius.", "The freezer reaches -20 \u00b0C."),
    ("The freezer reaches -20 degrees.", "The freezer reaches 20 degrees below zero."),
    ("The team finished 1st.", "The team finished first."),
    ("The team finished first.", "The team finished 1st."),
    ("The contract starts on 4 March 2024.", "The contract starts on 2024-03-04."),
    ("The contract starts on 2024-03-04.", "The contract starts on March 4, 2024."),
    ("The plan allows at most 5 users.", "The plan allows up to 5 users."),
    ("The plan allows a maximum of 5 users.", "The plan allows up to 5 users."),
    ("The plan allows no more than 5 users.", "The plan allows up to 5 users."),
    ("The plan allows up to 5 users.", "The plan allows no more than 5 users."),
    ("Orders must be at least $10.", "Orders must be no less than $10."),
    ("The minimum order is $10.", "Orders must be at least $10."),
    ("The maximum upload is 5 GB.", "Uploads of up to 5 GB are accepted."),
    ("A third of the users chose Pro.", "33% of the users chose Pro."),
    ("The app has 10 000 users.", "The app has 10,000 users."),
    ("Revenue fell 50 minus 20 percent.", "Revenue fell 50 minus 20 percent."),
    ("The boxer could earn nearly \u00a362m.", "The boxer could bank almost $95m (\u00a362m)."),
    ("The gunman shot seven in a bar.", "The gunman shot seven in a fit of rage in a bar."),
], ids=["hour-and-a-half", "24-7", "1.2M", "1.2m", "celsius", "below-zero", "1st", "first",
        "iso-date", "iso-date-claim", "at-most", "maximum-of", "no-more-than", "up-to",
        "no-less-than", "minimum-noun", "maximum-noun", "third-rounded", "space-grouped",
        "minus-between-numbers", "approximate-claim-of-an-exact-figure",
        "in-a-is-no-rate"])
def test_the_same_quantity_written_another_way_is_kept(claim, stated):
    result, kept = judged(claim, _one(stated), supported(("p1", stated)))
    assert kept.label == "supported", kept.note
    assert result.score == 1.0


# Found by a new user (issue 20, polarity round 3): a sentence that calls the quote false,
# negates it elsewhere, by degree, or makes an exception of it. (claim, wrong, right)

E, W = "Exports are encrypted.", "The Pico 2 is waterproof."
POLARITY_ROUND_3 = [
    (E, "A common misconception is that exports are encrypted.", "Exports are encrypted."),
    (E, "Some users wrongly believe that exports are encrypted.",
     "Some users rightly believe that exports are encrypted."),
    (E, "An older FAQ incorrectly states that exports are encrypted.",
     "The FAQ correctly states that exports are encrypted."),
    (W, "Contrary to some reviews claiming the Pico 2 is waterproof, it is only splash resistant.",
     "As some reviews say, the Pico 2 is waterproof."),
    (W, "It is unclear whether the Pico 2 is waterproof.", "It is clear that the Pico 2 is waterproof."),
    (W, "Reports that the Pico 2 is waterproof remain unconfirmed.",
     "Reports that the Pico 2 is waterproof are confirmed."),
    (W, "Many people think the Pico 2 is waterproof, but it is not.",
     "Many people think the Pico 2 is waterproof, and it is."),
    (W, "Many people think the Pico 2 is waterproof, but it isn't.",
     "Many people think the Pico 2 is fragile, but it is waterproof."),
    (W, "Many people think the Pico 2 is waterproof, but that is false.",
     "Many people think the Pico 2 is waterproof, and that is true."),
    (W, "Is the Pico 2 waterproof? Unfortunately not.", "Is the Pico 2 waterproof? Yes."),
    (W, "Is the Pico 2 waterproof? Nope.", "Is the Pico 2 waterproof? Yes."),
    (E, "Exports, which are not encrypted, are stored in S3; backups are encrypted.",
     "Exports, which are encrypted, are stored in S3; backups are not encrypted."),
    ("Admins can delete exports.",
     "Admins can view exports but cannot delete them; owners can delete exports.",
     "Admins can delete exports but cannot view them; owners can view exports."),
    ("The Basic plan includes SSO.", "All plans include SSO except the Basic plan.",
     "All plans include SSO, the Basic plan too."),
    ("The Basic plan includes SSO.", "Every plan other than the Basic plan includes SSO.",
     "Every plan, the Basic plan too, includes SSO."),
    (W, "The Pico 2 is hardly waterproof.", "The Pico 2 is fully waterproof."),
    (W, "The Pico 2 is far from waterproof.", "The Pico 2 is far from fragile: it is waterproof."),
    (W, "The Pico 2 is anything but waterproof.", "The Pico 2 is anything but fragile: it is waterproof."),
    (W, "The Pico 2 is too fragile to be waterproof.", "The Pico 2 is rugged enough to be waterproof."),
    ("The Pico 2 supports USB-C.", "The Pico 2 ceased to support USB-C.",
     "The Pico 2 continues to support USB-C."),
    (W, "The Pico 2 used to be waterproof before the redesign.",
     "The Pico 2 is waterproof since the redesign."),
    ("The Basic plan includes SSO.", "| Plan | SSO |\n| --- | --- |\n| Basic | \u2014 |\n| Pro | Yes |",
     "| Plan | SSO |\n| --- | --- |\n| Basic | Yes |\n| Pro | \u2014 |"),
    ("The Basic plan includes SSO.", "| Plan | SSO |\n| --- | --- |\n| Basic | - |\n| Pro | Yes |",
     "| Plan | SSO |\n| --- | --- |\n| Basic | Yes |\n| Pro | - |"),
]


@pytest.mark.parametrize(("claim", "wrong", "right"), POLARITY_ROUND_3,
                         ids=[w[:40] for _, w, _ in POLARITY_ROUND_3])
def test_a_quote_its_sentence_denies_is_refused(claim, wrong, right):
    result, refused = judged(claim, _one(wrong), supported(("p1", wrong)))
    assert refused.label == "unsupported" and refused.judge_verdict.label == "supported"
    assert result.score == 0.0
    _, kept = judged(claim, _one(right), supported(("p1", right)))
    assert kept.label == "supported", kept.note


@pytest.mark.parametrize(("claim", "wrong", "right"), POLARITY_ROUND_3[:-2],
                         ids=[w[:40] for _, w, _ in POLARITY_ROUND_3[:-2]])
def test_a_contradiction_quoting_the_denial_is_kept(claim, wrong, right):
    _, kept = judged(claim, _one(wrong),
                     Verdict("contradicted", evidence=[{"passage_id": "p1", "quote": wrong}]))
    assert kept.label == "contradicted", kept.note


CONDITIONED = [
    ("Shipping is free.", "If you spend over $50, shipping is free.",
     "Shipping is free on orders over $50."),
    ("Shipping is free.", "Shipping is free only for members.", "Shipping is free for members."),
    ("Refunds are issued within 14 days.", "Refunds may be issued within 14 days.",
     "Refunds may be issued within 14 days."),
    ("The Pico 2 supports USB-C.", "The Pico 2 is planned to support USB-C next year.",
     "The Pico 2 is planned to support USB-C next year."),
    ("The Pico 2 supports USB-C.", "We hope the Pico 2 will support USB-C.",
     "We hope the Pico 2 will support USB-C."),
    ("The Pico 2 is waterproof.", "The Pico 2 would be waterproof if it had a sealed case.",
     "The Pico 2 would be waterproof if it had a sealed case."),
]


@pytest.mark.parametrize(("claim", "text", "careful"), CONDITIONED,
                         ids=[t[:40] for _, t, _ in CONDITIONED])
def test_a_condition_or_modal_the_claim_drops_is_refused(claim, text, careful):
    """A condition (if/unless/only for/as long as) or a modal, plan or hope on the claim's
    clause that the claim drops: refused; the claim that keeps it (or states the condition's
    words) is kept."""
    result, refused = judged(claim, _one(text), supported(("p1", text)))
    assert refused.label == "unsupported" and result.score == 0.0
    keeps = {"If you spend over $50, shipping is free.": "Shipping is free on orders over $50.",
             "Shipping is free only for members.": "Shipping is free only for members."}
    kept_claim = keeps.get(text, careful)
    _, kept = judged(kept_claim, _one(text), supported(("p1", text)))
    assert kept.label == "supported", kept.note


#: Correct verdicts the check refused (issue 20, polarity round 3): (claim, passage, a wrong
#: claim the same quote must not carry).
SAID_OTHERWISE = [
    ("The feature is not enabled by default.", "The feature is disabled by default.",
     "The feature is enabled by default."),
    ("Sale items are non-refundable.", "Items bought on sale can be exchanged but not refunded.",
     "Sale items are refundable."),
    ("Shipping is available at no extra cost.", "Shipping is free.",
     "Shipping is not available at no extra cost."),
    ("Shipping costs nothing.", "Shipping is free.", "Shipping costs $5."),
    ("There is no limit on the number of users.", "The plan includes unlimited users.",
     "There is a limit on the number of users."),
    ("Store credit never expires.", "Store credit does not expire.", "Store credit expires."),
    ("Only admins can export logs.", "Log exports are restricted to admins.",
     "Only owners can export logs."),
]


@pytest.mark.parametrize(("claim", "text", "wrong"), SAID_OTHERWISE,
                         ids=[c[:40] for c, _, _ in SAID_OTHERWISE])
def test_the_same_statement_said_otherwise_is_kept(claim, text, wrong):
    _, kept = judged(claim, _one(text), supported(("p1", text)))
    assert kept.label == "supported", kept.note
    result, refused = judged(wrong, _one(text), supported(("p1", text)))
    assert refused.label == "unsupported" and result.score == 0.0


@pytest.mark.parametrize(("claim", "added"), [
    ("Refunds and exchanges take 14 days.", "exchanges"),
    ("Refunds take 14 days, and exchanges too.", "exchanges"),
    ("Refunds take 14 days, as do exchanges.", "exchanges"),
    ("Refunds take 14 days, as are exchanges.", "exchanges"),
    ("Refunds take 14 days along with a gift.", "gift"),
])
def test_a_subject_joined_to_the_stated_one_must_be_stated(claim, added):
    """Found by a new user: a second subject joined by "and", "too", "as do" passed."""
    stated = "Refunds take 14 days."
    _, refused = judged(claim, _one(stated), supported(("p1", stated)))
    assert refused.label == "unsupported" and f"does not state {added!r}" in refused.note
    both = "Refunds and exchanges take 14 days, and come with a gift."
    _, kept = judged(claim, _one(both), supported(("p1", both)))
    assert kept.label == "supported", kept.note


def test_a_pronoun_standing_for_another_name_is_read_as_that_name():
    """Found by a new user: "It includes SSO." after "The Enterprise plan costs $50." carried
    "The Pro plan includes SSO." with "The Pro plan costs $20." as a second item."""
    text = "The Pro plan costs $20. The Enterprise plan costs $50. It includes SSO."
    items = (("p1", "The Pro plan costs $20."), ("p1", "It includes SSO."))
    _, refused = judged("The Pro plan includes SSO.", _one(text), supported(*items))
    assert refused.label == "unsupported" and "Enterprise" in refused.note
    kept_text = "The Enterprise plan costs $50. The Pro plan costs $20. It includes SSO."
    _, kept = judged("The Pro plan includes SSO.", _one(kept_text), supported(*items))
    assert kept.label == "supported", kept.note
