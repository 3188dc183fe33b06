"""The plugin's settings: one typed, frozen object built once per run.

Every option is one field of ``Settings`` declared with ``option(...)``: that one line gives
the command-line flag ``--faithfulness-<name>``, the ini key ``faithfulness_<name>`` (dashes as
underscores; the flag wins over the ini value), the help text, the parser that validates
the value and whether ``pytest-faithfulness merge`` reads it (``merge=True``: the session
gate and the outputs). ``Settings.from_mapping`` parses and checks the raw values; both faces
feed it: the plugin from the pytest config (``plugin.options``), ``merge`` from its flags and
the ini file (``cli``). A bad value is a ``ConfigError`` naming the flag and the ini key
(pytest shows it as a usage error, before any test runs; ``merge`` exits 4).

This module does not import pytest.

Fields without ``option(...)`` are derived at start-up (resolved folders, the saved run to
compare with). This module imports neither pydantic nor litellm (pytest start-up stays
cheap); the parts that need them are imported only when their option is given.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .errors import ConfigError as ConfigError  # a bad value: the message names flag and ini key
from .errors import RunEditedError
from .judges.builtin import BUILTIN_JUDGES as BUILTIN_JUDGE_TABLE
from .judges.names import check_judge_name as check_judge_name

#: ``--faithfulness-compare`` given without a value: the latest saved run.
LATEST = "@latest"
#: The names of the judges built into the package (any other name is a litellm model string);
#: the table is ``judges.builtin.BUILTIN_JUDGES``.
BUILTIN_JUDGES = tuple(BUILTIN_JUDGE_TABLE)
#: Modules the ``offline-nli`` judge needs (the ``[offline]`` extra, see pyproject.toml).
OFFLINE_NLI_MODULES = BUILTIN_JUDGE_TABLE["offline-nli"].needs
OFFLINE_EXTRA_HINT = "pip install 'pytest-faithfulness[offline]'"


@dataclasses.dataclass(frozen=True)
class _Option:
    name: str  # the flag suffix: --faithfulness-<name>
    help: str
    parse: Callable[[Any], Any]
    kind: str  # "string", "flag" (store_true / ini bool), "args" (repeatable / ini args)
    argparse: dict[str, Any]
    merge: bool = False  # read by ``pytest-faithfulness merge`` (the gate and the outputs)

    @property
    def dest(self) -> str:
        return "faithfulness_" + self.name.replace("-", "_")

    @property
    def flag(self) -> str:
        return f"--faithfulness-{self.name}"

    def label(self) -> str:
        """How a message names it: ``--faithfulness-x (ini faithfulness_x)``."""
        return f"{self.flag} (ini {self.dest})"


def _text(raw: Any) -> str:
    return str(raw).strip()


def option(name: str, help: str, parse: Callable[[Any], Any] = _text, *, kind: str = "string",
           default: Any = None, merge: bool = False, **argparse: Any) -> Any:
    """Declare a ``Settings`` field as an option (flag, ini key, help, parser).

    Args:
        name: the flag suffix (``"min-mean"`` gives ``--faithfulness-min-mean`` and the ini
            key ``faithfulness_min_mean``).
        help: the help text (flag and ini).
        parse: turns the raw text into the typed value; raises ``ValueError`` with a message
            such as ``"must be a number, got 'x'"`` (the flag and ini key are prefixed).
        kind: ``"string"``, ``"flag"`` (a switch; ini bool) or ``"args"`` (repeatable; ini
            args, the value is a list of strings).
        default: the value when neither the flag nor the ini key is given.
        merge: whether ``pytest-faithfulness merge`` reads it too (an option of the session
            gate or of the outputs).
        argparse: extra ``addoption`` arguments (``nargs``, ``const``, ``metavar``).
    """
    meta = _Option(name, help, parse, kind, argparse, merge)
    return dataclasses.field(default=default, metadata={"option": meta})


def number(low: float | None = None, high: float | None = None) -> Callable[[Any], float]:
    """A parser for a finite number in ``[low, high]``."""
    return _bounded(float, "a number", low, high)


def integer(low: int | None = None) -> Callable[[Any], int]:
    """A parser for an integer of at least ``low``."""
    return _bounded(int, "an integer", low, None)


def _bounded(kind: type, kind_name: str, low: float | None, high: float | None):
    def parse(raw: Any) -> Any:
        try:
            value = kind(str(raw).strip())
        except (TypeError, ValueError):
            raise ValueError(f"must be {kind_name}, got {raw!r}") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"must be a finite number, got {raw!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise ValueError(f"must be {bound}, got {raw!r}")
        return value

    return parse


def first_filter_mode(raw: Any) -> str:
    """A parser for ``--faithfulness-first-filter``: ``auto``, ``on`` or ``off``; an ini
    boolean (true/false, yes/no, 1/0) reads as on/off."""
    value = str(raw).strip().lower()
    value = {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off",
             "0": "off"}.get(value, value)
    if value not in ("auto", "on", "off"):
        raise ValueError(f"must be auto, on or off, got {raw!r}")
    return value


def choice(*allowed: str) -> Callable[[Any], str]:
    """A parser for one of ``allowed``."""
    def parse(raw: Any) -> str:
        value = str(raw).strip()
        if value not in allowed:
            raise ValueError(f"must be {', '.join(allowed[:-1])} or {allowed[-1]}, got {raw!r}")
        return value

    return parse


def judge_list(raw: Any) -> tuple[str, ...]:
    """A parser for comma-separated judge names, each at most once: a judge named twice in a
    panel would cast two votes, so one model could outvote the others."""
    members = tuple(m.strip() for m in str(raw).split(",") if m.strip())
    repeated = sorted({m for m in members if members.count(m) > 1})
    if repeated:
        raise ValueError(f"names {', '.join(repeated)} more than once (one judge, one vote), "
                         f"got {raw!r}")
    return members


def url(raw: Any) -> str:
    """A parser for an ``http://`` or ``https://`` URL with a host (an API base URL).

    ``127.0.0.1:18081/v1`` (no scheme) is refused: an HTTP client would read ``127.0.0.1`` as
    the scheme and fail only at the first judge call.
    """
    from urllib.parse import urlsplit

    value = str(raw).strip()
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as exc:
        raise ValueError(f"must be an http:// or https:// URL, got {raw!r} ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"must be an http:// or https:// URL with a host (for example "
                         f"http://127.0.0.1:8080/v1), got {raw!r}")
    return value


def covers(raw: Any) -> tuple[str, ...]:
    """A parser for what a judge covers (``judges.coverage.parse_covers``, imported here)."""
    from .judges.coverage import parse_covers
    return parse_covers(raw)


#: Options that only an LLM judge reads: with a built-in offline judge they do nothing.
LLM_ONLY_OPTIONS = ("api_base", "timeout", "temperature", "budget_usd", "max_rpm", "max_tpm",
                    "max_rate_limit_wait")


@dataclasses.dataclass(frozen=True)
class Settings:
    """Every setting of the plugin, typed and validated (see the module docstring).

    Built once per process by ``from_mapping`` (the plugin: ``plugin.options``) and kept in
    ``config.stash``; read it with ``plugin.get_settings(config)``. Numbers are floats or ints
    as declared; paths given on the command line stay strings as given, ``storage`` and
    ``cache_dir`` are resolved against the rootdir.
    """

    judge: str = option("judge", "judge: 'offline' (embedded, calibrated, default), "
                        "'offline-heuristic' (embedded rules alone), 'offline-nli' "
                        "(experimental, [offline] extra) or a litellm model string such as "
                        "openai/gpt-4o-mini", default="offline")
    api_base: str | None = option("api-base", "OpenAI-compatible base URL for the LLM judge "
                                  "(default: the provider's), e.g. http://127.0.0.1:8080/v1",
                                  url)
    timeout: float | None = option("timeout", "seconds per LLM judge request (default 60)",
                                   number(0.001))
    temperature: float | None = option("temperature", "sampling temperature of the LLM judge "
                                       "(>= 0, default 0; not sent to models that do not "
                                       "accept it, such as OpenAI's o-series)", number(0))
    concurrency: int | None = option("concurrency", "most verify calls in flight per answer "
                                     "(default 8)", integer(1))
    min_score: float | None = option("min-score", "default min_score for assert_faithful "
                                     "(faithfulness in [0, 1])", number(0, 1))
    max_unsupported: int | None = option("max-unsupported", "default max_unsupported for "
                                         "assert_faithful (claims not supported); with neither "
                                         "bound set, every claim must be supported",
                                         integer(0))
    require_claims: bool = option("require-claims", "an answer with no claims to score fails "
                                  "assert_faithful", kind="flag", default=False)
    min_mean: float | None = option("min-mean", "session gate: lowest mean faithfulness over "
                                    "scored answers", number(0, 1), merge=True)
    max_unsupported_rate: float | None = option(
        "max-unsupported-rate", "session gate: highest share of scored answers with a claim "
        "that is not supported", number(0, 1), merge=True)
    max_unscored_rate: float | None = option(
        "max-unscored-rate", "session gate: highest share of answers with no claim to score "
        "(default 0.5 when another session threshold is set, else none)", number(0, 1), merge=True)
    min_citation_precision: float | None = option(
        "min-citation-precision", "session gate: lowest citation precision (claims a cited "
        "passage supports / claims that cite a passage)", number(0, 1), merge=True)
    max_misattributed: int | None = option(
        "max-misattributed", "session gate: most claims supported, but not by a passage they "
        "cite", integer(0), merge=True)
    max_unstable: int | None = option(
        "max-unstable", "session gate: most claims whose votes disagree (unstable, with "
        "--faithfulness-votes 2 or more or a panel); a run with no claim judged by votes "
        "cannot meet it", integer(0), merge=True)
    max_unstable_rate: float | None = option(
        "max-unstable-rate", "session gate: highest share of the claims judged by votes whose "
        "votes disagree; a run with no claim judged by votes cannot meet it", number(0, 1),
        merge=True)
    max_unverified_rate: float | None = option(
        "max-unverified-rate", "session gate: highest share of answers outside their judge's "
        "coverage (unverified; default 0 with another session threshold)", number(0, 1), merge=True)
    judge_covers: tuple[str, ...] = option(
        "judge-covers", "what the judge covers beyond its declaration (built in: English prose, "
        "tables): ISO 639-1 codes (* any language), code, json, tool_output", covers, default=())
    conversation_window: int | None = option(
        "conversation-window", "assert_faithful_conversation: how many of the latest turns' "
        "passages each turn is judged against (default: every turn so far)", integer(1))
    cache_dir: str | None = option("cache-dir", "verdict cache directory (default "
                                   ".faithfulness_cache under the rootdir)")
    no_cache: bool = option("no-cache", "do not read or write the verdict cache", kind="flag",
                            default=False)
    cache_mode: str = option("cache-mode", "rw (read and write, default), replay (read only: a "
                             "miss is an error, no judge call) or refresh (call the judge for "
                             "everything, overwrite)", choice("rw", "replay", "refresh"),
                             default="rw")
    first_filter: str = option("first-filter", "settle a claim as supported without a judge "
                               "call when one passage sentence states it word for word "
                               "(numbers, names, order and polarity bound as in the claim): "
                               "auto (default: on for judges whose calls cost, such as the "
                               "litellm judge; off for the offline judges), on or off "
                               "(true/false also read)", first_filter_mode, default="auto")
    budget_usd: float | None = option("budget-usd", "stop making new LLM judge calls once this "
                                      "many US dollars are spent (litellm's bundled prices); "
                                      "the gate then fails", number(0))
    context_budget: int | None = option("context-budget", "most characters of passages per "
                                        "verify call; longer passage lists are split across "
                                        "calls, never truncated", integer(1))
    report: str | None = option("report", "write every claim and verdict as JSON to this path",
                                merge=True)
    markdown: str | None = option("markdown", "write a Markdown summary to this path (it is "
                                  "also appended to $GITHUB_STEP_SUMMARY when that variable "
                                  "is set)", merge=True)
    html: str | None = option("html", "write a self-contained HTML report to this path", merge=True)
    calibrate: str | None = option("calibrate", "calibration run: judge this human-labelled "
                                   "JSONL file (claim or answer level) as tests, instead of "
                                   "the collected tests, and report agreement")
    min_agreement: float | None = option("min-agreement", "calibration gate: lowest balanced "
                                         "accuracy of the judge against the human labels",
                                         number(0, 1))
    storage: str | None = option("storage", "folder of saved runs (default .faithfulness "
                                 "under the rootdir)", merge=True)
    save: str | None = option("save", "save this run's results as NAME in the storage folder",
                              merge=True)
    autosave: bool = option("autosave", "save this run in the storage folder, named after the "
                            "git commit", kind="flag", default=False, merge=True)
    require_signed_runs: bool = option(
        "require-signed-runs", "refuse a saved run (the run compared with; each shard of "
        "pytest-faithfulness merge) that is not signed under FAITHFULNESS_CACHE_KEY, or that "
        "cannot be checked because the key is not set (default: merged or compared with a "
        "warning naming it)", kind="flag", default=False, merge=True)
    compare: str | None = option(
        "compare", "compare with a saved run: a name, counter or file (no value: the latest "
        "saved run; write --faithfulness-compare=NAME before test paths; ini: 'latest' for "
        "the latest)", nargs="?", const=LATEST, metavar="NAME|PATH", merge=True)
    compare_fail: tuple[str, ...] = option(
        "compare-fail", "fail the session on a regression against the compared run, e.g. "
        "mean:0.02 (mean faithfulness may drop at most 0.02) or unsupported_rate:0.05; "
        "repeatable or comma-separated", kind="args", default=(), metavar="EXPR", merge=True)
    max_baseline_age: float | None = option(
        "max-baseline-age", "warn when the compared run is older than DAYS, or its commit is "
        "not an ancestor of this run's (git merge-base --is-ancestor; in a shallow clone, or "
        "with a commit missing, the warning says ancestry cannot be known); with "
        "--faithfulness-strict-baseline the gate fails instead", number(0),
        metavar="DAYS", merge=True)
    strict_baseline: bool = option(
        "strict-baseline", "fail the gate on baseline problems (stale, not an ancestor, missing "
        "golden tests) instead of warning", kind="flag", default=False, merge=True)
    golden: tuple[str, ...] = option(
        "golden", "golden tests: node-id patterns (fnmatch, e.g. "
        "'tests/test_rag.py::test_refund*') whose every answer must have every claim "
        "supported, whatever the aggregate (as "
        "@pytest.mark.faithfulness(golden=True)); repeatable", kind="args", default=(),
        metavar="PATTERN")
    pr_comment: str | None = option(
        "pr-comment", "write the Markdown of one sticky pull-request comment to this path "
        "(headline figures, the comparison with the base run, tokens and cost; always under "
        "GitHub's 65,536-character limit)", merge=True)
    max_rpm: float | None = option(
        "max-rpm", "most LLM judge requests per minute, shared by every xdist worker of the "
        "run (a ledger of the run's own, removed at its end)", number(0.001))
    max_tpm: float | None = option(
        "max-tpm", "most LLM judge tokens (input + output) per minute, shared by every xdist "
        "worker of the run", number(1))
    max_rate_limit_wait: float | None = option(
        "max-rate-limit-wait", "most seconds the whole run spends waiting out 'limit reached' "
        "(HTTP 429) answers of the LLM judge with no call answered in between, shared by every "
        "call and xdist worker (default 120; 0: never wait); once spent, each call answered "
        "429 errors at once and the gate fails naming it", number(0))
    compare_alpha: float | None = option(
        "compare-alpha", "with it, a mean or unsupported_rate compare-fail bound regresses only "
        "when the change is beyond the bound and significant at this level (paired test); a "
        "change beyond the bound that is not significant makes the run inconclusive (see "
        "--faithfulness-inconclusive)", number(1e-6, 0.5),
        merge=True)
    compare_rejudge: bool = option(
        "compare-rejudge", "when the compared run was judged by another judge (its fingerprint "
        "differs: model, alias, prompt version), re-judge it with this run's judge, its claims "
        "kept (saved as <name>@judge-<key> and reused), and report the answer effect and the "
        "judge effect; the gate and --faithfulness-compare-fail then use the answer effect "
        "only", kind="flag", default=False)
    inconclusive: str = option(
        "inconclusive", "the exit status of an inconclusive run (a comparison got worse beyond "
        "a compare-fail bound, but not significantly at --faithfulness-compare-alpha): fail "
        "(default, exit 11) or pass (exit 0); either way the run is named inconclusive",
        choice("fail", "pass"), default="fail", merge=True)
    decision: str | None = option(
        "decision", "write the run's decision (its named outcome, exit status, reasons, "
        "figures, canaries, comparison and judge) as JSON to this path (default: "
        "faithfulness-decision.json beside the JSON report, or beside the first report asked "
        "for, when any is)", merge=True)
    promote: str | None = option(
        "promote", "write the draft labels of the failing and unstable claims (for "
        "pytest-faithfulness promote) as JSON Lines to this path (default: "
        "faithfulness-promote.jsonl beside the reports; not written when no report is asked "
        "for; 'none': never written)", merge=True)
    votes: int = option("votes", "verdicts per claim: every claim is judged up to this many "
                        "times (stopping once the majority is decided) and the majority stands "
                        "(ties: not supported; a checked contradicted verdict stands unless "
                        "a majority says supported); deterministic judges are asked once",
                        integer(1), default=1)
    panel: tuple[str, ...] = option(
        "panel", "more judges (litellm model strings, comma-separated) that verify every claim "
        "beside --faithfulness-judge, each at most once; the majority verdict stands (ties: not "
        "supported)", judge_list, default=())

    canaries: int = option("canaries", "judge canaries: N claims built from this run's passages "
                           "(N/2 controls that must be supported, N/2 mutants that must not), "
                           "judged by the run's judge at the end; 0 turns them off", integer(0),
                           default=40)
    min_canary_recall: float = option("min-canary-recall", "the run is unmeasurable when the "
                                      "upper end of the Wilson 95 per cent interval of the "
                                      "share of mutants refused is below this", number(0, 1),
                                      default=0.9, merge=True)
    min_control_keep: float = option("min-control-keep", "the run is unmeasurable when the upper "
                                     "end of the Wilson 95 per cent interval of the share of "
                                     "controls kept is below this", number(0, 1), default=0.8,
                                     merge=True)

    # Derived at start-up (not options) -------------------------------------------------------
    storage_path: Path = Path(".faithfulness")  # ``storage`` resolved against the rootdir
    cache_path: Path = Path(".faithfulness_cache")  # ``cache_dir`` resolved likewise
    compare_bounds: tuple[Any, ...] = ()  # ``runs.compare.CompareFail``, parsed
    baseline: Any = None  # the ``runs.saved.SavedRun`` to compare with, loaded
    baseline_path: Path | None = None
    compare_note: str | None = None  # e.g. "nothing to compare with" (warning lines, \n)
    #: the baseline's age and ancestry (``runs.baseline_identity.BaselineCheck``), checked at
    #: start-up when ``max_baseline_age`` or ``strict_baseline`` is set and a run is compared
    baseline_check: Any = None

    # ------------------------------------------------------------------------------------------
    @classmethod
    def options(cls) -> list[_Option]:
        """Every option, in declaration order."""
        return [f.metadata["option"] for f in dataclasses.fields(cls) if "option" in f.metadata]

    @classmethod
    def merge_options(cls) -> list[_Option]:
        """The options ``pytest-faithfulness merge`` reads (``option(..., merge=True)``)."""
        return [opt for opt in cls.options() if opt.merge]

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], *, rootdir: str | os.PathLike[str] = ".",
                     worker: bool = False, judge_hook: bool = False) -> Settings:
        """Parse and check raw option values (see the module docstring).

        Args:
            raw: field name (``"min_mean"``) to its raw value: the flag's or the ini key's text
                for a value, a bool for a switch, a sequence of strings for a repeatable
                option; ``None`` or absent: unset.
            rootdir: the base of relative storage and cache folders, and of a saved run
                named by a relative path.
            worker: an xdist worker's settings (outputs, judge names and the saved run to
                compare with are the controller's to check).
            judge_hook: a ``pytest_faithfulness_make_judge`` hook builds the judge (its name
                is the hook's to read).

        Raises:
            ConfigError: a bad value, an output path that cannot be written, an unknown judge
                or a judge whose extra is missing, a named saved run that is not there; the
                message names the flag and the ini key.
        """
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            opt = field.metadata.get("option")
            value = raw.get(field.name)
            if opt is None or value is None:
                continue
            if opt.kind == "flag":
                values[field.name] = bool(value)
                continue
            if opt.kind == "args":
                values[field.name] = tuple(str(v) for v in value)
                continue
            try:
                values[field.name] = opt.parse(value)
            except ValueError as exc:
                raise ConfigError(f"{opt.label()} {exc}") from None
        return cls(**values)._checked(Path(rootdir), worker=worker, judge_hook=judge_hook)

    def _checked(self, rootdir: Path, *, worker: bool, judge_hook: bool) -> Settings:
        if self.cache_mode != "rw" and self.no_cache:
            raise ConfigError(f"--faithfulness-cache-mode {self.cache_mode} needs the "
                              "cache: drop --faithfulness-no-cache (ini "
                              "faithfulness_no_cache)")
        if self.calibrate and not Path(self.calibrate).is_file():
            raise ConfigError(f"--faithfulness-calibrate (ini faithfulness_calibrate) "
                              f"{self.calibrate!r}: no such file")
        has_judge_hook = judge_hook
        if not (has_judge_hook or worker):  # a make_judge hook may read the name its own way
            check_judge_name(self.judge)
        for spec in self.panel if not worker else ():  # panel members are built by name
            check_judge_name(spec)
        if self.judge in self.panel:
            raise ConfigError(f"--faithfulness-panel (ini faithfulness_panel) names the "
                              f"main judge {self.judge!r} again: one judge, one vote")
        if self.panel:  # the built-in judges share one set of rules: one vote (judges.votes)
            named = ([] if has_judge_hook else [self.judge or "offline"]) + list(self.panel)
            offline = [m for m in named if m.strip().lower() in BUILTIN_JUDGES]
            if len(offline) > 1:
                raise ConfigError(
                    f"--faithfulness-judge / --faithfulness-panel (ini faithfulness_judge / "
                    f"faithfulness_panel): {', '.join(offline)} judge by the same offline rules "
                    "(verification), so they are one judge, one vote: a panel takes at most one "
                    "of them (the main judge is 'offline' unless --faithfulness-judge names "
                    "another)")
        storage = under(rootdir, self.storage or ".faithfulness")
        cache = under(rootdir, self.cache_dir or ".faithfulness_cache")
        if not worker:  # workers write none of these; the controller checks them once
            for flag, path in (("report", self.report), ("markdown", self.markdown),
                               ("html", self.html), ("pr-comment", self.pr_comment),
                               ("decision", self.decision),
                               ("promote", None if (self.promote or "").strip().lower()
                                == "none" else self.promote)):
                check_output_file(path, f"--faithfulness-{flag} (ini faithfulness_{flag})")
            if self.save or self.autosave:
                check_output_folder(storage, "--faithfulness-storage (ini faithfulness_storage)")
        changes: dict[str, Any] = {"storage_path": storage, "cache_path": cache}
        changes.update(self._compare_target(rootdir, storage, worker))
        return dataclasses.replace(self, **changes)

    def _compare_target(self, rootdir: Path, storage: Path, worker: bool) -> dict[str, Any]:
        """The parsed compare-fail bounds and the saved run to compare with."""
        compare = self.compare
        if compare is None and self.compare_fail:  # a bound needs a baseline: the latest run
            compare = LATEST
        if not (self.save or self.compare_fail or compare is not None):
            return {}  # nothing to import: start-up stays cheap
        from .runs import compare as run_compare
        from .runs import saved as saved_runs

        out: dict[str, Any] = {}
        try:
            if self.save:
                saved_runs.safe_name(self.save)
        except ValueError as exc:
            raise ConfigError(f"--faithfulness-save (ini faithfulness_save): {exc}") \
                from None
        try:
            out["compare_bounds"] = tuple(run_compare.parse_compare_fail(list(self.compare_fail)))
        except ValueError as exc:
            raise ConfigError(f"--faithfulness-compare-fail (ini faithfulness_compare_fail)"
                                    f": {exc}") from None
        if compare is None or worker:
            return out
        ref = "" if compare in (LATEST, "latest") else compare
        try:
            path, notes = saved_runs.resolve_run(storage, ref, rootdir=rootdir)
            out["baseline"], out["baseline_path"] = saved_runs.load_run(path), path
            trust = out["baseline"].trust
            from .cache import signing_key_from_env

            # unsigned is only news where runs are signed (a key is set) or required
            if trust == "unchecked" or (trust == "unsigned" and (
                    self.require_signed_runs or signing_key_from_env() is not None)):
                what = (f"saved run {path} is not signed" if trust == "unsigned" else
                        f"saved run {path} is signed but FAITHFULNESS_CACHE_KEY is not set to "
                        "check it")
                if self.require_signed_runs:
                    raise ConfigError(
                        f"--faithfulness-compare (ini faithfulness_compare): {what}, and "
                        "--faithfulness-require-signed-runs (ini "
                        "faithfulness_require_signed_runs) is set")
                notes = [*notes, f"WARNING: comparing with {what}: an edit to it cannot be "
                                 "told from the run"]
            if self.compare_rejudge:  # re-judging trusts the stored passages: check them now
                from .runs.baseline_identity import check_stored_inputs

                check_stored_inputs(out["baseline"], path)  # edited: RunEditedError, below
            if notes:
                out["compare_note"] = "\n".join(notes)
            if self.max_baseline_age is not None or self.strict_baseline:
                from .runs.baseline_identity import check_baseline

                out["baseline_check"] = check_baseline(
                    out["baseline"], saved_runs.git_info(rootdir).commit, rootdir,
                    max_age_days=self.max_baseline_age)
        except (saved_runs.RunSignatureError, RunEditedError) as exc:  # tampered: never skipped
            raise ConfigError(f"--faithfulness-compare (ini faithfulness_compare): "
                                    f"{exc}") from None
        except saved_runs.BaselineError as exc:
            if ref:  # a named run that is not there is a mistake in the command line
                raise ConfigError(f"--faithfulness-compare (ini faithfulness_compare): "
                                        f"{exc}") from None
            out["compare_note"] = f"WARNING: nothing to compare with: {exc}"
        return out

    # ------------------------------------------------------------------------------------------
    def gate_config(self) -> Any:
        """The session thresholds as a ``gate.GateConfig`` (imports pydantic)."""
        from .run.gate import THRESHOLDS, GateConfig

        return GateConfig(**{name: getattr(self, name) for name in THRESHOLDS})

    def ignored_with_offline_judge(self) -> list[str]:
        """The options set that the built-in offline judges do not read, as flags, e.g.
        ``["--faithfulness-api-base", "--faithfulness-cache-mode replay"]``: they make no
        network call and are not cached, so an LLM option, a budget and a cache mode other
        than ``rw`` change nothing. Empty for an LLM judge."""
        if (self.judge or "offline").strip().lower() not in BUILTIN_JUDGES:
            return []
        ignored = [f"--faithfulness-{name.replace('_', '-')}" for name in LLM_ONLY_OPTIONS
                   if getattr(self, name) is not None]
        if self.cache_mode != "rw":
            ignored.append(f"--faithfulness-cache-mode {self.cache_mode}")
        if self.votes > 1 and not self.panel:  # deterministic: asked once (judges.votes)
            ignored.append(f"--faithfulness-votes {self.votes}")
        return ignored

    def session_threshold_flags(self) -> list[str]:
        """The session-gate options set, as flags (``["--faithfulness-min-mean",
        "--faithfulness-compare-fail"]``): what a run that judged nothing cannot meet. In a
        calibration run only ``--faithfulness-min-agreement`` counts (it judges no answer);
        elsewhere the answer thresholds and ``--faithfulness-compare-fail``."""
        if self.calibrate:
            names = ["min_agreement"]
        else:
            names = ["min_mean", "max_unsupported_rate", "max_unscored_rate", "compare_fail",
                     "min_citation_precision", "max_misattributed", "max_unstable",
                     "max_unstable_rate", "max_unverified_rate"]
        return [f"--faithfulness-{n.replace('_', '-')}" for n in names
                if getattr(self, n) not in (None, ())]

    def output_files(self, git: Any) -> dict[str, Any]:
        """Keyword arguments of ``run.outputs.OutputFiles`` for this run.

        ``git`` is the run's ``GitInfo`` (or None): with ``--faithfulness-autosave`` and no
        ``--faithfulness-save`` name, the run is saved under the commit's short hash
        (``-dirty`` when the tree has changes), else as ``autosave``. Used by the plugin and by
        ``pytest-faithfulness merge``, so both write the same files.
        """
        name = self.save
        if not name and self.autosave:
            name = ((git.commit[:12] + ("-dirty" if git.dirty else ""))
                    if git is not None and git.commit else "autosave")
        return {"markdown": self.markdown, "html": self.html,
                "step_summary": os.environ.get("GITHUB_STEP_SUMMARY") or None,
                "storage": self.storage_path, "save_name": name, "git": git,
                "pr_comment": self.pr_comment, "decision": self.decision_path(),
                "github_annotations": os.environ.get("GITHUB_ACTIONS") == "true"}

    def decision_path(self) -> str | None:
        """Where the decision file goes: ``--faithfulness-decision``, else
        ``faithfulness-decision.json`` beside the JSON report, or beside the first of the
        Markdown, HTML and pull-request comment reports asked for; ``None`` when no report
        is asked for."""
        if self.decision:
            return self.decision
        for report in (self.report, self.markdown, self.html, self.pr_comment):
            if report:
                return str(Path(report).parent / DECISION_FILE)
        return None

    def promote_path(self) -> Path | None:
        """Where the draft labels go (``runs.promote``): ``--faithfulness-promote``, else
        ``faithfulness-promote.jsonl`` in the folder of the decision file (beside the
        reports), or in the storage folder (``.faithfulness/``) when no report is asked for,
        so that every run with a failing claim leaves its drafts; ``None`` for ``none`` and
        in a calibration run (its records are labelled already)."""
        if self.calibrate:
            return None
        if self.promote:
            return None if self.promote.strip().lower() == "none" else Path(self.promote)
        decision = self.decision_path()
        return Path(decision).parent / PROMOTE_FILE if decision else \
            self.storage_path / PROMOTE_FILE

    def outputs_configured(self) -> bool:
        """Whether any report file or saved run was asked for."""
        return bool(self.report or self.markdown or self.html or self.save or self.autosave
                    or self.pr_comment)


#: The decision file's name when ``--faithfulness-decision`` does not give one.
DECISION_FILE = "faithfulness-decision.json"
#: The draft labels' file name when ``--faithfulness-promote`` does not give one
#: (``runs.promote.PROMOTE_FILE``).
PROMOTE_FILE = "faithfulness-promote.jsonl"


def under(rootdir: Path, path: str) -> Path:
    """``path`` resolved against ``rootdir`` (an absolute path stays as it is)."""
    p = Path(path)
    return p if p.is_absolute() else rootdir / p


# --------------------------------------------------------------------------------------------
# Output paths.

def check_output_file(path: str | os.PathLike[str] | None, flag: str) -> None:
    """Refuse, at start-up, a file path that cannot be written at the end of the run.

    Refused: an existing directory, a path whose nearest existing parent is not a directory
    (a file where a folder is needed), a folder in which no file can be created (probed by
    creating and removing a temporary file there), an existing file that cannot be opened
    for writing. Missing parent folders are fine (they are created at the end).

    Raises:
        ConfigError: naming ``flag`` and the reason.
    """
    if not path:
        return
    target = Path(path)
    if target.is_dir() or not target.name or target.name in (".", ".."):
        raise ConfigError(f"{flag} {str(path)!r} is a directory: give a file path")
    if target.exists():
        try:
            with open(target, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise ConfigError(f"{flag} {str(path)!r} cannot be written: {exc}") from None
        return
    _check_nearest_folder(target.parent, flag, str(path))


def check_output_folder(path: str | os.PathLike[str] | None, flag: str) -> None:
    """Refuse, at start-up, a folder that cannot be created or written (see
    ``check_output_file``); an existing file given as the folder is refused too.

    Raises:
        ConfigError: naming ``flag`` and the reason.
    """
    if not path:
        return
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise ConfigError(f"{flag} {str(path)!r} is a file: give a folder")
    _check_nearest_folder(target, flag, str(path))


def _check_nearest_folder(folder: Path, flag: str, shown: str) -> None:
    for parent in (folder, *folder.parents):
        if not parent.exists():
            continue
        if not parent.is_dir():
            raise ConfigError(f"{flag} {shown!r}: {parent} is a file, not a folder")
        import tempfile

        try:
            fd, probe = tempfile.mkstemp(prefix=".faithfulness-probe-", dir=parent)
        except OSError as exc:
            raise ConfigError(f"{flag} {shown!r}: cannot write in {parent}: {exc}") \
                from None
        os.close(fd)
        os.unlink(probe)
        return
