"""Merging the saved runs of a sharded suite into the session of one run.

A suite split across CI jobs (a matrix with pytest-split or test paths per job, pytest-xdist
inside each) saves one run per shard (``--faithfulness-save``). ``merge_shards`` checks that
the shards belong together and rebuilds one ``run.results.ResultStore`` holding every
answer, which the caller finishes with the same gate, comparison and reports as pytest
(``run.finish.finish_run``; ``pytest-faithfulness merge``, see ``cli``).

Refused (``MergeError``, a usage error): a file that is not a saved run or was saved before
runs kept their full answer records; a malformed file (not JSON, not an object, fields of the
wrong type, nested too deeply: the message names the file and what is wrong, never a
traceback); a signed run whose signature does not match under ``FAITHFULNESS_CACHE_KEY``; with
``require_signed``, a run that is not signed (or cannot be checked: no key); a file whose parts
disagree (``cross_check``: the answer list, the full answer records and the figures); an
incomplete (interrupted) shard; shards of different judges, prompt versions or commits (unless
``allow_mixed``); the same test id in two shards; with ``expect``, a number of shards other
than expected.

The session thresholds: the strictest of the ini file's and those each shard ran with
(``merged_gate``; ``merge``'s flags override), so a threshold set only in ``addopts`` or on one
job's command line is not dropped.

Not believed without a check: a saved run is a file that anything may have written or edited.
A signed run (``runs.saved``) is checked against its signature; an unsigned one is merged with
a warning naming it. Either way, every ``supported`` verdict is held to the quote check again
(``recheck_supported``, the pipeline's ``verification.check_verdict``): one whose evidence does
not check out is counted as ``unsupported`` and fails the merged gate, naming the shard, the
answer and the claim; every scored or unscored answer's claims must still cover the answer
(``recheck_coverage``, the pipeline's ``alignment.align``): a sentence in no claim and not set
aside for a reason fails the merged gate. The gate failures a shard decided that merge cannot
recompute (conftest ``pytest_faithfulness_gate`` hooks, the calibration gate: the run's
``local_failures``) fail the merged gate, naming the shard (``carried_failures``).

Order: the answers are put in the natural order of their test ids (digits compared as
numbers: ``test_a[2]`` before ``test_a[10]``), whatever the order of the shards and of their
xdist workers, so that a merge is reproducible. One run of the whole suite lists its answers
in collection order; the two agree when the suite's collection order is that order.

Nothing here imports pytest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import MergeError as MergeError  # re-exported: its home before errors.py
from .saved import BaselineError, GitInfo, SavedRun, load_run

__all__ = ["MergeError", "Shard", "load_shards", "check_shards", "merge_shards",
           "natural_key", "merged_git", "merged_gate", "merged_test_exitstatus",
           "merged_incomplete",
           "recheck_supported", "recheck_coverage", "cross_check", "check_signatures",
           "carried_failures", "merged_canaries", "CHECKED_FIGURES"]


class Shard:
    """One shard's saved run and the file it was read from.

    Args:
        path: the saved run file.
        run: its ``SavedRun``.
    """

    def __init__(self, path: Path, run: SavedRun, results: list[Any] | None = None) -> None:
        self.path = path
        self.run = run
        #: ``run.results`` validated as ``records.AnswerResult`` (``load_shards``)
        self.results: list[Any] = list(results or [])

    def __repr__(self) -> str:
        return f"Shard({str(self.path)!r}, answers={len(self.run.answers)})"


def natural_key(test_id: str | None) -> tuple[Any, ...]:
    """The sort key of a test id with its digit runs compared as numbers:
    ``natural_key("t.py::a[2]") < natural_key("t.py::a[10]")``; ``None`` sorts first."""
    parts = re.split(r"(\d+)", test_id or "")
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def load_shards(paths: Iterable[str | Path]) -> list[Shard]:
    """Read each saved run file (a folder: every ``NNNN_*.json`` in it), check its signature
    when signed (``saved.load_run``) and hold its parts against each other (``cross_check``).

    Raises:
        MergeError: no file given, a path that does not exist, a file that is not a saved
            run or is malformed, a signature that does not match, one saved without its
            full answer records (saved by a version before ``merge`` existed, or built with
            ``full=False``), one whose parts disagree; the message names the file.
    """
    from .saved import list_runs

    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = list_runs(path)
            if not found:
                raise MergeError(f"{path} is a folder with no saved run (NNNN_name.json) in it")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise MergeError(f"{path}: no such saved run file")
    if not files:
        raise MergeError("give at least one saved run to merge")
    shards = []
    for path in files:
        try:
            shards.append(_load_shard(path))
        except MergeError:
            raise
        except BaselineError as exc:
            raise MergeError(str(exc)) from None
        except RecursionError:
            raise MergeError(f"{path} is malformed: nested too deeply to be a saved run") \
                from None
        except Exception as exc:  # a malformed file is a usage error, never a traceback
            raise MergeError(f"{path} is malformed: {type(exc).__name__}: {exc}") from None
    return shards


def _load_shard(path: Path) -> Shard:
    from ..records import AnswerResult

    run = load_run(path)
    if run.answers and len(run.results) != len(run.answers):
        raise MergeError(f"{path} has no full answer records (saved by an older "
                         "pytest-faithfulness): save the shard again with this version")
    if [r.get("test_id") if isinstance(r, dict) else None for r in run.results] != \
            [a.test_id for a in run.answers]:
        raise MergeError(f"{path}: its answer list and its full answer records name "
                         "different tests (was the file edited?)")
    from pydantic import ValidationError

    from ..run.gate import THRESHOLDS
    from .saved import validation_problems

    for name in THRESHOLDS:
        value = run.gate.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise MergeError(f"{path} is malformed: gate.{name} is {value!r}, not a number")
    results = []
    for index, data in enumerate(run.results):
        try:
            results.append(AnswerResult.model_validate(data))
        except ValidationError as exc:
            raise MergeError(f"{path}: answer record {index + 1} is malformed: "
                             f"{validation_problems(exc)}") from None
    shard = Shard(path, run, results)
    problems = cross_check(shard)
    if problems:
        shown = "\n  ".join(problems[:10])
        more = f"\n  and {len(problems) - 10} more" if len(problems) > 10 else ""
        raise MergeError(f"{path}: its parts disagree (was the file edited?):\n  {shown}{more}")
    return shard


#: The figures ``cross_check`` recomputes from the answer records (``SessionSummary.of``).
CHECKED_FIGURES = ("answers", "scored", "unscored", "errored", "mean_faithfulness",
                   "unsupported_answer_rate", "claims", "supported", "contradicted",
                   "unsupported", "cited", "correctly_cited", "misattributed",
                   "citation_precision", "conversations", "conversation_unsupported_rate",
                   "voted_claims", "unstable_claims", "unanimous_share")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        import math

        return a is not None and b is not None and math.isclose(a, b, rel_tol=1e-9,
                                                                  abs_tol=1e-12)
    return a == b


def cross_check(shard: Shard) -> list[str]:
    """What disagrees inside one shard's saved run (empty: nothing): each answer record's
    status against its claims (``scored``: at least one claim, each with a verdict;
    ``unscored``: no claim and no error; ``error``: an error named; ``unverified``: no claim,
    its reason named), each entry of the answer
    list against the one its full record gives (``saved.SavedAnswer.of``: status, score,
    claims, verdicts, quotes, counts, answer text, passages digest), the saved figures against
    those the records give (``CHECKED_FIGURES``), and the indices of the silent and expected
    misses. Fields a file saved by an older version lacks are not compared."""
    from ..records import SessionSummary
    from .saved import SavedAnswer

    run, problems = shard.run, []
    for n, result in enumerate(shard.results, start=1):
        name = result.test_id or f"answer record {n}"
        if result.status == "scored" and (not result.claims
                                          or any(c.verdict is None for c in result.claims)):
            problems.append(f"{name} is 'scored' without a verdict for every claim")
        elif result.status == "unscored" and (result.claims or result.error):
            problems.append(f"{name} is 'unscored' but has {len(result.claims)} claim(s)"
                            f"{' and an error' if result.error else ''} (only an answer "
                            "with no claim is unscored)")
        elif result.status == "error" and not result.error:
            problems.append(f"{name} is 'error' without naming the error")
        elif result.status == "unverified" and (result.claims or not result.unverified_reason):
            problems.append(f"{name} is 'unverified' but has {len(result.claims)} claim(s) or "
                            "no reason (only an answer outside its judge's coverage, not "
                            "judged, is unverified)")
    for n, (saved, result) in enumerate(zip(run.answers, shard.results), start=1):
        expected = SavedAnswer.of(result, n).model_dump(mode="json")
        given = saved.model_dump(mode="json")
        for field in sorted(saved.model_fields_set):
            if field == "passages_digest" and given[field] is None:
                continue
            if not _same(given[field], expected[field]) and field != "claims":
                problems.append(f"{saved.test_id}: the answer list says {field} "
                                f"{given[field]!r}, its full record gives {expected[field]!r}")
            elif field == "claims" and given[field] != expected[field]:
                problems.append(f"{saved.test_id}: the answer list's claims and verdicts "
                                "differ from its full record's")
    figures = SessionSummary.of(shard.results).model_dump(mode="json")
    saved_figures = run.figures.model_dump(mode="json")
    for field in CHECKED_FIGURES:
        if field in run.figures.model_fields_set and not _same(saved_figures[field],
                                                              figures[field]):
            problems.append(f"the figures say {field} {saved_figures[field]!r}, the answer "
                            f"records give {figures[field]!r}")
    for what, indices in (("silent_misses", run.silent_misses),
                          ("expected_misses", run.expected_misses)):
        wrong = [i for i in indices if not 0 <= i < len(shard.results)]
        if wrong:
            problems.append(f"{what} names answer record(s) {wrong} of "
                            f"{len(shard.results)}")
    return problems


def check_signatures(shards: Sequence[Shard], *, require_signed: bool = False) -> list[str]:
    """Notes for people on the shards that are not vouched for by a signature (``saved``
    checked every signed one on loading, against ``FAITHFULNESS_CACHE_KEY``): a ``WARNING``
    naming the unsigned runs and those signed but unchecked (no key).

    Raises:
        MergeError: with ``require_signed``, any run that is unsigned or unchecked.
    """
    unsigned = [str(s.path) for s in shards if s.run.trust == "unsigned"]
    unchecked = [str(s.path) for s in shards if s.run.trust == "unchecked"]
    problems = []
    if unsigned:
        problems.append(f"{len(unsigned)} saved run(s) are not signed ({', '.join(unsigned)}): "
                        "saved without FAITHFULNESS_CACHE_KEY, so an edit to them cannot be "
                        "told from the run")
    if unchecked:
        problems.append(f"{len(unchecked)} saved run(s) are signed but cannot be checked "
                        f"({', '.join(unchecked)}): FAITHFULNESS_CACHE_KEY is not set")
    if problems and require_signed:
        raise MergeError("cannot merge: " + "; ".join(problems)
                         + " (--faithfulness-require-signed-runs)")
    return [f"WARNING: {p}; merged after the checks an unsigned run gets (the answer list, "
            "records and figures agree, every supported quote and the answers' coverage)"
            for p in problems]


def carried_failures(shards: Sequence[Shard]) -> list[tuple[str, str]]:
    """The gate failures the shards decided that merge cannot recompute, each naming its
    shard, as ``(kind, reason)`` (the kind the shard saved, ``"failed"`` when it saved none):
    a run's ``local_failures`` (conftest ``pytest_faithfulness_gate`` hooks, the calibration
    gate, a gate step that raised). A run saved before ``local_failures`` existed gives every
    saved gate failure (which of them merge recomputes is not known)."""
    out = []
    for shard in shards:
        run = shard.run
        if "local_failures" in run.model_fields_set:
            kept, why = run.local_failures, "a gate merge cannot recompute"
        else:
            kept = run.gate_failures
            why = ("saved by a version that did not tell the gates merge recomputes apart; save "
                   "the shard again with this version")
        out += [(run.failure_kinds.get(reason, "failed"),
                 f"{shard.path}: the shard's gate failed ({why}): {reason}") for reason in kept]
    return out


def merged_incomplete(shards: Sequence[Shard], expect: int | None = None) -> str | None:
    """Why the merged run did not see every answer, else ``None``: a shard missing (fewer
    than ``expect``), or a shard that was itself incomplete (interrupted, a worker lost,
    stopped by ``-x``). Such a merge is finished as an ``incomplete`` run (exit 13, with its
    decision file), never refused as a usage error: the shards belong together, the run
    just did not see all of them."""
    reasons = []
    if expect is not None and len(shards) < expect:
        reasons.append(f"expected {expect} shard(s), got {len(shards)}: a shard is missing, "
                       "and a merge of part of the suite is not the suite's gate")
    for shard in shards:
        if not shard.run.complete:
            why = shard.run.incomplete_reason or "the run did not judge every answer"
            reasons.append(f"shard {shard.path} is incomplete ({why}): rerun the shard")
    return "; ".join(reasons) or None


def merged_canaries(shards: Sequence[Shard]) -> Any:
    """The shards' judge canaries added up (``canary_report.CanaryReport.merged``: counts
    summed, figures and intervals recomputed on the sum), with a note naming the shards that
    carry none (saved with canaries off, or before canaries existed); ``None`` when no shard
    carries any."""
    from ..canary_report import CanaryReport

    reports = [s.run.canaries for s in shards if s.run.canaries is not None]
    if not reports:
        return None
    merged = CanaryReport.merged(reports)
    without = [str(s.path) for s in shards if s.run.canaries is None]
    if without:
        merged.notes.append(f"{len(without)} shard(s) carry no canaries (judged with canaries "
                            f"off, or saved before them): {', '.join(without)}")
    return merged


def check_shards(shards: Sequence[Shard], *, allow_mixed: bool = False,
                 expect: int | None = None) -> list[str]:
    """Refuse shards that do not belong to one run; return notes for people (what
    ``allow_mixed`` let through).

    Raises:
        MergeError: see the module docstring; every problem found is named.
    """
    problems: list[str] = []
    notes: list[str] = []
    if expect is not None and len(shards) > expect:
        problems.append(f"expected {expect} shard(s), got {len(shards)} "
                        f"({', '.join(str(s.path) for s in shards)}): a shard is extra")
    mixed: list[str] = []
    judges = {s.path: sorted(j.identity() for j in s.run.judges) for s in shards}
    if len({tuple(v) for v in judges.values()}) > 1:
        prompts = {s.path: sorted({j.prompt_version or "?" for j in s.run.judges})
                   for s in shards}
        what = "prompt versions" if len({tuple(v) for v in prompts.values()}) > 1 \
            else "judges"
        shown = "; ".join(f"{s.path.name}: "
                          + ", ".join(j.description for j in s.run.judges) for s in shards)
        detail = "; ".join(f"{p.name}: {', '.join(v)}" for p, v in prompts.items()) \
            if what == "prompt versions" else shown
        mixed.append(f"the shards were judged by different {what} ({detail})")
    commits = {s.run.git.commit for s in shards}
    if len(commits) > 1:
        shown = "; ".join(f"{s.path.name}: {(s.run.git.commit or 'unknown')[:12]}"
                          for s in shards)
        mixed.append(f"the shards ran on different commits ({shown})")
    if mixed and not allow_mixed:
        problems += [m + " (pass --allow-mixed to merge them anyway)" for m in mixed]
    elif mixed:
        notes += [f"WARNING: {m}; merged anyway (--allow-mixed)" for m in mixed]
    owner: dict[str, int] = {}
    twice: dict[str, list[int]] = {}
    for index, shard in enumerate(shards):
        for answer in shard.run.answers:
            first = owner.setdefault(answer.test_id, index)
            if first != index:
                twice.setdefault(answer.test_id, [first]).append(index)
    if twice:
        shown = "; ".join(f"{tid} in {', '.join(shards[i].path.name for i in where)}"
                          for tid, where in list(twice.items())[:5])
        more = f" and {len(twice) - 5} more" if len(twice) > 5 else ""
        problems.append(f"{len(twice)} test id(s) appear in more than one shard ({shown}"
                        f"{more}): the shards overlap (or one file was given twice)")
    if problems:
        raise MergeError("cannot merge: " + "\n  ".join(["", *problems]).lstrip("\n "))
    return notes


def merged_git(shards: Sequence[Shard]) -> GitInfo:
    """The shards' git info when they agree (commit and branch), else the first shard's
    with the fields that differ left unknown."""
    first = shards[0].run.git
    commit = first.commit if all(s.run.git.commit == first.commit for s in shards) else None
    branch = first.branch if all(s.run.git.branch == first.branch for s in shards) else None
    dirty = first.dirty if all(s.run.git.dirty == first.dirty for s in shards) else None
    return GitInfo(commit=commit, branch=branch, dirty=dirty)


def merged_test_exitstatus(shards: Sequence[Shard]) -> int | None:
    """pytest's exit status that one run of every shard's tests would have had: a failing
    status of any shard (the highest), else 0 if any shard ran tests, else 5 (no tests
    collected); ``None`` when no shard recorded it."""
    codes = [s.run.test_exitstatus for s in shards if s.run.test_exitstatus is not None]
    if not codes:
        return None
    failing = [c for c in codes if c not in (0, 5)]
    if failing:
        return max(failing)
    return 0 if 0 in codes else 5


def merge_shards(shards: Sequence[Shard], session: Any) -> Any:
    """Put every shard's answers into ``session`` (a fresh ``run.results.ResultStore``), in
    natural test-id order, with the shards' judges, the answers that missed their own
    thresholds silently or under xfail, and pytest's exit status.
    Applies nothing: the caller finishes the run (``run.finish.finish_run``) as the plugin
    does. Returns ``session``.

    Raises:
        MergeError: an answer record that does not validate (names the file and index).
    """
    from ..records import AnswerResult

    entries: list[tuple[tuple[Any, ...], int, int, AnswerResult]] = []
    silent, expected = set(), set()
    for s_index, shard in enumerate(shards):
        results = shard.results
        if len(results) != len(shard.run.results):  # built by hand, not by ``load_shards``
            results = []
            for r_index, data in enumerate(shard.run.results):
                try:
                    results.append(AnswerResult.model_validate(data))
                except ValueError as exc:
                    raise MergeError(f"{shard.path}: answer record {r_index + 1} is "
                                     f"malformed: {exc}") from None
        for r_index, result in enumerate(results):
            entries.append((natural_key(result.test_id), s_index, r_index, result))
        silent |= {(s_index, i) for i in shard.run.silent_misses}
        expected |= {(s_index, i) for i in shard.run.expected_misses}
    entries.sort(key=lambda e: e[:3])
    for _, _, _, result in entries:
        session.results.append(result)
    session.silent_misses = [e[3] for e in entries if (e[1], e[2]) in silent]
    session.expected_misses = [e[3] for e in entries if (e[1], e[2]) in expected]
    for shard in shards:
        session.add_merged_judges(
            list(shard.run.judge_names or [j.description for j in shard.run.judges]),
            [j.model_dump(mode="json") for j in shard.run.judges])
    session.test_exitstatus = merged_test_exitstatus(shards)
    for shard in shards:  # a golden test run in any shard ran (``run.golden.GoldenTests``)
        session.golden.merge(shard.run.golden_tests)
    return session


def recheck_supported(session: Any, shards: Sequence[Shard] = ()) -> list[str]:
    """Hold every ``supported`` verdict of ``session.results`` to the quote check again
    (``verification.check_verdict`` against the answer's passages and the claim).

    A verdict that does not pass is replaced by the check's ``unsupported`` verdict, the
    original kept as the claim's ``judge_verdict`` and the reason added to its note, as the
    pipeline does for a judge's reply. A run that this version judged passes unchanged; a
    saved run that was edited, or written by something that skipped the checks, does not.

    Args:
        session: the merged session (``merge_shards``).
        shards: the shards merged, to name each answer's file in the reasons.

    Returns:
        one gate failure per answer with a verdict that was not accepted (empty: all held).
    """
    from ..trust.quote_check import check_verdict

    sources = {a.test_id: shard.path for shard in shards for a in shard.run.answers}
    failures: list[str] = []
    for result in session.results:
        rejected: list[str] = []
        for n, claim in enumerate(result.claims, start=1):
            verdict = claim.verdict
            if verdict is None or verdict.label != "supported":
                continue
            accepted, reason = check_verdict(verdict, result.passages, claim.text)
            if reason is None:
                continue
            claim.judge_verdict, claim.verdict = verdict, accepted
            claim.add_note(reason)
            rejected.append(f"claim {n} ({reason})")
        if rejected:
            where = sources.get(result.test_id)
            failures.append(
                f"{where or 'a shard'}: {result.test_id or 'an answer'} holds a supported "
                f"verdict whose evidence does not check out: {'; '.join(rejected)}; it is "
                "counted as unsupported (was the saved run edited?)")
    return failures


def merged_gate(shards: Sequence[Shard], configured: Any, given: Iterable[str] = ()) -> Any:
    """The session thresholds of the merged gate, as a ``gate.GateConfig``.

    Each threshold named in ``given`` (set by a flag of ``merge``) comes from ``configured``.
    Every other one is the strictest of ``configured``'s (the ini file ``merge`` reads) and
    the values the shards ran with (saved in each run, wherever pytest took them from: the ini
    file, ``addopts``, ``PYTEST_ADDOPTS`` or a flag of that job): the highest ``min_*``, the
    lowest ``max_*``, a bound set anywhere applied. So a threshold a shard ran with is never
    dropped by the merge, and shards that ran with different thresholds get the strictest.
    """
    from ..run.gate import THRESHOLDS, GateConfig

    given = set(given)
    data = configured.model_dump()
    for name in THRESHOLDS:
        if name in given:
            continue
        values = [getattr(configured, name)] + [s.run.gate.get(name) for s in shards]
        values = [v for v in values if v is not None]
        if not values:
            continue
        strictest = max(values) if name.startswith("min_") else min(values)
        if strictest != data[name]:
            data[name] = strictest
            if name in ("max_unscored_rate", "max_unverified_rate"):  # a default stays one
                data[f"{name}_is_default"] = all(
                    s.run.gate.get(f"{name}_is_default", False) for s in shards
                    if s.run.gate.get(name) == strictest)
    return GateConfig.model_validate(data)


def recheck_coverage(session: Any, shards: Sequence[Shard] = ()) -> list[str]:
    """Hold every scored or unscored answer of ``session.results`` to the pipeline's coverage
    rule again (``alignment.align`` over its saved claims, their spans and the text it set
    aside): every sentence of the answer must be in a claim or set aside for a reason. A
    run this version judged passes unchanged (the pipeline added a claim for any sentence
    left out); one whose failing claim was replaced by a vaguer one, or whose claims were
    removed, does not.

    Returns:
        one gate failure per answer with a sentence that no claim covers, naming the shard,
        the answer and the sentence (empty: every answer is covered).
    """
    from ..records import Decomposition
    from ..trust.alignment import align

    sources = {a.test_id: shard.path for shard in shards for a in shard.run.answers}
    failures: list[str] = []
    for result in session.results:
        if result.status not in ("scored", "unscored") or not result.answer.strip():
            continue
        decomposition = Decomposition(claims=[c.text for c in result.claims],
                                      dropped=list(result.dropped),
                                      claim_spans=[list(c.spans) for c in result.claims])
        alignment = align(result.answer, decomposition, tuple(p.id for p in result.passages))
        missing = [c.text for c in alignment.claims if c.added]
        if missing:
            where = sources.get(result.test_id)
            shown = "; ".join(repr(m[:120]) for m in missing[:3])
            more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
            failures.append(
                f"{where or 'a shard'}: {result.test_id or 'an answer'} is {result.status} "
                f"but its claims do not cover the answer: {shown}{more} is in no claim and "
                "not set aside (was the saved run edited?)")
    return failures
