"""Saved runs: the pytest-benchmark model for faithfulness.

A run's results are saved as one JSON file (a ``SavedRun``) in a storage folder (default
``.faithfulness/``), named ``NNNN_<name>.json`` with a counter that only grows, so "the latest
run" is the highest counter. ``runs.compare`` compares a run with a saved one.

Nothing here imports pytest; the records are pydantic models that ignore unknown keys, so a
file saved by a newer version still loads.

Signed runs: with a signing key (``FAITHFULNESS_CACHE_KEY``, the key that signs the verdict
cache, ``cache.signing_key_from_env``) ``save_run`` writes ``signature``: the HMAC-SHA-256
(``cache.sign_entry`` under the scope ``RUN_SIGNATURE_SCOPE``) of the canonical JSON of every
other field of the file. ``load_run`` checks it when it has the key: a signature that does not
match (a file edited after it was saved, or signed under another key) is refused
(``RunSignatureError``); ``SavedRun.trust`` says whether the run was ``"signed"`` (checked),
``"unsigned"`` or ``"unchecked"`` (signed, but no key to check it with).
"""

from __future__ import annotations

import hmac
import json
import os
import re
import subprocess
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from ..canary_report import CanaryReport
from ..errors import BaselineError as BaselineError  # re-exported: their home before errors.py
from ..errors import RunSignatureError as RunSignatureError
from ..records import AnswerResult, Evidence, SessionSummary, Verdict
from .baseline_identity import inputs_digest, suite_digest

SAVED_RUN_FORMAT = "pytest-faithfulness-run-1"
#: What a saved run's signature is taken over, beside its fields (``cache.sign_entry``'s key):
#: a cache entry's signature can never pass as a run's.
RUN_SIGNATURE_SCOPE = "pytest-faithfulness saved run"
DEFAULT_STORAGE = ".faithfulness"

_RUN_FILE = re.compile(r"^(\d{4,})_(.+)\.json$")


# --------------------------------------------------------------------------------------------
# Records of a saved run.

class LenientRecord(BaseModel):
    """Base of every saved-run record: unknown fields are ignored (``extra="ignore"``), so a
    run saved by a newer version, with fields added, still loads here."""

    model_config = ConfigDict(extra="ignore")


class SavedClaim(LenientRecord):
    """One claim of a saved answer.

    Args:
        text: the claim as decomposed.
        label: ``"supported" | "contradicted" | "unsupported"``, or ``None`` (no verdict).
        evidence: the verdict's evidence items (``records.Evidence``), in order.
        passage_ids: the passages the verdict cites (kept for readers of the older form).
        quote: the first item's quote, if any (the same).

    A run saved before evidence lists (``passage_ids`` and one ``quote``) is read with that
    quote as its one piece of evidence.
    """

    text: str
    label: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    passage_ids: list[str] = Field(default_factory=list)
    quote: str | None = None

    @model_validator(mode="after")
    def _older_form(self) -> SavedClaim:
        if not self.evidence and (self.passage_ids or self.quote):
            self.evidence = Verdict("unsupported", passage_ids=self.passage_ids,
                                    quote=self.quote).evidence
        return self


