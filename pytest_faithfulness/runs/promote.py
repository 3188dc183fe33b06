"""Promote failures to labels: draft labels from a run, accepted into the calibration set.

Every run whose answers have failing or unstable claims writes ``faithfulness-promote.jsonl``
(``PROMOTE_FILE``) beside its reports: one JSON line per draft label (``DraftLabel``), the
claim with everything a person needs to label it (the answer, the passages, the judge's
verdict, evidence and rationale, the test id) and why it is there (``"failing"``: the judge
did not call it supported; ``"unstable"``: its votes disagreed, or its verdict changed since
the compared run on the same inputs). A run with nothing to promote removes the file an
earlier run left there, so that the file beside a run's reports is always that run's.

``pytest-faithfulness promote FILE --accept ID... --label LABEL`` (``accept``) appends the
accepted drafts to the calibration labels file in the claim-level format
``--faithfulness-calibrate`` reads (``calibration.load_labelled``) with the label a person
gave: never the judge's verdict, which would make the calibration of that judge circular.

A draft's id (``draft_id``) is a hash of the test id, the claim and the passages, so a
re-run that fails the same claim on the same passages gives it the same id, and accepting it
twice adds nothing. Nothing here imports pytest.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import UsageError
from ..records import VERDICT_LABELS, AnswerResult, ClaimResult, Passage
from .saved import passages_digest as passages_digest  # one digest of passages

#: The draft labels' file name, beside the reports (``Settings.promote_path``).
PROMOTE_FILE = "faithfulness-promote.jsonl"
#: The labels a person may give (the claim-level labels of ``calibration``).
HUMAN_LABELS = VERDICT_LABELS
#: ``source_dataset`` of an accepted record: calibration reports it as a source of its own.
PROMOTED_SOURCE = "promoted"
#: Hex digits of a draft's id (48 bits).
ID_LENGTH = 12


class DraftLabel(BaseModel):
    """One draft label: a claim the run failed or found unstable, for a person to label.

    Attributes:
        id: ``draft_id(test_id, claim, passages)`` (12 hex digits; the same on a re-run).
        test_id: the test that judged the answer (``None``: judged outside a test).
        answer: the answer the claim was decomposed from.
        passages: the passages it was judged against (``Passage`` as JSON: id, text, title).
        claim: the claim as judged.
        judge_label: the run's verdict (``supported``, ``unsupported``, ``contradicted``), or
            ``None`` when no verdict came back.
        judge_verdict: the judge's own label when the run refused it (the quote check), else
            ``None``.
        evidence: the verdict's evidence, ``[{"passage_id", "quote"}]``.
        rationale: the judge's rationale, if any; note: why the verdict was changed, if it was.
        votes: the labels of the votes, in order (empty: judged once).
        why: ``"failing"`` and/or ``"unstable"``; why_detail: for an instability found by
            the comparison, what changed (``"supported -> unsupported since main"``).
        judge: the judge's description.
    """

    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1)
    test_id: str | None = None
    answer: str = ""
    passages: list[dict[str, Any]]
    claim: str = Field(min_length=1)
    judge_label: str | None = None
    judge_verdict: str | None = None
    evidence: list[dict[str, str]] = Field(default_factory=list)
    rationale: str | None = None
    note: str | None = None
    votes: list[str] = Field(default_factory=list)
    why: list[str] = Field(default_factory=list)
    why_detail: str | None = None
    judge: str | None = None


def draft_id(test_id: str | None, claim: str, passages: Sequence[Passage] | Sequence[dict[str, Any]]
             ) -> str:
    """A draft's stable id: the first ``ID_LENGTH`` hex digits of the SHA-256 of the test id,
    the claim and ``passages_digest(passages)``. Same inputs, same id, on any machine."""
    key = "\x00".join((test_id or "", claim, passages_digest(passages)))
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()[:ID_LENGTH]


def _draft(result: AnswerResult, claim: ClaimResult, why: str) -> DraftLabel:
    verdict = claim.verdict
    return DraftLabel(
        id=draft_id(result.test_id, claim.text, result.passages), test_id=result.test_id,
        answer=result.answer, passages=[p.model_dump(mode="json") for p in result.passages],
        claim=claim.text, judge_label=claim.label,
        judge_verdict=claim.judge_verdict.label if claim.judge_verdict is not None else None,
        evidence=[e.model_dump(mode="json") for e in verdict.evidence] if verdict else [],
        rationale=verdict.rationale if verdict else None, note=claim.note,
        votes=[v.label for v in claim.votes], why=[why], judge=result.judge)


def draft_labels(results: Iterable[AnswerResult], comparison: Any = None) -> list[DraftLabel]:
    """The draft labels of a run, in the results' order, one per id.

    A claim is ``failing`` when the run did not call it supported (unsupported,
    contradicted, refused by the quote check, no verdict in an answer that was judged); the
    claims of an answer the judge never judged (status ``error`` or ``unverified`` with no
    verdict: an outage, a budget, outside its coverage) are left out, since the gate names
    them already and their labels would say nothing about the judge's verdicts. A claim is
    ``unstable`` when its votes disagreed (``ClaimResult.unstable``) or, with ``comparison``
    (a ``runs.compare.Comparison``), when its verdict changed since the compared run on the
    same inputs (``Comparison.instability``). A claim both failing and unstable is one draft
    with both reasons.
    """
    results = list(results)
    changed: dict[tuple[str, str], str] = {}
    if comparison is not None:
        since = getattr(comparison, "baseline_name", "") or "the compared run"
        for change in getattr(comparison, "instability", None) or []:
            for moved in (*change.worsened, *change.recovered, *change.relabelled):
                if moved.after != "absent":
                    changed[(change.test_id, moved.text)] = \
                        f"{moved.before} -> {moved.after} since {since} on the same inputs"
    drafts: dict[str, DraftLabel] = {}
    for result in results:
        for claim in result.claims:
            reasons = []
            judged = claim.verdict is not None or result.status not in ("error", "unverified")
            if not claim.supported and judged:
                reasons.append("failing")
            detail = changed.get((result.test_id or "", claim.text))
            if claim.unstable or detail is not None:
                reasons.append("unstable")
            if not reasons:
                continue
            draft = _draft(result, claim, reasons[0])
            known = drafts.setdefault(draft.id, draft)
            for reason in reasons:
                if reason not in known.why:
                    known.why.append(reason)
            if detail is not None and known.why_detail is None:
                known.why_detail = detail
    return list(drafts.values())


# --------------------------------------------------------------------------------------------
# Written at the end of a run.

def review_command(path: str | Path, *, labels_set: bool) -> str:
    """The command that accepts drafts of ``path`` (``labels_set``: the ini key
    ``faithfulness_calibrate`` names the labels file, so ``--to`` may be left out)."""
    to = "" if labels_set else " --to LABELS.jsonl"
    return (f"pytest-faithfulness promote {shlex.quote(str(path))} --accept ID [ID ...] "
            f"--label supported|unsupported|contradicted{to}")


def write_drafts(drafts: Sequence[DraftLabel], path: str | Path) -> Path | None:
    """Write ``drafts`` to ``path`` as JSON Lines (atomically; parents created), or, with no
    draft, remove the file an earlier run left there. Returns the path written, else ``None``.

    Raises:
        OSError: the file cannot be written or removed.
    """
    from ..reports.files import write_text

    target = Path(path)
    if not drafts:
        target.unlink(missing_ok=True)
        return None
    text = "".join(json.dumps(d.model_dump(mode="json"), ensure_ascii=False) + "\n"
                   for d in drafts)
    written: Path = write_text(target, text)
    return written


@dataclass
class PromoteResult:
    """What ``promote_run`` did. Attributes: path (the file), drafts (how many written;
    0: none, the stale file removed), lines (terminal lines for the end of the run)."""

    path: Path
    drafts: int = 0
    lines: list[str] = field(default_factory=list)


def promote_run(results: Sequence[AnswerResult], comparison: Any, path: str | Path, *,
                labels_set: bool = False) -> PromoteResult:
    """Write the run's draft labels to ``path`` (``write_drafts``) and say so: how many were
    written and the ``review_command`` (``labels_set``: see there), or that a stale file was
    removed.

    Raises:
        OSError: the file cannot be written or removed.
    """
    target = Path(path)
    stale = target.is_file()
    drafts = draft_labels(results, comparison)
    write_drafts(drafts, target)
    done = PromoteResult(path=target, drafts=len(drafts))
    if drafts:
        failing = sum(1 for d in drafts if "failing" in d.why)
        unstable = sum(1 for d in drafts if "unstable" in d.why)
        done.lines = [f"faithfulness: {len(drafts)} draft label(s) written to {target} "
                      f"({failing} failing, {unstable} unstable claim(s)); review them and "
                      "add each to the calibration set with the label you give:",
                      f"  {review_command(target, labels_set=labels_set)}"]
    elif stale:
        done.lines = [f"faithfulness: no failing or unstable claim: removed the earlier draft "
                      f"labels {target}"]
    return done


# --------------------------------------------------------------------------------------------
# pytest-faithfulness promote

def read_drafts(path: str | Path) -> list[DraftLabel]:
    """Read a draft labels file (``PROMOTE_FILE``).

    Raises:
        UsageError: the file cannot be read, or a line is not a draft label (naming the line).
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the draft labels: {exc}") from None
    drafts: list[DraftLabel] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            draft = DraftLabel.model_validate(json.loads(line))
        except Exception as exc:
            raise UsageError(f"{path}:{number}: not a draft label: "
                             f"{str(exc).splitlines()[0]}") from None
        # an id is the digest of what it labels: an edited draft (its claim, passages or
        # test changed after the run wrote it) or two drafts under one id are refused
        if draft.id != draft_id(draft.test_id, draft.claim, draft.passages):
            raise UsageError(f"{path}:{number}: draft {draft.id} does not match its claim, "
                             "passages and test (edited after the run wrote it?): re-run the "
                             "tests to write the drafts again")
        if draft.id in seen:
            raise UsageError(f"{path}:{number}: draft {draft.id} is also on line "
                             f"{seen[draft.id]}")
        seen[draft.id] = number
        drafts.append(draft)
    return drafts


