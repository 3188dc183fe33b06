"""The calibrated offline judge (``offline``): the mistakes a new user met, each as a kind with
the reported example and two invented ones, the confidence per verdict, and the honest header.

Everything goes through the public surface: ``evaluate`` with ``OfflineJudge()`` and real
pytest runs (``pytester``)."""

from __future__ import annotations

import json

import pytest

from pytest_faithfulness import OfflineJudge, evaluate
from pytest_faithfulness.judges import make_judge
from pytest_faithfulness.judges.coverage import EVERYTHING
from pytest_faithfulness.trust.quote_check import check_verdict


@pytest.fixture(scope="module")
def judge():
    return OfflineJudge()


def labels(judge, answer, passage):
    # the verifier's own rules, in any language: past the coverage guard (judges.coverage)
    result = evaluate(answer, [passage], judge, coverage=EVERYTHING)
    return [c.label for c in result.claims]


def judged(judge, claim, passage):
    result = evaluate(claim, [passage], judge, coverage=EVERYTHING)
    assert len(result.claims) == 1, result.claims
    return result.claims[0]


# --- "all" against "only": quantifiers are not stop words to the judge --------------------

@pytest.mark.parametrize("claim, passage", [
    ("Phone support is included on all plans.",
     "Phone support is available only on the Enterprise plan."),
    ("Free shipping applies to every order.",
     "Free shipping applies only to orders shipped within Canada."),
    ("All rooms have a private balcony.",
     "Only the corner rooms have a private balcony."),
])
def test_all_against_only_is_not_supported(judge, claim, passage):
    claim_result = judged(judge, claim, passage)
    assert claim_result.label != "supported"


# --- a negation in another clause of the passage does not flip the claim ------------------

@pytest.mark.parametrize("claim, passage", [
    ("The Pro plan also has a 14-day free trial.",
     "A 14-day free trial of the Pro plan is available; no credit card is required."),
    ("Exchanges are free within 30 days.",
     "Exchanges are free within 30 days; no receipt is needed."),
    ("The Lumo 2 ships with a remote control.",
     "The Lumo 2 ships with a remote control, but no batteries are included."),
])
def test_a_negation_in_another_clause_does_not_contradict(judge, claim, passage):
    assert labels(judge, claim, passage) == ["supported"]


# --- a number with another unit is not the same quantity ----------------------------------

@pytest.mark.parametrize("claim, passage", [
    ("Support replies within 14 hours.", "Support replies within 14 days."),
    ("The battery lasts 10 hours on one charge.", "The battery lasts 10 days on one charge."),
    ("Delivery takes 3 weeks.", "Delivery takes 3 days."),
])
def test_a_number_in_another_unit_is_not_supported(judge, claim, passage):
    assert labels(judge, claim, passage) != ["supported"]


# --- who did what to whom ------------------------------------------------------------------

@pytest.mark.parametrize("claim, passage", [
    ("The customer refunds the store.", "The store refunds the customer."),
    ("The tenant pays the landlord a deposit.", "The landlord pays the tenant a deposit."),
    ("The client sends the server a token.", "The server sends the client a token."),
])
def test_swapped_roles_are_not_supported(judge, claim, passage):
    assert labels(judge, claim, passage) != ["supported"]


# --- a qualifier the passage does not state ------------------------------------------------

@pytest.mark.parametrize("claim, passage", [
    ("Refunds are paid in cash.", "Refunds are paid to the original card."),
    ("Refunds are paid only by bank transfer.", "Refunds are paid by bank transfer."),
    ("The discount applies exclusively to new customers.",
     "The discount applies to new customers."),
])
def test_an_added_qualifier_is_not_supported(judge, claim, passage):
    assert labels(judge, claim, passage) != ["supported"]


# --- another price or another count of business days is a contradiction -------------------

@pytest.mark.parametrize("claim, passage", [
    ("The Basic plan costs $4.99 per month.", "The Basic plan costs $5.99 per month."),
    ("Refunds arrive within 5 business days.", "Refunds arrive within 10 business days."),
    ("Each extra seat costs \u20ac12 per month.", "Each extra seat costs \u20ac15 per month."),
    ("Replacements ship within 2 business days.", "Replacements ship within 7 business days."),
])
def test_another_price_or_count_of_days_is_contradicted(judge, claim, passage):
    claim_result = judged(judge, claim, passage)
    assert claim_result.label == "contradicted"
    assert claim_result.verdict.quote == passage


# --- negation flips in other languages ------------------------------------------------------

FLIPS = [
    ("Eine Rückerstattung ist möglich.", "Eine Rückerstattung ist nicht möglich."),
    ("Für Sonderangebote gibt es eine Rückerstattung.",
     "Für Sonderangebote gibt es keine Rückerstattung."),
    ("Les articles soldés sont remboursables.", "Les articles soldés ne sont pas remboursables."),
    ("Le retour est gratuit.", "Le retour n'est jamais gratuit."),
    ("Los artículos rebajados son reembolsables.",
     "Los artículos rebajados no son reembolsables."),
    ("El envío incluye seguimiento.", "El envío nunca incluye seguimiento."),
    ("促销商品可以退款。", "促销商品不可以退款。"),
    ("会员有免运费。", "会员没有免运费。"),
    ("セール品は返品できます。", "セール品は返品できません。"),
]


