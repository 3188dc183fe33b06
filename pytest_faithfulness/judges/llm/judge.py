"""The LLM judge: every call goes through litellm, imported only when a call has to go out.

``LiteLLMJudge("openai/gpt-4o-mini")`` decomposes and verifies with any model string litellm
knows. A reply is believed only when it is exactly one JSON value valid against
``DecomposeReply`` / ``VerifyReply`` (``replies.parse_json_reply``); the shape is asked for with
``json_schema`` structured output where litellm says the model enforces it
(``transport.RequestPlan``). The cache key (``fingerprint``) holds the endpoint as litellm
resolves it (``endpoint.resolve_endpoint``, explicit or from the environment) and the sampling
parameters; error texts are redacted (``redaction``).
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import Any

from pydantic import BaseModel, ValidationError

from ... import _loop
from ...accounting import GATEWAY_BUDGET_SPENT, Budget
from ...accounting import record as record_usage
from ...ratelimit import RATE_LIMIT_WAIT_SPENT, RateLimitWait
from ...records import MAX_EVIDENCE_ITEMS, Decomposition, Passage, Verdict
from ...redaction import key_variable, redact, register_key_variable
from ..coverage import LLM_COVERAGE, JudgeCoverage
from ..prompts import PASSAGES_MESSAGE, decompose_messages, prompt_fingerprint, verify_messages
from ..protocol import JudgeBase, JudgeError
from .endpoint import resolve_endpoint
from .replies import (
    DecomposeReply,
    VerifyReply,
    parse_json_reply,
    schemas_fingerprint,
    unwrap_verdict,
)
from .transport import (
    TRANSIENT_ERRORS,
    RequestPlan,
    content_policy_code,
    import_litellm,
    litellm_version,
    missing_credentials,
    quiet_call,
    rate_limit_delay,
    rate_limited,
    retry_delay,
    short_error,
    spent_budget,
    too_large,
    transient_status,
)


class LiteLLMJudge(JudgeBase):
    """An LLM judge through litellm, for any model string litellm knows.

    Args:
        model: a litellm model string, e.g. ``"openai/gpt-4o-mini"``; API keys come from the
            provider's usual environment variables (``OPENAI_API_KEY``, ...).
        api_base: an OpenAI-compatible base URL (e.g. a local server); default: the one
            litellm reads for the provider (``OPENAI_BASE_URL``, ... or the provider's own).
        timeout: seconds per HTTP request.
        max_retries: retries of a transient failure (5xx, timeout, connection error), with
            exponential backoff that honours ``Retry-After``.
        rate_limit_wait: the most seconds one call spends waiting out "limit reached"
            answers (HTTP 429 from the provider or a judge gateway such as the litellm proxy),
            counted from the first such answer; default 300 (five one-minute windows). Each
            wait is the reply's own hint in full (``retry-after-ms``, ``Retry-After`` in
            seconds or as a date, or ``x-ratelimit-reset-requests`` / ``-tokens`` when that
            count is exhausted), or else ``backoff_base`` doubling up to ``backoff_max``, with
            jitter. These waits do not use up ``max_retries``; a limit still reached after
            them errors the call. The whole run's waits are bounded too: ``run_wait``. A 429
            that waiting cannot cure is not waited on: a spent budget or quota (the proxy's
            ``budget_exceeded``, its router's "crossed budget", OpenAI's
            ``insufficient_quota``, ...) errors the call at once, its text holding
            ``accounting.GATEWAY_BUDGET_SPENT`` so that the gate names the budget; so does a
            single request larger than the provider's token limit.
        parse_retries: extra attempts when a reply cannot be parsed or validated.
        context_budget_chars: most characters of passages per verify call; more passages are
            split into several calls (``None``: no limit; a provider's context-window error
            then makes the answer ``error``, never a silent truncation).
        budget: a shared ``accounting.Budget``; once spent, calls raise ``BudgetExceeded``.
        rate: a shared ``ratelimit.RateLimiter`` (``--faithfulness-max-rpm`` / ``-max-tpm``):
            each request waits for its turn, each reply's tokens are charged to it.
        run_wait: the run's ``ratelimit.RateLimitWait``, the seconds every call of the run
            together may spend waiting on "limit reached" answers with no call answered in
            between (the plugin shares one
            across judges, votes, panel members and xdist workers:
            ``--faithfulness-max-rate-limit-wait``, default 120 s); default: one of this
            judge's own with 120 s. Once it is spent, a call answered "limit reached" errors
            at once, its text holding ``ratelimit.RATE_LIMIT_WAIT_SPENT`` so that the gate
            names it.
        schema_in_response_format: send the reply's JSON schema inside
            ``response_format={"type": "json_object", "schema": ...}`` (llama.cpp's server
            constrains its output with it) instead of choosing the mode automatically.
        max_tokens: most output tokens per reply (``None``: the provider's default); a reply
            cut off by it fails to parse and, after ``parse_retries``, errors the answer.
        temperature: sampling temperature (``>= 0``, default 0). Sent only where litellm
            says the model accepts that value: reasoning models with a fixed temperature
            (OpenAI's o-series, gpt-5, ...) get none and sample at the provider's default.
        cache_markers: mark each verify request's system prompt and passages block as a
            cacheable prefix with litellm's ``cache_control_injection_points`` (a
            ``cache_control`` marker on the passages message). ``None`` (default): only for
            providers that cache nothing without one (``needs_cache_markers``: Anthropic,
            and Claude models on Bedrock, Vertex AI, Azure AI, OpenRouter, Databricks);
            OpenAI, DeepSeek, xAI and Gemini cache prefixes by themselves. ``True``: always
            (a gateway in front of Claude reached as ``openai/...``); ``False``: never.

    Structured output: where ``litellm.supports_response_schema`` says the model enforces a
    schema, the reply's schema is sent as ``response_format={"type": "json_schema", ...,
    "strict": true}``; otherwise ``{"type": "json_object"}`` with the schema appended to the
    system prompt. Either way the reply must be exactly one JSON value (``parse_json_reply``)
    and is validated against ``DecomposeReply`` / ``VerifyReply``.

    Every request adds its tokens (input, output, prompt-cache hits) and its cost from
    litellm's bundled price map to the current answer's ``Usage``.

    Through a litellm proxy (the LiteLLM gateway, which holds rate limits, budgets and a
    call cache for every machine of a sharded run): ``LiteLLMJudge("litellm_proxy/<alias>")``
    with ``api_base`` (or ``LITELLM_PROXY_API_BASE``) the proxy's URL and the virtual key in
    ``LITELLM_PROXY_API_KEY``, litellm's own convention; ``<alias>`` is a ``model_name`` of
    the proxy's ``model_list``. The endpoint is part of the cache key; the key is not, and
    never reaches a report.

    Raises ``JudgeError`` when a call fails for good; its text never holds a secret
    (``redaction.redact``).
    """

    cacheable = True
    accounts_usage = True
    #: The documented default (``judges.coverage.LLM_COVERAGE``): English answers, prose and
    #: tables, passage sets up to 48,000 characters whole; widen it with
    #: ``--faithfulness-judge-covers`` after a calibration run.
    coverage: JudgeCoverage | None = LLM_COVERAGE

    def __init__(self, model: str, *, api_base: str | None = None, timeout: float = 60.0,
                 max_retries: int = 3, parse_retries: int = 1,
                 context_budget_chars: int | None = None, backoff_base: float = 0.5,
                 backoff_max: float = 20.0, budget: Budget | None = None,
                 schema_in_response_format: bool = False,
                 max_tokens: int | None = None, temperature: float = 0.0,
                 cache_markers: bool | None = None,
                 rate_limit_wait: float = 300.0, rate: Any = None,
                 run_wait: RateLimitWait | None = None) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty litellm model string")
        if (isinstance(temperature, bool) or not isinstance(temperature, (int, float))
                or temperature != temperature or temperature < 0
                or temperature == float("inf")):
            raise ValueError(f"temperature must be a finite number >= 0, got {temperature!r}")
        if (isinstance(rate_limit_wait, bool) or not isinstance(rate_limit_wait, (int, float))
                or not 0 <= rate_limit_wait < float("inf")):
            raise ValueError(f"rate_limit_wait must be a finite number of seconds >= 0, "
                             f"got {rate_limit_wait!r}")
        self.model = model.strip()
        register_key_variable(key_variable(self.model))  # its key is redacted at any length
        self.api_base = api_base
        self.timeout = timeout
        self.max_retries = max_retries
        self.parse_retries = parse_retries
        self.context_budget_chars = context_budget_chars
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.budget = budget or Budget()
        self.rate = rate
        self.schema_in_response_format = schema_in_response_format
        self.max_tokens = max_tokens
        self.temperature = float(temperature)
        if cache_markers is not None and not isinstance(cache_markers, bool):
            raise ValueError(f"cache_markers must be True, False or None, got {cache_markers!r}")
        self.cache_markers = cache_markers
        self.rate_limit_wait = float(rate_limit_wait)
        self.run_wait = run_wait if run_wait is not None else RateLimitWait()
        self.calls = 0
        self.retries = 0
        self._plan: RequestPlan | None = None
        self._plan_lock = threading.Lock()

    # protocol -------------------------------------------------------------------------------
    def decompose(self, answer: str) -> Decomposition:
        """Decompose ``answer`` with the LLM (blocking)."""
        return _loop.run_sync(self.adecompose(answer))

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Verify ``claim`` against ``passages`` with the LLM (blocking)."""
        return _loop.run_sync(self.averify(claim, passages))

    async def adecompose(self, answer: str) -> Decomposition:
        """Decompose ``answer`` with the LLM."""
        reply = await self._structured(decompose_messages(answer), DecomposeReply, "decompose")
        return Decomposition(claims=reply.claims,
                             dropped=[item.model_dump() for item in reply.dropped])

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Verify ``claim`` against ``passages`` with the LLM. Evidence items past
        ``records.MAX_EVIDENCE_ITEMS`` are not read (the check then sees less evidence: it
        can refuse, never accept, on their account)."""
        reply = await self._structured(verify_messages(claim, passages), VerifyReply, "verify",
                                       unwrap=unwrap_verdict)
        return Verdict(reply.label, rationale=reply.rationale or None,
                       evidence=[item.model_dump() for item in reply.evidence[:MAX_EVIDENCE_ITEMS]])

    def fingerprint(self) -> dict[str, Any]:
        """What makes this judge's verdicts differ, for cache keys and run comparison.

        Keys: ``model``; ``endpoint`` (the base URL litellm will use, from ``api_base`` or the
        provider's environment variables, shown without credentials or query values) and
        ``endpoint_key`` (a hash of the whole URL, query string included); ``prompts``;
        ``reply_schemas`` (a hash of the reply schemas); ``temperature`` (as asked);
        ``structured_output`` (``"auto"`` or ``"json_object+schema"``); ``max_tokens``;
        ``litellm`` (its version: which temperature is sent and which structured-output mode
        is used is decided by litellm's model knowledge, a pure function of the model string
        and this version, so a change of either changes the key).

        Never imports litellm (a fully cached run makes no call and loads no litellm).
        """
        endpoint = resolve_endpoint(self.model, self.api_base)
        return {"kind": "litellm", "model": self.model, "endpoint": endpoint.display,
                "endpoint_key": endpoint.key, "prompts": prompt_fingerprint(),
                "reply_schemas": schemas_fingerprint(), "temperature": self.temperature,
                "structured_output": ("json_object+schema" if self.schema_in_response_format
                                      else "auto"),
                "max_tokens": self.max_tokens, "litellm": litellm_version()}

    def for_vote(self, vote: int) -> LiteLLMJudge:
        """This judge for vote ``vote`` (2, 3, ...) of a claim (``judges.votes``): the same
        model, endpoint, prompts and budget, sampling at ``judges.votes.VOTE_TEMPERATURE``
        (0.7) or this judge's temperature if higher, so that a second vote is a second
        sample and not a repeat of the first."""
        import copy

        from ..votes import VOTE_TEMPERATURE

        variant = copy.copy(self)
        variant.temperature = max(self.temperature, VOTE_TEMPERATURE)
        variant._plan = None
        variant._plan_lock = threading.Lock()
        return variant

    def describe(self) -> str:
        """One line for report headers: model, endpoint, prompts, and the structured-output
        mode and temperature sent (once litellm has decided them; ``auto`` before that)."""
        endpoint = resolve_endpoint(self.model, self.api_base).display or "provider default"
        plan = self._plan
        if plan is None and "litellm" in sys.modules:  # deciding is cheap once it is loaded
            plan = self._request_plan()
        if plan is None:
            output = ("json_object+schema" if self.schema_in_response_format else "auto")
            sampling = f"temperature {self.temperature:g} where the model accepts it"
        else:
            output, sampling = plan.output_mode, plan.describe_sampling()
        return (f"litellm judge {self.model} at {endpoint} (prompts {prompt_fingerprint()}; "
                f"output {output}; {sampling})")

    # internals ------------------------------------------------------------------------------
    def _request_plan(self) -> RequestPlan:
        """Structured-output mode and temperature for this model, decided once with litellm."""
        with self._plan_lock:
            if self._plan is None:
                self._plan = RequestPlan.decide(import_litellm(), self.model, self.temperature,
                                                 self.schema_in_response_format,
                                                 self.cache_markers)
            return self._plan

    async def _structured(self, messages, schema: type[BaseModel], op: str, unwrap=None):
        plan = self._request_plan()
        messages, response_format = plan.request(messages, schema)
        problems: list[str] = []
        for _attempt in range(self.parse_retries + 1):
            content = await self._complete(messages, op, response_format, plan)
            try:
                value = parse_json_reply(content)
                if unwrap is not None:
                    value = unwrap(value)
                return schema.model_validate(value)
            except (ValueError, ValidationError) as exc:
                problems.append(short_error(exc))
        raise JudgeError(redact(f"{op}: judge reply could not be read as {schema.__name__} after "
                                f"{self.parse_retries + 1} attempt(s): {problems[-1]}"),
                         kind="parse")

    async def _complete(self, messages, op: str, response_format: dict[str, Any],
                        plan: RequestPlan) -> str | None:
        litellm = import_litellm()
        transient = tuple(getattr(litellm, name) for name in TRANSIENT_ERRORS
                          if hasattr(litellm, name))
        blocked = getattr(litellm, "ContentPolicyViolationError", ())
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages,
                                  "response_format": response_format,
                                  "timeout": self.timeout, "max_retries": 0}
        if plan.temperature is not None:
            kwargs["temperature"] = plan.temperature
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        if plan.cache_markers and op == "verify":
            # the system prompt and the passages block, the same for every claim of an answer
            kwargs["cache_control_injection_points"] = [
                {"location": "message", "index": PASSAGES_MESSAGE}]
        last: Exception | None = None
        failures = 0         # transient failures: at most max_retries + 1
        limited = 0          # "limit reached" answers, waited out within rate_limit_wait
        limited_since: float | None = None
        while True:
            self.budget.check()
            if self.rate is not None:
                await self.rate.aacquire()
            self.calls += 1
            record_usage(calls=1)
            try:
                with quiet_call(litellm):  # no per-call logging unless someone listens
                    response = await litellm.acompletion(**kwargs)
                self.run_wait.answered()  # the provider serves the run: its waits start over
                self._account(litellm, response)
                choice = response.choices[0]
                if getattr(choice, "finish_reason", None) == "content_filter":
                    raise JudgeError(f"{op}: blocked by the provider's content filter "
                                     f"(finish_reason content_filter) for {self.model}")
                return choice.message.content
            except JudgeError:
                raise
            except Exception as exc:
                if (blocked and isinstance(exc, blocked)) or content_policy_code(exc):
                    raise JudgeError(redact(f"{op}: blocked by the provider's content filter: "
                                            f"{type(exc).__name__}: {short_error(exc)}")) from exc
                if missing_credentials(exc):  # litellm reports these as server errors
                    raise JudgeError(f"{op}: no API key for {self.model}: set "
                                     f"{key_variable(self.model)}") from exc
                spent = spent_budget(exc)
                if spent is not None:  # final: waiting does not bring a budget back
                    raise JudgeError(redact(
                        f"{op}: {GATEWAY_BUDGET_SPENT} ({spent}) at {self._where()}: "
                        f"{type(exc).__name__}: {short_error(exc)}"),
                        kind="gateway_budget") from exc
                if rate_limited(exc, litellm):
                    if too_large(exc):
                        raise JudgeError(redact(
                            f"{op}: the request is larger than the rate limit allows, so "
                            f"waiting cannot help: {type(exc).__name__}: "
                            f"{short_error(exc)}")) from exc
                    now = time.monotonic()
                    limited_since = now if limited_since is None else limited_since
                    waited = now - limited_since
                    if waited >= self.rate_limit_wait:
                        raise JudgeError(redact(
                            f"{op}: rate limit still reached after waiting "
                            f"{self.rate_limit_wait:g} s ({limited + 1} attempt(s) in "
                            f"{waited:.1f} s): {type(exc).__name__}: {short_error(exc)}"),
                            kind="rate_limit") from exc
                    hint = rate_limit_delay(exc, limited, self.backoff_base, self.backoff_max)
                    delay = self.run_wait.grant(min(hint, self.rate_limit_wait - waited))
                    if delay <= 0:  # the run's wait budget is spent: fail now, wait no more
                        raise JudgeError(redact(
                            f"{op}: rate limit reached and {RATE_LIMIT_WAIT_SPENT} "
                            f"({self.run_wait.limit_s:g} s for the whole run, "
                            "--faithfulness-max-rate-limit-wait): "
                            f"{type(exc).__name__}: {short_error(exc)}"),
                            kind="rate_limit") from exc
                    limited += 1
                    self.retries += 1
                    await asyncio.sleep(delay)
                    continue
                if not (isinstance(exc, transient) or transient_status(exc)):
                    # not transient: a 4xx, auth, bad request, ...
                    raise JudgeError(redact(
                        f"{op}: {type(exc).__name__}: {short_error(exc)}")) from exc
                last = exc
                if failures == self.max_retries:
                    break
                self.retries += 1
                await asyncio.sleep(retry_delay(exc, failures, self.backoff_base,
                                                  self.backoff_max))
                failures += 1
        raise JudgeError(redact(f"{op}: {type(last).__name__} after {self.max_retries + 1} "
                                f"attempt(s): {short_error(last)}")) from last

    def _where(self) -> str:
        return resolve_endpoint(self.model, self.api_base).display or "the provider's endpoint"

    def _account(self, litellm: Any, response: Any) -> None:
        usage = getattr(response, "usage", None)
        input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", 0) or 0)
        hidden = getattr(response, "_hidden_params", None) or {}
        cost, uncosted = hidden.get("response_cost"), 0  # litellm priced it already
        if cost is None:
            try:
                cost = litellm.completion_cost(completion_response=response)
            except Exception:  # a model the bundled price map does not know
                cost, uncosted = 0.0, 1
        cost = float(cost or 0.0)
        self.budget.charge(cost)
        if uncosted:
            self.budget.charge_unpriced()
        record_usage(input_tokens=input_tokens, output_tokens=output_tokens,
                     cached_input_tokens=cached, cost_usd=cost, uncosted_calls=uncosted)
        if self.rate is not None:
            self.rate.charge_tokens(input_tokens + output_tokens)
