"""Real, human-labelled records (see ATTRIBUTION.md): what does the judge make of them?

Each record is an answer (BEGIN, knowledge-grounded dialogue) or a single claim
(Factcheck-GPT) with the passage it should rest on. The test id starts with the human label
(``faithful-...`` or ``hallucinated-...``), so the faithfulness summary at the end shows, for
every answer the judge flagged, whether the annotators flagged it too.

``min_score=0`` here, so these tests fail only when the judge errors: they show what the
judge says (with no threshold at all, an assertion requires every claim to be supported).
Unlike ``record_only=True``, ``min_score=0`` leaves room for the command line's bounds, so
they become a gate from the command line, as a CI job would make them:

    pytest conftest_examples --faithfulness-max-unsupported 0   # every claim must be supported
    pytest conftest_examples --faithfulness-min-mean 0.8        # session gate on the mean
"""

import json
from pathlib import Path

import pytest

RECORDS = [json.loads(line) for line in
           (Path(__file__).parent / "records.jsonl").read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("record", RECORDS, ids=[f"{r['human_label']}-{r['id']}" for r in RECORDS])
def test_record(record, assert_faithful):
    result = assert_faithful(record["answer"], record["passages"], min_score=0)
    assert result.status in ("scored", "unscored")
