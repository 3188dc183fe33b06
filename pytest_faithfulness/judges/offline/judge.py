"""The embedded offline judge: rule-based decomposer and a calibrated, heuristic or embedding
verifier.

No network, no model download, deterministic. A first filter, not NLI: the report header
states the verifier's measured balanced accuracy on public data so a reader knows how far
to trust it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...accounting import record as record_usage
from ...records import Decomposition, Passage, Verdict
from ..coverage import OFFLINE_COVERAGE, JudgeCoverage
from .decomposer import RuleDecomposer
from .heuristic import HeuristicVerifier

if TYPE_CHECKING:  # at run time imported where chosen (``__init__``): only the verifier asked for
    from .calibrated import CalibratedVerifier
    from .nli import EmbeddingVerifier


class OfflineJudge:
    """The embedded default judge: ``RuleDecomposer`` + an offline verifier.

    It is a first filter, not natural language inference: it sees word coverage, numbers,
    negation and quantifiers, not world knowledge. Not cached (it is faster than the cache).

    Args:
        verifier: ``"calibrated"`` (default, judge name ``offline``):
            ``judges.offline.calibrated.CalibratedVerifier``, a logistic regression over
            claim-versus-window features with a confidence per verdict, pure Python;
            ``"heuristic"`` (judge name ``offline-heuristic``): the rules of
            ``heuristic.HeuristicVerifier`` alone, no model file; ``"nli"`` (judge name
            ``offline-nli``): the experimental ``nli.EmbeddingVerifier`` (needs the
            ``[offline]`` extra; raises ``ImportError`` naming it otherwise).

    Raises:
        ValueError: an unknown ``verifier``.
    """

    name = "offline"
    #: Every verifier here applies the rules of ``heuristic`` (the heuristic's rules, the
    #: calibrated model's hard rules and features, the embedding verifier's number and name
    #: rules): a panel counts them as one judge and refuses two of them (``judges.votes``).
    rules = "offline"
    cacheable = False
    #: Same inputs, same verdict: asked once whatever ``--faithfulness-votes`` says.
    deterministic = True
    runs_inline = True
    accounts_usage = True
    context_budget_chars: int | None = None
    #: What its rules were written and fitted for: English answers, prose and tables, any
    #: passage set (``judges.coverage.OFFLINE_COVERAGE``).
    coverage: JudgeCoverage | None = OFFLINE_COVERAGE

    def __init__(self, verifier: str = "calibrated") -> None:
        self._decomposer = RuleDecomposer()
        self._verifier: CalibratedVerifier | HeuristicVerifier | EmbeddingVerifier
        if verifier == "calibrated":
            from .calibrated import CalibratedVerifier

            self._verifier = CalibratedVerifier()
        elif verifier == "heuristic":
            self._verifier = HeuristicVerifier()
        elif verifier == "nli":
            from .nli import EmbeddingVerifier

            self._verifier = EmbeddingVerifier()
        else:
            raise ValueError("offline verifier must be 'calibrated', 'heuristic' or 'nli', "
                             f"got {verifier!r}")
        self.verifier = verifier
        self.calls = 0

    def decompose(self, answer: str) -> Decomposition:
        """Rule-based decomposition of ``answer`` (see ``judges.offline.decomposer``)."""
        self.calls += 1
        record_usage(calls=1)
        return self._decomposer.decompose(answer)

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """The verifier's verdict for ``claim`` (see the class docstring)."""
        self.calls += 1
        record_usage(calls=1)
        return self._verifier.verify(claim, passages)

    def fingerprint(self) -> dict[str, Any]:
        """Versions of the rules; changes whenever the verdicts can change."""
        return {"kind": "offline", "decomposer": self._decomposer.version,
                "verifier": self._verifier.version}

    def describe(self) -> str:
        """One line for report headers."""
        if self.verifier == "calibrated":
            from .calibrated import DEV_BALANCED_ACCURACY as acc

            return (f"offline calibrated judge {self._verifier.version} (word coverage, numbers, "
                    "negation and quantifiers, weighed by a model trained on public data): "
                    f"balanced accuracy on the public dev data claims {acc['claims']:.3f}, "
                    f"answers {acc['answers']:.3f}; a first filter, not NLI")
        if self.verifier == "nli":
            return ("offline embedding judge (MiniLM int8 + a small head trained on public NLI "
                    "data, with the number/name rules), experimental: a first filter, not a "
                    "gate to trust on its own")
        from .heuristic import DEV_BALANCED_ACCURACY as acc

        return (f"offline heuristic judge {self._verifier.version} (word coverage, numbers, "
                f"negation): balanced accuracy on the public dev data claims {acc['claims']:.3f}, "
                f"answers {acc['answers']:.3f}; a cheap first filter, not NLI")
