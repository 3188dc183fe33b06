"""The console script ``pytest-faithfulness`` (also ``python -m pytest_faithfulness``).

Commands::

    pytest-faithfulness merge RUN... [--expect N] [--allow-mixed] [-c INI] [options]
    pytest-faithfulness cache merge SRC... DEST [--strict]
    pytest-faithfulness cache stats DIR...
    pytest-faithfulness promote FILE --accept ID... --label LABEL [--to LABELS.jsonl]
    pytest-faithfulness estimate [RUN] [--judge MODEL] [--storage DIR] [--cache-dir DIR] [--json]
    pytest-faithfulness rejudge RUN [--judge MODEL] [--storage DIR] [-c INI] [options]

``promote`` appends reviewed draft labels of a run (``runs.promote``) to the calibration
labels file; ``estimate`` prints what the next run would cost (``runs.estimate``).

``merge`` reads the saved runs of a sharded suite (``--faithfulness-save`` in each shard; a
folder stands for every saved run in it), checks that they belong together
(``runs.merge``), and finishes them as pytest finishes a run (``run.finish.finish_run``, the
one end of a run): the same session gate, comparison and compare-fail, the same JSON,
Markdown and HTML reports, pull-request comment and saved run. Its options are pytest's own
``--faithfulness-*`` options of the gate and the outputs (``Settings.merge_options``; also
accepted without the ``faithfulness-`` prefix), and their values default to the same ini keys
of the project's pytest configuration, found as pytest finds it (``pytest.ini``,
``.pytest.ini``, ``pyproject.toml`` with ``[tool.pytest.ini_options]``, ``tox.ini`` with
``[pytest]``, ``setup.cfg`` with ``[tool:pytest]``, from the working directory upwards; or
``-c FILE``). A flag overrides the ini value. Paths of outputs are relative to the working
directory, the storage folder to the rootdir (the configuration file's folder), as in pytest.

Exit status: the same as pytest's for the same run (``run.outcome.exit_status``, the table
in docs/ci.md): 0 passed (or passed with tolerated failures), 1 failed (a threshold missed, a
shard's tests failed, or a shard's own gate failed in a way merge cannot recompute: a conftest
gate hook, the calibration gate), 10 regressed, 11 inconclusive (0 under
``--faithfulness-inconclusive=pass``), 12 unmeasurable, 13 incomplete; a shard's own pytest
status other than 0, 1 and 5 (2 interrupted, 3 internal error) is kept; 4 a usage error (bad
option, shards that do not belong together, a file that is not a saved run or is malformed, a
signed run whose signature does not match, an unsigned run under
``--faithfulness-require-signed-runs``), with no decision file. A usage error is one
``ERROR:`` line, never a traceback.

``estimate`` prints what the next run would cost (calls, cache hits, tokens, price, wall
time) from a saved run and the verdict cache, without calling the judge
(``runs.estimate``; docs/estimate.md). Exit status 0, or 4 for a usage error (no saved run,
a bad option).
``rejudge`` re-verifies a saved run's stored claims against its stored passages with the
judge the options and ini keys configure (``--faithfulness-judge`` and the judge's options, as
pytest builds it), keeping the run's decomposition, and saves the derived run
``<name>@judge-<key>`` in the storage folder, or reuses the one saved for the same run content
and judge fingerprint (``runs.rejudge``; docs/rejudge.md). Exit status 0, or 4.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .errors import UsageError as UsageError  # re-exported: its home before errors.py
from .settings import Settings

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 4

#: The ``Settings`` options ``merge`` reads (flag and ini key, as pytest's): those declared
#: with ``option(..., merge=True)`` (``Settings.merge_options``).
MERGE_OPTIONS = tuple(opt.dest[len("faithfulness_"):] for opt in Settings.merge_options())

# --------------------------------------------------------------------------------------------
# The pytest configuration file, found as pytest finds it.

def _strtobool(value: str) -> bool:
    """pytest's reading of an ini bool: y, yes, t, true, on, 1 / n, no, f, false, off, 0."""
    lowered = value.strip().lower()
    if lowered in ("y", "yes", "t", "true", "on", "1"):
        return True
    if lowered in ("n", "no", "f", "false", "off", "0"):
        return False
    raise ValueError(f"must be a bool (true/false), got {value!r}")


