"""Merging the saved runs of a sharded suite into the session of one run.

A suite split across CI jobs (a matrix with pytest-split or test paths per job, pytest-xdist
inside each) saves one run per shard (``--faithfulness-save``). ``merge_shards`` checks that
the shards belong together and rebuilds one ``session.FaithfulnessSession`` holding every
answer, on which the caller applies the same gate, comparison and reports as pytest does
(``pytest-faithfulness merge``, see ``cli``).

Refused (``MergeError``, a usage error): a file that is not a saved run or was saved before
runs kept their full answer records; an incomplete (interrupted) shard; shards of different
judges, prompt versions or commits (unless ``allow_mixed``); the same test id in two shards;
with ``expect``, a number of shards other than expected.

The session thresholds: the strictest of the ini file's and those each shard ran with
(``merged_gate``; ``merge``'s flags override), so a threshold set only in ``addopts`` or on one
job's command line is not dropped.

Not believed without a check: a saved run is a file that anything may have written or edited.
Every ``supported`` verdict is held to the quote check again (``recheck_supported``, the
pipeline's ``verification.check_verdict``); one whose evidence does not check out is counted as
``unsupported`` and fails the merged gate, naming the shard, the answer and the claim.

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

from .saved import BaselineError, GitInfo, SavedRun, load_run

__all__ = ["MergeError", "Shard", "load_shards", "check_shards", "merge_shards",
           "natural_key", "merged_git", "merged_gate", "merged_test_exitstatus",
           "recheck_supported"]


class MergeError(ValueError):
    """The shards cannot be merged; the message names the files and what is wrong."""


class Shard:
    """One shard's saved run and the file it was read from.

    Args:
        path: the saved run file.
        run: its ``SavedRun``.
    """

    def __init__(self, path: Path, run: SavedRun) -> None:
        self.path = path
        self.run = run

    def __repr__(self) -> str:
        return f"Shard({str(self.path)!r}, answers={len(self.run.answers)})"


def natural_key(test_id: str | None) -> tuple[Any, ...]:
    """The sort key of a test id with its digit runs compared as numbers:
    ``natural_key("t.py::a[2]") < natural_key("t.py::a[10]")``; ``None`` sorts first."""
    parts = re.split(r"(\d+)", test_id or "")
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def load_shards(paths: Iterable[str | Path]) -> list[Shard]:
    """Read each saved run file (a folder: every ``NNNN_*.json`` in it).

    Raises:
        MergeError: no file given, a path that does not exist, a file that is not a saved
            run, or one saved without its full answer records (saved by a version before
            ``merge`` existed, or built with ``full=False``).
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
            run = load_run(path)
        except BaselineError as exc:
            raise MergeError(str(exc)) from None
        if run.answers and len(run.results) != len(run.answers):
            raise MergeError(f"{path} has no full answer records (saved by an older "
                             "pytest-faithfulness): save the shard again with this version")
        if [r.get("test_id") if isinstance(r, dict) else None for r in run.results] != \
                [a.test_id for a in run.answers]:
            raise MergeError(f"{path}: its answer list and its full answer records name "
                             "different tests (was the file edited?)")
        shards.append(Shard(path, run))
    return shards


def check_shards(shards: Sequence[Shard], *, allow_mixed: bool = False,
                 expect: int | None = None) -> list[str]:
    """Refuse shards that do not belong to one run; return notes for people (what
    ``allow_mixed`` let through).

    Raises:
        MergeError: see the module docstring; every problem found is named.
    """
    problems: list[str] = []
    notes: list[str] = []
    if expect is not None and len(shards) != expect:
        problems.append(f"expected {expect} shard(s), got {len(shards)} "
                        f"({', '.join(str(s.path) for s in shards)}): a shard is missing or "
                        "extra, and a merge of part of the suite is not the suite's gate")
    for shard in shards:
        if not shard.run.complete:
            why = shard.run.incomplete_reason or "the run did not judge every answer"
            problems.append(f"{shard.path} is incomplete ({why}): rerun the shard")
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
    """Put every shard's answers into ``session`` (a fresh ``session.FaithfulnessSession``
    with the gate to apply), in natural test-id order, with the shards' judges, the answers
    that missed their own thresholds silently or under xfail, and pytest's exit status.
    Applies nothing: the caller runs the gate (``evaluate_gate``, ``fail_silent_misses``,
    ``compare_with``) as the plugin does. Returns ``session``.

    Raises:
        MergeError: an answer record that does not validate (names the file and index).
    """
    from ..records import AnswerResult

    entries: list[tuple[tuple[Any, ...], int, int, AnswerResult]] = []
    silent, expected = set(), set()
    for s_index, shard in enumerate(shards):
        for r_index, data in enumerate(shard.run.results):
            try:
                result = AnswerResult.model_validate(data)
            except ValueError as exc:
                raise MergeError(f"{shard.path}: answer record {r_index + 1} is malformed: "
                                 f"{exc}") from None
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
    from ..verification import check_verdict

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
    from ..gate import THRESHOLDS, GateConfig

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
            if name == "max_unscored_rate":
                data["max_unscored_rate_is_default"] = all(
                    s.run.gate.get("max_unscored_rate_is_default", False) for s in shards
                    if s.run.gate.get(name) == strictest)
    return GateConfig.model_validate(data)
