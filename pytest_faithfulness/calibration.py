"""Calibration: does the judge still agree with the team's human labels?

Input (JSON Lines, one record per line; the formats of the project's shared evaluation data):

* claim level: ``{"id", "claim", "passages", "human_label": "supported" | "contradicted" |
  "unsupported"}``;
* answer level: ``{"id", "answer", "passages", "human_label": "faithful" | "hallucinated"}``.

Both may carry ``source_dataset`` (for a per-source breakdown). ``passages`` take any form
``records.to_passages`` accepts.

Figures (``CalibrationReport``):

* claim level: the 3-class confusion matrix (rows: human, columns: judge), per-class
  precision and recall, Cohen's kappa (Cohen 1960, "A coefficient of agreement for nominal
  scales"), and the binary balanced accuracy of supported vs not supported;
* answer level: balanced accuracy of faithful vs hallucinated, where the judge calls an answer
  hallucinated when at least one of its claims is not supported (the response-level reading
  used by LLM-AggreFact, Tang et al. 2024), and Cohen's kappa of that binary decision;
* the balanced accuracy's 95% interval from a percentile bootstrap (2,000 resamples, fixed
  seed), and every figure per ``source_dataset``, per language of the text judged (the
  answer, or the claim; ``language.content.profile``, ``"unknown"`` when too short to tell)
  and per content kind (prose, table, code, json, tool_output): what a judge's coverage
  declaration (``judges.coverage``, ``--faithfulness-judge-covers``) should rest on;
* every disagreement, with the claim, the verdict, the human label and the judge's quote.

A record whose judge call fails is counted under ``errors`` and kept out of the figures; a
calibration gate fails closed when any record errored. A calibration run judges every record
whatever the judge's coverage (``judges.coverage.EVERYTHING``): it is what measures it.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from .records import VERDICT_LABELS, Verdict

CLAIM_LABELS = VERDICT_LABELS  # supported, contradicted, unsupported
ANSWER_LABELS = ("faithful", "hallucinated")
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240917
#: The per-language row of the records too short to have a language.
UNKNOWN_LANGUAGE = "unknown"


class LabelledRecord(BaseModel):
    """One human-labelled record (claim level when ``claim`` is set, else answer level)."""

    model_config = ConfigDict(extra="allow")

    id: str
    passages: list[Any]
    human_label: str
    claim: str | None = None
    answer: str | None = None
    source_dataset: str | None = None

    @property
    def level(self) -> Literal["claim", "answer"]:
        """``"claim"`` or ``"answer"``."""
        return "claim" if self.claim is not None else "answer"


class Outcome(BaseModel):
    """The judge's reading of one labelled record."""

    model_config = ConfigDict(extra="forbid")

    id: str
    level: Literal["claim", "answer"]
    source: str | None = None
    human_label: str
    judge_label: str | None = None  # None when the judge errored
    text: str
    quote: str | None = None
    passage_ids: list[str] = Field(default_factory=list)
    evidence: list[dict[str, str]] = Field(default_factory=list)  # every item: passage_id, quote
    claims: list[dict[str, Any]] = Field(default_factory=list)  # answer level: each claim
    error: str | None = None
    language: str | None = None  # of the text judged (None: too short to tell)
    kinds: list[str] = Field(default_factory=list)  # its content kinds

    @property
    def agrees(self) -> bool | None:
        """Whether the judge agrees with the human label (``None`` on error)."""
        if self.judge_label is None:
            return None
        if self.level == "claim":
            return self.judge_label == self.human_label
        return self.judge_label == self.human_label


