"""Know what the baseline is: the inputs each answer was judged on, the suite, and where and
when the baseline was made.

* **Inputs digests.** ``inputs_digest(answer, passages)`` is the hex SHA-256 of an answer's
  text and its passages (each id, text and title, in order); a saved answer keeps it as
  ``SavedAnswer.inputs_digest``. Two answers with the same test id whose digests differ are
  **changed**: the comparison still pairs them (same test id), and lists them.
* **Suite digest.** ``suite_digest(answers)`` is the hex SHA-256 of the sorted list of
  ``[test_id, inputs_digest]`` of every answer of a run: it covers which answers the suite
  holds and what each was judged on, and nothing else (not the verdicts, the judge, the
  thresholds or the order answers were recorded in). ``None`` when an answer has no inputs
  digest (a run saved before they were recorded).
* **What the runs share.** ``describe_shared`` fills a ``runs.compare.Comparison`` with the
  answers both runs share (same test id; changed answers included), those changed, and the
  session figures recomputed over the shared answers alone (``SharedAnswers``), so a figure
  that moved because answers were added or removed can be told from one that moved because
  the shared answers got worse.
* **Age and ancestry.** ``check_baseline`` says how old the baseline is and whether its
  commit is an ancestor of this run's (``git merge-base --is-ancestor``); in a shallow clone,
  or when a commit is not in the clone, it says that ancestry cannot be known instead of
  guessing.

Older runs (saved before inputs digests) still compare: the inputs are then compared on the
answer text and ``passages_digest`` when the baseline has one, else on the answer text alone,
and such answers are listed as ``unknown`` (their passages may have changed unseen).

Nothing here imports pytest.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:  # pragma: no cover
    from .compare import Comparison
    from .saved import SavedAnswer, SavedRun


# --------------------------------------------------------------------------------------------
# Digests.

def inputs_digest(answer: str, passages: Iterable[Any]) -> str:
    """The hex SHA-256 (64 characters) of what an answer was judged on: its text and its
    passages (each ``id``, ``text`` and ``title``, in order, as ``records.Passage`` has them).

    Two answers with the same text judged against the same passages have the same digest;
    any change to the text, a passage, its id, title or order changes it.
    """
    data = [str(answer), [[p.id, p.text, p.title] for p in passages]]
    # surrogatepass: a lone surrogate (not valid Unicode, kept as given) still hashes
    text = json.dumps(data, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def suite_digest(answers: Iterable[SavedAnswer]) -> str | None:
    """The hex SHA-256 of a run's suite: the sorted list of ``[test_id, inputs_digest]`` of
    every saved answer (so neither recording order nor xdist changes it), as canonical JSON.

    It covers the test ids and each answer's inputs (answer text and passages), nothing else:
    not the verdicts, the judge or the thresholds. ``None`` when any answer lacks an inputs
    digest (saved before they were recorded): the suite cannot be named then.
    """
    pairs = []
    for answer in answers:
        if answer.inputs_digest is None:
            return None
        pairs.append([answer.test_id, answer.inputs_digest])
    data = json.dumps(sorted(pairs), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8", errors="surrogatepass")).hexdigest()


InputsState = Literal["same", "changed", "unknown"]


def compare_inputs(before: SavedAnswer, after: SavedAnswer) -> InputsState:
    """Whether two answers with the same test id were judged on the same inputs.

    ``"same"`` / ``"changed"``: both inputs digests known (else both ``passages_digest`` and
    the answer texts: a run saved before inputs digests); ``"changed"`` also when the answer
    texts differ, whatever is known of the passages; ``"unknown"``: the texts are equal but
    the passages of one side were not recorded.
    """
    if before.inputs_digest is not None and after.inputs_digest is not None:
        return "same" if before.inputs_digest == after.inputs_digest else "changed"
    if before.answer != after.answer:
        return "changed"
    if before.passages_digest is not None and after.passages_digest is not None:
        return "same" if before.passages_digest == after.passages_digest else "changed"
    return "unknown"


#: Test ids named in the error of ``check_stored_inputs``, at most.
SHOWN_EDITED = 10


def check_stored_inputs(run: SavedRun, where: str | Path = "") -> list[str]:
    """Check a saved run's full answer records (``SavedRun.results``: the answer and passages
    a re-judge verifies against) against the inputs digests the same file recorded when it was
    saved (``SavedAnswer.inputs_digest`` of each entry of ``answers``, computed from the same
    record, and ``suite_digest`` over them), before anything trusts them.

    Each record is paired with the answer-list entry of the same position (as
    ``SavedRun.of`` writes them) and must name the same test (``test_id``, or ``answer-N``);
    its digest is recomputed exactly as on saving (``inputs_digest`` of its answer text and
    its passages, each validated as ``records.Passage``).

    Args:
        run: the saved run.
        where: its file, for the messages (default: its name alone).

    Returns:
        notes for people (empty when every answer was checked, or the run holds no full
        records): how many answers carry no inputs digest (a run saved by an older version)
        and so could not be checked.

    Raises:
        RunEditedError: (a ``BaselineError``) the run is edited or corrupt: a record's answer
            or passages do not give the digest its answer-list entry recorded, a record names
            another test, the two lists differ in length, or ``suite_digest`` does not match
            the answer list.
            The message names the run, its file and the test ids (at most ``SHOWN_EDITED``).
    """
    from ..errors import RunEditedError
    from ..records import Passage

    name = f"{run.name} ({where})" if where else run.name
    if not run.results:
        return []  # nothing stored to trust (``rejudge.full_records`` says what that means)

    def refuse(what: str) -> RunEditedError:
        return RunEditedError(f"saved run {name} is edited or corrupt: {what}; it cannot be "
                             "trusted to re-judge: restore the file or save the baseline again")

    if len(run.answers) != len(run.results):
        raise refuse(f"its answer list holds {len(run.answers)} answer(s), its full answer "
                     f"records {len(run.results)}")
    edited: list[str] = []
    unchecked = 0
    for n, (saved, data) in enumerate(zip(run.answers, run.results), start=1):
        record = data if isinstance(data, dict) else {}
        test_id = record.get("test_id") or f"answer-{n}"
        if test_id != saved.test_id:
            edited.append(f"{saved.test_id} (its full record names {test_id!r})")
            continue
        if saved.inputs_digest is None:
            unchecked += 1
            continue
        try:
            passages = [Passage.model_validate(p) for p in record.get("passages") or []]
            answer = record.get("answer", "")
            digest = inputs_digest(answer, passages) if isinstance(answer, str) else None
        except Exception:  # a malformed passage cannot give the recorded digest
            digest = None
        if digest != saved.inputs_digest:
            edited.append(saved.test_id)
    if edited:
        shown = ", ".join(edited[:SHOWN_EDITED])
        more = f" and {len(edited) - SHOWN_EDITED} more" if len(edited) > SHOWN_EDITED else ""
        raise refuse(f"the stored answer or passages of {len(edited)} answer(s) do not match "
                     f"the inputs digest recorded when it was saved: {shown}{more}")
    if run.suite_digest is not None and suite_digest(run.answers) != run.suite_digest:
        raise refuse("its suite digest does not match its answers' inputs digests")
    if not unchecked:
        return []
    some = "its" if unchecked == len(run.answers) else f"{unchecked} of its {len(run.answers)}"
    return [f"note: saved run {name} recorded no inputs digest for {some} answer(s) (saved by "
            "an older version): their stored answers and passages could not be checked for "
            "edits before re-judging"]


# --------------------------------------------------------------------------------------------
# What the two runs share.

class SharedFigure(BaseModel):
    """One session figure over the shared answers, baseline and this run.

    Args:
        key / label / better: as ``runs.compare.FIGURES`` names them.
        before / after: the value over the shared answers in the baseline and in this run
            (``None``: not defined, e.g. no answer scored).
    """

    model_config = ConfigDict(extra="ignore")

    key: str
    label: str
    better: str = "neither"
    before: float | None = None
    after: float | None = None

    @property
    def delta(self) -> float | None:
        """``after - before`` when both are known."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