def _read_toml(path: Path) -> dict[str, Any] | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: pytest depends on tomli there
        import tomli as tomllib
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: cannot read it: {exc}") from None
    section = data.get("tool", {}).get("pytest", {}).get("ini_options")
    return dict(section) if isinstance(section, dict) else None


def _read_ini(path: Path, section: str, *, always: bool = False) -> dict[str, Any] | None:
    import iniconfig

    try:
        parsed = iniconfig.IniConfig(str(path))
    except (OSError, iniconfig.ParseError) as exc:
        raise UsageError(f"{path}: cannot read it: {exc}") from None
    if section in parsed:
        return dict(parsed[section].items())
    return {} if always else None


def load_ini(inifile: str | Path | None = None, start: str | Path = ".") \
        -> tuple[Path | None, dict[str, Any]]:
    """The pytest configuration file and its ini values.

    Args:
        inifile: the file to read (``-c``); else the first of ``pytest.ini``,
            ``.pytest.ini``, ``pyproject.toml`` (with ``[tool.pytest.ini_options]``),
            ``tox.ini`` (with ``[pytest]``), ``setup.cfg`` (with ``[tool:pytest]``) in
            ``start`` or a folder above it (pytest's order; a ``pytest.ini`` counts even
            without a ``[pytest]`` section).
        start: where to look from.

    Returns:
        ``(path, values)``: ``(None, {})`` when there is none. Values are strings from ini
        files, TOML values as written in ``pyproject.toml``.

    Raises:
        UsageError: ``inifile`` is missing or unreadable, or a found file cannot be parsed.
    """
    def read(path: Path, *, given: bool) -> dict[str, Any] | None:
        name = path.name
        if name.endswith(".toml"):
            found = _read_toml(path)
            return found if found is not None or not given else {}
        if name in ("pytest.ini", ".pytest.ini"):
            return _read_ini(path, "pytest", always=True)
        if name == "setup.cfg":
            return _read_ini(path, "tool:pytest", always=given)
        return _read_ini(path, "pytest", always=given)

    if inifile is not None:
        path = Path(inifile)
        if not path.is_file():
            raise UsageError(f"-c {inifile}: no such configuration file")
        return path.resolve(), read(path, given=True) or {}
    folder = Path(start).resolve()
    for base in (folder, *folder.parents):
        for name in ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"):
            path = base / name
            if path.is_file():
                values = read(path, given=False)
                if values is not None:
                    return path, values
    return None, {}


def _ini_raw(opt: Any, ini: dict[str, Any]) -> Any:
    """The raw ini value of ``opt`` as pytest's ``getini`` would give it (``None``: unset)."""
    value = ini.get(opt.dest)
    if value is None:
        return None
    if opt.kind == "flag":
        return value if isinstance(value, bool) else _strtobool(str(value))
    if opt.kind == "args":
        return tuple(str(v) for v in value) if isinstance(value, list) \
            else tuple(shlex.split(str(value)))
    text = str(value)
    return text if text.strip() else None


# --------------------------------------------------------------------------------------------
# merge