class Figures(BaseModel):
    """Agreement figures over one set of outcomes (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    records: int
    errors: int
    balanced_accuracy: float | None
    balanced_accuracy_ci95: tuple[float, float] | None
    kappa: float | None
    confusion: dict[str, dict[str, int]]
    precision: dict[str, float | None]
    recall: dict[str, float | None]


class CalibrationReport(BaseModel):
    """Figures overall and per source, and the disagreements."""

    model_config = ConfigDict(extra="forbid")

    level: Literal["claim", "answer", "mixed"]
    overall: dict[str, Figures]  # keyed by level: "claim" and/or "answer"
    per_source: dict[str, dict[str, Figures]]
    disagreements: list[Outcome]
    per_language: dict[str, dict[str, Figures]] = Field(default_factory=dict)
    per_kind: dict[str, dict[str, Figures]] = Field(default_factory=dict)
    errors: list[Outcome]


def load_labelled(path: str | Path) -> list[LabelledRecord]:
    """Read a labelled JSONL file.

    Raises:
        ValueError: a line is not JSON or not a labelled record; the message names the line.
    """
    records = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = LabelledRecord.model_validate(json.loads(line))
        except Exception as exc:
            raise ValueError(f"{path}:{number}: not a labelled record: {exc}") from exc
        allowed = CLAIM_LABELS if record.level == "claim" else ANSWER_LABELS
        if record.level == "answer" and record.answer is None:
            raise ValueError(f"{path}:{number}: a record needs a 'claim' or an 'answer'")
        if record.human_label not in allowed:
            raise ValueError(f"{path}:{number}: human_label {record.human_label!r} is not one "
                             f"of {', '.join(allowed)}")
        records.append(record)
    return records


def judge_record(record: LabelledRecord, judge: Any) -> Outcome:
    """Run one record through the judge (claim: ``verify_claim``; answer: ``evaluate``)."""
    from .judges.coverage import EVERYTHING
    from .language.content import profile
    from .pipeline import evaluate, verify_claim

    found = profile(record.claim if record.claim is not None else record.answer or "")
    base: dict[str, Any] = {"id": record.id, "level": record.level,
                            "source": record.source_dataset, "human_label": record.human_label,
                            "language": found.language, "kinds": list(found.kinds)}
    if record.level == "claim":
        text = cast(str, record.claim)  # a claim record has its claim (LabelledRecord checks)
        try:
            claim = verify_claim(text, record.passages, judge)
        except Exception as exc:  # fail closed: counted as an error, never as agreement
            return Outcome(**base, text=text, error=f"{type(exc).__name__}: {exc}")
        verdict = cast(Verdict, claim.verdict)  # verify_claim always sets it
        return Outcome(**base, text=text, judge_label=verdict.label, quote=verdict.quote,
                       passage_ids=verdict.passage_ids,
                       evidence=[item.model_dump() for item in verdict.evidence])
    answer = cast(str, record.answer)  # an answer record has its answer (LabelledRecord checks)
    result = evaluate(answer, record.passages, judge, coverage=EVERYTHING)  # no guard here
    if result.status == "error":
        return Outcome(**base, text=answer, error=result.error)
    flagged = result.status == "scored" and result.not_supported > 0
    first = next((c for c in result.claims if not c.supported), None)
    return Outcome(**base, text=answer,
                   judge_label="hallucinated" if flagged else "faithful",
                   quote=first.verdict.quote if first and first.verdict else None,
                   claims=[{"text": c.text, "label": c.label} for c in result.claims])


def _binary(outcome: Outcome) -> tuple[bool, bool]:
    """(human positive, judge positive) with positive = supported / faithful."""
    positive = "supported" if outcome.level == "claim" else "faithful"
    return outcome.human_label == positive, outcome.judge_label == positive


def balanced_accuracy(pairs: list[tuple[bool, bool]]) -> float | None:
    """Mean of recall on the positive and on the negative class; ``None`` if a class is absent."""
    pos = [j for h, j in pairs if h]
    neg = [j for h, j in pairs if not h]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(1 for j in neg if not j) / len(neg)) / 2


def cohen_kappa(human: list[str], judge: list[str]) -> float | None:
    """Cohen's kappa of two labelings of the same items; ``None`` when undefined."""
    n = len(human)
    if n == 0:
        return None
    observed = sum(1 for h, j in zip(human, judge) if h == j) / n
    hc, jc = Counter(human), Counter(judge)
    expected = sum(hc[k] * jc[k] for k in set(hc) | set(jc)) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def bootstrap_ci(pairs: list[tuple[bool, bool]], resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float, float] | None:
    """95% percentile-bootstrap interval of the balanced accuracy (Efron & Tibshirani 1993)."""
    if balanced_accuracy(pairs) is None:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = [pairs[rng.randrange(len(pairs))] for _ in pairs]
        value = balanced_accuracy(sample)
        if value is not None:
            values.append(value)
    values.sort()
    return values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]