class SharedAnswers(BaseModel):
    """The answers both runs share, and the figures over them alone.

    Args:
        answers: N, the answers paired by test id (changed answers included).
        added / removed / changed: how many answers are only in this run, only in the
            baseline, and shared with other inputs (``compare_inputs``).
        unknown: test ids of shared answers whose inputs could not be fully compared (the
            answer text is the same, the passages of one run were not recorded).
        figures: the session figures over the N shared answers, baseline and this run
            (``SharedFigure``: mean faithfulness, the share of scored answers with a claim
            not supported, counts of answers and claims).
        baseline_suite / current_suite: the runs' ``suite_digest`` (``None``: unknown).
        statement: the sentence every output states,
            ``"figures over the N answers both runs share; A added, R removed, C changed"``.
    """

    model_config = ConfigDict(extra="ignore")

    answers: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0
    unknown: list[str] = Field(default_factory=list)
    figures: list[SharedFigure] = Field(default_factory=list)
    baseline_suite: str | None = None
    current_suite: str | None = None
    statement: str = ""

    @property
    def same_set(self) -> bool:
        """No answer added nor removed: the shared figures are the whole runs'."""
        return not (self.added or self.removed)

    def figure(self, key: str) -> SharedFigure | None:
        """The shared row of one figure, or ``None``."""
        return next((f for f in self.figures if f.key == key), None)