def _merge_parser(sub: Any) -> argparse.ArgumentParser:
    from .settings import Settings

    parser = sub.add_parser(
        "merge", help="merge the saved runs of a sharded suite into one gate and one report",
        description="Merge the saved runs of a sharded suite (--faithfulness-save in each "
        "shard) into the gate, reports and saved run of one run. Exit status: 0 the gate "
        "passes, 1 it fails, 4 a usage error.")
    parser.add_argument("runs", nargs="+", metavar="RUN",
                        help="saved run files (a folder: every saved run in it)")
    parser.add_argument("--expect", type=int, metavar="N",
                        help="refuse unless exactly N shards are given (a missing shard)")
    parser.add_argument("--allow-mixed", action="store_true",
                        help="merge shards of different judges, prompt versions or commits")
    parser.add_argument("-c", "--config-file", dest="inifile", metavar="FILE",
                        help="the pytest configuration file to read the ini keys from")
    parser.add_argument("--rootdir", metavar="DIR",
                        help="where to look for the configuration file (default: the working "
                        "directory); also the base of a relative storage folder")
    _add_option_flags(parser, Settings.merge_options())  # the options of the gate, outputs
    return parser


def _add_option_flags(parser: argparse.ArgumentParser, options: Iterable[Any]) -> None:
    """Each ``settings`` option as a flag of ``parser`` (``--faithfulness-x`` and ``--x``)."""
    from .settings import LATEST

    for opt in options:
        flags = [opt.flag, "--" + opt.name]
        if opt.kind == "flag":
            parser.add_argument(*flags, dest=opt.dest, action="store_true", default=None,
                                help=opt.help)
        elif opt.kind == "args":
            parser.add_argument(*flags, dest=opt.dest, action="append", default=None,
                                metavar="EXPR", help=opt.help)
        elif opt.argparse.get("nargs") == "?":  # --faithfulness-compare: the latest run
            parser.add_argument(*flags, dest=opt.dest, nargs="?",
                                const=opt.argparse.get("const", LATEST), default=None,
                                metavar=opt.argparse.get("metavar"), help=opt.help)
        else:
            parser.add_argument(*flags, dest=opt.dest, default=None, help=opt.help)


def merge_settings(args: argparse.Namespace) -> Any:
    """The ``settings.Settings`` of ``merge``: each option of ``Settings.merge_options()``
    from its flag, else its ini key, parsed and checked as pytest does
    (``Settings.from_mapping``: output paths, the saved run to compare with, compare-fail
    expressions).

    Raises:
        UsageError: a bad value (naming the flag and the ini key), an output that cannot be
            written, a named saved run that is not there.
    """
    from .settings import Settings

    return settings_from_args(args, Settings.merge_options())


