"""Saved runs and regression gates: the pytest-benchmark model for faithfulness.

A run's results are saved as one JSON file (a ``SavedRun``) in a storage folder (default
``.faithfulness/``), named ``NNNN_<name>.json`` with a counter that only grows, so "the latest
run" is the highest counter. A later run compares itself with a saved one (``compare_runs``):
per answer (matched by test id), the claims that became unsupported or contradicted and the
claims that recovered; answers added or removed; session figures side by side. Compare-fail
expressions (``mean:0.02``, ``unsupported_rate:0.05``) turn a regression into a gate failure.

Nothing here imports pytest; the records are pydantic models that ignore unknown keys, so a
file saved by a newer version still loads.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .records import AnswerResult, SessionSummary

SAVED_RUN_FORMAT = "pytest-faithfulness-run-1"
DEFAULT_STORAGE = ".faithfulness"

_RUN_FILE = re.compile(r"^(\d{4,})_(.+)\.json$")
_NOT_SUPPORTED = (None, "contradicted", "unsupported")
_EPS = 1e-9


class BaselineError(ValueError):
    """A saved run cannot be found, read or validated; the message names the path or name."""


# --------------------------------------------------------------------------------------------
# Records of a saved run.

class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class SavedClaim(_Loose):
    """One claim of a saved answer.

    Args:
        text: the claim as decomposed.
        label: ``"supported" | "contradicted" | "unsupported"``, or ``None`` (no verdict).
        passage_ids: the passages the verdict cites.
        quote: the verdict's quote, if any.
    """

    text: str
    label: str | None = None
    passage_ids: list[str] = Field(default_factory=list)
    quote: str | None = None


class SavedAnswer(_Loose):
    """One answer of a saved run: its test id, figures, claims and verdicts.

    Args:
        test_id: the pytest node id (``#2``, ``#3``... for further answers in one test);
            ``answer-N`` when the result had none.
        status: ``"scored" | "unscored" | "error"``.
        score: faithfulness in [0, 1], ``None`` unless scored.
        claims: every claim with its verdict.
        supported / contradicted / unsupported: claims by verdict.
        passed: whether the answer met its own thresholds.
        judge: the judge's one-line description.
        answer: the answer text.
        error: the error, for ``status == "error"``.
    """

    test_id: str
    status: str
    score: float | None = None
    claims: list[SavedClaim] = Field(default_factory=list)
    supported: int = 0
    contradicted: int = 0
    unsupported: int = 0
    passed: bool = True
    judge: str | None = None
    answer: str = ""
    error: str | None = None

    @classmethod
    def of(cls, result: AnswerResult, index: int = 1) -> SavedAnswer:
        """The saved form of an ``AnswerResult`` (``index`` names it when it has no test id)."""
        return cls(
            test_id=result.test_id or f"answer-{index}", status=result.status, score=result.score,
            claims=[SavedClaim(text=c.text, label=c.label,
                               passage_ids=list(c.verdict.passage_ids) if c.verdict else [],
                               quote=c.verdict.quote if c.verdict else None)
                    for c in result.claims],
            supported=result.supported, contradicted=result.contradicted,
            unsupported=result.unsupported, passed=result.passed, judge=result.judge,
            answer=result.answer, error=result.error)


class RunFigures(SessionSummary):
    """A run's headline figures: a ``records.SessionSummary`` that ignores fields it does not
    know, so runs saved by other versions still load."""

    model_config = ConfigDict(extra="ignore")

    @classmethod
    def of(cls, summary: SessionSummary) -> RunFigures:
        """The figures of a session summary."""
        return cls.model_validate(summary.model_dump(mode="json"))


class JudgeInfo(_Loose):
    """Which judge produced a run's verdicts.

    Args:
        description: its one-line description.
        fingerprint: its ``fingerprint()`` (kind, model, prompt version, rule versions...),
            ``None`` when the judge has none.
    """

    description: str
    fingerprint: dict[str, Any] | None = None

    @property
    def prompt_version(self) -> str | None:
        """The prompt version in the fingerprint (``prompts`` or ``prompt_version``), if any."""
        fp = self.fingerprint or {}
        value = fp.get("prompts", fp.get("prompt_version"))
        return None if value is None else str(value)

    def identity(self) -> str:
        """What must be equal for two runs to have the same judge: the fingerprint if known,
        else the description."""
        if self.fingerprint is not None:
            return json.dumps(self.fingerprint, sort_keys=True, default=str)
        return self.description


class GitInfo(_Loose):
    """Where the run was made, when git (or the CI's environment) says so.

    Args:
        commit: the full commit hash, or ``None``.
        branch: the branch name, or ``None``.
        dirty: ``True`` when tracked files had uncommitted changes, ``None`` when unknown.
    """

    commit: str | None = None
    branch: str | None = None
    dirty: bool | None = None


class SavedRun(_Loose):
    """One saved run (one JSON file in the storage folder).

    Args:
        format: ``"pytest-faithfulness-run-1"``.
        name: the name it was saved under.
        created: when it was saved, ISO 8601 in UTC.
        package_version: the pytest-faithfulness version that saved it.
        git: commit, branch and dirty flag.
        judges: the judges (with fingerprints: kind, model, prompt version...).
        figures: the session's headline figures.
        gate_failures: why the session gate failed (empty: it passed).
        answers: every answer with its claims and verdicts.
    """

    format: str = SAVED_RUN_FORMAT
    name: str = "run"
    created: str = ""
    package_version: str = ""
    git: GitInfo = Field(default_factory=GitInfo)
    judges: list[JudgeInfo] = Field(default_factory=list)
    figures: RunFigures = Field(default_factory=RunFigures)
    gate_failures: list[str] = Field(default_factory=list)
    answers: list[SavedAnswer] = Field(default_factory=list)

    @classmethod
    def of(cls, results: list[AnswerResult], summary: SessionSummary, *, name: str = "run",
           judges: Iterable[JudgeInfo] = (), git: GitInfo | None = None,
           gate_failures: Iterable[str] = ()) -> SavedRun:
        """Build the saved form of a session's results (``created`` is now, in UTC)."""
        from . import __version__

        return cls(name=name, created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                   package_version=__version__, git=git or GitInfo(), judges=list(judges),
                   figures=RunFigures.of(summary), gate_failures=list(gate_failures),
                   answers=[SavedAnswer.of(r, i) for i, r in enumerate(results, start=1)])

    def label(self) -> str:
        """``name (commit abc1234, created ...)`` for headers."""
        commit = f"commit {self.git.commit[:12]}, " if self.git.commit else ""
        return f"{self.name} ({commit}saved {self.created or 'at an unknown time'})"


# --------------------------------------------------------------------------------------------
# Git and storage.

def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_info(cwd: str | Path = ".") -> GitInfo:
    """The commit, branch and dirty flag of the git checkout at ``cwd``.

    Falls back to GitHub Actions' ``GITHUB_SHA`` / ``GITHUB_HEAD_REF`` / ``GITHUB_REF_NAME``
    when git is missing or ``cwd`` is not a checkout; every field is ``None`` when nothing is
    known. Never raises.
    """
    cwd = Path(cwd)
    commit = _git(["rev-parse", "HEAD"], cwd)
    branch = _git(["rev-parse", "--abbrev-ref", "HEAD"], cwd) if commit else None
    status = _git(["status", "--porcelain", "--untracked-files=no"], cwd) if commit else None
    if branch == "HEAD":  # detached, as in most CI checkouts
        branch = None
    commit = commit or os.environ.get("GITHUB_SHA") or None
    branch = branch or os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME") \
        or None
    return GitInfo(commit=commit, branch=branch, dirty=None if status is None else bool(status))


def safe_name(name: str) -> str:
    """``name`` reduced to ``[A-Za-z0-9._-]`` (other runs of characters become ``-``), at most
    80 characters.

    Raises:
        ValueError: nothing is left.
    """
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name)).strip("-.")[:80]
    if not slug:
        raise ValueError(f"run name {name!r} has no usable character (use letters, digits, ._-)")
    return slug


