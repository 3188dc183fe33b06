"""Know the bill before you pay it: what the next run would cost, without calling the judge.

``estimate_run(run, config)`` reads a saved run (``runs.saved``: its ``results`` hold every
answer's passages and claims) and the verdict cache (``cache``: the same keys
``CachedJudge`` builds, read without writing), and works out, for the judge and settings in
``config``:

* **calls**: one ``decompose`` per answer and one ``verify`` per claim and passage window
  (``pipeline.passage_windows`` under the context budget), times the votes (at most:
  ``judges.votes`` stops once the majority is decided) and the panel members, plus the judge
  canaries (``canaries.build_canaries`` over the same passages); less what the cache would
  serve (an entry that is there, validates and, with ``FAITHFULNESS_CACHE_KEY``, is signed)
  and what the first filter settles (``trust.first_filter.settle``, when the filter would be
  on for this judge: ``judges.first_filter.first_filter_on``);
* **tokens**: input tokens of each call that would go out, counted on the real request
  (``judges.prompts`` rendered as ``judges.llm.transport.RequestPlan`` sends them) with
  ``litellm.token_counter`` for the judge's model (characters / 4 when that fails);
  output tokens from the saved run's recorded usage (mean output tokens per call) when it
  has any, else the reply the saved claims and verdicts would make (counted the same way);
* **cost**: litellm's bundled price map (``litellm.cost_per_token``); a model it does not
  price is ``None`` ("unknown"), never 0;
* **wall time** of the judge calls: per answer (answers are judged one after another in a
  process) the decompose call, then the verify calls in waves of ``concurrency``, each wave one
  call's latency; the canaries likewise; divided by the workers; never less than the rate
  limits allow (calls / ``max_rpm``, tokens / ``max_tpm``). The latency per call is an
  assumption (``latency_s``, default ``DEFAULT_LATENCY_S``): saved runs do not record it.

Assumptions, always stated in the output (``Estimate.assumptions``): the next run judges the
saved run's answers with the saved run's claims (the decomposition of a cached or unchanged
decomposer); an answer that was ``unverified`` stays outside the judge's coverage (no call);
a claim the saved run left ungrounded makes no call; a claim that cites passages is verified
against them first, and again against every passage only when the saved verdict was not
``supported``. An answer that errored before its claims were known (a decompose call that
failed: a provider outage) has no claims to count: it is named (``Estimate.unknown``), its
decompose call counted, and the estimate is a lower bound (``Estimate.lower_bound``); its
verify calls are extrapolated from the judged answers' mean claims when there are some
(``Extrapolation``, never in the figures), else unknown. Nothing here imports pytest;
litellm is imported only by ``estimate_run`` and only for a model judge (token counts and
prices).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import FaithfulnessError
from ..records import Decomposition, Passage, Verdict
from .bill import Estimate, Extrapolation, JudgeBill, Spend
from .saved import SavedRun

__all__ = ["DEFAULT_LATENCY_S", "Estimate", "EstimateConfig", "EstimateError", "Extrapolation",
           "JudgeBill", "Spend", "estimate_run", "latest_run", "named_run_notes", "price_usd",
           "verify_payload"]

#: The latency of one judge call assumed when none is given (seconds): a hosted model's
#: short JSON reply. Saved runs do not record latencies; pass the provider's own figure.
DEFAULT_LATENCY_S = 1.0
#: Concurrency when the settings give none (``pipeline.DEFAULT_CONCURRENCY``).
DEFAULT_CONCURRENCY = 8
#: The tokenizer used for passage sizes when the judge is not a model (the offline judges).
SIZE_TOKENIZER = "gpt-4o-mini"


class EstimateError(FaithfulnessError):
    """The estimate cannot be made: the saved run holds no answers' inputs (saved before
    runs kept ``results``), or the judge cannot be built from its name."""


@dataclass(frozen=True)
class EstimateConfig:
    """What the next run would be judged with (the ``Settings`` fields of the same names).

    Args:
        judge: the judge's name (``"offline"`` or a litellm model string).
        panel: more judges (litellm model strings) that verify every claim.
        votes: verdicts per claim (at most).
        first_filter: ``"auto"``, ``"on"`` or ``"off"``.
        api_base / temperature: the LLM judge's endpoint and temperature (part of its
            fingerprint, so of its cache keys).
        cache_dir: the verdict cache folder; ``None``: no cache (``--faithfulness-no-cache``).
        cache_mode: ``"rw"``, ``"replay"`` or ``"refresh"`` (refresh serves nothing).
        concurrency: most calls in flight per answer (``None``: 8).
        context_budget: most passage characters per verify call (``None``: the judge's).
        max_rpm / max_tpm: the run's rate limits (requests / tokens per minute).
        canaries: how many judge canaries the run judges at its end (0: none).
        latency_s: seconds per judge call (``None``: ``DEFAULT_LATENCY_S`` for a model
            judge, 0 for the offline judges).
        workers: processes judging at once (``-n``); answers are shared evenly.
        signing_key: the cache signing key (``FAITHFULNESS_CACHE_KEY``): with it, unsigned or
            mis-signed entries are misses, as in a run.
    """

    judge: str = "offline"
    panel: tuple[str, ...] = ()
    votes: int = 1
    first_filter: str = "auto"
    api_base: str | None = None
    temperature: float | None = None
    cache_dir: Path | None = Path(".faithfulness_cache")
    cache_mode: str = "rw"
    concurrency: int | None = None
    context_budget: int | None = None
    max_rpm: float | None = None
    max_tpm: float | None = None
    canaries: int = 40
    latency_s: float | None = None
    workers: int = 1
    signing_key: bytes | None = None


def latest_run(storage: str | Path) -> tuple[Path, list[str]]:
    """The latest complete saved run in ``storage``, whatever its gate said (a run that
    failed its gate judged its answers all the same: its bill is the next run's), with notes.

    Raises:
        BaselineError: no complete saved run there.
    """
    from .saved import BaselineError, incomplete_reason, list_runs

    runs = list_runs(storage)
    skipped: list[Path] = []
    for path in reversed(runs):
        if incomplete_reason(path) is None:
            notes = [f"note: passed over {len(skipped)} newer incomplete run(s): "
                     f"{', '.join(p.stem for p in skipped[:5])}"] if skipped else []
            return path, notes + _failed_gate_note(path)
        skipped.append(path)
    what = f"complete saved run in {storage} ({len(runs)} incomplete)" if runs else \
        f"saved run in {storage}"
    raise BaselineError(f"no {what}: save one first with --faithfulness-save NAME or "
                        "--faithfulness-autosave, or name one")


def named_run_notes(path: str | Path, notes: list[str]) -> list[str]:
    """The notes of ``saved.resolve_run`` for a run named explicitly, as an estimate reads
    them: its ``WARNING`` about comparing with a run that failed its gate concerns
    comparisons; an estimate counts that run's answers all the same, and says so."""
    kept = [n for n in notes if not n.startswith("WARNING: comparing with saved run ")]
    return kept + _failed_gate_note(Path(path))


def _failed_gate_note(path: Path) -> list[str]:
    from .saved import gate_failures_of

    if not gate_failures_of(path):
        return []
    return [f"note: saved run {path.stem} failed its gate; its answers are counted all the "
            "same"]


# --------------------------------------------------------------------------------------------
# The cache, read as ``CachedJudge`` reads it, writing nothing.

class _CacheReader:
    """Which calls the verdict cache at ``directory`` would serve (``cache.CachedJudge``'s
    keys and trust rules, read-only)."""

    def __init__(self, directory: Path | None, mode: str, signing_key: bytes | None) -> None:
        from ..cache import open_cache

        self.cache = None if directory is None or mode == "refresh" else \
            open_cache(directory, read_only=True)
        self.signing_key = signing_key
        #: whether the run writes what it calls, so a second call with the same key is a hit
        self.writes = directory is not None and mode == "rw"

    def serves(self, fingerprint: dict[str, Any], op: str, payload: dict[str, Any]) -> bool:
        """Whether the entry for this call is there and would be believed."""
        if self.cache is None:
            return False
        import hmac

        from ..cache import SIGNATURE_FIELD, SIGNED_FIELD, cache_key, sign_entry

        key = cache_key(fingerprint, op, payload)
        try:
            raw = self.cache.get(key)
        except Exception:  # an unreadable cache serves nothing (a run would warn and call)
            return False
        if raw is None:
            return False
        signed = isinstance(raw, dict) and set(raw) == {SIGNED_FIELD, SIGNATURE_FIELD}
        if self.signing_key is not None:
            if not signed or not hmac.compare_digest(
                    str(raw.get(SIGNATURE_FIELD)),
                    sign_entry(self.signing_key, key, raw[SIGNED_FIELD])):
                return False
        model = Decomposition if op == "decompose" else Verdict
        try:
            model.model_validate(raw[SIGNED_FIELD] if signed else raw)
        except Exception:
            return False
        return True

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()


def verify_payload(claim: str, passages: list[Passage]) -> dict[str, Any]:
    """The cache payload of one verify call (as ``cache.CachedJudge.verify`` keys it):
    ``{"claim": claim, "passages": [[id, text] or [id, text, title], ...]}``."""
    return {"claim": claim, "passages": [[p.id, p.text] if p.title is None
                                         else [p.id, p.text, p.title] for p in passages]}


# --------------------------------------------------------------------------------------------
# Tokens and prices.

class _Tokens:
    """Counts tokens of requests and texts for one model (``litellm.token_counter``), or
    characters / 4 when litellm cannot count for it."""

    def __init__(self, model: str | None) -> None:
        self.model = model or SIZE_TOKENIZER
        self.counter: Any = None
        self.method = "characters / 4"
        try:
            from ..judges.llm.transport import import_litellm

            litellm = import_litellm()
            litellm.token_counter(model=self.model, text="probe")
            self.counter = litellm.token_counter
            self.method = f"litellm.token_counter for {self.model}"
        except Exception:  # no litellm, or no tokenizer for the model: characters / 4
            self.counter = None

    def text(self, text: str) -> int:
        if self.counter is not None:
            try:
                return int(self.counter(model=self.model, text=text))
            except Exception:
                pass
        return len(text) // 4

    def messages(self, messages: list[dict[str, Any]]) -> int:
        if self.counter is not None:
            try:
                return int(self.counter(model=self.model, messages=messages))
            except Exception:
                pass
        return sum(len(str(m.get("content") or "")) for m in messages) // 4


def price_usd(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """The cost in US dollars of ``input_tokens`` and ``output_tokens`` of ``model`` (a litellm
    model string) from litellm's bundled price map; ``None`` when the map does not price the
    model (unknown, not free). Imports litellm."""
    from ..accounting import model_is_priced

    if not model_is_priced(model):
        return None
    from ..judges.llm.transport import import_litellm

    litellm = import_litellm()
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=input_tokens,
                                                    completion_tokens=output_tokens)
    except Exception:
        return None
    return float(prompt) + float(completion)


# --------------------------------------------------------------------------------------------
# One judge: its keys, its requests.

class _Member:
    """One judge of the run as the estimate sees it: its cache fingerprints per vote, its
    request shape and its token counter."""

    def __init__(self, spec: str, config: EstimateConfig, cache: _CacheReader) -> None:
        from ..judges import make_judge
        from ..judges.protocol import fingerprint_of, is_cacheable, is_deterministic

        options: dict[str, Any] = {}
        if config.api_base:
            options["api_base"] = config.api_base
        if config.temperature is not None:
            options["temperature"] = config.temperature
        try:
            self.judge = make_judge(spec, **options)
        except Exception as exc:
            raise EstimateError(f"judge {spec!r} cannot be built: {type(exc).__name__}: "
                                f"{exc}") from None
        self.name = spec or "offline"
        self.cacheable = is_cacheable(self.judge)
        self.paid = self.cacheable and hasattr(self.judge, "model")
        self.votes = 1 if is_deterministic(self.judge) else max(1, config.votes)
        self.cache = cache if self.cacheable and config.cache_dir is not None else None
        self.written: set[str] = set()
        self.fingerprint = fingerprint_of(self.judge) or {}
        self._vote_fps: dict[int, dict[str, Any]] = {}
        self.tokens = _Tokens(getattr(self.judge, "model", None) if self.paid else None)
        self._plan: Any = None
        if self.paid:
            from ..judges.llm.transport import RequestPlan, import_litellm

            llm: Any = self.judge  # a LiteLLMJudge (the paid judges make_judge builds)
            self._plan = RequestPlan.decide(import_litellm(), llm.model, llm.temperature,
                                            llm.schema_in_response_format, llm.cache_markers)

    def vote_fingerprint(self, vote: int) -> dict[str, Any]:
        """The cache fingerprint of vote ``vote`` (``CachedJudge.for_vote``'s)."""
        if vote == 1:
            return self.fingerprint
        if vote not in self._vote_fps:
            from ..judges.protocol import fingerprint_of, vote_variant

            inner = fingerprint_of(vote_variant(self.judge, vote))
            self._vote_fps[vote] = {**(inner if inner is not None else self.fingerprint),
                                    "vote": vote}
        return self._vote_fps[vote]

    def cached(self, vote: int, op: str, payload: dict[str, Any]) -> bool:
        """Whether the cache would serve this call: an entry there now, or one this run
        writes first (an earlier call of the estimate with the same key, in ``rw`` mode)."""
        if self.cache is None:
            return False
        from ..cache import cache_key

        key = cache_key(self.vote_fingerprint(vote), op, payload)
        if key in self.written:
            return True
        if self.cache.serves(self.vote_fingerprint(vote), op, payload):
            return True
        if self.cache.writes:
            self.written.add(key)
        return False

    def request_tokens(self, op: str, messages: list[dict[str, str]]) -> int:
        """Input tokens of the request as it would be sent (schema instruction included)."""
        if not self.paid:
            return 0
        from ..judges.llm.replies import DecomposeReply, VerifyReply

        sent, _ = self._plan.request(messages, DecomposeReply if op == "decompose"
                                     else VerifyReply)
        return self.tokens.messages(sent)


# --------------------------------------------------------------------------------------------
# The estimate.

def _answer_inputs(result: dict[str, Any]) -> tuple[str, list[Passage], str, list[dict]]:
    passages = [Passage.model_validate(p) for p in result.get("passages") or []]
    return (str(result.get("answer") or ""), passages, str(result.get("status") or ""),
            [c for c in result.get("claims") or [] if isinstance(c, dict)])


def _ungrounded(claim: dict[str, Any]) -> bool:
    """A claim the pipeline scored ``unsupported`` without a call (``pipeline._not_grounded``:
    its rationale starts ``claim ``, with no evidence and no votes)."""
    verdict = claim.get("verdict") or {}
    return (verdict.get("label") == "unsupported" and not verdict.get("evidence")
            and not claim.get("votes")
            and str(verdict.get("rationale") or "").startswith("claim "))


def _claim_windows(claim: dict[str, Any], passages: list[Passage],
                   budget: int | None) -> list[list[Passage]]:
    """The passage windows the claim would be verified against (``pipeline._verify_cited``):
    the cited passages first when the answer cites some but not all; every passage too unless
    the saved verdict says the cited ones supported it."""
    from ..pipeline import passage_windows

    if not passages:
        return []
    cited_ids = set(claim.get("cited_ids") or [])
    cited = [p for p in passages if p.id in cited_ids]
    windows: list[list[Passage]] = []
    if cited and len(cited) < len(passages):
        windows += passage_windows(cited, budget)
        if (claim.get("verdict") or {}).get("label") == "supported":
            return windows
    return windows + passage_windows(passages, budget)


def _verify_reply(claim: dict[str, Any]) -> str:
    verdict = claim.get("verdict") or {}
    return json.dumps({"rationale": verdict.get("rationale") or "",
                       "evidence": verdict.get("evidence") or [],
                       "label": verdict.get("label") or "unsupported"}, ensure_ascii=False)


def estimate_run(run: SavedRun, config: EstimateConfig, *, run_path: str | Path = "") \
        -> Estimate:
    """The bill of judging ``run``'s answers again with ``config`` (module docstring). Calls
    no judge; reads the cache without writing it.

    Args:
        run: the saved run (``runs.saved.load_run``).
        config: the judge and settings of the next run.
        run_path: the run's file, for the output.

    Returns:
        an ``Estimate``.

    Raises:
        EstimateError: the run has no ``results`` (saved before runs kept every answer's
            passages), or a judge cannot be built from its name.
    """
    from ..judges.first_filter import first_filter_on
    from ..judges.prompts import decompose_messages, passages_block, verify_messages
    from ..judges.protocol import context_budget_of
    from ..judges.votes import rotated
    from ..trust.first_filter import settle

    if run.answers and not run.results:
        raise EstimateError(f"saved run {run.label()} holds no answers' passages (saved "
                            "before runs kept them): save a run with this version first")
    cache = _CacheReader(config.cache_dir, config.cache_mode, config.signing_key)
    try:
        members = [_Member(spec, config, cache) for spec in (config.judge, *config.panel)]
        main = members[0]
        filtered = first_filter_on(main.judge, config.first_filter)
        budget = config.context_budget or context_budget_of(main.judge)
        est = Estimate(run=run.label(), run_path=str(run_path), answers=len(run.results),
                       token_method=main.tokens.method)
        bills = [JudgeBill(m.name, m.paid, {k: Spend() for k in
                                            (("decompose", "verify", "canary") if i == 0
                                             else ("verify", "canary"))})
                 for i, m in enumerate(members)]
        recorded = _recorded_output(run)
        per_answer_waves: list[tuple[int, int]] = []  # (decompose calls, verify calls)
        passage_sets: list[list[Passage]] = []
        size_tokens = main.tokens if main.paid else _Tokens(None)
        est.token_method = size_tokens.method
        unknown_passages: list[list[Passage]] = []  # of the answers whose claims are unknown
        for n, result in enumerate(run.results, start=1):
            answer, passages, status, claims = _answer_inputs(result)
            passage_sets.append(passages)
            if status == "unverified" or not answer.strip():
                continue
            if status == "error" and not claims:  # errored before its claims were known
                est.unknown.append(str(result.get("test_id") or f"answer-{n}"))
                kind = str(result.get("error_kind") or "unknown kind")
                est.unknown_kinds[kind] = est.unknown_kinds.get(kind, 0) + 1
                unknown_passages.append(passages)
            else:
                est.judged += 1
                est.errored += status == "error"
            est.claims += len(claims)
            est.passages += len(passages)
            est.passage_chars += sum(len(p.text) for p in passages)
            est.passage_tokens += size_tokens.text(passages_block(passages)) if passages else 0
            dec = bills[0].spend["decompose"]
            dec.asked += 1
            dec_calls = 0
            if main.cached(1, "decompose", {"answer": answer}):
                dec.cache_hits += 1
            else:
                dec.calls += 1
                dec_calls = 1
                dec.input_tokens += main.request_tokens("decompose", decompose_messages(answer))
                dec.output_tokens += _out(recorded, main, json.dumps(
                    {"claims": [c.get("text", "") for c in claims],
                     "dropped": result.get("dropped") or []}, ensure_ascii=False))
            verify_calls = 0
            for claim in claims:
                text = str(claim.get("text") or "")
                if _ungrounded(claim):
                    continue
                try:
                    windows = _claim_windows(claim, passages, budget)
                except ValueError:  # a passage over the budget: the answer errors, no call
                    continue
                for window in windows:
                    if filtered and settle(text, window) is not None:
                        for bill, member in zip(bills, members):
                            bill.spend["verify"].asked += member.votes
                            bill.spend["verify"].settled += member.votes
                        continue
                    for bill, member in zip(bills, members):
                        verify_calls += _count_votes(bill.spend["verify"], member, text,
                                                     window, rotated, verify_messages,
                                                     recorded, _verify_reply(claim))
            per_answer_waves.append((dec_calls, verify_calls))
        canary_calls = 0
        on_canaries = _Recorded(None, "")
        if config.canaries:
            on_canaries = _recorded_output(run, canaries=True)
            canary_calls = _canaries(passage_sets, config.canaries, budget, bills, members,
                                     rotated, verify_messages,
                                     on_canaries if on_canaries.per_call is not None
                                     else recorded)
        est.judges = bills
        for bill, member in zip(bills, members):
            total = bill.total()
            bill.cost_usd = 0.0 if not member.paid or not total.calls else \
                price_usd(str(getattr(member.judge, "model", "")), total.input_tokens,
                          total.output_tokens)
        costs = [b.cost_usd for b in bills]
        est.cost_usd = None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)
        if unknown_passages and est.judged:
            est.extrapolated = _extrapolate(est, unknown_passages, budget, bills, members)
        est.output_method = recorded.method if recorded.per_call is not None else \
            "the replies the saved claims and verdicts would make, counted as the input"
        if config.canaries and on_canaries.per_call is not None:
            est.output_method += f"; canaries: {on_canaries.method}"
        _wall(est, config, main.paid, per_answer_waves, canary_calls)
        est.assumptions = _assumptions(config, main, filtered, budget)
        return est
    finally:
        cache.close()


def _extrapolate(est: Estimate, unknown: list[list[Passage]], budget: int | None,
                 bills: list[JudgeBill], members: list[_Member]) -> Extrapolation:
    """The verify calls of the answers whose claims are unknown (their passages:
    ``unknown``), had they split like the judged ones (``Extrapolation``)."""
    from ..pipeline import passage_windows

    mean = est.claims / est.judged
    windows = 0
    for passages in unknown:
        try:
            windows += len(passage_windows(passages, budget)) if passages else 0
        except ValueError:  # a passage over the budget: the answer errors, no call
            continue
    out = Extrapolation(mean_claims=mean, from_answers=est.judged,
                        claims=round(mean * len(unknown)))
    for bill, member in zip(bills, members):
        calls = round(mean * windows * member.votes)
        out.calls += calls
        verify = bill.spend["verify"]
        if not member.paid or not calls:
            continue
        if not verify.calls or out.input_tokens is None or out.output_tokens is None:
            out.input_tokens = out.output_tokens = out.cost_usd = None
            continue
        tokens_in = round(calls * verify.input_tokens / verify.calls)
        tokens_out = round(calls * verify.output_tokens / verify.calls)
        out.input_tokens += tokens_in
        out.output_tokens += tokens_out
        cost = price_usd(str(getattr(member.judge, "model", "")), tokens_in, tokens_out)
        out.cost_usd = None if cost is None or out.cost_usd is None else out.cost_usd + cost
    return out


def _count_votes(spend: Spend, member: _Member, text: str, window: list[Passage],
                 rotated: Any, verify_messages: Any, recorded: _Recorded,
                 reply: str) -> int:
    """Count one claim window's votes for one judge into ``spend``; the calls that go out."""
    calls = 0
    for vote in range(1, member.votes + 1):
        given = rotated(window, vote) if vote > 1 else window
        spend.asked += 1
        if member.cached(vote, "verify", verify_payload(text, given)):
            spend.cache_hits += 1
            continue
        spend.calls += 1
        calls += 1
        spend.input_tokens += member.request_tokens("verify", verify_messages(text, given))
        spend.output_tokens += _out(recorded, member, reply)
    return calls


def _canaries(passage_sets: list[list[Passage]], n: int, budget: int | None,
              bills: list[JudgeBill], members: list[_Member], rotated: Any,
              verify_messages: Any, recorded: _Recorded) -> int:
    """Count the judge canaries' calls (``run.canaries``: no first filter); the calls that
    go out."""
    from ..canaries import build_canaries
    from ..pipeline import passage_windows

    built = build_canaries([ps for ps in passage_sets if ps], n) if any(passage_sets) else None
    calls = 0
    for canary in built.canaries if built is not None else ():
        try:
            windows = passage_windows(list(canary.passages), budget)
        except ValueError:
            continue
        for window in windows:
            for bill, member in zip(bills, members):
                calls += _count_votes(bill.spend["canary"], member, canary.claim, window,
                                      rotated, verify_messages, recorded,
                                      json.dumps({"rationale": "", "evidence": [],
                                                  "label": canary.expected}))
    return calls


@dataclass
class _Recorded:
    per_call: float | None
    method: str


def _recorded_output(run: SavedRun, *, canaries: bool = False) -> _Recorded:
    """The saved run's mean output tokens per call, when it recorded model calls: of its
    answers' calls, or (``canaries``) of its canaries' calls."""
    calls = output = 0
    usages = [run.canaries.usage.model_dump()] if canaries and run.canaries is not None \
        else [] if canaries else [result.get("usage") or {} for result in run.results]
    for usage in usages:
        calls += int(usage.get("calls") or 0)
        output += int(usage.get("output_tokens") or 0)
    if calls and output:
        per_call = output / calls
        what = "canaries'" if canaries else "answers'"
        return _Recorded(per_call, f"the saved run's mean of its {what} calls, "
                                   f"{per_call:.1f} per call ({output:,} over {calls:,})")
    return _Recorded(None, "")


def _out(recorded: _Recorded, member: _Member, reply: str) -> int:
    if not member.paid:
        return 0
    if recorded.per_call is not None:
        return round(recorded.per_call)
    return member.tokens.text(reply)


def _wall(est: Estimate, config: EstimateConfig, paid: bool,
          answers: list[tuple[int, int]], canary_calls: int) -> None:
    """The wall time of the judge calls (module docstring)."""
    latency = config.latency_s if config.latency_s is not None else \
        (DEFAULT_LATENCY_S if paid else 0.0)
    concurrency = max(1, config.concurrency or DEFAULT_CONCURRENCY)
    workers = max(1, config.workers)
    waves = sum(d + math.ceil(v / concurrency) for d, v in answers)
    waves += math.ceil(canary_calls / concurrency)
    by_latency = waves * latency / workers
    total = est.total()
    bounds = [(by_latency, f"{waves} wave(s) of at most {concurrency} call(s) at "
                           f"{latency:g} s a call, {workers} worker(s)")]
    if config.max_rpm:
        bounds.append((total.calls / config.max_rpm * 60,
                       f"--faithfulness-max-rpm {config.max_rpm:g}: {total.calls} calls"))
    if config.max_tpm:
        tokens = total.input_tokens + total.output_tokens
        bounds.append((tokens / config.max_tpm * 60,
                       f"--faithfulness-max-tpm {config.max_tpm:g}: {tokens:,} tokens"))
    est.latency_s = latency
    est.wall_s, est.wall_basis = max(bounds, key=lambda b: b[0])


def _assumptions(config: EstimateConfig, main: _Member, filtered: bool,
                 budget: int | None) -> list[str]:
    out = ["the next run judges the saved run's answers, with the saved run's claims (a "
           "judge or prompt that splits answers differently changes the verify calls)",
           "answers the saved run left unverified stay outside the judge's coverage (no "
           "call); ungrounded claims make no call",
           "a claim citing some passages is verified against them first, and against every "
           "passage too only when the saved verdict was not supported"]
    if config.votes > 1 and main.votes > 1:
        out.append(f"votes: {config.votes} per claim counted in full (a run stops once the "
                   "majority is decided, so it can make fewer calls)")
    elif config.votes > 1:
        out.append("votes: the judge is deterministic, asked once")
    out.append(f"first filter: {'on' if filtered else 'off'} ({config.first_filter})")
    if config.cache_dir is None:
        out.append("cache: off (--faithfulness-no-cache): nothing is served")
    elif config.cache_mode == "refresh":
        out.append("cache: refresh mode serves nothing")
    else:
        out.append(f"cache: {config.cache_dir} ({config.cache_mode})"
                   + ("; a miss in replay mode is an error, not a call"
                      if config.cache_mode == "replay" else ""))
    if budget:
        out.append(f"context budget: {budget:,} passage characters per verify call")
    if main.paid:
        out.append("input tokens: the real prompts (judges.prompts, the schema instruction "
                   "where the model does not enforce a schema) counted with "
                   f"{main.tokens.method}; a provider may count a few tokens more per request")
    latency = "given" if config.latency_s is not None else "assumed (saved runs do not " \
        "record latency; pass --latency)"
    out.append(f"latency per call: {latency}; the wall time is the judge calls' alone "
               "(pytest's start-up and the tests' own work are not in it)")
    if config.canaries:
        out.append(f"canaries: {config.canaries} asked, built from the saved run's passages")
    out.append("a conftest pytest_faithfulness_make_judge hook is not seen: the judge is "
               f"{config.judge!r} as named")
    return out