def settings_from_args(args: argparse.Namespace, options: Iterable[Any]) -> Any:
    """The ``settings.Settings`` of a subcommand that declares ``options`` (``_Option``s of
    ``Settings.options()``) as flags (``_add_option_flags``): each from its flag, else its ini
    key (the configuration file found from ``--rootdir`` or ``-c``), checked as pytest does.

    Raises:
        UsageError: a bad value (naming the flag and the ini key), see ``merge_settings``.
    """
    from .settings import ConfigError, Settings

    start = Path(args.rootdir) if args.rootdir else Path.cwd()
    inipath, ini = load_ini(args.inifile, start)
    rootdir = Path(args.rootdir).resolve() if args.rootdir else \
        (inipath.parent if inipath is not None else Path.cwd())
    raw: dict[str, Any] = {}
    for opt in options:
        flag = getattr(args, opt.dest)
        try:
            raw[opt.dest[len("faithfulness_"):]] = \
                (tuple(flag) if opt.kind == "args" else flag) if flag else _ini_raw(opt, ini)
        except ValueError as exc:
            raise UsageError(f"{opt.label()} {exc}") from None
    try:
        return Settings.from_mapping(raw, rootdir=rootdir)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def run_merge(args: argparse.Namespace, out: Any = None) -> int:
    """``pytest-faithfulness merge``: see the module docstring. Returns the exit status.

    Raises:
        UsageError: see ``merge_settings`` and ``runs.merge``.
    """
    from .reports import terminal
    from .run.finish import RunFaces, finish_run
    from .run.gate import THRESHOLDS
    from .run.results import ResultStore
    from .runs.merge import (
        MergeError,
        carried_failures,
        check_shards,
        check_signatures,
        load_shards,
        merge_shards,
        merged_canaries,
        merged_gate,
        merged_git,
        merged_incomplete,
        recheck_coverage,
        recheck_supported,
    )

    out = out or sys.stdout
    settings = merge_settings(args)
    if args.expect is not None and args.expect < 1:
        raise UsageError(f"--expect must be at least 1, got {args.expect}")
    try:
        shards = load_shards(args.runs)
        notes = check_signatures(shards, require_signed=settings.require_signed_runs)
        notes += check_shards(shards, allow_mixed=args.allow_mixed, expect=args.expect)
        gate = merged_gate(shards, settings.gate_config(), _flags_given(args, THRESHOLDS))
        store = merge_shards(shards, ResultStore())
        incomplete = merged_incomplete(shards, args.expect)
        if incomplete:
            store.mark_incomplete(incomplete)
    except MergeError as exc:
        raise UsageError(str(exc)) from None
    except Exception as exc:  # a shard that got past the checks and still breaks the merge
        raise UsageError(f"cannot merge {', '.join(str(p) for p in args.runs)}: a shard is "
                         f"malformed: {type(exc).__name__}: {exc}") from None
    untrusted = recheck_supported(store, shards) + recheck_coverage(store, shards)
    # the conftest gate hooks cannot run here (no pytest session): the failures the shards'
    # hooks and calibration gates gave are carried instead (``runs.merge.carried_failures``)
    outcome = finish_run(store, settings, gate=gate, faces=RunFaces(
        git=merged_git(shards), notes=notes, extra_failures=untrusted,
        carried_failures=carried_failures(shards), canaries=lambda: merged_canaries(shards),
        emit=lambda line: print(line, file=out, flush=True)))
    print(terminal.terminal_text(f"merged {len(shards)} shard(s): "
                                 f"{', '.join(str(s.path) for s in shards)}"), file=out)
    for line in terminal.outcome_lines(outcome):  # sanitised already; an answer's details
        print(line, file=out)                     # keep their own lines, as pytest prints them
    lines = [f"JSON report: {outcome.report_path}"] if outcome.report_path is not None else []
    lines += outcome.notes
    lines += terminal.comparison_lines(outcome.comparison) if outcome.comparison is not None \
        else []
    closing = terminal.closing_lines(outcome,
                                     outcome.verdict(exit_failed=outcome.exitstatus != 0))
    lines += outcome.closing_notes + closing  # drafts: above the outcome and the verdict
    for line in lines:
        print(terminal.terminal_text(line), file=out)
    return EXIT_FAILED if outcome.exitstatus is None else outcome.exitstatus


def _flags_given(args: argparse.Namespace, names: Iterable[str]) -> set[str]:
    """Which of the ``names`` (``Settings`` field names) were set by a flag of ``merge``."""
    return {n for n in names if getattr(args, "faithfulness_" + n, None) is not None}


# --------------------------------------------------------------------------------------------
# cache

def _cache_parser(sub: Any) -> None:
    parser = sub.add_parser("cache", help="verdict caches: merge, stats")
    cache_sub = parser.add_subparsers(dest="cache_command", required=True)
    merge = cache_sub.add_parser(
        "merge", help="copy every entry of the SRC caches into DEST; an entry with the same "
        "key and a verdict that does not agree (label, evidence; claims for a decomposition) "
        "is reported, never overwritten; an unreadable SRC is skipped with a warning")
    merge.add_argument("paths", nargs="+", metavar="SRC... DEST")
    merge.add_argument("--strict", action="store_true",
                       help="exit 1 when entries conflict or a source could not be read "
                       "(default: warn, exit 0)")
    stats = cache_sub.add_parser("stats", help="count a cache's entries by kind and signature")
    stats.add_argument("paths", nargs="+", metavar="DIR")


