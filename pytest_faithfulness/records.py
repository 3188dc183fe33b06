"""The records that cross a boundary: passages, verdicts, claims, answer results, session summaries.

Every record is a pydantic model, so it validates on the way in and serialises to JSON on
the way out (cache, xdist payloads, the JSON report). Of ours it imports only trace_records.

Vocabulary (used throughout the package):

* **passage**: one retrieved text the answer should rest on, with a stable ``id``.
* **claim**: one atomic, self-contained assertion taken from the answer.
* **verdict**: the judge's label for one claim against the passages:
  ``supported`` (a passage entails it), ``contradicted`` (a passage asserts the opposite) or
  ``unsupported`` (no passage speaks to it either way).
* **faithfulness**: supported claims / claims decomposed, per answer (RAGAS-style
  faithfulness, Es et al. 2023, "RAGAS: Automated Evaluation of Retrieval Augmented
  Generation", section 3; FActScore, Min et al. 2023, for the atomic-claim decomposition).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from .trace_records import TRACE_ERROR_KINDS, TraceRef

VerdictLabel = Literal["supported", "contradicted", "unsupported"]
AnswerStatus = Literal["scored", "unscored", "error", "unverified"]
CitationLabel = Literal["correct", "misattributed", "unsupported", "uncited"]
#: Why an answer is ``error`` (``AnswerResult.error_kind``):
#:
#: * ``judge``: a judge call failed (``JudgeError``: transport, HTTP status, content filter,
#:   missing API key), or the judge raised anything else, or returned something that is not a
#:   decomposition or a verdict, or no verdict for a claim;
#: * ``parse``: the judge's reply could not be read as the expected JSON after its retries;
#: * ``budget``: the run's judge budget (``--faithfulness-max-cost``) was spent before the
#:   answer was judged (``BudgetExceeded``);
#: * ``gateway_budget``: the judge's provider or gateway refused the call, its own budget or
#:   quota spent;
#: * ``rate_limit``: the provider kept answering "rate limit reached" past the allowed wait;
#: * ``cache_miss``: ``replay`` cache mode and no usable cached verdict (``CacheMiss``);
#: * ``input``: the inputs cannot be judged (a passage longer than the judge's context
#:   budget, or a malformed answer or passage list);
#: * ``trace_no_spans`` ``trace_no_retrieval`` ``trace_empty_retrieval`` ``trace_no_content``
#:   ``trace_truncated`` ``trace_no_answer`` ``trace_open_span`` ``trace_answer_mismatch``
#:   ``trace_context_unused`` ``trace_overlap`` ``trace_unreadable`` ``trace_sampled``: a turn
#:   read from spans that cannot be judged (cause, fix: ``trace_records.TRACE_ERROR_KINDS``).
ErrorKind = Literal["judge", "parse", "budget", "gateway_budget", "rate_limit", "cache_miss",
                    "input", "trace_no_spans", "trace_no_retrieval", "trace_empty_retrieval",
                    "trace_no_content", "trace_truncated", "trace_no_answer", "trace_open_span",
                    "trace_answer_mismatch", "trace_context_unused", "trace_overlap",
                    "trace_unreadable", "trace_sampled"]

#: A run-budget error's text before ``error_kind`` was recorded (read for results of then).
LEGACY_BUDGET_TEXT = "judge budget of"

ERROR_KINDS: tuple[str, ...] = ("judge", "parse", "budget", "gateway_budget", "rate_limit",
                                "cache_miss", "input", *TRACE_ERROR_KINDS)
VERDICT_LABELS: tuple[str, ...] = ("supported", "contradicted", "unsupported")


class Usage(BaseModel):
    """Judge usage; every field is a count except ``cost_usd`` (US dollars).

    Args:
        calls: judge calls that went out (HTTP requests, retries included; calls to a
            judge without an HTTP transport count once per decompose/verify).
        cache_hits: judge calls answered from the verdict cache.
        input_tokens / output_tokens: tokens billed, as the provider reports them.
        cached_input_tokens: input tokens served from the provider's prompt-prefix cache,
            where the provider reports them (a subset of ``input_tokens``).
        cost_usd: cost from litellm's bundled price map.
        uncosted_calls: calls whose cost the price map does not know (counted at 0 USD).
    """

    model_config = ConfigDict(extra="forbid")

    calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cost_usd: float = 0.0
    uncosted_calls: int = 0

    def add(self, other: Usage) -> None:
        """Add ``other`` into this accumulator, in place."""
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @classmethod
    def total(cls, usages: Iterable[Usage]) -> Usage:
        """The sum of several usages."""
        out = cls()
        for usage in usages:
            out.add(usage)
        return out


class Passage(BaseModel):
    """One retrieved passage.

    Args:
        id: a non-empty identifier, unique within one answer's passages (e.g. ``"p-2071"``).
        text: the passage text, as retrieved; never truncated by this package.
        title: the document's title, when the retriever gives one (``None`` otherwise). It is
            evidence like the text: the judge sees it with the text, and a verdict may quote it.

    Raises:
        pydantic.ValidationError: ``id``, ``text`` or a given ``title`` is not a string, or
            ``id`` is empty.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    text: str
    title: str | None = None

    def __init__(self, id: str | None = None, text: str | None = None, /, **data: Any) -> None:  # noqa: A002
        if id is not None:
            data["id"] = id
        if text is not None:
            data["text"] = text
        super().__init__(**data)

    @field_validator("id", "text", mode="before")
    @classmethod
    def _strict_str(cls, value: Any) -> Any:
        if not isinstance(value, str):
            raise TypeError(f"must be a string, got {type(value).__name__}")
        return value

    @field_validator("title", mode="before")
    @classmethod
    def _title_str(cls, value: Any) -> Any:
        if value is not None and not isinstance(value, str):
            raise TypeError(f"must be a string or None, got {type(value).__name__}")
        return value if value is None or value.strip() else None


