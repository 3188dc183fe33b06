"""The embedded offline judge: rule-based decomposer and heuristic (or embedding) verifier.

No network, no model download, deterministic. A cheap first filter, not NLI.
"""

from __future__ import annotations

from typing import Any

from ..accounting import record as record_usage
from ..decomposition import RuleDecomposer
from ..records import Decomposition, Passage, Verdict
from ..verification import HeuristicVerifier


class OfflineJudge:
    """The embedded default judge: ``RuleDecomposer`` + ``HeuristicVerifier``.

    It is a cheap first filter, not natural language inference: it sees word overlap, numbers
    and negation, not paraphrase or world knowledge. Not cached (it is faster than the cache).

    Args:
        verifier: ``"heuristic"`` (default) or ``"nli"``: the experimental
            ``nli.EmbeddingVerifier`` (needs the ``[offline]`` extra; raises ``ImportError``
            naming it otherwise).
    """

    name = "offline"
    cacheable = False
    #: Same inputs, same verdict: asked once whatever ``--faithfulness-votes`` says.
    deterministic = True
    runs_inline = True
    accounts_usage = True
    context_budget_chars: int | None = None

    def __init__(self, verifier: str = "heuristic") -> None:
        self._decomposer = RuleDecomposer()
        if verifier == "heuristic":
            self._verifier = HeuristicVerifier()
        elif verifier == "nli":
            from ..nli import EmbeddingVerifier

            self._verifier = EmbeddingVerifier()
        else:
            raise ValueError(f"offline verifier must be 'heuristic' or 'nli', got {verifier!r}")
        self.verifier = verifier
        self.calls = 0

    def decompose(self, answer: str) -> Decomposition:
        """Rule-based decomposition of ``answer`` (see ``decomposition``)."""
        self.calls += 1
        record_usage(calls=1)
        return self._decomposer.decompose(answer)

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Heuristic verdict for ``claim`` (see ``verification.HeuristicVerifier``)."""
        self.calls += 1
        record_usage(calls=1)
        return self._verifier.verify(claim, passages)

    def fingerprint(self) -> dict[str, Any]:
        """Versions of the rules; changes whenever the verdicts can change."""
        return {"kind": "offline", "decomposer": self._decomposer.version,
                "verifier": self._verifier.version}

    def describe(self) -> str:
        """One line for report headers."""
        if self.verifier == "nli":
            return ("offline embedding judge (MiniLM int8 + a small head trained on public NLI "
                    "data, with the number/name rules), experimental: a first filter, not a "
                    "gate to trust on its own")
        return ("offline heuristic judge (word coverage, numbers, negation): a cheap first "
                "filter, not NLI")