def run_cache(args: argparse.Namespace, out: Any = None) -> int:
    """``pytest-faithfulness cache merge|stats``. Returns 0, or 1 when a ``--strict`` merge
    met conflicting entries or an unreadable source (reported either way; see
    ``cachemerge``).

    Raises:
        UsageError: too few paths, a source that is not a cache.
    """
    from .cache import signing_key_from_env
    from .cachemerge import CacheToolError, cache_stats, merge_caches

    out = out or sys.stdout
    key = signing_key_from_env()
    try:
        if args.cache_command == "merge":
            if len(args.paths) < 2:
                raise UsageError("cache merge needs at least one SRC and a DEST")
            report = merge_caches(args.paths[:-1], args.paths[-1], signing_key=key)
            for line in report.lines():
                print(line, file=out)
            return EXIT_FAILED if report.failed(args.strict) else EXIT_OK
        for path in args.paths:
            for line in cache_stats(path, signing_key=key).lines():
                print(line, file=out)
        return EXIT_OK
    except CacheToolError as exc:
        raise UsageError(str(exc)) from None


# --------------------------------------------------------------------------------------------
# promote

def _promote_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "promote", help="add reviewed draft labels of a run (faithfulness-promote.jsonl) to "
        "the calibration labels file",
        description="Append the draft labels ID... of FILE (written by a run with failing or "
        "unstable claims) to the claim-level labels file that --faithfulness-calibrate reads, "
        "with the label YOU give: --label is required and never taken from the judge's "
        "verdict, because labels copied from the judge would only measure the judge against "
        "itself. Re-accepting an id the labels file holds with the same label adds nothing; "
        "with another label it is an error. Exit status: 0 done, 4 a usage error (nothing "
        "written).")
    parser.add_argument("file", metavar="FILE", help="the draft labels "
                        "(faithfulness-promote.jsonl)")
    parser.add_argument("--accept", nargs="+", required=True, metavar="ID",
                        help="the ids of the drafts to add (the 'id' of each line of FILE)")
    parser.add_argument("--label", required=True, choices=("supported", "unsupported",
                                                           "contradicted"),
                        help="the human label of the accepted claims (required: the judge's "
                        "verdict is never copied)")
    parser.add_argument("--to", metavar="LABELS.jsonl",
                        help="the labels file to append to (default: the ini key "
                        "faithfulness_calibrate of the pytest configuration)")
    parser.add_argument("-c", "--config-file", dest="inifile", metavar="FILE",
                        help="the pytest configuration file to read faithfulness_calibrate from")


def run_promote(args: argparse.Namespace, out: Any = None) -> int:
    """``pytest-faithfulness promote``: ``runs.promote.accept``. Returns 0.

    Raises:
        UsageError: no ``--to`` and no ini ``faithfulness_calibrate``; see ``accept``.
    """
    from .runs.promote import accept

    out = out or sys.stdout
    to = args.to
    if not to:
        _, ini = load_ini(args.inifile)
        to = str(ini.get("faithfulness_calibrate") or "").strip() or None
    if not to:
        raise UsageError("promote needs --to LABELS.jsonl (or the ini key "
                         "faithfulness_calibrate naming the labels file)")
    try:
        done = accept(args.file, args.accept, args.label, to)
    except OSError as exc:
        raise UsageError(f"cannot write {to}: {exc}") from None
    for line in done.lines():
        print(line, file=out)
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# rejudge

#: The ``Settings`` options ``rejudge`` reads: the judge, as pytest builds it, and the storage.
REJUDGE_OPTIONS = ("judge", "api-base", "timeout", "temperature", "concurrency", "context-budget",
                   "judge-covers", "cache-dir", "no-cache", "cache-mode", "first-filter",
                   "budget-usd", "max-rpm", "max-tpm", "votes", "panel", "storage")