#: At most this many evidence items carry one verdict (a claim resting on several sentences or
#: passages: a total of two figures, a fact and the name in its title).
MAX_EVIDENCE_ITEMS = 4


class Evidence(BaseModel):
    """One piece of a verdict's evidence: a verbatim span of one passage.

    Args:
        passage_id: the id of the passage the quote is taken from (its text or its title).
        quote: the span, as the passage writes it; typography (curly or straight quotes,
            dashes, non-breaking spaces, ligatures, whitespace) may differ, nothing else.

    An empty ``passage_id`` or ``quote`` is kept as given: the evidence check
    (``verification.check_verdict``) refuses it with a reason, so nothing a judge said is lost.

    Raises:
        pydantic.ValidationError: either field is not a string.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    passage_id: str
    quote: str


class Verdict(BaseModel):
    """A judge's verdict on one claim.

    Args:
        label: ``"supported" | "contradicted" | "unsupported"``.
        evidence: what carries the verdict: zero to ``MAX_EVIDENCE_ITEMS`` items
            ``{"passage_id", "quote"}``, from one passage or several, each quote a verbatim span
            of its passage's text or title; empty for ``unsupported``. The older form, one
            ``quote`` with ``passage_ids``, is accepted as one piece of evidence: one item per
            cited id, each with that quote (the evidence check keeps the items whose passage
            holds it); with no quote, one item per id with an empty quote, which the check
            refuses for a verdict that needs one.
        rationale: free text from the judge, kept for the report.
        confidence: the judge's probability, in [0, 1], that the verdict is right (supported
            or not), for judges that give one (the calibrated offline judge); ``None`` for
            judges that give none. Reports show it; nothing scores it.

    ``passage_ids`` (the cited ids, in order, once each) and ``quote`` (the first item's
    quote) are read-only views of ``evidence``, written beside it in every dump so that
    readers of the older form (JSON report consumers, saved runs) keep working; a dump read
    back keeps its ``evidence``.

    Raises:
        pydantic.ValidationError: the label is outside the vocabulary, ``confidence`` is
            outside [0, 1], or there are more than ``MAX_EVIDENCE_ITEMS`` evidence items.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: VerdictLabel
    evidence: list[Evidence] = Field(default_factory=list, max_length=MAX_EVIDENCE_ITEMS)
    rationale: str | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)

    def __init__(self, label: VerdictLabel | None = None, /, **data: Any) -> None:
        if label is not None:
            data["label"] = label
        super().__init__(**data)

    @model_validator(mode="before")
    @classmethod
    def _older_form(cls, data: Any) -> Any:
        """``passage_ids`` + ``quote`` (the form before evidence lists) as evidence items."""
        if not isinstance(data, dict) or ("passage_ids" not in data and "quote" not in data):
            return data
        data = dict(data)
        ids = data.pop("passage_ids", None) or []
        quote = data.pop("quote", None)
        if isinstance(ids, str):
            ids = [ids]
        if data.get("evidence"):
            return data  # a record written with both keeps its evidence list
        if not ids and quote is not None:
            ids = [""]  # a quote that names no passage: kept, and refused by the check
        data["evidence"] = [{"passage_id": pid, "quote": quote or ""} for pid in ids]
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passage_ids(self) -> list[str]:
        """The cited passage ids, in evidence order, each once."""
        return list(dict.fromkeys(item.passage_id for item in self.evidence if item.passage_id))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def quote(self) -> str | None:
        """The first evidence item's quote (``None`` without evidence or with an empty one)."""
        return self.evidence[0].quote or None if self.evidence else None