def _figures_of(answers: Sequence[SavedAnswer]) -> dict[str, float | None]:
    """The ``FIGURES`` of ``runs.compare`` over saved answers (as ``SessionSummary.of``
    computes them over results)."""
    scored = [a for a in answers if a.status == "scored"]
    scores = [a.score for a in scored if a.score is not None]
    flagged = sum(1 for a in scored if any(c.label != "supported" for c in a.claims))
    return {
        "mean_faithfulness": sum(scores) / len(scores) if scores else None,
        "unsupported_answer_rate": flagged / len(scored) if scored else None,
        "answers": len(answers), "scored": len(scored),
        "unscored": sum(1 for a in answers if a.status == "unscored"),
        "errored": sum(1 for a in answers if a.status == "error"),
        "claims": sum(len(a.claims) for a in answers),
        "supported": sum(a.supported for a in answers),
        "contradicted": sum(a.contradicted for a in answers),
        "unsupported": sum(a.unsupported for a in answers),
    }


def statement(shared: int, added: int, removed: int, changed: int) -> str:
    """``"figures over the N answers both runs share; A added, R removed, C changed"``."""
    return (f"figures over the {shared} answers both runs share; {added} added, "
            f"{removed} removed, {changed} changed")


def describe_shared(comparison: Comparison, baseline: SavedRun, current: SavedRun,
                    pairs: Sequence[tuple[SavedAnswer, SavedAnswer]]) -> SharedAnswers:
    """Fill ``comparison.changed`` and ``comparison.shared`` from the answers ``compare_runs``
    paired (``pairs``: ``(baseline answer, this run's answer)``, same test id) and its
    ``added`` / ``removed``; returns the ``SharedAnswers``.

    Changed answers (same test id, other inputs) stay paired: they are the same test, and a
    test whose answer got worse must count. They are listed so a reader knows how many of
    the N pairs compare different inputs.
    """
    from .compare import FIGURES

    changed, unknown = [], []
    for before, after in pairs:
        state = compare_inputs(before, after)
        if state == "changed":
            changed.append(after.test_id)
        elif state == "unknown":
            unknown.append(after.test_id)
    old = _figures_of([b for b, _ in pairs])
    new = _figures_of([a for _, a in pairs])
    rows = [SharedFigure(key=key, label=label, better=better, before=old[key], after=new[key])
            for key, label, better in FIGURES]
    shared = SharedAnswers(
        answers=len(pairs), added=len(comparison.added), removed=len(comparison.removed),
        changed=len(changed), unknown=unknown, figures=rows,
        baseline_suite=suite_digest(baseline.answers),
        current_suite=suite_digest(current.answers),
        statement=statement(len(pairs), len(comparison.added), len(comparison.removed),
                            len(changed)))
    comparison.changed = changed
    comparison.shared = shared
    return shared


def shared_row(comparison: Any, key: str) -> SharedFigure | None:
    """The row of figure ``key`` over the shared answers when answers were added or removed
    (the whole runs' figure is then another), else ``None``."""
    shared = getattr(comparison, "shared", None)
    if shared is None or shared.same_set:
        return None
    row: SharedFigure | None = shared.figure(key)
    return row