def figures(outcomes: list[Outcome], level: str) -> Figures:
    """The figures of one level over ``outcomes`` (errors counted, kept out of the rest)."""
    mine = [o for o in outcomes if o.level == level]
    judged = [o for o in mine if o.judge_label is not None]
    labels = CLAIM_LABELS if level == "claim" else ANSWER_LABELS
    confusion = {h: {j: 0 for j in labels} for h in labels}
    for o in judged:
        confusion[o.human_label][cast(str, o.judge_label)] += 1
    precision: dict[str, float | None] = {}
    recall: dict[str, float | None] = {}
    for label in labels:
        predicted = sum(confusion[h][label] for h in labels)
        actual = sum(confusion[label].values())
        precision[label] = confusion[label][label] / predicted if predicted else None
        recall[label] = confusion[label][label] / actual if actual else None
    pairs = [_binary(o) for o in judged]
    return Figures(records=len(mine), errors=len(mine) - len(judged),
                   balanced_accuracy=balanced_accuracy(pairs),
                   balanced_accuracy_ci95=bootstrap_ci(pairs),
                   kappa=cohen_kappa([o.human_label for o in judged],
                                     [cast(str, o.judge_label) for o in judged]),
                   confusion=confusion, precision=precision, recall=recall)


def report(outcomes: Iterable[Outcome]) -> CalibrationReport:
    """All figures, per source, the disagreements and the errors."""
    outcomes = list(outcomes)
    levels = sorted({o.level for o in outcomes})
    by_source: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if o.source:
            by_source[o.source].append(o)
    by_language: dict[str, list[Outcome]] = defaultdict(list)
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_language[o.language or UNKNOWN_LANGUAGE].append(o)
        for kind in o.kinds:
            by_kind[kind].append(o)

    def rows(groups: dict[str, list[Outcome]]) -> dict[str, dict[str, Figures]]:
        return {key: {level: figures(group, level) for level in sorted({o.level for o in group})}
                for key, group in sorted(groups.items())}

    return CalibrationReport(
        level=levels[0] if len(levels) == 1 else "mixed",
        overall={level: figures(outcomes, level) for level in levels},
        per_source=rows(by_source), per_language=rows(by_language), per_kind=rows(by_kind),
        disagreements=[o for o in outcomes if o.agrees is False],
        errors=[o for o in outcomes if o.judge_label is None],
    )


def agreement(report_: CalibrationReport) -> float | None:
    """The figure the gate reads: the lowest balanced accuracy over the levels present."""
    values = [f.balanced_accuracy for f in report_.overall.values()]
    scores = [v for v in values if v is not None]
    if not values or len(scores) < len(values):
        return None
    return min(scores)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def format_report(report_: CalibrationReport, *, max_disagreements: int = 20) -> list[str]:
    """The report as terminal lines."""
    lines: list[str] = []
    for level, fig in report_.overall.items():
        labels = CLAIM_LABELS if level == "claim" else ANSWER_LABELS
        ci = fig.balanced_accuracy_ci95
        ci_text = f" (95% CI {ci[0]:.3f}-{ci[1]:.3f})" if ci else ""
        positive = "supported vs not" if level == "claim" else "faithful vs hallucinated"
        lines.append(f"{level} level: {fig.records} records, {fig.errors} errored; balanced "
                     f"accuracy ({positive}) {_pct(fig.balanced_accuracy)}{ci_text}; Cohen's "
                     f"kappa {_pct(fig.kappa)}")
        width = max(len(x) for x in labels) + 2
        lines.append("  human \\ judge".ljust(width + 2) + "".join(x.rjust(width) for x in labels))
        for h in labels:
            lines.append(f"  {h}".ljust(width + 2)
                         + "".join(str(fig.confusion[h][j]).rjust(width) for j in labels))
        for label in labels:
            lines.append(f"  {label}: precision {_pct(fig.precision[label])}, recall "
                         f"{_pct(fig.recall[label])}")
    for what, groups in (("source", report_.per_source), ("language", report_.per_language),
                         ("kind", report_.per_kind)):
        for key, levels in groups.items():
            for level, fig in levels.items():
                lines.append(f"  {what} {key} ({level}): {fig.records} records, balanced "
                             f"accuracy {_pct(fig.balanced_accuracy)}, kappa {_pct(fig.kappa)}")
    if report_.disagreements:
        lines.append(f"disagreements ({len(report_.disagreements)}; first "
                     f"{min(max_disagreements, len(report_.disagreements))}):")
        for o in report_.disagreements[:max_disagreements]:
            quote = f' quote "{o.quote}"' if o.quote else ""
            lines.append(f"  {o.id}: human {o.human_label}, judge {o.judge_label}:{quote} | "
                         f"{o.text[:160]}")
    for o in report_.errors:
        lines.append(f"  ERROR {o.id}: {o.error}")
    return lines