#: A character span ``(start, end)`` of the answer text: ``answer[start:end]`` is the source.
Span = tuple[int, int]


class DroppedText(BaseModel):
    """Text of the answer that was set aside and never scored, with the reason.

    Args:
        text: the text set aside (for the offline decomposer, exactly ``answer[start:end]`` of
            its spans; for other decomposers, as they returned it).
        reason: why it is not a claim, e.g. ``"greeting"``, ``"question"``, ``"code block"``,
            ``"duplicate of claim 2"``; never empty.
        spans: where it sits in the answer (character offsets), when known.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    reason: str = Field(min_length=1)
    spans: list[Span] = Field(default_factory=list)


def _dropped_items(value: Any) -> Any:
    """Plain strings (a user's decomposer, an LLM reply) become ``DroppedText`` whose reason
    says only that the decomposer set them aside."""
    if isinstance(value, (list, tuple)):
        return [{"text": v, "reason": "set aside by the decomposer"} if isinstance(v, str) else v
                for v in value]
    return value


class Decomposition(BaseModel):
    """What a decomposer made of one answer.

    Args:
        claims: the atomic claims, in answer order, each standing alone (pronouns resolved).
        dropped: the text set aside as not assertive (greetings, offers of help, restated
            questions, refusals, headings, ...), each with its reason; never scored, kept for
            the report. Plain strings are accepted (reason: "set aside by the decomposer").
        claim_spans: optional, parallel to ``claims``: the answer spans each claim came from.
            Empty when the decomposer does not know them (the pipeline then aligns claims to
            the answer itself).

    Raises:
        pydantic.ValidationError: ``claim_spans`` is given but not one entry per claim.
    """

    model_config = ConfigDict(extra="forbid")

    claims: list[str] = Field(default_factory=list)
    dropped: list[DroppedText] = Field(default_factory=list)
    claim_spans: list[list[Span]] = Field(default_factory=list)

    @field_validator("dropped", mode="before")
    @classmethod
    def _coerce_dropped(cls, value: Any) -> Any:
        return _dropped_items(value)

    @model_validator(mode="after")
    def _spans_per_claim(self) -> Decomposition:
        if self.claim_spans and len(self.claim_spans) != len(self.claims):
            raise ValueError(f"claim_spans has {len(self.claim_spans)} entries for "
                             f"{len(self.claims)} claims")
        return self


class Vote(BaseModel):
    """One verdict of several asked for the same claim (``--faithfulness-votes``, a panel).

    Args:
        label: the vote's label after the evidence check (a ``supported`` vote whose quote is
            not in the cited passage counts as ``unsupported``).
        judge: which judge cast it (its short name, e.g. the model string).
        judge_label: the judge's own label when the check changed it, else ``None``.
        note: why the check changed it, else ``None``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: VerdictLabel
    judge: str
    judge_label: VerdictLabel | None = None
    note: str | None = None