@pytest.mark.parametrize("claim, passage", FLIPS)
def test_a_negation_flip_in_another_language_is_not_supported(judge, claim, passage):
    assert labels(judge, claim, passage) == ["contradicted"]


@pytest.mark.parametrize("claim, passage", [(c, c) for c, _ in FLIPS] + [(p, p) for _, p in FLIPS])
def test_the_same_statement_in_another_language_is_supported(judge, claim, passage):
    assert labels(judge, claim, passage) == ["supported"]


# --- pleasantries in other languages are set aside, not scored ------------------------------

@pytest.mark.parametrize("answer, fact", [
    (("Hallo! Vielen Dank für Ihre Nachricht. Eine Rückerstattung ist möglich. "
      "Ich hoffe, das hilft!"), "Eine Rückerstattung ist möglich."),
    (("Bonjour ! Merci pour votre question. Les articles soldés sont remboursables. "
      "Cordialement."), "Les articles soldés sont remboursables."),
    (("¡Hola! Gracias por su pregunta. Los artículos rebajados son reembolsables. "
      "¡Espero que esto le ayude!"), "Los artículos rebajados son reembolsables."),
    ("您好！感谢您的提问。促销商品可以退款。希望对您有帮助！", "促销商品可以退款。"),
    ("こんにちは！ご質問ありがとうございます。セール品は返品できます。お役に立てれば幸いです。",
     "セール品は返品できます。"),
])
def test_pleasantries_in_other_languages_are_not_claims(judge, answer, fact):
    result = evaluate(answer, [fact], judge, coverage=EVERYTHING)  # past the coverage guard
    assert [c.text for c in result.claims] == [fact]
    assert [c.label for c in result.claims] == ["supported"]
    assert result.dropped and all(d.reason == "greeting or pleasantry" for d in result.dropped)


# --- a paraphrase that keeps every fact is supported ----------------------------------------

@pytest.mark.parametrize("claim, passage", [
    ("If you pay yearly, you save 20% on any plan.",
     "Paying yearly saves you 20 percent on any plan."),
    ("Annual billing saves 20% on every plan.",
     "Every plan is 20% cheaper with annual billing, which saves money."),
    ("Orders over $50 ship free.", "Free shipping on orders over $50."),
])
def test_a_paraphrase_keeping_the_facts_is_supported(judge, claim, passage):
    assert labels(judge, claim, passage) == ["supported"]


# --- confidence, quote and header ------------------------------------------------------------

def test_every_verdict_has_a_confidence_and_a_checked_quote(judge):
    passages = [{"id": "d1", "text": "The Basic plan costs $5.99 per month. Phone support is "
                                     "available only on the Enterprise plan. Exports run daily."}]
    result = evaluate("The Basic plan costs $5.99 per month. Exports run daily. "
                      "The Basic plan costs $4.99 per month. Exports are encrypted.",
                      passages, judge)
    assert [c.label for c in result.claims] == ["supported", "supported", "contradicted",
                                                "unsupported"]
    from pytest_faithfulness.inputs import to_passages
    for claim in result.claims:
        assert 0.0 <= claim.verdict.confidence <= 1.0
        if claim.label != "unsupported":
            assert claim.verdict.quote in passages[0]["text"]
            assert check_verdict(claim.verdict, to_passages(passages), claim.text)[1] is None
    assert result.claims[0].verdict.confidence > 0.5


def test_the_heuristic_judge_keeps_its_own_name_and_gives_no_confidence():
    heuristic = make_judge("offline-heuristic")
    assert heuristic.verifier == "heuristic"
    result = evaluate("Exports run daily.", ["Exports run daily."], heuristic)
    assert result.claims[0].label == "supported"
    assert result.claims[0].verdict.confidence is None
    assert make_judge("offline").verifier == "calibrated"


def test_the_description_names_the_judge_version_and_measured_accuracy(judge):
    text = judge.describe()
    assert "offline calibrated judge calibrated-" in text
    assert "balanced accuracy on the public dev data claims 0." in text


def test_confidence_in_json_report_and_verbose_output(pytester):
    pytester.makepyfile('''
        def test_it(assert_faithful):
            assert_faithful("The Basic plan costs $4.99 per month.",
                            ["The Basic plan costs $5.99 per month."], min_score=0.0)
    ''')
    result = pytester.runpytest("-v", "--faithfulness-report", "r.json",
                                "--faithfulness-html", "r.html")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*[[]CONTRADICTED[]] The Basic plan costs $4.99 per month. (p1) "
                                 "confidence 0.*",
                                 "*offline calibrated judge calibrated-*balanced accuracy*",
                                 "*judge's confidence: 0.*"])
    data = json.loads((pytester.path / "r.json").read_text())
    text = json.dumps(data)
    assert '"confidence": 0.' in text
    assert "judge&rsquo;s confidence: 0." in (pytester.path / "r.html").read_text()


def test_the_offline_judge_needs_no_extra_package(pytester):
    """``pip install .`` is enough: numpy, onnxruntime and tokenizers (the ``[offline]``
    extra) are blocked in a fresh process, and the default judge still judges."""
    pytester.makeconftest('''
        import sys
        for name in ("numpy", "onnxruntime", "tokenizers"):
            sys.modules[name] = None  # any import of them raises ImportError
    ''')
    pytester.makepyfile('''
        def test_it(assert_faithful):
            assert_faithful("Exports run daily.", ["Exports run daily."])
    ''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["judge: offline calibrated judge*"])
