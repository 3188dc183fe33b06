"""The session gate: does this run's faithfulness let the build pass?

The gate fails closed: an errored answer always fails it (a judge fault is never a pass), a
session threshold with answers recorded but none scored fails it too, and the figures must
rest on enough of the answers: with a session threshold set, at most half of the answers may
be unscored unless ``max_unscored_rate`` says otherwise, and none may be unverified (outside
its judge's coverage, ``judges.coverage``) unless ``max_unverified_rate`` says otherwise
(``unverified_failures``: reasons of kind ``unmeasurable``, apart from ``gate_failures``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..accounting import GATEWAY_BUDGET_SPENT
from ..ratelimit import RATE_LIMIT_WAIT_SPENT
from ..records import AnswerResult, ErrorKind, SessionSummary

#: A gate failure reason with its kind: ``(kind, text)``, kind one of
#: ``run.outcome.REASON_KINDS`` (``"failed"`` or ``"unmeasurable"`` here).
Reason = tuple[str, str]

#: ``max_unscored_rate`` when it is not given but another session threshold is: a mean over
#: fewer than half of the answers does not speak for the suite.
DEFAULT_MAX_UNSCORED_RATE = 0.5
#: ``max_unverified_rate`` when it is not given but another session threshold is: a gate that
#: states figures does not pass answers its judge was never checked on.
DEFAULT_MAX_UNVERIFIED_RATE = 0.0
#: The session thresholds: the ``GateConfig`` fields that bound the run's figures.
THRESHOLDS = ("min_mean", "max_unsupported_rate", "max_unscored_rate", "min_citation_precision",
              "max_misattributed", "max_unstable", "max_unstable_rate", "max_unverified_rate")


class GateConfig(BaseModel):
    """Session thresholds.

    Args:
        min_mean: lowest acceptable mean faithfulness over scored answers, in [0, 1].
        max_unsupported_rate: highest acceptable share of scored answers with at least one
            claim that is not supported, in [0, 1].
        max_unscored_rate: highest acceptable share of answers (of all recorded) that had no
            claim to score, in [0, 1]. When ``None`` and ``min_mean`` or
            ``max_unsupported_rate`` is set, it becomes ``DEFAULT_MAX_UNSCORED_RATE`` and
            ``max_unscored_rate_is_default`` is true; pass ``1.0`` for no bound.
        max_unscored_rate_is_default: set by the model (see above), shown in the reports.
        min_citation_precision: lowest acceptable citation precision (correctly cited /
            cited claims, ``citations`` module), in [0, 1]; a run in which no claim cites a
            passage cannot meet it.
        max_misattributed: most claims that may be misattributed (supported, but not by a
            passage they cite), a count.
        max_unstable: most claims that may be unstable (their votes disagree:
            ``--faithfulness-votes`` 2 or more, a panel), a count.
        max_unstable_rate: highest acceptable share of unstable claims among the claims
            judged by votes (``unstable_figures``), in [0, 1].
        max_unverified_rate: highest acceptable share of answers (of all recorded) that are
            ``unverified`` (outside their judge's coverage), in [0, 1]. When ``None`` and any
            other session threshold is set, it becomes ``DEFAULT_MAX_UNVERIFIED_RATE`` (0) and
            ``max_unverified_rate_is_default`` is true; pass ``1.0`` for no bound. Its reason
            is of kind ``unmeasurable`` (``unverified_failures``).
        max_unverified_rate_is_default: set by the model (see above).

    Either unstable bound with claims recorded but none judged by votes fails the gate: the
    bound cannot be measured (votes were not asked), which is never a pass.
    """

    model_config = ConfigDict(extra="forbid")

    min_mean: float | None = Field(default=None, ge=0.0, le=1.0)
    max_unsupported_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    max_unscored_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    max_unscored_rate_is_default: bool = False
    min_citation_precision: float | None = Field(default=None, ge=0.0, le=1.0)
    max_misattributed: int | None = Field(default=None, ge=0)
    max_unstable: int | None = Field(default=None, ge=0)
    max_unstable_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    max_unverified_rate: float | None = Field(default=None, ge=0.0, le=1.0)
    max_unverified_rate_is_default: bool = False

    @model_validator(mode="after")
    def _default_unscored_bound(self) -> GateConfig:
        if self.max_unverified_rate is None and any(
                getattr(self, name) is not None for name in THRESHOLDS
                if name != "max_unverified_rate"):
            self.max_unverified_rate = DEFAULT_MAX_UNVERIFIED_RATE
            self.max_unverified_rate_is_default = True
        if self.max_unscored_rate is None and (self.min_mean is not None
                                               or self.max_unsupported_rate is not None):
            self.max_unscored_rate = DEFAULT_MAX_UNSCORED_RATE
            self.max_unscored_rate_is_default = True
        return self

    @property
    def any_threshold(self) -> bool:
        """Whether any session threshold applies."""
        return any(getattr(self, name) is not None for name in THRESHOLDS)

    def applied(self) -> list[tuple[str, str]]:
        """The session thresholds as ``(name, value)`` for people, ``"none"`` where unset;
        an empty list when none applies. Example: ``[("min mean", "0.80"), ("max unsupported
        rate", "none"), ("max unscored rate", "0.50 (default with a session threshold)")]``."""
        if not self.any_threshold:
            return []

        def show(value: float | None) -> str:
            return "none" if value is None else f"{value:.2f}"

        unscored = show(self.max_unscored_rate)
        if self.max_unscored_rate_is_default:
            unscored += " (default with a session threshold)"
        applied = [("min mean", show(self.min_mean)),
                   ("max unsupported rate", show(self.max_unsupported_rate)),
                   ("max unscored rate", unscored)]
        if self.min_citation_precision is not None:
            applied.append(("min citation precision", show(self.min_citation_precision)))
        if self.max_misattributed is not None:
            applied.append(("max misattributed", str(self.max_misattributed)))
        if self.max_unstable is not None:
            applied.append(("max unstable", str(self.max_unstable)))
        if self.max_unstable_rate is not None:
            applied.append(("max unstable rate", show(self.max_unstable_rate)))
        if self.max_unverified_rate is not None and not self.max_unverified_rate_is_default:
            applied.append(("max unverified rate", show(self.max_unverified_rate)))
        return applied


def unscored_rate(summary: SessionSummary) -> float | None:
    """Unscored answers / answers recorded; ``None`` when none was recorded."""
    return summary.unscored / summary.answers if summary.answers else None


def unverified_rate(summary: SessionSummary) -> float | None:
    """Unverified answers / answers recorded; ``None`` when none was recorded."""
    return summary.unverified / summary.answers if summary.answers else None


def unverified_failures(summary: SessionSummary, config: GateConfig) -> list[str]:
    """Why the session misses its ``max_unverified_rate`` (the share of answers outside their
    judge's coverage, ``judges.coverage``): reasons of kind ``unmeasurable`` (the run cannot
    measure those answers), kept apart from ``gate_failures``; empty when it holds or no
    bound applies."""
    rate = unverified_rate(summary)
    bound = config.max_unverified_rate
    if bound is None or rate is None or rate <= bound:
        return []
    default = " (the default when a session threshold is set)" \
        if config.max_unverified_rate_is_default else ""
    return [f"share of unverified answers (outside their judge's coverage, not judged) "
            f"{rate:.3f} ({summary.unverified} of {summary.answers}) > max unverified rate "
            f"{bound:.3f}{default}: declare what the judge covers (--faithfulness-judge-covers) "
            "after a calibration run, or lift the bound with --faithfulness-max-unverified-rate"]


def unstable_figures(results: list[AnswerResult]) -> tuple[int, int]:
    """``(unstable, voted)``: the claims whose votes disagree (``ClaimResult.unstable``) and
    the claims judged by votes (with at least one vote recorded), over every answer."""
    claims = [c for r in results for c in r.claims]
    return (sum(1 for c in claims if c.unstable),
            sum(1 for c in claims if c.votes or c.unstable))


def unstable_failures(results: list[AnswerResult], config: GateConfig) -> list[str]:
    """Why the session misses its unstable-claim bounds (``max_unstable``, a count;
    ``max_unstable_rate``, unstable / claims judged by votes). With claims recorded but none
    judged by votes, either bound fails: it cannot be measured."""
    return [text for _, text in _unstable_reasons(results, config)]


def _unstable_reasons(results: list[AnswerResult], config: GateConfig) -> list[Reason]:
    bounds = [(name, value) for name, value in (("max unstable", config.max_unstable),
                                                 ("max unstable rate", config.max_unstable_rate))
              if value is not None]
    if not bounds:
        return []
    unstable, voted = unstable_figures(results)
    if not voted:
        if not any(r.claims for r in results):
            return []
        return [("unmeasurable", f"no claim was judged by votes (--faithfulness-votes 2 or "
                 f"more, or --faithfulness-panel), so the {' and '.join(n for n, _ in bounds)} "
                 f"cannot be measured")]
    reasons: list[Reason] = []
    if config.max_unstable is not None and unstable > config.max_unstable:
        reasons.append(("failed", f"{unstable} unstable claim(s) (their votes disagree) > max "
                        f"unstable {config.max_unstable}"))
    if config.max_unstable_rate is not None and unstable / voted > config.max_unstable_rate:
        reasons.append(("failed", f"share of unstable claims {unstable / voted:.3f} "
                        f"({unstable} of {voted} claims judged by votes) > max unstable rate "
                        f"{config.max_unstable_rate:.3f}"))
    return reasons


def _of_kind(result: AnswerResult, kind: ErrorKind, legacy_text: str) -> bool:
    """Whether ``result`` errored with ``kind``; a result without ``error_kind`` (recorded
    before it existed: a shard or saved run of an older version) is read by its old sign,
    ``legacy_text`` in its error or one of its claims' notes."""
    if result.status != "error":
        return False
    if result.error_kind is not None:
        return result.error_kind == kind
    return any(legacy_text in (text or "")
               for text in [result.error, *(c.note for c in result.claims)])


def gate_failures(summary: SessionSummary, results: list[AnswerResult],
                  config: GateConfig) -> list[str]:
    """Why the session fails the gate; an empty list means it passes (the texts of
    ``gate_reasons``).

    Args:
        summary: the session metrics (``SessionSummary.of(results)``).
        results: every recorded answer.
        config: the session thresholds.
    """
    return [text for _, text in gate_reasons(summary, results, config)]


def gate_reasons(summary: SessionSummary, results: list[AnswerResult],
                 config: GateConfig) -> list[Reason]:
    """Why the session fails the gate, each reason with its kind: ``[(kind, text), ...]``.

    ``"unmeasurable"``: the figures cannot be trusted to measure the run (an answer errored or
    went unjudged: the error cap is 0; no answer was scored, or more than
    ``max_unscored_rate`` were not; a bound whose figure has no data: no cited claim, no
    claim judged by votes). ``"failed"``: a figure missed its threshold. Args as
    ``gate_failures``; an empty list means the gate passes.
    """
    if not results:
        return []
    cannot: list[str] = []
    if summary.errored:
        cannot.append(f"{summary.errored} answer(s) errored: a judge failure is never counted "
                      "as a pass")
    unjudged = sum(1 for r in results if r.status == "error" and r.error_kind == "budget")
    if unjudged:
        cannot.append(f"the judge budget was spent before {unjudged} answer(s) were judged: the "
                      "gate does not pass on partial data")
    refused = sum(1 for r in results if _of_kind(r, "gateway_budget", GATEWAY_BUDGET_SPENT))
    if refused:
        cannot.append(f"{refused} answer(s) not judged: the judge's provider or gateway refused "
                      "calls because its budget or quota is spent; the gate does not pass on "
                      "partial data")
    waited = sum(1 for r in results if _of_kind(r, "rate_limit", RATE_LIMIT_WAIT_SPENT))
    if waited:
        cannot.append(f"{waited} answer(s) not judged: the judge's provider kept answering "
                      f"'limit reached' (HTTP 429) and {RATE_LIMIT_WAIT_SPENT} "
                      "(--faithfulness-max-rate-limit-wait); the gate does not pass on "
                      "partial data")
    rate = unscored_rate(summary)
    if config.max_unscored_rate is not None and rate is not None \
            and rate > config.max_unscored_rate:
        default = " (the default when a session threshold is set)" \
            if config.max_unscored_rate_is_default else ""
        cannot.append(f"share of answers with no claim to score {rate:.3f} "
                      f"({summary.unscored} of {summary.answers}) > max unscored rate "
                      f"{config.max_unscored_rate:.3f}{default}")
    reasons: list[Reason] = [("unmeasurable", text) for text in cannot]
    reasons += _citation_reasons(summary, config)
    reasons += _unstable_reasons(results, config)
    thresholds = config.min_mean is not None or config.max_unsupported_rate is not None
    if not summary.scored and (thresholds or not summary.errored):
        reasons.append(("unmeasurable", "no answer was scored, so the session thresholds "
                        "cannot be met" if thresholds else "no answer was scored, so the run "
                        "measured no faithfulness"))
        return reasons
    if config.min_mean is not None and summary.mean_faithfulness is not None \
            and summary.mean_faithfulness < config.min_mean:
        reasons.append(("failed", f"mean faithfulness {summary.mean_faithfulness:.3f} < min "
                        f"mean {config.min_mean:.3f}"))
    if config.max_unsupported_rate is not None and summary.unsupported_answer_rate is not None \
            and summary.unsupported_answer_rate > config.max_unsupported_rate:
        reasons.append(("failed", f"share of answers with an unsupported claim "
                        f"{summary.unsupported_answer_rate:.3f} > max "
                        f"{config.max_unsupported_rate:.3f}"))
    return reasons


def citation_failures(summary: SessionSummary, config: GateConfig) -> list[str]:
    """Why the session misses its citation thresholds (``min_citation_precision``,
    ``max_misattributed``); a minimum precision with no cited claim at all fails (it cannot
    be met on no data)."""
    return [text for _, text in _citation_reasons(summary, config)]


def _citation_reasons(summary: SessionSummary, config: GateConfig) -> list[Reason]:
    reasons: list[Reason] = []
    if config.min_citation_precision is not None:
        if summary.citation_precision is None:
            reasons.append(("unmeasurable", "no claim cites a passage, so the min citation "
                            f"precision {config.min_citation_precision:.3f} cannot be met"))
        elif summary.citation_precision < config.min_citation_precision:
            reasons.append(("failed", f"citation precision {summary.citation_precision:.3f} "
                            f"({summary.correctly_cited} of {summary.cited} cited claims "
                            f"correctly cited) < min citation precision "
                            f"{config.min_citation_precision:.3f}"))
    if config.max_misattributed is not None and summary.misattributed > config.max_misattributed:
        reasons.append(("failed", f"{summary.misattributed} misattributed claim(s) (supported, "
                        f"but not by a passage they cite) > max misattributed "
                        f"{config.max_misattributed}"))
    return reasons


def gate_hook_reasons(answer: object) -> list[str]:
    """The failure reasons in one ``pytest_faithfulness_gate`` hook's answer; fails closed.

    A hook answers ``None`` or ``[]`` (the gate holds), a non-empty reason string, or an
    iterable of non-empty reason strings. Anything else (a bool, a number, a dict, an empty
    or ``None`` item, an iterable that raises) is never read as a pass: it becomes a reason
    naming the bad value, e.g. ``"a pytest_faithfulness_gate hook returned True (a bool); it
    must return None, a reason string or a list of reason strings"``. Never raises.
    """
    def bad(what: str) -> list[str]:
        return [f"a pytest_faithfulness_gate hook returned {what}; it must return None, a "
                "non-empty reason string or a list of non-empty reason strings, so the gate "
                "fails closed"]

    def shown(value: object) -> str:
        try:
            text = repr(value)
        except Exception:  # a repr that raises still names the type
            text = "<unprintable>"
        return f"{text[:120]} (a {type(value).__name__})"

    if answer is None:
        return []
    if isinstance(answer, str):
        return [answer] if answer.strip() else bad(f"{shown(answer)}: an empty reason")
    if isinstance(answer, (bool, int, float, dict, bytes)) or not hasattr(answer, "__iter__"):
        return bad(shown(answer))
    reasons: list[str] = []
    try:
        items = list(answer)
    except Exception as exc:
        return bad(f"{shown(answer)} that raised {type(exc).__name__} when read: {exc}")
    for item in items:
        if isinstance(item, str) and item.strip():
            reasons.append(item)
        else:
            reasons += bad(f"a list holding {shown(item)}")
    return reasons
