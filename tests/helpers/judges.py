"""Test judges shared by the test files: one copy of each.

In-process judges (pass them to ``evaluate``):

* ``QuotingJudge(verdicts, dropped=())``: decomposes any answer into the claims of
  ``verdicts`` (a ``{claim: Verdict}`` dict, in its order) and answers each claim with its
  scripted ``Verdict``; ``dropped`` is what it sets aside. A judge that quotes whatever a test
  needs it to quote, right or wrong, so the pipeline's own checks are what is under test.
* ``EvidenceJudge(evidence)``: decomposes an answer into itself and calls it ``supported`` with
  the given evidence list (``[{"passage_id": ..., "quote": ...}]``).

Conftest sources (write them with ``pytester.makeconftest``; they run in the inner pytest, in
this process or another, so they are text, not classes):

* ``QUOTING_CONFTEST``: a session ``faithfulness_judge`` whose claims are the answer's
  sentences (a leading "Hi!" set aside) and whose verdict is ``supported`` exactly when the
  claim occurs verbatim in a passage (quoted), else ``unsupported``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pytest_faithfulness import Decomposition, Verdict


class QuotingJudge:
    """Claims and verdicts from a script: ``{claim: Verdict}``; ``dropped`` set aside."""

    def __init__(self, verdicts: Mapping[str, Verdict], dropped: Iterable[str] = ()) -> None:
        self.verdicts, self.dropped = dict(verdicts), list(dropped)

    def decompose(self, text: str) -> Decomposition:
        return Decomposition(claims=list(self.verdicts), dropped=self.dropped)

    def verify(self, claim: str, passages) -> Verdict:
        return self.verdicts[claim]


class EvidenceJudge:
    """The answer is one claim, called ``supported`` with the given evidence items."""

    def __init__(self, evidence: list[dict[str, str]]) -> None:
        self.evidence = evidence

    def decompose(self, answer: str) -> list[str]:
        return [answer]

    def verify(self, claim: str, passages) -> Verdict:
        return Verdict("supported", evidence=self.evidence)


QUOTING_CONFTEST = '''
import pytest
from pytest_faithfulness import Decomposition, Verdict


class QuotingJudge:
    def decompose(self, answer):
        sentences = [s.strip() for s in answer.replace("!", ".").split(".") if s.strip()]
        return Decomposition(claims=[s + "." for s in sentences if s != "Hi"],
                             dropped=["Hi!"] if "Hi!" in answer else [])

    def verify(self, claim, passages):
        for p in passages:
            if claim in p.text:
                return Verdict("supported", passage_ids=[p.id], quote=claim)
        return Verdict("unsupported")

    def describe(self):
        return "quoting judge"


@pytest.fixture(scope="session")
def faithfulness_judge():
    return QuotingJudge()
'''