def identity_lines(comparison: Any) -> list[str]:
    """Plain-text lines every report shows under a comparison: the statement (``figures
    over the N answers both runs share; A added, R removed, C changed``); when answers were
    added or removed, the headline figures over the shared answers (the figures table is
    then over the whole runs); the changed answers; the inputs that could not be compared;
    and whether the suites are the same. Empty for a comparison without ``shared``."""
    from ..reports.figures import format_change, format_figure

    shared = getattr(comparison, "shared", None)
    if shared is None:
        return []
    lines = [shared.statement + " (shared: the same test id; changed: the same test id, "
             "other answer text or passages)"]
    if not shared.same_set:
        parts = []
        for key in ("mean_faithfulness", "unsupported_answer_rate", "unsupported",
                    "contradicted", "errored"):
            row = shared.figure(key)
            if row is None:
                continue
            parts.append(f"{row.label} {format_figure(row.before, key)} -> "
                         f"{format_figure(row.after, key)} ({format_change(row.delta, key)})")
        lines.append(f"over the {shared.answers} shared answers: " + "; ".join(parts)
                     + " (the figures table is over the whole runs, added and removed answers "
                     "included; a compare-fail bound is checked on both)")
    changed = list(getattr(comparison, "changed", []) or [])
    if changed:
        shown = ", ".join(changed[:10]) + (f" and {len(changed) - 10} more"
                                           if len(changed) > 10 else "")
        lines.append(f"changed (same test id, inputs differ): {shown}")
    if shared.unknown:
        shown = ", ".join(shared.unknown[:5]) + (f" and {len(shared.unknown) - 5} more"
                                                 if len(shared.unknown) > 5 else "")
        lines.append(f"inputs unknown for {len(shared.unknown)} shared answer(s) (same answer "
                     f"text; a run saved before passages were recorded): {shown}")
    if shared.baseline_suite is None or shared.current_suite is None:
        lines.append("suite: unknown (a run saved before suite digests)")
    elif shared.baseline_suite == shared.current_suite:
        lines.append(f"suite: the same as the baseline's (digest {shared.current_suite[:12]})")
    else:
        lines.append(f"suite: differs from the baseline's (baseline {shared.baseline_suite[:12]}, "
                     f"this run {shared.current_suite[:12]})")
    return lines


# --------------------------------------------------------------------------------------------
# Age and ancestry.

Ancestry = Literal["ancestor", "not-ancestor", "unknown"]


class BaselineCheck(BaseModel):
    """How old the baseline is and whether its commit is an ancestor of this run's.

    Args:
        max_age_days: the bound (``--faithfulness-max-baseline-age``), ``None``: age not
            checked.
        age_days: the baseline's age in days (``created`` to now), ``None``: unknown.
        ancestry: ``"ancestor"`` (the baseline's commit is this commit or one of its
            ancestors), ``"not-ancestor"`` (it is not: another branch, a rewritten history),
            ``"unknown"`` (``ancestry_detail`` says why: a shallow clone, a commit missing
            from the clone, no commit recorded, not a git checkout).
        ancestry_detail: the reason in words.
        baseline_commit / current_commit: the commits compared.
        problems: what is wrong, one sentence each (a warning, or a gate failure under
            ``--faithfulness-strict-baseline``); empty when all is well.
    """

    model_config = ConfigDict(extra="ignore")

    max_age_days: float | None = None
    age_days: float | None = None
    ancestry: Ancestry = "unknown"
    ancestry_detail: str = ""
    baseline_commit: str | None = None
    current_commit: str | None = None
    problems: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class _Git:
    returncode: int | None  # None: git could not be run
    stdout: str


def _git(args: list[str], cwd: Path) -> _Git:
    """Run git as ``runs.saved`` does (no shell, 10 s, never raises)."""
    try:
        out = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return _Git(None, "")
    return _Git(out.returncode, out.stdout.strip())


def ancestry(baseline_commit: str | None, current_commit: str | None,
             cwd: str | Path = ".") -> tuple[Ancestry, str]:
    """Whether ``baseline_commit`` is ``current_commit`` or one of its ancestors, in the git
    checkout at ``cwd``: ``(state, reason in words)``.

    ``"not-ancestor"`` only when git can say so: the clone is complete (``git rev-parse
    --is-shallow-repository`` is false), both commits are in it, and ``git merge-base
    --is-ancestor`` answers 1. In a shallow clone a "yes" is still certain (a shallow clone
    only cuts history), but a "no" may be the cut, so it is ``"unknown"``. Never raises.
    """
    if not baseline_commit:
        return "unknown", "the baseline records no commit"
    if not current_commit:
        return "unknown", "this run's commit is not known (not a git checkout?)"
    if baseline_commit == current_commit:
        return "ancestor", "the baseline was made at this commit"
    root = Path(cwd)
    inside = _git(["rev-parse", "--is-inside-work-tree"], root)
    if inside.returncode is None:
        return "unknown", "git could not be run"
    if inside.returncode != 0:
        return "unknown", f"{root} is not a git checkout"
    shallow = _git(["rev-parse", "--is-shallow-repository"], root).stdout == "true"
    fetch = ("fetch the history (actions/checkout: fetch-depth: 0; or git fetch --unshallow) "
             "to know")
    for name, commit in (("the baseline's", baseline_commit), ("this run's", current_commit)):
        found = _git(["cat-file", "-e", f"{commit}^{{commit}}"], root)
        if found.returncode != 0:
            where = "this shallow clone" if shallow else "this clone"
            return "unknown", (f"{name} commit {commit[:12]} is not in {where}, so ancestry "
                               f"cannot be known; {fetch}")
    answer = _git(["merge-base", "--is-ancestor", baseline_commit, current_commit], root)
    if answer.returncode == 0:
        return "ancestor", (f"the baseline's commit {baseline_commit[:12]} is an ancestor of "
                            f"{current_commit[:12]}")
    if answer.returncode == 1 and not shallow:
        return "not-ancestor", (f"the baseline's commit {baseline_commit[:12]} is not an "
                                f"ancestor of this run's commit {current_commit[:12]} (another "
                                "branch, or a rewritten history)")
    if answer.returncode == 1:
        return "unknown", (f"this is a shallow clone: the baseline's commit "
                           f"{baseline_commit[:12]} is not found among the ancestors it holds, "
                           f"so ancestry cannot be known; {fetch}")
    return "unknown", "git merge-base --is-ancestor failed, so ancestry cannot be known"