class ClaimResult(BaseModel):
    """One claim with its verdict.

    Args:
        text: the claim as decomposed.
        verdict: the accepted verdict, or ``None`` when no verdict came back (answer errored).
        judge_verdict: the judge's own verdict when it was not accepted as given (for example
            a ``supported`` verdict whose quote is not in the cited passage); otherwise ``None``.
        note: why the judge's verdict was changed, or any other per-claim remark.
        spans: the answer spans (character offsets) the claim came from; ``answer[s:e]`` is
            its source text. Empty when its source could not be found (``note`` says so).
        citation: how the answer's own citation for the claim holds up (``citations``
            module): ``"correct"`` (a cited passage supports it), ``"misattributed"``
            (supported, but not by a passage it cites), ``"unsupported"`` (cited, not
            supported), ``"uncited"``; ``None`` when not classed (no verdict, or an old record).
        cited_ids: the ids of the passages the answer cites for the claim.
        unknown_citations: references the answer gives for the claim that name no passage
            (``"7"`` with three passages, ``"p-9999"``); such a citation is never correct.
        votes: every verdict asked for the claim, in order, with the judge of each, when
            several were asked (``--faithfulness-votes``, ``--faithfulness-panel``); empty
            when the claim was judged once.
        unstable: the votes disagree (not all the same label).
        evidence_coverage: the share (0 to 1) of the claim's content words that the quotes of
            the judge's evidence state (``verification.evidence_coverage``: stems, numbers as
            digits); ``None`` when the verdict gives no quote or the claim was not verified.
            Reported only: a paraphrase covers less than a copy and is not refused for it.
    """

    model_config = ConfigDict(extra="forbid")

    text: str
    verdict: Verdict | None = None
    judge_verdict: Verdict | None = None
    note: str | None = None
    spans: list[Span] = Field(default_factory=list)
    citation: CitationLabel | None = None
    cited_ids: list[str] = Field(default_factory=list)
    unknown_citations: list[str] = Field(default_factory=list)
    votes: list[Vote] = Field(default_factory=list)
    unstable: bool = False
    evidence_coverage: float | None = Field(default=None, ge=0.0, le=1.0)

    @property
    def label(self) -> str | None:
        """The accepted verdict label, or ``None`` when there is no verdict."""
        return self.verdict.label if self.verdict is not None else None

    @property
    def supported(self) -> bool:
        """True only for an accepted ``supported`` verdict."""
        return self.label == "supported"

    def add_note(self, note: str) -> None:
        """Append ``note`` to ``note`` (``"; "`` between remarks)."""
        self.note = f"{self.note}; {note}" if self.note else note