class SavedAnswer(LenientRecord):
    """One answer of a saved run: its test id, figures, claims and verdicts.

    Args:
        test_id: the pytest node id (``#2``, ``#3``... for further answers in one test);
            ``answer-N`` when the result had none.
        status: ``"scored" | "unscored" | "error" | "unverified"``.
        score: faithfulness in [0, 1], ``None`` unless scored.
        claims: every claim with its verdict.
        supported / contradicted / unsupported: claims by verdict.
        passed: whether the answer met its own thresholds.
        judge: the judge's one-line description.
        answer: the answer text.
        error: the error, for ``status == "error"``.
        passages_digest: ``passages_digest`` of the passages it was judged against
            (``None`` in runs saved before it was recorded).
        error_kind: the kind of error (``records.ErrorKind``), for ``status == "error"``
            (``None`` otherwise, and in runs saved before it was recorded).
        inputs_digest: ``baseline_identity.inputs_digest`` of the answer text and its
            passages (``None`` in runs saved before it was recorded: a comparison then falls
            back to the answer text and ``passages_digest``).
        golden: recorded by a golden test (``run.golden``; false in runs saved before).
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
    passages_digest: str | None = None
    error_kind: str | None = None
    inputs_digest: str | None = None
    golden: bool = False

    @classmethod
    def of(cls, result: AnswerResult, index: int = 1) -> SavedAnswer:
        """The saved form of an ``AnswerResult`` (``index`` names it when it has no test id)."""
        return cls(
            test_id=result.test_id or f"answer-{index}", status=result.status, score=result.score,
            claims=[SavedClaim(text=c.text, label=c.label,
                               evidence=list(c.verdict.evidence) if c.verdict else [],
                               passage_ids=list(c.verdict.passage_ids) if c.verdict else [],
                               quote=c.verdict.quote if c.verdict else None)
                    for c in result.claims],
            supported=result.supported, contradicted=result.contradicted,
            unsupported=result.unsupported, passed=result.passed, judge=result.judge,
            answer=result.answer, error=result.error,
            passages_digest=passages_digest(result.passages), error_kind=result.error_kind,
            inputs_digest=inputs_digest(result.answer, result.passages),
            golden=result.golden)


def passages_digest(passages: Iterable[Any]) -> str:
    """The hex SHA-256 of an answer's passages (each id, text and title, in order): two
    answers judged against the same passages have the same digest. A passage is a
    ``records.Passage`` or its JSON form (a dict, as a draft label holds it)."""
    import hashlib

    data = [[str(p.get("id", "")), str(p.get("text", "")), p.get("title")]
            if isinstance(p, dict) else [p.id, p.text, p.title] for p in passages]
    # surrogatepass: a lone surrogate (not valid Unicode, kept as given) still hashes
    text = json.dumps(data, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


class RunFigures(SessionSummary):
    """A run's headline figures: a ``records.SessionSummary`` that ignores fields it does not
    know, so runs saved by other versions still load."""

    model_config = ConfigDict(extra="ignore")

    @classmethod
    def of(cls, summary: SessionSummary) -> RunFigures:  # type: ignore[override]
        # (a summary's figures, not a summary of results: the name predates the type check)
        """The figures of a session summary."""
        return cls.model_validate(summary.model_dump(mode="json"))


class JudgeInfo(LenientRecord):
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


class GitInfo(LenientRecord):
    """Where the run was made, when git (or the CI's environment) says so.

    Args:
        commit: the full commit hash, or ``None``.
        branch: the branch name, or ``None``.
        dirty: ``True`` when tracked files had uncommitted changes, ``None`` when unknown.
    """

    commit: str | None = None
    branch: str | None = None
    dirty: bool | None = None


class SavedRun(LenientRecord):
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
        complete: ``False`` when the session did not judge every answer (interrupted,
            crashed, stopped by ``-x`` / ``--maxfail``); such a run is kept for the record but
            never used as a baseline (``find_run`` skips it or refuses it). Files saved
            before this field existed load as complete.
        incomplete_reason: why it is incomplete, ``None`` when complete.
        answers: every answer with its claims and verdicts.
        results: every answer's full record (``records.AnswerResult`` as JSON: passages,
            spans, rationales, usage, thresholds), in recording order, so that
            ``runs.merge`` can rebuild the session of several shards exactly; empty in files
            saved before this field existed (such runs cannot be merged).
        judge_names: the session's judge descriptions, in its order (``session.judges()``).
        silent_misses / expected_misses: indices into ``results`` of the answers that
            missed their own thresholds in tests that did not fail (and are not xfail), and
            in xfail tests.
        test_exitstatus: pytest's own exit status before the faithfulness gate was ORed in
            (``None`` when unknown: a run saved from a script).
        gate: the session thresholds the run applied (``gate.GateConfig`` as JSON, wherever
            they were set: ini, ``addopts``, flags); empty in files saved before this field
            existed. ``runs.merge`` applies them to the merged shards.
        local_failures: the gate failures of ``gate_failures`` that only this run could decide
            (conftest ``pytest_faithfulness_gate`` hooks, the calibration gate, a gate step
            that raised, those a merge carried from its shards); ``runs.merge`` fails the merged
            gate with them. Absent from files saved before this field existed (``merge`` then
            keeps every saved gate failure).
        failure_kinds: the kind (``run.outcome.ReasonKind``) of each of ``gate_failures``
            that is not ``"failed"`` (absent: every one ``"failed"``).
        canaries: the run's judge canaries (``canary_report.CanaryReport``), ``None`` when
            none ran (or in files saved before); ``runs.merge`` adds the shards' counts up.
        suite_digest: ``baseline_identity.suite_digest`` of ``answers`` (the sorted test ids
            with their inputs digests), ``None`` in runs saved before it was recorded.
        golden_tests: the run's golden tests, each with what became of it (``run.golden``:
            ``ran``, ``skipped``, ``selected``, ``deselected``), so that a later run compared
            with this one knows which went missing; empty in files saved before.
        signature: the hex HMAC-SHA-256 of the file under the signing key (see the module
            docstring), ``None`` when it was saved without a key.
        rejudged: on a run derived by ``runs.rejudge`` (``<name>@judge-<key>``), what it was
            derived from (``runs.rejudge.RejudgeInfo`` as JSON); never picked as the latest
            baseline. ``None`` on every other run.
    """

    format: str = SAVED_RUN_FORMAT
    name: str = "run"
    created: str = ""
    package_version: str = ""
    git: GitInfo = Field(default_factory=GitInfo)
    judges: list[JudgeInfo] = Field(default_factory=list)
    figures: RunFigures = Field(default_factory=RunFigures)
    gate_failures: list[str] = Field(default_factory=list)
    complete: bool = True
    incomplete_reason: str | None = None
    answers: list[SavedAnswer] = Field(default_factory=list)
    results: list[dict[str, Any]] = Field(default_factory=list)
    judge_names: list[str] = Field(default_factory=list)
    silent_misses: list[int] = Field(default_factory=list)
    expected_misses: list[int] = Field(default_factory=list)
    test_exitstatus: int | None = None
    gate: dict[str, Any] = Field(default_factory=dict)
    local_failures: list[str] = Field(default_factory=list)
    failure_kinds: dict[str, str] = Field(default_factory=dict)
    canaries: CanaryReport | None = None
    suite_digest: str | None = None
    golden_tests: dict[str, str] = Field(default_factory=dict)
    signature: str | None = None
    rejudged: dict[str, Any] | None = None
    #: ``"signed"`` (its signature checked out), ``"unsigned"`` or ``"unchecked"`` (signed,
    #: but read without the key); set by ``load_run``, never saved.
    _trust: str = PrivateAttr(default="unsigned")

    @property
    def trust(self) -> str:
        """How far the file is vouched for: ``"signed"``, ``"unsigned"`` or ``"unchecked"``
        (see ``load_run``)."""
        return self._trust

    @classmethod
    def of(cls, results: list[AnswerResult], summary: SessionSummary, *, name: str = "run",
           judges: Iterable[JudgeInfo] = (), git: GitInfo | None = None,
           gate_failures: Iterable[str] = (), incomplete_reason: str | None = None,
           judge_names: Iterable[str] = (), silent_misses: Iterable[int] = (),
           expected_misses: Iterable[int] = (), test_exitstatus: int | None = None,
           full: bool = True, gate: dict[str, Any] | None = None,
           local_failures: Iterable[str] = (),
           failure_kinds: dict[str, str] | None = None,
           canaries: CanaryReport | None = None,
           golden_tests: dict[str, str] | None = None) -> SavedRun:
        """Build the saved form of a session's results (``created`` is now, in UTC);
        ``incomplete_reason`` marks a run that did not judge every answer. ``full=False``
        leaves ``results`` empty (a comparison needs only ``answers``)."""
        from .. import __version__

        answers = [SavedAnswer.of(r, i) for i, r in enumerate(results, start=1)]
        return cls(name=name, created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                   package_version=__version__, git=git or GitInfo(), judges=list(judges),
                   figures=RunFigures.of(summary), gate_failures=list(gate_failures),
                   complete=incomplete_reason is None, incomplete_reason=incomplete_reason,
                   answers=answers, suite_digest=suite_digest(answers),
                   results=[r.model_dump(mode="json") for r in results] if full else [],
                   judge_names=list(judge_names), silent_misses=list(silent_misses),
                   expected_misses=list(expected_misses), test_exitstatus=test_exitstatus,
                   gate=dict(gate or {}), local_failures=list(local_failures),
                   failure_kinds=dict(failure_kinds or {}), canaries=canaries,
                   golden_tests=dict(golden_tests or {}))

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
    return sorted(runs, key=lambda p: (_run_parts(p.name)[0], p.name))


def _run_parts(name: str) -> tuple[int, str]:
    """The counter and slug of a run file name that ``list_runs`` listed."""
    found = _RUN_FILE.match(name)
    assert found is not None, name  # list_runs lists only matching names
    return int(found.group(1)), found.group(2)


def run_signature(data: dict[str, Any], signing_key: bytes) -> str:
    """The hex HMAC-SHA-256 of a saved run's JSON fields (``data``, its ``signature`` left out)
    under ``signing_key``: ``cache.sign_entry`` over the canonical JSON (sorted keys, no
    spaces, UTF-8) of the fields, scoped by ``RUN_SIGNATURE_SCOPE``."""
    from ..cache import sign_entry

    return sign_entry(signing_key, RUN_SIGNATURE_SCOPE,
                      {k: v for k, v in data.items() if k != "signature"})


_FROM_ENV: Any = object()


def _key(signing_key: Any) -> bytes | None:
    if signing_key is _FROM_ENV:
        from ..cache import signing_key_from_env

        return signing_key_from_env()
    if isinstance(signing_key, str):
        return signing_key.encode("utf-8") or None
    return signing_key or None


def save_run(run: SavedRun, storage: str | Path, *, signing_key: Any = _FROM_ENV) -> Path:
    """Write ``run`` to ``storage`` as ``NNNN_<name>.json`` (the next counter) and return the path.

    The file appears complete or not at all (written aside, then hard-linked in place), and
    two runs saving at once never take the same counter. With a signing key (default:
    ``FAITHFULNESS_CACHE_KEY``; ``None``: unsigned) the file carries its ``signature`` (see
    ``run_signature``).

    Raises:
        ValueError: the run's name has no usable character.
        OSError: the folder cannot be written.
    """
    storage = Path(storage)
    storage.mkdir(parents=True, exist_ok=True)
    slug = safe_name(run.name)
    data = run.model_dump(mode="json")
    data["signature"] = None
    key = _key(signing_key)
    if key is not None:
        data["signature"] = run_signature(data, key)
    text = json.dumps(data, indent=2, ensure_ascii=False)
    # A lone surrogate (text that is not valid Unicode) can only sit inside a JSON string,
    # where backslashreplace writes exactly its JSON escape (\ud800): lossless, valid UTF-8.
    encoded = text.encode("utf-8", errors="backslashreplace")
    text = encoded.decode("utf-8")
    tmp = storage / f".{slug}.{os.getpid()}.tmp"
    try:
        tmp.write_bytes(encoded)
        existing = list_runs(storage)
        counter = _run_parts(existing[-1].name)[0] + 1 if existing else 1
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


def incomplete_reason(path: str | Path) -> str | None:
    """Why the saved run at ``path`` is incomplete, or ``None`` when it is complete (or
    cannot be read: ``load_run`` reports that)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and data.get("complete") is False:
        return str(data.get("incomplete_reason") or "the run did not judge every answer")
    return None


def gate_failures_of(path: str | Path) -> list[str]:
    """The gate failures saved with the run at ``path`` (empty when its gate passed, or the
    file cannot be read: ``load_run`` reports that)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    failures = data.get("gate_failures") if isinstance(data, dict) else None
    return [str(f) for f in failures] if isinstance(failures, list) and failures else []


def _answer_count(path: Path) -> int | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return int(data["figures"]["answers"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _not_a_baseline(path: Path) -> str | None:
    """Why "latest" passes over the saved run at ``path`` (``None``: it may be picked)."""
    reason = incomplete_reason(path)
    if reason is not None:
        return f"incomplete: {reason}"
    if gate_failures_of(path):
        return "its gate failed"
    if _answer_count(path) == 0:
        return "it judged no answer"
    try:  # a run re-judged by another judge (``runs.rejudge``) is a copy, not a baseline
        if isinstance(json.loads(path.read_text(encoding="utf-8")).get("rejudged"), dict):
            return "a re-judged copy of another run"
    except (OSError, ValueError, AttributeError):
        pass
    return None


def _skipped_note(skipped: list[tuple[Path, str]]) -> list[str]:
    if not skipped:
        return []
    shown = ", ".join(f"{p.stem} ({why})" for p, why in skipped[:5])
    more = f" and {len(skipped) - 5} more" if len(skipped) > 5 else ""
    return [f"note: the latest saved run skipped {len(skipped)} newer run(s) that cannot be a "
            f"baseline: {shown}{more}"]


def _failed_gate_warning(path: Path) -> list[str]:
    failures = gate_failures_of(path)
    if not failures:
        return []
    return [f"WARNING: comparing with saved run {path.stem}, which FAILED its gate "
            f"({'; '.join(failures)[:300]}): a regression measured against a failed run can "
            "hide a worse result"]


def _refuse_incomplete(path: Path) -> Path:
    reason = incomplete_reason(path)
    if reason is not None:
        raise BaselineError(f"saved run {path} is incomplete ({reason}): an incomplete run is "
                            "never used as a baseline; compare with a complete run")
    return path


def find_run(storage: str | Path, ref: str | None = None, *,
             rootdir: str | Path | None = None) -> Path:
    """``resolve_run`` without its notes."""
    return resolve_run(storage, ref, rootdir=rootdir)[0]


def resolve_run(storage: str | Path, ref: str | None = None, *,
                rootdir: str | Path | None = None) -> tuple[Path, list[str]]:
    """Resolve a run reference to a saved run file, with notes for people.

    Incomplete runs (``SavedRun.complete`` false) are never returned: the latest skips them,
    an explicit reference to one refuses. The latest (no ``ref``, or a run name) also passes
    over runs whose gate failed or that judged no answer, so that a regressed run saved by
    ``--faithfulness-autosave`` or an ``if: always()`` step never becomes the baseline that
    the next run is compared with; a note names the runs skipped. A counter, file stem or
    path naming a failed run explicitly is returned, with a ``WARNING`` note.

    Returns:
        ``(path, notes)``: notes are terminal lines, ``WARNING`` first for loud ones.

    Args:
        storage: the storage folder.
        ref: ``None`` or ``""``: the latest complete saved run; a path to a JSON file
            (absolute, relative to the working directory or to ``rootdir``); a counter (``3``
            or ``0003``); a file stem (``0003_main``); or a run name (``main``: the latest
            complete run saved under it).
        rootdir: a second base for relative paths.

    Raises:
        BaselineError: nothing matches (the message lists what is saved), or the reference
            names an incomplete run (the message says why it is incomplete).
    """
    runs = list_runs(storage)

    def latest(paths: list[Path]) -> tuple[Path | None, list[tuple[Path, str]]]:
        skipped: list[tuple[Path, str]] = []
        for path in reversed(paths):
            why = _not_a_baseline(path)
            if why is None:
                return path, skipped
            skipped.append((path, why))
        return None, skipped

    def explicit(path: Path) -> tuple[Path, list[str]]:
        return _refuse_incomplete(path), _failed_gate_warning(path)

    if not ref:
        found, skipped = latest(runs)
        if found is None:
            what = f"complete saved run in {storage} whose gate passed ({len(runs)} skipped: " \
                f"{', '.join(f'{p.stem} ({why})' for p, why in skipped[:5])})" if runs \
                else f"saved run in {storage}"
            raise BaselineError(f"no {what}: save one first with --faithfulness-save NAME or "
                                "--faithfulness-autosave, or name one explicitly")
        return found, _skipped_note(skipped)
    candidates = [Path(ref)] + ([Path(rootdir) / ref] if rootdir is not None else [])
    for candidate in candidates:
        if candidate.suffix == ".json" and candidate.is_file():
            return explicit(candidate)
    if ref.isdigit():
        for path in runs:
            if _run_parts(path.name)[0] == int(ref):
                return explicit(path)
    for path in runs:
        if path.stem == ref or path.name == ref:
            return explicit(path)
    try:
        slug = safe_name(ref)
    except ValueError:
        slug = None
    named = [p for p in runs if _run_parts(p.name)[1] == slug]
    if named:
        found, skipped = latest(named)
        if found is not None:
            return found, _skipped_note(skipped)
        # none under the name can be a baseline: the latest complete one, loudly
        complete = [p for p in reversed(named) if incomplete_reason(p) is None]
        return explicit(complete[0] if complete else named[-1])
    saved = ", ".join(p.stem for p in runs[-10:]) or "none"
    raise BaselineError(f"no saved run matches {ref!r} in {storage} (saved: {saved})")


def validation_problems(exc: ValidationError, limit: int = 5) -> str:
    """A pydantic ``ValidationError`` in one line: each field's path, what is wrong and the
    value found (shortened), e.g. ``answers: Input should be a valid list (got 'nope')``."""
    errors = exc.errors()
    parts = []
    for error in errors[:limit]:
        where = ".".join(str(p) for p in error.get("loc", ())) or "the whole record"
        shown = repr(error.get("input"))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        parts.append(f"{where}: {error.get('msg', 'invalid')} (got {shown})")
    more = f"; and {len(errors) - limit} more" if len(errors) > limit else ""
    return "; ".join(parts) + more


def load_run(path: str | Path, *, signing_key: Any = _FROM_ENV) -> SavedRun:
    """Read a saved run file and check its signature.

    Args:
        path: the file.
        signing_key: the key to check a signature with (default: ``FAITHFULNESS_CACHE_KEY``;
            ``None``: none). The run's ``trust`` says what was found: ``"signed"`` (checked),
            ``"unsigned"``, ``"unchecked"`` (signed, no key to check it).

    Raises:
        RunSignatureError: the file is signed and its signature does not match under the key
            (edited after it was saved, or signed under another key).
        BaselineError: the file is unreadable, not JSON (or nested too deeply to read), or not
            a saved run (the message names the file and what is wrong).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise BaselineError(f"cannot read saved run {path}: its JSON is nested too deeply "
                            "to be a saved run") from None
    except (OSError, ValueError) as exc:
        raise BaselineError(f"cannot read saved run {path}: {exc}") from exc
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith(
            "pytest-faithfulness-run-"):
        what = "a JSON object" if isinstance(data, dict) else f"JSON {type(data).__name__}"
        raise BaselineError(f"{path} is not a saved faithfulness run ({what} with no "
                            f"'format': '{SAVED_RUN_FORMAT}')")
    signature = data.get("signature")
    key = _key(signing_key)
    trust = "unsigned"
    if signature is not None:
        if not isinstance(signature, str):
            raise RunSignatureError(f"saved run {path}: its signature is not a hex string")
        trust = "unchecked"
        if key is not None:
            try:
                expected = run_signature(data, key)
            except (TypeError, ValueError, RecursionError) as exc:
                raise BaselineError(f"saved run {path} is malformed: {exc}") from None
            if not hmac.compare_digest(expected, signature):
                raise RunSignatureError(
                    f"saved run {path}: its signature does not match under "
                    "FAITHFULNESS_CACHE_KEY (the file was edited after it was saved, or "
                    "signed under another key): refused")
            trust = "signed"
    try:
        run = SavedRun.model_validate(data)
    except (ValidationError, RecursionError) as exc:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else \
            validation_problems(exc)
        raise BaselineError(f"saved run {path} is malformed: {detail}") from None
    run._trust = trust
    return run
