"""The audit-log example: an answer that is fluent, on topic, and 2/5 unsupported.

Passages p-2071 and p-2072 say where audit logs go and how to configure the bucket; they say
nothing about how often exports run or how long they are kept. A reviewer reading the answer
would likely pass it. The gate does not.
"""

import pytest

PASSAGES = [
    {"id": "p-2071", "text": "Audit log export is available on the Business and Enterprise plans. "
                             "Exports are delivered to a customer-owned S3 bucket."},
    {"id": "p-2072", "text": "Configure the destination bucket under Settings > Security > Audit Log "
                             "Export. The bucket policy must allow s3:PutObject for our export role."},
]

ANSWER = (
    "Yes — audit log export to S3 is available on the Business plan. Configure the destination "
    "under Settings > Security > Audit Log Export, and make sure the bucket policy allows "
    "s3:PutObject for our export role. Exports run hourly and are retained in your bucket "
    "indefinitely. [p-2071, p-2072]"
)

# The same answer without the two sentences-worth of invention.
FAITHFUL_ANSWER = (
    "Yes — audit log export to S3 is available on the Business plan. Configure the destination "
    "under Settings > Security > Audit Log Export, and make sure the bucket policy allows "
    "s3:PutObject for our export role. [p-2071, p-2072]"
)


@pytest.mark.xfail(strict=True, reason="claims 4 and 5 (hourly, retained indefinitely) are in no "
                                       "passage: the gate is meant to catch this answer")
def test_audit_log_answer_is_caught(assert_faithful):
    assert_faithful(ANSWER, PASSAGES, max_unsupported=0)


def test_audit_log_answer_scores_three_of_five(assert_faithful):
    result = assert_faithful(ANSWER, PASSAGES, min_score=0.6)
    assert len(result.claims) == 5
    assert result.score == pytest.approx(0.6)
    assert [c.supported for c in result.claims] == [True, True, True, False, False]


def test_audit_log_citations(assert_faithful):
    """The answer cites both passages for everything it says: claims 1-3 are correctly cited
    (a cited passage supports each), claims 4-5 are cited but unsupported."""
    result = assert_faithful(ANSWER, PASSAGES, record_only=True)
    assert [c.citation for c in result.claims] == ["correct"] * 3 + ["unsupported"] * 2
    assert all(c.cited_ids == ["p-2071", "p-2072"] for c in result.claims)
    assert result.citation_precision == pytest.approx(0.6) and result.misattributed == 0


def test_faithful_version_passes(assert_faithful):
    assert_faithful(FAITHFUL_ANSWER, PASSAGES, min_score=1.0)


def test_pleasantries_are_not_scored(assert_faithful):
    result = assert_faithful("Hi there! Happy to help. Let me know if that helps!", PASSAGES)
    assert result.status == "unscored" and result.score is None
