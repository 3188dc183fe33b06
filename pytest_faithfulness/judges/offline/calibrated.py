"""The calibrated offline verifier: logistic regression over claim-versus-window features.

For one claim, ``window_features.best_window`` picks the best-aligned window of the passages
(a sentence, up to ``window_features.MAX_WINDOW_SENTENCES`` neighbouring ones, or a title) and
describes the pair with a few features (coverage weighted by rarity, numbers and units,
negation and quantifiers scoped to the window, names, word order, the heuristic verifier's
verdict). Two logistic regressions,
trained by ``training/train_calibrated_judge.py`` on public training data only
(``../shared/data/nli`` and ``../shared/data/train``), turn them into

* ``P(supported)``: the probability that the passages support the claim, and
* ``P(contradicted | not supported)``.

Both are plain dot products in pure Python: no numpy, no model download, deterministic;
the weights and the word rarities ship in ``pytest_faithfulness/models/calibrated.json`` and
``idf.json.gz`` (about 100 KB).

The verdict:

* ``supported`` when ``P(supported)`` reaches the threshold chosen on the training data's
  held-out split, no hard rule vetoes it (``vetoes``), and the window passes
  ``trust.quote_check.check_verdict`` as the quote. The hard rules: a claim word negated on one
  side only (in its negation's scope) or an opposite word ("disabled" for "enabled",
  "non-refundable" for "refundable", "rarely" for "always"); a number the window states
  otherwise; ``all`` against ``only``; a restricting word (``only``) the window does not
  state; two of the claim's words trading places in the window (who did what to whom); a
  quantity, bound or count the window does not state with the claim's unit or name
  (``heuristic.statement_problem``); a word of a short claim
  (``features.SHORT_CLAIM_WORDS``) the window lacks ("paid in cash"); a name or number of
  the claim, or more than a quarter of its content words, missing from the window (and from
  the passage's title, when the title states a name of the claim);
* else ``contradicted`` when the window (about the same thing: ``CUE_COVERAGE``) shows a
  number, unit or polarity mismatch ("14 hours" against "14 days") or ``all`` against
  ``only``, or ``P(contradicted | not supported)`` reaches its threshold, and the window
  passes the quote check;
* else ``unsupported``.

``Verdict.confidence`` is the model's probability that the verdict is right on the question
the gate scores, supported or not: ``P(supported)`` for ``supported``, ``1 - P(supported)``
for ``contradicted`` and ``unsupported`` (a hard rule can overrule a high ``P(supported)``;
the low confidence then shows the disagreement). Both probabilities are in the rationale.
"""

from __future__ import annotations

import gzip
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from ...records import Passage, Verdict
from ...trust.quote_check import check_verdict
from .heuristic import HEURISTIC_VERSION
from .window_features import FEATURE_NAMES, best_window

#: Measured balanced accuracy (supported vs not) of the offline judge with this model on the
#: public development data (``../shared/data``: claims.jsonl, answers.jsonl), never tuned on.
#: Produced by ``python benchmarks/measure_offline_verifier.py --only calibrated``.
DEV_BALANCED_ACCURACY = {"claims": 0.613, "answers": 0.704}


#: The model: weights, feature scaling, thresholds, held-out figures.
MODEL_FILE = Path(__file__).resolve().parents[2] / "models" / "calibrated.json"
#: Inverse document frequency of content words in the training passages' sentences.
IDF_FILE = MODEL_FILE.with_name("idf.json.gz")

#: Share of the claim's content words the window must hold before an ``all``/``only`` clash,
#: a one-sided negation or the contradiction model may call the claim contradicted.
CUE_COVERAGE = 0.75


@cache
def load_model() -> tuple[dict[str, Any], dict[str, float]]:
    """The shipped model and word rarities (read once per process).

    Raises:
        RuntimeError: a model file is missing or does not match ``FEATURE_NAMES`` (a broken
            install), naming the file.
    """
    try:
        model = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
        with gzip.open(IDF_FILE, "rt", encoding="utf-8") as fh:
            idf = json.load(fh)
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"the calibrated offline judge's model files are unreadable: {exc}"
                           ) from exc
    if model.get("features") != list(FEATURE_NAMES):
        raise RuntimeError("pytest_faithfulness/models/calibrated.json was trained on other "
                           "features than judges.offline.window_features.FEATURE_NAMES; "
                           "retrain it with training/train_calibrated_judge.py")
    return model, idf


