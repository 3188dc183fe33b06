"""The session gate: does this run's faithfulness let the build pass?

The gate fails closed: an errored answer always fails it (a judge fault is never a pass),
and a session threshold with answers recorded but none scored fails it too.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .records import AnswerResult, SessionSummary


class GateConfig(BaseModel):
    """Session thresholds.

    Args:
        min_mean: lowest acceptable mean faithfulness over scored answers, in [0, 1].
        max_unsupported_rate: highest acceptable share of scored answers with at least one
            claim that is not supported, in [0, 1].
    """

    model_config = ConfigDict(extra="forbid")

    min_mean: float | None = Field(default=None, ge=0.0, le=1.0)
    max_unsupported_rate: float | None = Field(default=None, ge=0.0, le=1.0)


def gate_failures(summary: SessionSummary, results: list[AnswerResult],
                  config: GateConfig) -> list[str]:
    """Why the session fails the gate; an empty list means it passes.

    Args:
        summary: the session metrics (``SessionSummary.of(results)``).
        results: every recorded answer.
        config: the session thresholds.
    """
    if not results:
        return []
    reasons: list[str] = []
    if summary.errored:
        reasons.append(f"{summary.errored} answer(s) errored: a judge failure is never counted "
                       "as a pass")
    unjudged = sum(1 for r in results if r.status == "error" and "judge budget of" in (r.error or ""))
    if unjudged:
        reasons.append(f"the judge budget was spent before {unjudged} answer(s) were judged: the "
                       "gate does not pass on partial data")
    thresholds = config.min_mean is not None or config.max_unsupported_rate is not None
    if thresholds and not summary.scored:
        reasons.append("no answer was scored, so the session thresholds cannot be met")
        return reasons
    if config.min_mean is not None and summary.mean_faithfulness is not None \
            and summary.mean_faithfulness < config.min_mean:
        reasons.append(f"mean faithfulness {summary.mean_faithfulness:.3f} < min mean "
                       f"{config.min_mean:.3f}")
    if config.max_unsupported_rate is not None and summary.unsupported_answer_rate is not None \
            and summary.unsupported_answer_rate > config.max_unsupported_rate:
        reasons.append(f"share of answers with an unsupported claim "
                       f"{summary.unsupported_answer_rate:.3f} > max "
                       f"{config.max_unsupported_rate:.3f}")
    return reasons