class AnswerResult(BaseModel):
    """The faithfulness of one answer.

    ``score`` is supported claims / claims decomposed, in [0, 1]; the denominator is the number
    of claims decomposed, never the number of verdicts that came back. An answer with no
    claims is ``unscored`` and has ``score = None``; an answer whose judge failed is ``error``
    and has ``score = None`` too; so does an ``unverified`` answer, outside its judge's
    coverage (``judges.coverage``: its language, a code block, JSON or a tool's output as the
    answer, passages over what the judge sees whole), which is not judged at all.

    Args:
        answer: the answer text as given.
        passages: the passages it was verified against.
        status: ``"scored" | "unscored" | "error" | "unverified"``.
        claims: one ``ClaimResult`` per decomposed claim.
        dropped: text of the answer set aside and not scored, each with its reason.
        error: for ``status == "error"``, what went wrong, naming the fault.
        warnings: remarks that do not change the score (e.g. an empty passage list).
        judge: a short description of the judge that produced the verdicts.
        test_id: the pytest node id that recorded the result, when recorded under pytest.
        min_score: the per-answer threshold applied, if any.
        max_unsupported: the per-answer bound on non-supported claims, if any.
        require_claims: when true, an ``unscored`` answer (no claims) fails its thresholds
            (for suites where an empty or all-pleasantry answer is itself a defect).
        usage: judge calls, cache hits, tokens and cost spent on this answer.
        min_citation_precision: the per-answer bound on citation precision, if any.
        conversation: the conversation this answer is a turn of (``None``: a single answer).
        turn: its 1-based turn number in that conversation (assistant turns only).
        error_kind: for ``status == "error"``, the kind of fault (``ErrorKind``; ``None``
            otherwise, and in results saved before it was recorded).
        test_file / test_line: where the recording test is: its file, relative to the
            repository root (``$GITHUB_WORKSPACE`` when set, else the rootdir; ``/``
            separators), and its 1-based line (``None`` outside pytest, and in results saved
            before they were recorded: GitHub annotations then use the test id's file).
        unverified_reason: for ``status == "unverified"``, why the answer is outside its
            judge's coverage and how to declare it; ``None`` otherwise.
        golden: recorded by a golden test (``run.golden``): any claim not supported fails the gate.
        trace: a turn read from OpenTelemetry spans: its trace and span ids (``TraceRef``).
    """

    model_config = ConfigDict(extra="forbid")

    answer: str
    passages: list[Passage] = Field(default_factory=list)
    status: AnswerStatus
    claims: list[ClaimResult] = Field(default_factory=list)
    dropped: list[DroppedText] = Field(default_factory=list)
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)
    judge: str | None = None
    test_id: str | None = None
    min_score: float | None = None
    max_unsupported: int | None = None
    require_claims: bool = False
    usage: Usage = Field(default_factory=Usage)
    min_citation_precision: float | None = None
    conversation: str | None = None
    turn: int | None = None
    error_kind: ErrorKind | None = None
    test_file: str | None = None
    test_line: int | None = None
    unverified_reason: str | None = None
    golden: bool = False
    trace: TraceRef | None = None

    @field_validator("dropped", mode="before")
    @classmethod
    def _coerce_dropped(cls, value: Any) -> Any:
        return _dropped_items(value)

    @model_validator(mode="before")
    @classmethod
    def _older_form(cls, data: Any) -> Any:
        """A result recorded before ``error_kind`` existed (a shard or saved run of an older
        version): a run-budget error, whose text then named the ``judge budget of`` that was
        spent, reads as ``budget``, so that the gate counts it as it did; any other error's
        kind stays unknown (``None``)."""
        if isinstance(data, dict) and "error_kind" not in data \
                and data.get("status") == "error" \
                and LEGACY_BUDGET_TEXT in str(data.get("error") or ""):
            return {**data, "error_kind": "budget"}
        return data

    @property
    def supported(self) -> int:
        """Number of claims with an accepted ``supported`` verdict."""
        return sum(1 for c in self.claims if c.label == "supported")

    @property
    def contradicted(self) -> int:
        """Number of claims whose verdict is ``contradicted``."""
        return sum(1 for c in self.claims if c.label == "contradicted")

    @property
    def unsupported(self) -> int:
        """Number of claims whose verdict is ``unsupported``."""
        return sum(1 for c in self.claims if c.label == "unsupported")

    @property
    def not_supported(self) -> int:
        """Claims that are not supported (contradicted + unsupported + without verdict)."""
        return len(self.claims) - self.supported

    @property
    def cited(self) -> int:
        """Claims that cite a passage (correct + misattributed + cited but unsupported)."""
        return sum(1 for c in self.claims if c.citation in ("correct", "misattributed",
                                                            "unsupported"))

    @property
    def correctly_cited(self) -> int:
        """Claims a cited passage supports."""
        return sum(1 for c in self.claims if c.citation == "correct")

    @property
    def misattributed(self) -> int:
        """Claims supported, but not by a passage they cite."""
        return sum(1 for c in self.claims if c.citation == "misattributed")

    @property
    def citation_precision(self) -> float | None:
        """Correctly cited / cited claims, in [0, 1]; ``None`` when no claim cites anything."""
        return self.correctly_cited / self.cited if self.cited else None

    @property
    def score(self) -> float | None:
        """Faithfulness in [0, 1] for a scored answer; ``None`` when unscored or errored."""
        if self.status != "scored":
            return None
        return self.supported / len(self.claims)

    @property
    def threshold_failures(self) -> list[str]:
        """Why this answer misses its own thresholds (empty when it meets them).

        An errored answer always fails; an unscored one fails only when ``require_claims``;
        an unverified one fails whenever a bound applies (never a confident pass; with none,
        ``record_only``, the session's ``max_unverified_rate`` decides).
        """
        if self.status == "error":
            return [f"judge error: {self.error}"]
        if self.status == "unverified" and (self.require_claims or any(
                b is not None for b in (self.min_score, self.max_unsupported,
                                        self.min_citation_precision))):
            return [f"unverified: {self.unverified_reason}"]
        if self.status == "unscored" and self.require_claims:
            return ["no claims to score (require_claims is set)"]
        reasons = []
        score = self.score
        if score is not None and self.min_score is not None and score < self.min_score:
            reasons.append(f"faithfulness {score:.2f} < min_score {self.min_score:.2f}")
        if self.max_unsupported is not None and self.not_supported > self.max_unsupported:
            reasons.append(
                f"{self.not_supported} claim(s) not supported > max_unsupported "
                f"{self.max_unsupported}"
            )
        if self.min_citation_precision is not None and self.status == "scored":
            precision = self.citation_precision
            if precision is None:
                reasons.append("no claim cites a passage, so min_citation_precision "
                               f"{self.min_citation_precision:.2f} cannot be met")
            elif precision < self.min_citation_precision:
                reasons.append(f"citation precision {precision:.2f} ({self.correctly_cited} of "
                               f"{self.cited} cited claims) < min_citation_precision "
                               f"{self.min_citation_precision:.2f}")
        return reasons

    @property
    def passed(self) -> bool:
        """True when the answer is not errored and meets its own thresholds."""
        return not self.threshold_failures