def _rejudge_parser(sub: Any) -> None:
    from .settings import Settings

    parser = sub.add_parser(
        "rejudge", help="re-judge a saved run's claims with the current judge (decomposition "
        "kept), saved as <name>@judge-<key>",
        description="Re-verify every stored claim of a saved run against its stored passages "
        "with the judge the options and ini configure, keeping the run's claims; save the "
        "result as a derived run (<name>@judge-<key>, file NNNN_<name>-judge-<key>.json) in "
        "the storage folder, or reuse the one already saved for the same run and judge. "
        "Exit status: 0 done, 4 a usage error.")
    parser.add_argument("run", metavar="RUN", help="the saved run: a name, counter, file stem "
                        "or path (as --faithfulness-compare takes it)")
    parser.add_argument("--no-split-check", action="store_true",
                        help="do not ask the judge to decompose the old answers to count those "
                        "it would split differently (saves one call per answer)")
    parser.add_argument("-c", "--config-file", dest="inifile", metavar="FILE",
                        help="the pytest configuration file to read the ini keys from")
    parser.add_argument("--rootdir", metavar="DIR",
                        help="where to look for the configuration file (default: the working "
                        "directory); also the base of a relative storage folder")
    _add_option_flags(parser, [o for o in Settings.options() if o.name in REJUDGE_OPTIONS])


def run_rejudge(args: argparse.Namespace, out: Any = None) -> int:
    """``pytest-faithfulness rejudge RUN``: see ``runs.rejudge``. Prints where the derived
    run is and its figures beside the run's. Returns 0.

    Raises:
        UsageError: a bad option, a run that is not there or cannot be re-judged, a judge
            that cannot be built.
    """
    from .errors import BaselineError
    from .run.rejudge import judge_options, open_judge
    from .runs.rejudge import rejudged_baseline
    from .runs.saved import load_run, resolve_run
    from .settings import Settings

    out = out or sys.stdout
    settings = settings_from_args(
        args, [o for o in Settings.options() if o.name in REJUDGE_OPTIONS])
    rootdir = Path(args.rootdir).resolve() if args.rootdir else None
    try:
        path, notes = resolve_run(settings.storage_path, args.run, rootdir=rootdir)
        baseline = load_run(path)
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    try:
        judge, close = open_judge(settings)
    except Exception as exc:
        raise UsageError(f"cannot build the judge {settings.judge!r}: "
                         f"{type(exc).__name__}: {exc}") from None
    try:
        found = rejudged_baseline(baseline, judge, settings.storage_path, baseline_path=path,
                                  check_splits=not args.no_split_check,
                                  **judge_options(settings, judge))
    except BaselineError as exc:
        raise UsageError(str(exc)) from None
    finally:
        close()
    before, after = baseline.figures, found.run.figures
    lines = [*notes, f"re-judged {baseline.label()} with {found.run.judges[0].description}"
             f" as {found.run.name}" + (" (reused)" if found.reused else ""), *found.notes]
    for key, label in (("mean_faithfulness", "mean faithfulness"),
                       ("unsupported_answer_rate", "share of answers with a claim not "
                        "supported"), ("errored", "errored answers")):
        old, new = getattr(before, key), getattr(after, key)
        shown = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in (old, new)]
        lines.append(f"  {label}: {shown[0]} (old judge) -> {shown[1]} (this judge)")
    for line in lines:
        print(line, file=out)
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# estimate

#: The ``Settings`` options ``estimate`` reads (flag and ini key, as pytest's).
ESTIMATE_OPTIONS = ("judge", "panel", "votes", "first_filter", "api_base", "temperature",
                    "cache_dir", "no_cache", "cache_mode", "concurrency", "context_budget",
                    "max_rpm", "max_tpm", "canaries", "storage")


