"""The run's outputs: the JSON report, the Markdown summary, the HTML report, the
pull-request comment, the saved run, the ``$GITHUB_STEP_SUMMARY`` append (kept under GitHub's
1 MiB) and, in GitHub Actions, the error annotations of the worst failing answers.

Every report reads the one ``outcome.RunOutcome``. Each output is written on its own and
atomically (``reports.files``); one that fails never stops the others: its reason becomes a
gate failure and the reports already written are written again so that they show it too.
Nothing here imports pytest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .outcome import RunOutcome
from .results import ResultStore


@dataclass(frozen=True)
class OutputFiles:
    """Where the run's outputs go (``None``: not written).

    Attributes:
        markdown / html / pr_comment: the report files.
        step_summary: GitHub's ``$GITHUB_STEP_SUMMARY`` file, appended to.
        storage: the saved runs' folder; save_name: this run's name there.
        git: the run's ``runs.saved.GitInfo`` (or ``None``), kept in the saved run.
        decision: the decision file (``write_decision``), written last.
        github_annotations: print GitHub's workflow commands for the worst failing answers
            (``reports.annotations``; in GitHub Actions: ``GITHUB_ACTIONS=true``).
    """

    markdown: str | Path | None = None
    html: str | Path | None = None
    pr_comment: str | Path | None = None
    step_summary: str | Path | None = None
    storage: str | Path | None = None
    save_name: str | None = None
    git: Any = None
    decision: str | Path | None = None
    github_annotations: bool = False


def saved_run(store: ResultStore, outcome: RunOutcome, name: str, git: Any = None, *,
              full: bool = True) -> Any:
    """The run as a ``runs.saved.SavedRun`` named ``name`` (``git``: a ``GitInfo``);
    ``full=False`` leaves out the full answer records (``SavedRun.results``)."""
    from ..runs.saved import SavedRun

    index = {id(r): i for i, r in enumerate(outcome.results)}
    return SavedRun.of(outcome.results, outcome.summary, name=name, judges=store.judge_info(),
                       git=git, gate_failures=outcome.failures,
                       incomplete_reason=outcome.incomplete, judge_names=outcome.judges,
                       silent_misses=[index[id(r)] for r in outcome.silent if id(r) in index],
                       expected_misses=[index[id(r)] for r in outcome.expected
                                        if id(r) in index],
                       test_exitstatus=outcome.test_exitstatus, full=full, gate=outcome.gate,
                       local_failures=outcome.local_failures,
                       failure_kinds=dict(outcome.reason_kinds),
                       canaries=outcome.canaries, golden_tests=store.golden.to_dict())


def save_run(store: ResultStore, outcome: RunOutcome, storage: str | Path, name: str,
             git: Any = None) -> Path:
    """Save the run in the ``storage`` folder (``NNNN_<name>.json``), with a note in
    ``outcome.notes``; returns the path.

    Raises:
        ValueError: ``name`` has no usable character. OSError: the folder is not writable.
    """
    from ..runs.saved import save_run as save

    path: Path = save(saved_run(store, outcome, name, git), storage)
    if outcome.incomplete:
        outcome.notes.append(f"WARNING: saved run {path} is marked incomplete: it will not "
                             "be used as a baseline")
    elif outcome.failures:
        outcome.notes.append(f"WARNING: saved run {path} failed its gate: it will never be "
                             "picked as the latest baseline (name it to compare with it)")
    else:
        outcome.notes.append(f"saved run: {path}")
    return path


def write_report(outcome: RunOutcome) -> Path | None:
    """Write the JSON report to ``outcome.report_path`` (if set); returns the path."""
    from ..reports.json import json_of, write_json

    if outcome.report_path is None:
        return None
    written: Path = write_json(outcome.report_path, json_of(outcome))
    return written


def write_markdown(outcome: RunOutcome, path: str | Path | None = None,
                   step_summary: str | Path | None = None, *,
                   full_report: str | Path | None = None) -> None:
    """Write the Markdown summary to ``path`` and append it to ``step_summary``; either may be
    ``None``. A step summary that cannot be written is noted, not raised. What is appended is
    cut to fit GitHub's 1 MiB per step with what the file holds already
    (``reports.markdown.fit_markdown``; its note names ``full_report``, default ``path``).

    Raises:
        OSError: ``path`` cannot be written.
    """
    from ..reports.files import write_text
    from ..reports.markdown import markdown_of

    if path is None and step_summary is None:
        return
    text = markdown_of(outcome)
    if path is not None:
        outcome.notes.append(f"Markdown summary: {write_text(path, text)}")
    if step_summary is not None:
        try:
            write_text(step_summary, step_summary_text(
                text, step_summary, full_report if full_report is not None else path),
                append=True)
        except OSError as exc:
            outcome.notes.append(f"WARNING: could not append to $GITHUB_STEP_SUMMARY "
                                 f"({step_summary}): {exc}")


def step_summary_text(text: str, step_summary: str | Path,
                      full_report: str | Path | None) -> str:
    """``text`` cut to what ``step_summary`` can still take under GitHub's limit
    (``reports.markdown.STEP_SUMMARY_LIMIT``, less its size now and the blank line before)."""
    from ..reports.markdown import STEP_SUMMARY_LIMIT, fit_markdown

    try:
        held = Path(step_summary).stat().st_size
    except OSError:
        held = 0
    room = STEP_SUMMARY_LIMIT - held - (1 if held else 0)
    return fit_markdown(text, room, full_report=str(full_report) if full_report else None)


def write_annotations(outcome: RunOutcome, emit: Callable[[str], Any] | None = None) -> int:
    """Print the GitHub Actions workflow commands of the run
    (``reports.annotations.annotation_lines``), each through ``emit`` (default: a line on
    standard output). Returns how many lines were printed."""
    from ..reports.annotations import annotation_lines

    lines = annotation_lines(outcome)
    for line in lines:
        if emit is not None:
            emit(line)
        else:
            print(line, flush=True)
    return len(lines)


def write_html(outcome: RunOutcome, path: str | Path) -> Path:
    """Write the HTML report to ``path``; returns the path.

    Raises:
        OSError: ``path`` cannot be written.
    """
    from ..reports.html import html_of
    from ..reports.html import write_html as write

    written: Path = write(path, html_of(outcome))
    outcome.notes.append(f"HTML report: {written}")
    return written


def write_pr_comment(outcome: RunOutcome, path: str | Path,
                     html: str | Path | None = None) -> Path:
    """Write the pull-request comment to ``path`` (``html``: the HTML report's path, named in
    the pointer to the details); returns the path.

    Raises:
        OSError: ``path`` cannot be written.
    """
    from ..reports.files import write_text
    from ..reports.pr_comment import pr_comment_of, run_page_url

    text = pr_comment_of(outcome, html_report=str(html) if html else None,
                         run_url=run_page_url())
    written: Path = write_text(path, text)
    outcome.notes.append(f"pull-request comment: {written}")
    return written


def write_outputs(store: ResultStore, outcome: RunOutcome, files: OutputFiles, *,
                  emit: Callable[[str], Any] | None = None) -> list[str]:
    """Write every configured output, each on its own: the JSON report
    (``outcome.report_path``), the Markdown summary, the HTML report, the pull-request
    comment, the saved run (never a run that judged no answer: a note says so), then the
    ``$GITHUB_STEP_SUMMARY`` append and, with ``files.github_annotations``, the annotations
    (``write_annotations`` through ``emit``; one that cannot be printed is noted). Each is
    written even when no answer was judged. One that fails (any exception) never stops the
    others: its reason becomes a gate failure (``could not write the HTML report (PATH):
    ...``), its temporary file is removed, and the reports already written are written again
    so that they show the failure too. A report that cannot be written (a full disk) is
    removed rather than left as it was (an earlier run's, or this run's before the failure:
    one that may say the gate passed).

    Returns:
        the reasons of the outputs that failed (also added to ``outcome.failures``).
    """
    jobs: list[tuple[str, Any, Callable[[], Any], bool]] = []
    if outcome.report_path is not None:
        jobs.append(("JSON report", outcome.report_path, lambda: write_report(outcome), True))
    if files.markdown:
        markdown = files.markdown
        jobs.append(("Markdown summary", markdown,
                     lambda: write_markdown(outcome, markdown), True))
    if files.html:
        html = files.html
        jobs.append(("HTML report", html, lambda: write_html(outcome, html), True))
    if files.pr_comment:
        comment = files.pr_comment
        jobs.append(("pull-request comment", comment,
                      lambda: write_pr_comment(outcome, comment, files.html), True))
    name = files.save_name
    if name and not outcome.results:
        outcome.notes.append(f"WARNING: run not saved as {name!r}: no answer was judged, and "
                             "an empty run is never a baseline")
    elif name:
        jobs.append(("saved run", files.storage,
                     lambda: save_run(store, outcome, files.storage or ".faithfulness", name,
                                      files.git), False))
    failed: list[str] = []
    written: list[tuple[str, Any, Callable[[], Any], bool]] = []
    for job in jobs:
        reason = attempt(job[0], job[1], job[2], stale=job[3])
        if reason is None:
            written.append(job)
        else:
            failed.append(reason)
    if failed:
        outcome.add_failures(failed)
        notes = list(outcome.notes)
        for what, where, write, rewritable in written:
            if rewritable:
                reason = attempt(what, where, write, stale=True)
                if reason is not None:
                    outcome.add_failures([reason])
                    failed.append(reason)
        outcome.notes[:] = notes
    if files.step_summary:
        try:
            write_markdown(outcome, None, files.step_summary,
                           full_report=files.markdown or files.html or outcome.report_path)
        except Exception as exc:  # noted, never a gate failure: it is GitHub's page
            outcome.notes.append(f"WARNING: could not append to $GITHUB_STEP_SUMMARY "
                                 f"({files.step_summary}): {type(exc).__name__}: {exc}")
    if files.github_annotations:
        try:
            write_annotations(outcome, emit)
        except Exception as exc:  # noted, never a gate failure: the reports say it all
            outcome.notes.append(f"WARNING: could not write the GitHub annotations: "
                                 f"{type(exc).__name__}: {exc}")
    return failed


def write_decision(outcome: RunOutcome, path: str | Path | None) -> str | None:
    """Write the run's decision (``RunOutcome.decision``) to ``path`` as JSON, last, once the
    exit status is final. One that cannot be written fails the gate (kind ``failed``) and any
    earlier file there is removed (it may say the run passed). Returns the failure reason, or
    ``None`` (written, or no ``path``)."""
    from ..reports.json import write_json

    if path is None:
        return None
    reason = attempt("decision file", path, lambda: write_json(path, outcome.decision()),
                     stale=True)
    if reason is None:
        outcome.notes.append(f"decision ({outcome.kind}): {path}")
        return None
    outcome.add_failures([reason])
    return reason


def attempt(what: str, where: Any, write: Callable[[], Any], *,
            stale: bool = False) -> str | None:
    """Run one output's ``write``; on any exception remove its temporary file and, with
    ``stale`` (a report file, not the storage folder), the file already at ``where``: an
    earlier version of the report must not be left behind saying something this run did not
    (the gate passed). Returns the reason (``None`` when it was written)."""
    try:
        write()
        return None
    except Exception as exc:  # one failing output never stops the others
        reason = f"could not write the {what} ({where}): {type(exc).__name__}: {exc}"
        if where is not None:
            target = Path(where)
            try:
                target.with_name(target.name + ".tmp").unlink(missing_ok=True)
            except (OSError, ValueError):
                pass
            if stale:
                try:  # removing a file needs no space, so this works on a full disk
                    if target.is_file() or target.is_symlink():
                        target.unlink()
                        reason += "; the earlier file there was removed"
                except OSError as gone:
                    reason += (f"; the earlier file there could not be removed ({gone}): "
                               "do not trust it")
        return reason