def list_runs(storage: str | Path) -> list[Path]:
    """The saved run files in ``storage``, oldest first (by counter); empty if none."""
    storage = Path(storage)
    if not storage.is_dir():
        return []
    runs = [p for p in storage.iterdir() if p.is_file() and _RUN_FILE.match(p.name)]
    return sorted(runs, key=lambda p: (int(_RUN_FILE.match(p.name).group(1)), p.name))


def save_run(run: SavedRun, storage: str | Path) -> Path:
    """Write ``run`` to ``storage`` as ``NNNN_<name>.json`` (the next counter) and return the path.

    The file appears complete or not at all (written aside, then hard-linked in place), and
    two runs saving at once never take the same counter.

    Raises:
        ValueError: the run's name has no usable character.
        OSError: the folder cannot be written.
    """
    storage = Path(storage)
    storage.mkdir(parents=True, exist_ok=True)
    slug = safe_name(run.name)
    text = json.dumps(run.model_dump(mode="json"), indent=2, ensure_ascii=False)
    tmp = storage / f".{slug}.{os.getpid()}.tmp"
    tmp.write_text(text, encoding="utf-8")
    try:
        existing = list_runs(storage)
        counter = int(_RUN_FILE.match(existing[-1].name).group(1)) + 1 if existing else 1
        for _ in range(1000):
            target = storage / f"{counter:04d}_{slug}.json"
            try:
                os.link(tmp, target)
                return target
            except FileExistsError:
                counter += 1
            except OSError:  # no hard links on this filesystem: exclusive create instead
                try:
                    with open(target, "x", encoding="utf-8") as fh:
                        fh.write(text)
                    return target
                except FileExistsError:
                    counter += 1
        raise OSError(f"could not find a free run file name in {storage}")
    finally:
        tmp.unlink(missing_ok=True)