def _estimate_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "estimate", help="what the next run would cost, from a saved run and the cache",
        description="Estimate the judge calls, cache hits, tokens, cost (litellm's price map) "
        "and wall time of judging a saved run's answers again with the configured judge, "
        "without calling it. Exit status: 0, or 4 for a usage error.")
    parser.add_argument("run", nargs="?", default=None, metavar="RUN",
                        help="a saved run: name, counter or file (default: the latest)")
    parser.add_argument("-c", "--config-file", dest="inifile", metavar="FILE",
                        help="the pytest configuration file to read the ini keys from")
    parser.add_argument("--rootdir", metavar="DIR",
                        help="where to look for the configuration file (default: the working "
                        "directory); also the base of relative storage and cache folders")
    parser.add_argument("--latency", type=float, default=None, metavar="SECONDS",
                        help="seconds per judge call for the wall time (default 1.0 for a "
                        "model judge; saved runs do not record it)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="processes judging at once (pytest -n N; default 1)")
    parser.add_argument("--json", action="store_true", help="print the estimate as JSON")
    _add_option_flags(parser, _estimate_options())


def _estimate_options() -> list[Any]:
    from .settings import Settings

    return [o for o in Settings.options() if o.dest[len("faithfulness_"):] in ESTIMATE_OPTIONS]


def run_estimate(args: argparse.Namespace, out: Any = None) -> int:
    """``pytest-faithfulness estimate``: print the estimate (``runs.estimate``). Returns 0.

    Raises:
        UsageError: no saved run (or none matching RUN), a bad option, a run that cannot be
            estimated.
    """
    import json

    from .cache import signing_key_from_env
    from .runs.estimate import (
        EstimateConfig,
        EstimateError,
        estimate_run,
        latest_run,
        named_run_notes,
    )
    from .runs.saved import BaselineError, load_run, resolve_run

    out = out or sys.stdout
    settings = settings_from_args(args, _estimate_options())
    if args.latency is not None and not 0 <= args.latency < float("inf"):
        raise UsageError(f"--latency must be a number of seconds >= 0, got {args.latency}")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    try:
        if args.run:
            path, notes = resolve_run(settings.storage_path, args.run, rootdir=args.rootdir)
            notes = named_run_notes(path, notes)
        else:
            path, notes = latest_run(settings.storage_path)
        run = load_run(path)
    except BaselineError as exc:
        raise UsageError(f"estimate needs a saved run: {exc}") from None
    config = EstimateConfig(
        judge=settings.judge, panel=settings.panel, votes=settings.votes,
        first_filter=settings.first_filter, api_base=settings.api_base,
        temperature=settings.temperature,
        cache_dir=None if settings.no_cache else settings.cache_path,
        cache_mode=settings.cache_mode, concurrency=settings.concurrency,
        context_budget=settings.context_budget, max_rpm=settings.max_rpm,
        max_tpm=settings.max_tpm, canaries=settings.canaries, latency_s=args.latency,
        workers=args.workers, signing_key=signing_key_from_env())
    try:
        estimate = estimate_run(run, config, run_path=path)
    except EstimateError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({**estimate.as_json(), "notes": notes}, indent=2), file=out)
    else:
        for line in [*notes, *estimate.lines()]:
            print(line, file=out)
    return EXIT_OK


# --------------------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """The ``pytest-faithfulness`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="pytest-faithfulness",
        description="Merge the saved runs of a sharded faithfulness suite; merge verdict "
        "caches; re-judge a saved run with the current judge; promote reviewed draft labels "
        "into the calibration set; estimate the next run's bill.")
    sub = parser.add_subparsers(dest="command", required=True)
    _merge_parser(sub)
    _cache_parser(sub)
    _promote_parser(sub)
    _estimate_parser(sub)
    _rejudge_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the console script; returns the exit status (0, 1, or 4 for a usage error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help exits 0, a bad command line 2
        code = exc.code if isinstance(exc.code, int) else EXIT_USAGE
        return EXIT_OK if code == 0 else EXIT_USAGE
    try:
        if args.command == "merge":
            return run_merge(args)
        if args.command == "promote":
            return run_promote(args)
        if args.command == "estimate":
            return run_estimate(args)
        if args.command == "rejudge":
            return run_rejudge(args)
        return run_cache(args)
    except UsageError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