def age_days(created: str, now: datetime | None = None) -> float | None:
    """Days from ``created`` (ISO 8601; naive read as UTC) to ``now`` (default: the current
    time, UTC); ``None`` when ``created`` is empty or not a date."""
    if not created:
        return None
    try:
        when = datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return (now - when).total_seconds() / 86400.0


def check_baseline(baseline: SavedRun, current_commit: str | None, cwd: str | Path = ".", *,
                   max_age_days: float | None = None,
                   now: datetime | None = None) -> BaselineCheck:
    """The age and ancestry of ``baseline`` against this run (``current_commit``, the git
    checkout at ``cwd``), with its problems.

    Problems: older than ``max_age_days`` (when given); age unknown (when given: no date
    saved); its commit not an ancestor of this one; ancestry unknown (``ancestry``'s
    reason: a shallow clone, a commit missing, no commit recorded). Never raises.
    """
    check = BaselineCheck(max_age_days=max_age_days, baseline_commit=baseline.git.commit,
                          current_commit=current_commit,
                          age_days=age_days(baseline.created, now))
    check.ancestry, check.ancestry_detail = ancestry(baseline.git.commit, current_commit, cwd)
    name = baseline.name
    if max_age_days is not None:
        if check.age_days is None:
            check.problems.append(f"baseline {name} records no readable date it was saved "
                                  f"({baseline.created or 'none'!r}), so its age cannot be "
                                  f"checked against {max_age_days:g} days")
        elif check.age_days < -1.0 / 24:  # more than an hour ahead: not clock skew
            check.problems.append(f"baseline {name} says it was saved "
                                  f"{-check.age_days:.1f} days in the future "
                                  f"({baseline.created}): an edited or mis-dated file, so its "
                                  f"age cannot be checked against {max_age_days:g} days")
        elif check.age_days > max_age_days:
            check.problems.append(f"baseline {name} is {check.age_days:.1f} days old, older "
                                  f"than the {max_age_days:g} days allowed "
                                  "(--faithfulness-max-baseline-age): save a newer one")
    if check.ancestry == "not-ancestor":
        check.problems.append(f"baseline {name}: {check.ancestry_detail}: it may measure "
                              "changes that are not in this run's history")
    elif check.ancestry == "unknown":
        check.problems.append(f"baseline {name}: ancestry unknown: {check.ancestry_detail}")
    if baseline.git.dirty:  # its commit is not what was judged: uncommitted changes too
        check.problems.append(f"baseline {name} was saved from a working tree with uncommitted "
                              "changes: its commit does not say what it measured; save it "
                              "from a clean checkout")
    return check


def baseline_check_lines(check: BaselineCheck | None) -> list[str]:
    """One plain-text line on the baseline's age and ancestry, or none without a check."""
    if check is None:
        return []
    age = "age unknown" if check.age_days is None else f"{check.age_days:.1f} days old"
    bound = "" if check.max_age_days is None else f" (at most {check.max_age_days:g} allowed)"
    return [f"baseline: {age}{bound}; ancestry: {check.ancestry} ({check.ancestry_detail})"]


def report_lines(comparison: Any) -> list[str]:
    """What every report shows of the baseline's identity under a comparison, plain text:
    ``baseline_check_lines`` (when checked), then ``identity_lines``."""
    return (baseline_check_lines(getattr(comparison, "baseline_check", None))
            + identity_lines(comparison))