def find_run(storage: str | Path, ref: str | None = None, *,
             rootdir: str | Path | None = None) -> Path:
    """Resolve a run reference to a saved run file.

    Args:
        storage: the storage folder.
        ref: ``None`` or ``""``: the latest saved run; a path to a JSON file (absolute,
            relative to the working directory or to ``rootdir``); a counter (``3`` or
            ``0003``); a file stem (``0003_main``); or a run name (``main``: the latest run
            saved under it).
        rootdir: a second base for relative paths.

    Raises:
        BaselineError: nothing matches (the message lists what is saved).
    """
    runs = list_runs(storage)
    if not ref:
        if not runs:
            raise BaselineError(f"no saved run in {storage}: save one first with "
                                "--faithfulness-save NAME or --faithfulness-autosave")
        return runs[-1]
    candidates = [Path(ref)] + ([Path(rootdir) / ref] if rootdir is not None else [])
    for candidate in candidates:
        if candidate.suffix == ".json" and candidate.is_file():
            return candidate
    if ref.isdigit():
        for path in runs:
            if int(_RUN_FILE.match(path.name).group(1)) == int(ref):
                return path
    for path in runs:
        if path.stem == ref or path.name == ref:
            return path
    try:
        slug = safe_name(ref)
    except ValueError:
        slug = None
    named = [p for p in runs if _RUN_FILE.match(p.name).group(2) == slug]
    if named:
        return named[-1]
    saved = ", ".join(p.stem for p in runs[-10:]) or "none"
    raise BaselineError(f"no saved run matches {ref!r} in {storage} (saved: {saved})")