def labelled_record(draft: DraftLabel, label: str, *, source: str | Path | None = None
                    ) -> dict[str, Any]:
    """The calibration record of an accepted draft: ``{"id", "claim", "passages",
    "human_label", "source_dataset": "promoted"}`` and, as provenance,
    ``test_id``, ``answer``, ``judge_label`` (the run's verdict, kept apart from the human's
    label), ``judge``, ``why`` and ``promoted_from`` (the drafts file)."""
    record: dict[str, Any] = {"id": draft.id, "claim": draft.claim, "passages": draft.passages,
                              "human_label": label, "source_dataset": PROMOTED_SOURCE,
                              "test_id": draft.test_id, "answer": draft.answer,
                              "judge_label": draft.judge_label, "judge": draft.judge,
                              "why": list(draft.why)}
    if source is not None:
        record["promoted_from"] = str(source)
    return record


@dataclass
class AcceptResult:
    """What ``accept`` did. Attributes: to (the labels file), added (ids appended),
    already (ids the labels file held with the same label: nothing added)."""

    to: Path
    added: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The command's report, one line each."""
        lines = [f"added {len(self.added)} label(s) to {self.to}"
                 + (f": {', '.join(self.added)}" if self.added else "")]
        if self.already:
            lines.append(f"already there with the same label (nothing added): "
                         f"{', '.join(self.already)}")
        return lines