def _probability(part: dict[str, Any], x: tuple[float, ...]) -> float:
    z = part["bias"] + sum(w * (v - m) / s for w, v, m, s in
                           zip(part["weights"], x, part["mean"], part["scale"]))
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


class CalibratedVerifier:
    """Offline verifier with a probability per verdict (see the module docstring).

    ``verify(claim, passages)`` returns a ``Verdict`` whose ``confidence`` is set;
    ``supported`` and ``contradicted`` verdicts cite one passage and quote its best window.

    Raises:
        RuntimeError: (at construction) the model files are missing or stale.
        TypeError: (``verify``) ``claim`` is not a string.
    """

    def __init__(self) -> None:
        self._model, self._idf = load_model()
        # the model's version and the rules it reads its windows with (the heuristic's and
        # the evidence check's): a change of either changes its verdicts and its cache key
        self.version = f'{self._model["version"]}+{HEURISTIC_VERSION}'
        self.support_threshold = float(self._model["support"]["threshold"])
        self.contradiction_threshold = float(self._model["contradiction"]["threshold"])

    def probabilities(self, claim: str, passages: list[Passage]):
        """``(alignment, P(supported), P(contradicted | not supported))`` for ``claim``."""
        al = best_window(claim, passages, self._idf, float(self._model["default_idf"]))
        return (al, _probability(self._model["support"], al.features),
                _probability(self._model["contradiction"], al.features))

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Judge one claim against the passages (see the module docstring for the rules)."""
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a string, got {type(claim).__name__}")
        al, p, pc = self.probabilities(claim, passages)
        f = dict(zip(FEATURE_NAMES, al.features))
        odds = f"P(supported)={p:.2f}, P(contradicted|not supported)={pc:.2f}"
        if al.quote is None:
            return Verdict("unsupported", rationale=f"no passage speaks to this claim ({odds})",
                           confidence=round(1 - p, 4))
        veto = vetoes(al)
        if p >= self.support_threshold and veto is None:
            verdict = Verdict("supported", passage_ids=[al.passage_id], quote=al.quote,
                              rationale=odds, confidence=round(p, 4))
            reason = check_verdict(verdict, passages, claim)[1]
            if reason is None:
                return verdict
            veto = f"the best window does not pass the quote check: {reason}"
        on_topic = f["cov_window"] >= CUE_COVERAGE
        cue = al.contradiction_reason or (
            "the claim says all, the window only some" if f["quantifier_clash"] and on_topic
            else "a claim word is negated on one side only" if f["polarity_flip"] and on_topic
            else None)
        # the model alone reads a contradiction only where it does not read support: a claim
        # it would support but a rule or the quote check vetoed is unsupported, not opposed
        if cue or (pc >= self.contradiction_threshold and on_topic
                   and p < self.support_threshold):
            verdict = Verdict("contradicted", passage_ids=[al.passage_id], quote=al.quote,
                              rationale=f"{cue or 'the model reads a contradiction'} ({odds})",
                              confidence=round(1 - p, 4))
            if check_verdict(verdict, passages, claim)[1] is None:
                return verdict
        why = veto or "the best window does not carry the claim"
        return Verdict("unsupported", rationale=f"{why} ({odds})",
                       confidence=round(1 - p, 4))


def vetoes(al) -> str | None:
    """The hard rule that keeps the aligned window ``al`` (``window_features.WindowMatch``) from
    supporting its claim whatever the probability, or ``None``: the feature vetoes
    (``_veto``), a quantity, bound or count not stated as the claim states it, a word of a
    short claim missing, too little of the claim in the window, two words trading places."""
    return (_veto(dict(zip(FEATURE_NAMES, al.features))) or al.quantity_problem
            or al.short_claim_gap or al.coverage_gap or (
                "the window has two of the claim's words trading places (who did what to whom)"
                if al.role_swap else None))


def _veto(f: dict[str, float]) -> str | None:
    """A hard rule that keeps a claim from ``supported`` whatever the probability."""
    if f["polarity_flip"]:
        return "a claim word is negated on one side only"
    if f["number_mismatch"]:
        return "the window states another number in the claim's unit"
    if f["quantifier_clash"]:
        return "the claim says all, the window only some"
    if f["restrictor_unstated"]:
        return "the claim restricts (only, exclusively) where the window does not"
    return None