def load_run(path: str | Path) -> SavedRun:
    """Read a saved run file.

    Raises:
        BaselineError: the file is unreadable, not JSON, or not a saved run.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BaselineError(f"cannot read saved run {path}: {exc}") from exc
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith(
            "pytest-faithfulness-run-"):
        raise BaselineError(f"{path} is not a saved faithfulness run (no 'format': "
                            f"'{SAVED_RUN_FORMAT}')")
    try:
        return SavedRun.model_validate(data)
    except ValidationError as exc:
        raise BaselineError(f"saved run {path} is malformed: {exc}") from exc


# --------------------------------------------------------------------------------------------
# Comparison.

class ClaimChange(_Loose):
    """A claim whose verdict changed between the baseline and this run.

    Args:
        text: the claim (as in this run when present, else as in the baseline).
        before: its verdict in the baseline; ``"absent"`` when the baseline answer did not
            make it.
        after: its verdict now; ``"absent"`` when this run's answer no longer makes it.
        passage_ids / quote: the evidence of the verdict now (of the baseline's if absent now).
    """

    text: str
    before: str
    after: str
    passage_ids: list[str] = Field(default_factory=list)
    quote: str | None = None


class AnswerChange(_Loose):
    """How one answer (same test id in both runs) changed.

    Args:
        test_id: the answer's test id.
        before_score / after_score: faithfulness in the baseline and now (``None`` unless
            scored).
        before_status / after_status: ``scored | unscored | error``.
        worsened: claims now contradicted or unsupported (or without a verdict) that were
            supported, or that the baseline answer did not make.
        recovered: claims that were not supported and now are, or that the answer dropped.
        relabelled: claims that moved between ``unsupported`` and ``contradicted``.
    """

    test_id: str
    before_score: float | None = None
    after_score: float | None = None
    before_status: str = "scored"
    after_status: str = "scored"
    worsened: list[ClaimChange] = Field(default_factory=list)
    recovered: list[ClaimChange] = Field(default_factory=list)
    relabelled: list[ClaimChange] = Field(default_factory=list)

    @property
    def delta(self) -> float | None:
        """``after_score - before_score`` when both are known."""
        if self.before_score is None or self.after_score is None:
            return None
        return self.after_score - self.before_score


class FigureRow(_Loose):
    """One session figure side by side.

    Args:
        key: the ``RunFigures`` field.
        label: its name for people.
        before / after: the baseline's and this run's value (``None``: not defined).
        better: ``"higher"`` or ``"lower"`` (or ``"neither"`` for plain counts).
    """

    key: str
    label: str
    before: float | None = None
    after: float | None = None
    better: Literal["higher", "lower", "neither"] = "neither"

    @property
    def delta(self) -> float | None:
        """``after - before`` when both are known."""
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def regressed(self) -> bool:
        """True when the figure moved in the worse direction."""
        d = self.delta
        if d is None:
            return False
        return d < -_EPS if self.better == "higher" else d > _EPS if self.better == "lower" \
            else False


class Comparison(_Loose):
    """This run against a saved one.

    Args:
        baseline_name / baseline_path / baseline_label: which saved run (label: name, commit,
            date).
        baseline_commit / current_commit: the commits, when known.
        figures: session figures side by side.
        answers: the answers (matched by test id) that changed, in this run's order.
        added / removed: test ids only in this run / only in the baseline.
        warnings: why the comparison may mislead (different judges or prompt versions).
        failures: regressions beyond the compare-fail bounds (gate failures).
    """

    baseline_name: str
    baseline_path: str | None = None
    baseline_label: str = ""
    baseline_commit: str | None = None
    current_commit: str | None = None
    figures: list[FigureRow] = Field(default_factory=list)
    answers: list[AnswerChange] = Field(default_factory=list)
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    failures: list[str] = Field(default_factory=list)

    @property
    def worsened(self) -> int:
        """Claims that became unsupported or contradicted, over every matched answer."""
        return sum(len(a.worsened) for a in self.answers)

    @property
    def recovered(self) -> int:
        """Claims that recovered, over every matched answer."""
        return sum(len(a.recovered) for a in self.answers)

    def figure(self, key: str) -> FigureRow | None:
        """The row of one figure, by ``RunFigures`` field name."""
        return next((f for f in self.figures if f.key == key), None)


#: (field, label, better) of the figures compared, in display order.
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("mean_faithfulness", "mean faithfulness", "higher"),
    ("unsupported_answer_rate", "share of answers with a claim not supported", "lower"),
    ("answers", "answers", "neither"),
    ("scored", "scored", "neither"),
    ("unscored", "unscored", "neither"),
    ("errored", "errored", "lower"),
    ("claims", "claims", "neither"),
    ("supported", "supported claims", "neither"),
    ("contradicted", "contradicted claims", "lower"),
    ("unsupported", "unsupported claims", "lower"),
)


def _claim_key(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(" .!?;:")


def _label(value: str | None) -> str:
    return value if value is not None else "no verdict"


def compare_answers(before: SavedAnswer, after: SavedAnswer) -> AnswerChange:
    """The claim-level changes of one answer (claims matched by normalised text, in order)."""
    change = AnswerChange(test_id=after.test_id, before_score=before.score,
                          after_score=after.score, before_status=before.status,
                          after_status=after.status)
    pool: dict[str, list[SavedClaim]] = {}
    for claim in before.claims:
        pool.setdefault(_claim_key(claim.text), []).append(claim)
    for claim in after.claims:
        matches = pool.get(_claim_key(claim.text))
        old = matches.pop(0) if matches else None
        now_bad = claim.label in _NOT_SUPPORTED
        item = ClaimChange(text=claim.text, before="absent" if old is None else _label(old.label),
                           after=_label(claim.label), passage_ids=claim.passage_ids,
                           quote=claim.quote)
        if old is None:
            if now_bad:
                change.worsened.append(item)
        elif now_bad and old.label == "supported":
            change.worsened.append(item)
        elif not now_bad and old.label in _NOT_SUPPORTED:
            change.recovered.append(item)
        elif now_bad and old.label != claim.label:
            change.relabelled.append(item)
    for leftovers in pool.values():
        for old in leftovers:
            if old.label in _NOT_SUPPORTED:
                change.recovered.append(ClaimChange(text=old.text, before=_label(old.label),
                                                    after="absent", passage_ids=old.passage_ids,
                                                    quote=old.quote))
    return change


def _judge_warnings(baseline: SavedRun, current: SavedRun) -> list[str]:
    before = {j.identity(): j for j in baseline.judges}
    after = {j.identity(): j for j in current.judges}
    if not before or not after or set(before) == set(after):
        return []
    warnings = []
    old_prompts = {j.prompt_version for j in before.values()} - {None}
    new_prompts = {j.prompt_version for j in after.values()} - {None}
    if old_prompts and new_prompts and old_prompts != new_prompts:
        warnings.append(f"prompt version differs: baseline {', '.join(sorted(old_prompts))}, "
                        f"this run {', '.join(sorted(new_prompts))}")
    old_desc = "; ".join(sorted({j.description for j in before.values()}))
    new_desc = "; ".join(sorted({j.description for j in after.values()}))
    warnings.append(f"judge differs: baseline judged by [{old_desc}], this run by [{new_desc}]"
                    " -- differences may come from the judge, not from the answers")
    return warnings


def compare_runs(baseline: SavedRun, current: SavedRun, *,
                 baseline_path: str | Path | None = None) -> Comparison:
    """Compare ``current`` with ``baseline``: figures, per-answer claim changes, answers added
    or removed, and warnings when the judges or prompt versions differ.

    ``failures`` is left empty; ``check_regressions`` fills it from compare-fail bounds.
    Answers with the same test id twice in one run are matched in order.
    """
    comparison = Comparison(baseline_name=baseline.name, baseline_label=baseline.label(),
                            baseline_path=str(baseline_path) if baseline_path else None,
                            baseline_commit=baseline.git.commit, current_commit=current.git.commit)
    for key, label, better in FIGURES:
        comparison.figures.append(FigureRow(key=key, label=label, better=better,
                                            before=getattr(baseline.figures, key),
                                            after=getattr(current.figures, key)))
    old: dict[str, list[SavedAnswer]] = {}
    for answer in baseline.answers:
        old.setdefault(answer.test_id, []).append(answer)
    for answer in current.answers:
        matches = old.get(answer.test_id)
        if not matches:
            comparison.added.append(answer.test_id)
            continue
        change = compare_answers(matches.pop(0), answer)
        moved = change.before_status != change.after_status or (
            change.delta is not None and abs(change.delta) > _EPS)
        if moved or change.worsened or change.recovered or change.relabelled:
            comparison.answers.append(change)
    comparison.removed = [a.test_id for rest in old.values() for a in rest]
    comparison.warnings = _judge_warnings(baseline, current)
    return comparison


# --------------------------------------------------------------------------------------------
# Compare-fail expressions.

#: name -> (figure field or "worsened", label, kind). ``higher``: the figure may drop by at most
#: the bound; ``lower``: it may rise by at most the bound.
COMPARE_METRICS: dict[str, tuple[str, str, str]] = {
    "mean": ("mean_faithfulness", "mean faithfulness", "higher"),
    "unsupported_rate": ("unsupported_answer_rate",
                         "share of answers with a claim not supported", "lower"),
    "contradicted": ("contradicted", "contradicted claims", "lower"),
    "unsupported": ("unsupported", "unsupported claims", "lower"),
    "errored": ("errored", "errored answers", "lower"),
    "worsened": ("worsened", "claims that became unsupported or contradicted", "count"),
}


class CompareFail(_Loose):
    """One compare-fail bound.

    Args:
        metric: a ``COMPARE_METRICS`` name (``mean``, ``unsupported_rate``, ``contradicted``,
            ``unsupported``, ``errored``, ``worsened``).
        allowed: how far the figure may move the wrong way: a drop for ``mean``, a rise for
            the others (rates are fractions in [0, 1]; counts are claims or answers);
            for ``worsened``, how many claims may become unsupported or contradicted.
        expr: the expression as given.
    """

    metric: str
    allowed: float = Field(ge=0)
    expr: str


def parse_compare_fail(exprs: Iterable[str] | str | None) -> list[CompareFail]:
    """Parse compare-fail expressions: ``METRIC:BOUND``, several per string comma-separated.

    Example: ``["mean:0.02", "unsupported_rate:0.05,contradicted:0"]``.

    Raises:
        ValueError: an unknown metric, a missing or negative bound, or a bound above 1 for a
            rate (the message names the expression and the metrics).
    """
    if exprs is None:
        return []
    if isinstance(exprs, str):
        exprs = [exprs]
    out: list[CompareFail] = []
    names = ", ".join(COMPARE_METRICS)
    for chunk in exprs:
        for expr in (e.strip() for e in str(chunk).split(",")):
            if not expr:
                continue
            metric, sep, raw = expr.partition(":")
            metric = metric.strip().lower().replace("-", "_")
            if not sep or metric not in COMPARE_METRICS:
                raise ValueError(f"bad compare-fail expression {expr!r}: expected METRIC:BOUND "
                                 f"with METRIC one of {names} (e.g. mean:0.02)")
            try:
                allowed = float(raw.strip())
            except ValueError:
                raise ValueError(f"bad compare-fail expression {expr!r}: the bound must be a "
                                 "number (a fraction for mean/unsupported_rate, e.g. 0.02; "
                                 "a count for the others)") from None
            if not allowed >= 0:
                raise ValueError(f"bad compare-fail expression {expr!r}: the bound must be >= 0")
            if metric in ("mean", "unsupported_rate") and allowed > 1:
                raise ValueError(f"bad compare-fail expression {expr!r}: {metric} is a fraction "
                                 "in [0, 1], so the bound must be at most 1 (0.02 = 2 points)")
            out.append(CompareFail(metric=metric, allowed=allowed, expr=expr))
    return out


def format_figure(value: float | None, key: str) -> str:
    """A figure for people: rates and means with 3 decimals, counts as integers, ``n/a``."""
    if value is None:
        return "n/a"
    if key in ("mean_faithfulness", "unsupported_answer_rate"):
        return f"{value:.3f}"
    return f"{value:g}"


def check_regressions(comparison: Comparison, bounds: Iterable[CompareFail]) -> list[str]:
    """Gate failures for the regressions of ``comparison`` beyond ``bounds``; also stored in
    ``comparison.failures``.

    A figure the baseline has but this run lacks (no answer scored now) is a failure; a
    figure the baseline lacks cannot regress.
    """
    failures: list[str] = []
    where = f"against {comparison.baseline_name}"
    for bound in bounds:
        key, label, kind = COMPARE_METRICS[bound.metric]
        if kind == "count":
            if comparison.worsened > bound.allowed + _EPS:
                failures.append(f"regression {where}: {comparison.worsened} {label} > "
                                f"{bound.allowed:g} allowed ({bound.expr})")
            continue
        row = comparison.figure(key)
        if row is None or row.before is None:
            continue
        if row.after is None:
            failures.append(f"regression {where}: {label} is not defined in this run "
                            f"(baseline {format_figure(row.before, key)}) ({bound.expr})")
            continue
        worse = row.before - row.after if kind == "higher" else row.after - row.before
        if worse > bound.allowed + _EPS:
            verb = "dropped" if kind == "higher" else "rose"
            before, after = format_figure(row.before, key), format_figure(row.after, key)
            failures.append(f"regression {where}: {label} {verb} by {format_figure(worse, key)} "
                            f"({before} -> {after}) > {bound.allowed:g} allowed ({bound.expr})")
    comparison.failures = failures
    return failures


# --------------------------------------------------------------------------------------------
# Text.

def format_change(value: float | None, key: str) -> str:
    """A signed change (``+0.020``, ``-3``), ``=`` for none, empty when unknown."""
    if value is None:
        return ""
    if abs(value) < _EPS:
        return "="
    return ("+" if value > 0 else "-") + format_figure(abs(value), key)


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def comparison_lines(comparison: Comparison) -> list[str]:
    """The comparison as plain text lines for the terminal (warnings start with ``WARNING``)."""
    lines = [f"compared with {comparison.baseline_label}"
             + (f" [{comparison.baseline_path}]" if comparison.baseline_path else "")]
    lines += [f"WARNING: {w}" for w in comparison.warnings]
    lines.append(f"  {'figure':<46} {'baseline':>9} {'this run':>9} {'change':>8}")
    for row in comparison.figures:
        flag = "  (worse)" if row.regressed else ""
        before, after = format_figure(row.before, row.key), format_figure(row.after, row.key)
        lines.append(f"  {row.label:<46} {before:>9} {after:>9} "
                     f"{format_change(row.delta, row.key):>8}{flag}")
    lines.append(f"claims that became unsupported or contradicted: {comparison.worsened}; "
                 f"recovered: {comparison.recovered}")
    for change in comparison.answers:
        score = (f"{format_figure(change.before_score, 'mean_faithfulness')} -> "
                 f"{format_figure(change.after_score, 'mean_faithfulness')}")
        status = "" if change.before_status == change.after_status else \
            f" [{change.before_status} -> {change.after_status}]"
        lines.append(f"  {change.test_id}: faithfulness {score}{status}")
        for c in change.worsened:
            lines.append(f"    - now {c.after.upper()} (was {c.before}): {_short(c.text)}")
        for c in change.relabelled:
            lines.append(f"    ~ now {c.after} (was {c.before}): {_short(c.text)}")
        for c in change.recovered:
            now = "no longer claimed" if c.after == "absent" else f"now {c.after}"
            lines.append(f"    + {now} (was {c.before}): {_short(c.text)}")
    for test_id in comparison.added:
        lines.append(f"  added: {test_id}")
    for test_id in comparison.removed:
        lines.append(f"  removed: {test_id}")
    lines += [f"REGRESSION: {f}" for f in comparison.failures]
    return lines