def _existing_labels(to: Path) -> tuple[str, dict[str, str]]:
    """The labels file's text and ``{id: human_label}`` (empty when it does not exist)."""
    from ..calibration import load_labelled

    if not to.exists():
        return "", {}
    try:
        text = to.read_text(encoding="utf-8")
        records = load_labelled(to)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{to}: the labels file cannot be read, nothing was added: "
                         f"{exc}") from None
    return text, {r.id: r.human_label for r in records}


def accept(drafts_path: str | Path, ids: Sequence[str], label: str, to: str | Path) \
        -> AcceptResult:
    """Append the drafts ``ids`` of ``drafts_path`` to the labels file ``to`` with the human
    ``label`` (``labelled_record``), in the order given; ``to`` is created when missing.

    Idempotent: an id ``to`` holds already with the same label adds nothing. All or nothing:
    the new file is written beside ``to``, read back with ``calibration.load_labelled``,
    and only then moved over it.

    Raises:
        UsageError: ``label`` is not a claim label; an id is not in ``drafts_path`` (all
            named); an id ``to`` holds with a different label (both labels named); the drafts
            or the labels file cannot be read; the result does not read back as labels.
            Nothing is written then.
        OSError: ``to`` cannot be written.
    """
    from ..calibration import load_labelled
    from ..reports.files import write_text

    if label not in HUMAN_LABELS:
        raise UsageError(f"--label {label!r} is not one of {', '.join(HUMAN_LABELS)}")
    if not ids:
        raise UsageError("--accept needs at least one draft id")
    drafts = {d.id: d for d in read_drafts(drafts_path)}
    unknown = [i for i in dict.fromkeys(ids) if i not in drafts]
    if unknown:
        raise UsageError(f"{drafts_path} has no draft label with id {', '.join(unknown)}; "
                         "nothing was added")
    target = Path(to)
    text, held = _existing_labels(target)
    conflicts = [f"{i} is labelled {held[i]!r} in {target}, not {label!r}"
                 for i in dict.fromkeys(ids) if i in held and held[i] != label]
    if conflicts:
        raise UsageError("; ".join(conflicts) + " (relabel it by editing that file); "
                         "nothing was added")
    done = AcceptResult(to=target)
    new_lines = []
    for i in dict.fromkeys(ids):
        if i in held:
            done.already.append(i)
            continue
        record = labelled_record(drafts[i], label, source=drafts_path)
        new_lines.append(json.dumps(record, ensure_ascii=False))
        done.added.append(i)
    if not new_lines:
        return done
    if text and not text.endswith("\n"):
        text += "\n"
    staged = target.with_name(target.name + ".promote.tmp")
    try:
        write_text(staged, text + "\n".join(new_lines) + "\n")
        try:
            load_labelled(staged)
        except ValueError as exc:
            raise UsageError(f"the labels would not read back, nothing was added: {exc}") \
                from None
        staged.replace(target)
    finally:
        staged.unlink(missing_ok=True)
    return done