class FigureIntervals(BaseModel):
    """95% confidence intervals of the headline figures, each ``[low, high]`` (``None``
    when no answer was scored).

    Args:
        mean: of ``mean_faithfulness``.
        unsupported_rate: of ``unsupported_answer_rate``.
        level: the confidence level (0.95).
        method: how they were computed, in words.
    """

    model_config = ConfigDict(extra="ignore")

    mean: tuple[float, float] | None = None
    unsupported_rate: tuple[float, float] | None = None
    level: float = 0.95
    method: str = ""


class DetectableDrops(BaseModel):
    """The smallest drop in each figure that a paired comparison of two runs of ``n`` scored
    answers tells from noise at two-sided ``alpha`` with ``power`` (fractions in [0, 1]).

    Args:
        mean: in ``mean_faithfulness``.
        unsupported_rate: in ``unsupported_answer_rate`` (a rise, for that figure).
        n: the scored answers it assumes. alpha / power: of the paired test.
    """

    model_config = ConfigDict(extra="ignore")

    mean: float | None = None
    unsupported_rate: float | None = None
    n: int = 0
    alpha: float = 0.05
    power: float = 0.8


class SessionSummary(BaseModel):
    """Session metrics over every recorded answer.

    Args:
        answers: answers recorded.
        scored / unscored / errored / unverified: answers by status (unverified: outside
            their judge's coverage, not judged, not in the mean).
        mean_faithfulness: mean of per-answer faithfulness over scored answers; ``None`` when
            no answer was scored.
        unsupported_answer_rate: share of scored answers with at least one claim that is not
            supported; ``None`` when no answer was scored.
        claims: claims over scored and errored answers.
        supported / contradicted / unsupported: claims by accepted verdict.
        judge_calls: judge calls that went out; cache_hits: calls served from the cache.
        usage: every answer's usage added up (tokens, cost in USD, calls, cache hits).
        cited: claims that cite a passage; correctly_cited: of those, the ones a cited
            passage supports; misattributed: supported, but not by a passage they cite.
        citation_precision: correctly_cited / cited; ``None`` when no claim cites anything.
        conversations: conversations recorded (each of their turns counts as an answer).
        conversation_unsupported_rate: share of conversations with a claim not supported in
            any turn (an errored turn counts); ``None`` when no conversation was recorded.
        voted_claims: claims with more than one vote (``--faithfulness-votes``, a panel).
        unstable_claims: claims whose votes disagree.
        unanimous_share: of the claims with votes recorded, the share whose votes all agree;
            ``None`` when no claim has votes.
        ci: the 95% bootstrap intervals of ``mean_faithfulness`` and
            ``unsupported_answer_rate`` (filled by the session, ``runs.statistics``).
        detectable_drop: the smallest drop in each figure that a paired comparison of two
            runs this size could tell from noise (filled by the session).
    """

    model_config = ConfigDict(extra="forbid")

    answers: int = 0
    scored: int = 0
    unscored: int = 0
    errored: int = 0
    unverified: int = 0
    mean_faithfulness: float | None = None
    unsupported_answer_rate: float | None = None
    claims: int = 0
    supported: int = 0
    contradicted: int = 0
    unsupported: int = 0
    judge_calls: int = 0
    cache_hits: int = 0
    usage: Usage = Field(default_factory=Usage)
    cited: int = 0
    correctly_cited: int = 0
    misattributed: int = 0
    citation_precision: float | None = None
    conversations: int = 0
    conversation_unsupported_rate: float | None = None
    voted_claims: int = 0
    unstable_claims: int = 0
    unanimous_share: float | None = None
    ci: FigureIntervals | None = None
    detectable_drop: DetectableDrops | None = None

    @classmethod
    def of(cls, results: Iterable[AnswerResult]) -> SessionSummary:
        """Aggregate answer results into session metrics (see the class docstring)."""
        results = list(results)
        usage = Usage.total(r.usage for r in results)
        scored = [r for r in results if r.status == "scored"]
        scores = [r.score for r in scored if r.score is not None]
        with_votes = [c for r in results for c in r.claims if c.votes]
        return cls(
            answers=len(results),
            scored=len(scored),
            unscored=sum(1 for r in results if r.status == "unscored"),
            errored=sum(1 for r in results if r.status == "error"),
            unverified=sum(1 for r in results if r.status == "unverified"),
            mean_faithfulness=(sum(scores) / len(scores)) if scores else None,
            unsupported_answer_rate=(
                sum(1 for r in scored if r.not_supported > 0) / len(scored) if scored else None
            ),
            claims=sum(len(r.claims) for r in results),
            supported=sum(r.supported for r in results),
            contradicted=sum(r.contradicted for r in results),
            unsupported=sum(r.unsupported for r in results),
            judge_calls=usage.calls,
            cache_hits=usage.cache_hits,
            usage=usage,
            **_citation_figures(results),
            **_conversation_figures(results),
            voted_claims=sum(1 for c in with_votes if len(c.votes) > 1),
            unstable_claims=sum(1 for r in results for c in r.claims if c.unstable),
            unanimous_share=(sum(1 for c in with_votes if not c.unstable) / len(with_votes)
                             if with_votes else None),
        )


def _citation_figures(results: list[AnswerResult]) -> dict[str, Any]:
    cited = sum(r.cited for r in results)
    correct = sum(r.correctly_cited for r in results)
    return {"cited": cited, "correctly_cited": correct,
            "misattributed": sum(r.misattributed for r in results),
            "citation_precision": correct / cited if cited else None}


def _conversation_figures(results: list[AnswerResult]) -> dict[str, Any]:
    flagged: dict[str, bool] = {}
    for r in results:
        if r.conversation is not None:
            bad = r.status == "error" or r.not_supported > 0
            flagged[r.conversation] = flagged.get(r.conversation, False) or bad
    return {"conversations": len(flagged),
            "conversation_unsupported_rate": (sum(flagged.values()) / len(flagged)
                                              if flagged else None)}
