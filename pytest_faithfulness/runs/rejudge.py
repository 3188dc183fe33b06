"""Re-judging a saved run with another judge, its decomposition kept (issue 25, item 1).

A baseline judged by another judge (another model, a model alias that moved, another prompt
version) mixes two changes into every comparison: the answers' and the judge's. Re-judging
the baseline with the current judge separates them: ``rejudge_run`` takes a saved run's full
answer records (``SavedRun.results``: answer, passages, claims with their spans) and verifies
every stored claim against its stored passages with the given judge, through the pipeline's
own path (``pipeline.evaluate_decomposed_many``: alignment, one verify call per claim, the
quote check of each verdict, fail-closed scoring: a judge error is an ``error`` answer, never
a pass). The claims are the baseline's: the new judge is not asked to decompose for scoring.

Before anything is reused or judged, the stored answers and passages are checked against the
inputs digests the same file recorded (``baseline_identity.check_stored_inputs``): an edited
or corrupt baseline is refused (``RunEditedError``), never re-judged against what was edited.

Where the baseline has no claims to keep (a decompose error, an answer outside the old
judge's coverage), the new judge decomposes the answer (``RejudgeInfo.decomposed_anew``).
Whether the new judge's decomposer would split the old answers differently is measured and
reported, never hidden: each old answer is decomposed once more
(``pipeline.decompose_claims_many``) and its claims compared with the kept ones
(``RejudgeInfo.split_differently``).

The result is a derived ``SavedRun`` named ``<name>@judge-<key>`` (``judge_key``: 12 hex
digits of the judge's fingerprint), saved in the storage folder as
``NNNN_<name>-judge-<key>.json`` (``saved.safe_name`` turns ``@`` into ``-``) with
``SavedRun.rejudged`` set; ``rejudged_baseline`` reuses one already saved for the same
baseline content (``run_digest``) and the same judge fingerprint, so the next pull request
does not pay again. A judge without a fingerprint is never reused from storage (nothing says
it is the same judge).

Nothing here imports pytest.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from ..errors import BaselineError
from ..records import AnswerResult, Decomposition
from .saved import JudgeInfo, LenientRecord, SavedRun, list_runs, load_run, save_run

#: What joins a run's name and the judge key in a derived run's name.
REJUDGE_MARK = "@judge-"
#: Answers whose new split is listed by test id, at most.
SPLIT_EXAMPLES = 10
#: Result fields copied from the baseline's record onto the re-judged one.
_KEPT_FIELDS = ("test_id", "min_score", "max_unsupported", "require_claims",
                "min_citation_precision", "conversation", "turn", "test_file", "test_line")


class RejudgeInfo(LenientRecord):
    """What a re-judged run was derived from (``SavedRun.rejudged`` as JSON; ``rejudge_info``
    reads it).

    Args:
        baseline_name: the name of the run it re-judges.
        baseline_path: that run's file, when known.
        baseline_digest: ``run_digest`` of that run (its content, signature left
            out): the derived run is reused only for the same content.
        judge_key: ``judge_key`` of the judge that re-judged it (12 hex digits).
        judge_fingerprint: that judge's ``fingerprint()`` (``None``: it has none, and the
            derived run is never reused).
        baseline_judges: the judges of the run it re-judges.
        answers: answers re-judged.
        kept: answers re-judged on the baseline's own claims (decomposition kept).
        decomposed_anew: answers the baseline had no claims for (a decompose error, an answer
            outside the judge's coverage), decomposed by the new judge.
        split_checked: answers whose claims the new judge's decomposer was asked for.
        split_differently: of those, the answers it splits into other claims.
        split_unchecked: answers it could not be asked for (its decompose raised).
        split_examples: test ids of some answers split differently (at most 10).
    """

    baseline_name: str
    baseline_path: str | None = None
    baseline_digest: str = ""
    judge_key: str = ""
    judge_fingerprint: dict[str, Any] | None = None
    baseline_judges: list[JudgeInfo] = Field(default_factory=list)
    answers: int = 0
    kept: int = 0
    decomposed_anew: int = 0
    split_checked: int = 0
    split_differently: int = 0
    split_unchecked: int = 0
    split_examples: list[str] = Field(default_factory=list)


def rejudge_info(run: SavedRun) -> RejudgeInfo | None:
    """What ``run`` was re-judged from, or ``None`` when it is not a re-judged run (or its
    record of it is malformed)."""
    if not isinstance(run.rejudged, dict):
        return None
    try:
        return RejudgeInfo.model_validate(run.rejudged)
    except ValueError:
        return None


def judge_info(judge: Any) -> JudgeInfo:
    """The ``JudgeInfo`` of a judge object: its description and JSON-safe fingerprint
    (``None`` when it has none or its ``fingerprint()`` raises)."""
    from ..judges.protocol import fingerprint_of, judge_description

    try:
        found = fingerprint_of(judge)
    except Exception:  # informative: a judge whose fingerprint raises is never reused
        found = None
    fingerprint = json.loads(json.dumps(found, default=str)) if isinstance(found, dict) \
        else None
    return JudgeInfo(description=judge_description(judge), fingerprint=fingerprint)


def judge_key(info: JudgeInfo) -> str:
    """12 hex digits of the SHA-256 of a judge's identity (``JudgeInfo.identity``: the
    fingerprint when known, else the description)."""
    return hashlib.sha256(info.identity().encode("utf-8")).hexdigest()[:12]


def run_digest(run: SavedRun) -> str:
    """The hex SHA-256 of a saved run's content (canonical JSON of its fields, ``signature``
    left out): two files of one run, signed or not, have the same digest."""
    data = run.model_dump(mode="json")
    data.pop("signature", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", errors="backslashreplace")).hexdigest()


def derived_name(baseline: SavedRun, key: str) -> str:
    """``<name>@judge-<key>``: the name of ``baseline`` re-judged by the judge of ``key``
    (a baseline that is itself re-judged keeps its own name's stem)."""
    info = rejudge_info(baseline)
    stem = info.baseline_name if info is not None else baseline.name
    return f"{stem}{REJUDGE_MARK}{key}"


def _claim_key(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(" .!?;:")


def _kept_decomposition(record: AnswerResult) -> Decomposition | None:
    """The baseline's decomposition of one answer: its claims with their spans (and what it
    set aside), or ``None`` when it has none to keep (a decompose error, an answer outside
    the old judge's coverage)."""
    if not record.claims and record.status in ("error", "unverified"):
        return None
    spans = [list(c.spans) for c in record.claims]
    return Decomposition(claims=[c.text for c in record.claims], dropped=list(record.dropped),
                         claim_spans=spans if all(spans) else [])


@dataclass
class SplitCount:
    """How the new judge's decomposer splits the old answers (see ``count_splits``)."""

    checked: int = 0
    differently: int = 0
    unchecked: int = 0
    examples: list[str] = field(default_factory=list)


def count_splits(records: list[AnswerResult], judge: Any, *, concurrency: int = 8
                 ) -> SplitCount:
    """Ask ``judge`` to decompose each old answer that has claims and count those whose
    claims (normalised text, as a multiset) differ from the kept ones; a decompose that
    raises is counted as ``unchecked``, never as the same split."""
    from ..pipeline import decompose_claims_many

    with_claims = [r for r in records if r.claims]
    found = decompose_claims_many([(r.answer, list(r.passages)) for r in with_claims], judge,
                                  concurrency=concurrency)
    count = SplitCount()
    for record, claims in zip(with_claims, found):
        if isinstance(claims, BaseException):  # counted, never hidden: the report says so
            count.unchecked += 1
            continue
        count.checked += 1
        if Counter(map(_claim_key, claims)) != Counter(_claim_key(c.text) for c in record.claims):
            count.differently += 1
            if len(count.examples) < SPLIT_EXAMPLES:
                count.examples.append(record.test_id or record.answer[:60])
    return count


def full_records(baseline: SavedRun, where: str = "") -> list[AnswerResult]:
    """The baseline's answers as ``AnswerResult`` records (``SavedRun.results``).

    Raises:
        BaselineError: the run holds no full records (saved before they were kept, or with
            answers but none of their passages), a record is malformed, or the records do not
            match the inputs digests the run recorded (edited or corrupt:
            ``baseline_identity.check_stored_inputs``).
    """
    from .baseline_identity import check_stored_inputs

    name = where or baseline.name
    if baseline.answers and not baseline.results:
        raise BaselineError(f"saved run {name} holds no full answer records (passages, claims): "
                            "it was saved by an older version and cannot be re-judged; save a "
                            "new baseline")
    check_stored_inputs(baseline, where)
    try:
        return [AnswerResult.model_validate(r) for r in baseline.results]
    except Exception as exc:
        raise BaselineError(f"saved run {name} cannot be re-judged: an answer record is "
                            f"malformed: {type(exc).__name__}: {str(exc)[:300]}") from None


def rejudge_run(baseline: SavedRun, judge: Any, *, baseline_path: str | Path | None = None,
                concurrency: int = 8, context_budget_chars: int | None = None,
                coverage: Any = None, check_splits: bool = True) -> SavedRun:
    """Re-judge every answer of ``baseline`` with ``judge``, keeping its claims (see the
    module docstring).

    Args:
        baseline: the saved run (with ``results``).
        judge: any judge (``judges.Judge``), as the pipeline takes it.
        baseline_path: its file, recorded in ``RejudgeInfo``.
        concurrency: most judge calls in flight at once.
        context_budget_chars / coverage: as for ``pipeline.evaluate``.
        check_splits: also ask the judge to decompose each old answer (``count_splits``;
            one decompose call per answer).

    Returns:
        the derived ``SavedRun`` (not saved): ``derived_name``, the baseline's git, gate and
        test exit status, this judge, ``rejudged`` filled.

    Raises:
        BaselineError: the baseline cannot be re-judged (``full_records``).
    """
    from ..pipeline import evaluate_decomposed_many
    from .statistics import with_statistics

    records = full_records(baseline, str(baseline_path or ""))
    kept = [_kept_decomposition(r) for r in records]
    results = evaluate_decomposed_many(
        [(r.answer, list(r.passages), d) for r, d in zip(records, kept)], judge,
        concurrency=concurrency, context_budget_chars=context_budget_chars, coverage=coverage)
    for old, new in zip(records, results):
        for name in _KEPT_FIELDS:
            setattr(new, name, getattr(old, name))
    splits = count_splits(records, judge, concurrency=concurrency) if check_splits \
        else SplitCount()
    info = judge_info(judge)
    from ..records import SessionSummary

    summary = with_statistics(SessionSummary.of(results), results)
    derived = SavedRun.of(results, summary, name=derived_name(baseline, judge_key(info)),
                          judges=[info], git=baseline.git, judge_names=[info.description],
                          test_exitstatus=baseline.test_exitstatus, gate=baseline.gate)
    derived.rejudged = RejudgeInfo(
        baseline_name=baseline.name, baseline_path=str(baseline_path) if baseline_path else None,
        baseline_digest=run_digest(baseline), judge_key=judge_key(info),
        judge_fingerprint=info.fingerprint, baseline_judges=list(baseline.judges),
        answers=len(records), kept=sum(d is not None for d in kept),
        decomposed_anew=sum(d is None for d in kept), split_checked=splits.checked,
        split_differently=splits.differently, split_unchecked=splits.unchecked,
        split_examples=splits.examples).model_dump(mode="json")
    return derived


def find_rejudged(storage: str | Path, baseline: SavedRun, info: JudgeInfo
                  ) -> tuple[Path, SavedRun] | None:
    """The newest run in ``storage`` that re-judges ``baseline`` (same content,
    ``run_digest``) with the judge of ``info`` (same fingerprint), or ``None``. A judge
    without a fingerprint never matches; unreadable files are passed over."""
    if info.fingerprint is None:
        return None
    digest, key = run_digest(baseline), judge_key(info)
    for path in reversed(list_runs(storage)):
        if key not in path.name:
            continue
        try:
            run = load_run(path)
        except BaselineError:
            continue
        found = rejudge_info(run)
        if (found is not None and found.baseline_digest == digest and found.judge_key == key
                and found.judge_fingerprint == info.fingerprint):
            return path, run
    return None


@dataclass
class Rejudged:
    """A baseline re-judged (``rejudged_baseline``).

    Attributes:
        run: the derived ``SavedRun``.
        path: where it is saved (``None``: not saved, see ``notes``).
        reused: it was found in storage, not judged now.
        notes: lines for people (where it came from, what was not kept, splits).
    """

    run: SavedRun
    path: Path | None
    reused: bool
    notes: list[str] = field(default_factory=list)


def _errored(run: SavedRun) -> int:
    return sum(a.status == "error" for a in run.answers)


def rejudged_baseline(baseline: SavedRun, judge: Any, storage: str | Path, *,
                      baseline_path: str | Path | None = None, save: bool = True,
                      judge_of: Callable[[Any], JudgeInfo] = judge_info,
                      **options: Any) -> Rejudged:
    """``baseline`` re-judged by ``judge``: the one saved in ``storage`` for the same baseline
    content and judge fingerprint (``find_rejudged``), else ``rejudge_run`` now, saved there
    (``save``) unless it has more errored answers than the baseline (a judge failure is
    never cached for the next run).

    Args:
        options: passed to ``rejudge_run`` (``concurrency``, ``context_budget_chars``,
            ``coverage``, ``check_splits``).

    Raises:
        BaselineError: the baseline cannot be re-judged (``full_records``), among others
            because its stored answers or passages do not match the inputs digests it
            recorded (edited or corrupt: ``baseline_identity.check_stored_inputs``, checked
            before a derived run is reused or judged). A run saved before inputs digests is
            re-judged, with a note that it could not be checked.
        OSError: the storage folder cannot be written.
    """
    from .baseline_identity import check_stored_inputs

    checked = check_stored_inputs(baseline, baseline_path or "")
    info = judge_of(judge)
    found = find_rejudged(storage, baseline, info)
    if found is not None:
        kept_path, kept = found
        return Rejudged(kept, kept_path, True, [*checked, f"re-judged baseline reused: "
                                                          f"{kept_path}"] + split_notes(kept))
    run = rejudge_run(baseline, judge, baseline_path=baseline_path, **options)
    notes: list[str] = list(checked)
    path: Path | None = None
    if _errored(run) > _errored(baseline):
        notes.append(f"WARNING: re-judging {baseline.name} errored on "
                     f"{_errored(run) - _errored(baseline)} answer(s) more than the baseline: "
                     "the re-judged run is not saved, so the next run judges it again")
    elif info.fingerprint is None:
        notes.append(f"note: the judge ({info.description}) has no fingerprint: the re-judged "
                     "baseline is not saved (nothing could tell the next run it is the same "
                     "judge)")
    elif save:
        path = save_run(run, storage)
        notes.append(f"re-judged baseline saved: {path}")
    return Rejudged(run, path, False, notes + split_notes(run))


def split_notes(run: SavedRun) -> list[str]:
    """Lines on what the decomposition kept hides: answers the new judge's decomposer splits
    differently, answers it could not be asked about, answers decomposed anew."""
    info = rejudge_info(run)
    if info is None:
        return []
    notes = []
    if info.split_differently:
        shown = ", ".join(info.split_examples)
        more = (f" and {info.split_differently - len(info.split_examples)} more"
                if info.split_differently > len(info.split_examples) else "")
        notes.append(f"DECOMPOSITION DIFFERS: the current judge splits {info.split_differently}"
                     f" of {info.split_checked} old answer(s) into other claims ({shown}{more}); "
                     "the baseline's claims were kept, so these answers' figures are not what "
                     "a fresh run of the old answers would give")
    if info.split_unchecked:
        notes.append(f"note: {info.split_unchecked} old answer(s) could not be decomposed by the "
                     "current judge, so whether it splits them differently is unknown")
    if info.decomposed_anew:
        notes.append(f"note: {info.decomposed_anew} baseline answer(s) had no claims to keep "
                     "(a judge error or an answer outside the old judge's coverage): the "
                     "current judge decomposed them")
    return notes
