"""The LLM judge: every call goes through litellm, imported only when a call has to go out.

``LiteLLMJudge("openai/gpt-4o-mini")`` decomposes and verifies with any model string litellm
knows. A reply is believed only when it is exactly one JSON value valid against
``DecomposeReply`` / ``VerifyReply`` (``parse_json_reply``); the shape is asked for with
``json_schema`` structured output where litellm says the model enforces it. The cache key
(``fingerprint``) holds the endpoint as litellm resolves it (explicit or from the
environment) and the sampling parameters; error texts are redacted (``redaction``).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.metadata
import json
import os
import random
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ... import _loop
from ...accounting import GATEWAY_BUDGET_SPENT, Budget
from ...accounting import record as record_usage
from ...ratelimit import RATE_LIMIT_WAIT_SPENT, RateLimitWait
from ...records import MAX_EVIDENCE_ITEMS, Decomposition, Passage, Verdict, VerdictLabel
from ...redaction import REDACTED, is_secret_name, key_variable, redact, register_key_variable
from ..prompts import (
    PASSAGES_MESSAGE,
    decompose_messages,
    prompt_fingerprint,
    verify_messages,
)
from ..protocol import JudgeBase, JudgeError


def _no_description(schema: dict[str, Any]) -> None:
    """The reply schemas go to the model: no docstring in them (tokens, and no prose of ours
    the model could take for an instruction), and no defaults (OpenAI's strict mode rejects
    the ``default`` keyword)."""
    schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("default", None)


def _dropped_schema(schema: dict[str, Any]) -> None:
    """No docstring in the schema; ``text`` and ``reason`` both required."""
    _no_description(schema)
    schema["required"] = ["text", "reason"]


class DroppedReply(BaseModel):
    """One item the decomposer set aside: the answer's text, verbatim, and why. The schema
    asks for the reason; a missing or empty one is read as none given."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_dropped_schema)
    text: str
    reason: str = Field(default="", validate_default=True)

    @field_validator("reason", mode="before")
    @classmethod
    def _some_reason(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            return "set aside by the decomposer"
        return value


def _items_in_place(schema: dict[str, Any], key: str) -> dict[str, Any]:
    """``schema`` with the definition of list property ``key``'s items written in place of its
    ``$ref`` (a server's schema-to-grammar converter need not resolve references)."""
    defs = schema.pop("$defs", {})
    items = schema["properties"][key]["items"]
    name = items.get("$ref", "").rsplit("/", 1)[-1]
    if name in defs:
        schema["properties"][key]["items"] = defs[name]
    return schema


class DecomposeReply(BaseModel):
    """The LLM's decomposition reply: ``{"claims": [...], "dropped": [{"text", "reason"}]}``.

    A dropped item given as a plain string (a model not held to the schema) is read as set
    aside with no stated reason: ``records.Decomposition``'s "set aside by the decomposer".
    Either way ``alignment.align`` checks each item against the answer.
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra=_no_description)
    claims: list[str]
    dropped: list[DroppedReply] = Field(default_factory=list)

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The schema with the dropped item's definition written in place (no ``$ref``: a
        server's schema-to-grammar converter need not resolve references)."""
        return _items_in_place(super().model_json_schema(*args, **kwargs), "dropped")

    @field_validator("dropped", mode="before")
    @classmethod
    def _plain_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"text": v, "reason": "set aside by the decomposer"} if isinstance(v, str)
                    else v for v in value]
        return value


def _verify_schema(schema: dict[str, Any]) -> None:
    """No docstring in the schema, and ``rationale`` and ``label`` required."""
    _no_description(schema)
    schema["required"] = [key for key in schema.get("properties", {})
                          if key in ("rationale", "label")]


def _evidence_schema(schema: dict[str, Any]) -> None:
    """No docstring in the schema; both keys required (a model held to it writes both)."""
    _no_description(schema)
    schema["required"] = ["passage_id", "quote"]


class EvidenceReply(BaseModel):
    """One evidence item of a verify reply: ``{"passage_id", "quote"}``. A numeric id
    (``1``) is read as its string; a missing quote as empty (the evidence check refuses it)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=_evidence_schema)
    passage_id: str
    quote: str = ""

    @field_validator("passage_id", mode="before")
    @classmethod
    def _id_as_string(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("quote", mode="before")
    @classmethod
    def _quote_text(cls, value: Any) -> Any:
        return "" if value is None else value


class VerifyReply(BaseModel):
    """The LLM's verification reply.

    Fields are declared in the order the model is asked to write them: ``rationale`` first,
    ``evidence`` (a list of ``{"passage_id", "quote"}``, one item per passage sentence that
    carries a part of the claim), ``label`` last (the reasoning before the decision;
    docs/prompts.md, rule 5), and the JSON schema marks ``rationale`` and ``label``
    required, so a decoder held to the schema, which writes the properties in the schema's
    order, cannot put the label before the reasoning. (litellm's strict ``json_schema``
    format lists every property as required, in the same order.) A reply without a
    rationale, from a model not held to the schema, is still read; so is the older form,
    ``passage_ids`` with one ``quote`` (one piece of evidence). Either way the verdict is
    checked like any other (``verification.check_verdict``).
    """

    model_config = ConfigDict(extra="ignore", json_schema_extra=_verify_schema)
    rationale: str = ""
    evidence: list[EvidenceReply] = Field(default_factory=list)
    label: VerdictLabel

    @model_validator(mode="before")
    @classmethod
    def _older_form(cls, value: Any) -> Any:
        """``passage_ids`` + ``quote`` (replies in the older form) as evidence items, each id
        with that quote (``records.Verdict``'s rule); ``evidence`` wins when both are given."""
        if not isinstance(value, dict) or value.get("evidence"):
            return value
        ids, quote = value.get("passage_ids"), value.get("quote")
        if ids is None and quote is None:
            return value
        if isinstance(ids, (str, int)) and not isinstance(ids, bool):
            ids = [ids]
        if not isinstance(ids, list):
            ids = []
        if not ids and quote is not None:
            ids = [""]
        return {**value, "evidence": [{"passage_id": pid, "quote": quote} for pid in ids]}

    @field_validator("evidence", mode="before")
    @classmethod
    def _evidence_list(cls, value: Any) -> Any:
        """``null`` is no evidence; one item given bare is a list of one."""
        if value is None:
            return []
        return [value] if isinstance(value, dict) else value

    @field_validator("rationale", mode="before")
    @classmethod
    def _rationale_text(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("label", mode="before")
    @classmethod
    def _label_lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The schema with the evidence item's definition written in place (no ``$ref``)."""
        return _items_in_place(super().model_json_schema(*args, **kwargs), "evidence")


_litellm_lock = threading.Lock()


def _import_litellm():
    """Import litellm on first use, with its price map read from the package, never fetched."""
    with _litellm_lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.telemetry = False
        litellm.suppress_debug_info = True
        return litellm


def parse_json_reply(text: str | None) -> Any:
    """Parse a model's reply, which must be exactly one JSON value.

    The whole reply (surrounding whitespace aside) must be one JSON value, or the whole reply
    must be one Markdown code fence (```` ```json ```` or ```` ``` ````) holding one JSON value.
    Nothing else is read: no JSON picked out of prose, no first-of-several objects, no repair
    of malformed JSON (trailing commas included). A reply that quotes JSON inside its
    reasoning (say, a fake ``{"label": "supported"}`` planted in the answer being judged) is
    therefore never taken for the verdict; it fails here, and the judge asks again. A raw
    line break or tab inside a string (which small models and some grammar-constrained
    decoders write in a rationale) is read as that character: the reply is still one value.

    Raises:
        ValueError: the reply is empty, or is not exactly one JSON value.
    """
    if text is None or not text.strip():
        raise ValueError("empty reply")
    body = text.strip()
    fence = _WHOLE_FENCE.fullmatch(body)
    if fence:
        body = fence.group(1).strip()
    try:
        return json.loads(body, strict=False)
    except json.JSONDecodeError as exc:
        where = "the code fence" if fence else "the reply"
        raise ValueError(f"{where} is not exactly one JSON value ({exc.msg} at char {exc.pos}): "
                         f"{text[:120]!r}") from None


#: A reply that is one code fence and nothing else; the info string may only be ``json``.
_WHOLE_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)\s*```", re.DOTALL)


_LABEL_KEYS = ("label", "verdict", "status")


def _unwrap_verdict(value: Any) -> Any:
    """A verdict list or ``{"verdicts": [...]}`` holding exactly one verdict -> that verdict;
    ``verdict`` or ``status`` stands for ``label`` when that is missing.

    Raises:
        ValueError: the reply names two different labels (``"label": "supported"`` beside
            ``"status": "contradicted"``): which one the model meant cannot be told, so the
            reply is not read (the parse retry, then an error; never the friendlier label).
    """
    if isinstance(value, dict) and isinstance(value.get("verdicts"), list):
        value = value["verdicts"]
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict):
        given = {key: value[key] for key in _LABEL_KEYS if isinstance(value.get(key), str)}
        labels = {v.strip().lower() for v in given.values()}
        if len(labels) > 1:
            raise ValueError("the reply names conflicting labels: " + ", ".join(
                f"{k}={v!r}" for k, v in given.items()))
        if "label" not in value and given:
            value = {**value, "label": next(iter(given.values()))}
    return value


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
        register_key_variable(_key_variable(self.model))  # its key is redacted at any length
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
        self._plan: _RequestPlan | None = None
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
                                       unwrap=_unwrap_verdict)
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
                "reply_schemas": _schemas_fingerprint(), "temperature": self.temperature,
                "structured_output": ("json_object+schema" if self.schema_in_response_format
                                      else "auto"),
                "max_tokens": self.max_tokens, "litellm": _litellm_version()}

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
    def _request_plan(self) -> _RequestPlan:
        """Structured-output mode and temperature for this model, decided once with litellm."""
        with self._plan_lock:
            if self._plan is None:
                self._plan = _RequestPlan.decide(_import_litellm(), self.model, self.temperature,
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
                problems.append(_short(exc))
        raise JudgeError(redact(f"{op}: judge reply could not be read as {schema.__name__} after "
                                f"{self.parse_retries + 1} attempt(s): {problems[-1]}"),
                         kind="parse")

    async def _complete(self, messages, op: str, response_format: dict[str, Any],
                        plan: _RequestPlan) -> str | None:
        litellm = _import_litellm()
        transient = tuple(getattr(litellm, name) for name in _TRANSIENT if hasattr(litellm, name))
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
                if (blocked and isinstance(exc, blocked)) or _content_policy_code(exc):
                    raise JudgeError(redact(f"{op}: blocked by the provider's content filter: "
                                            f"{type(exc).__name__}: {_short(exc)}")) from exc
                if _missing_credentials(exc):  # litellm reports these as server errors
                    raise JudgeError(f"{op}: no API key for {self.model}: set "
                                     f"{_key_variable(self.model)}") from exc
                spent = _spent_budget(exc)
                if spent is not None:  # final: waiting does not bring a budget back
                    raise JudgeError(redact(
                        f"{op}: {GATEWAY_BUDGET_SPENT} ({spent}) at {self._where()}: "
                        f"{type(exc).__name__}: {_short(exc)}"), kind="gateway_budget") from exc
                if _rate_limited(exc, litellm):
                    if _too_large(exc):
                        raise JudgeError(redact(
                            f"{op}: the request is larger than the rate limit allows, so "
                            f"waiting cannot help: {type(exc).__name__}: {_short(exc)}")) from exc
                    now = time.monotonic()
                    limited_since = now if limited_since is None else limited_since
                    waited = now - limited_since
                    if waited >= self.rate_limit_wait:
                        raise JudgeError(redact(
                            f"{op}: rate limit still reached after waiting "
                            f"{self.rate_limit_wait:g} s ({limited + 1} attempt(s) in "
                            f"{waited:.1f} s): {type(exc).__name__}: {_short(exc)}"),
                            kind="rate_limit") from exc
                    delay = self.run_wait.grant(min(self._rate_limit_delay(exc, limited),
                                                    self.rate_limit_wait - waited))
                    if delay <= 0:  # the run's wait budget is spent: fail now, wait no more
                        raise JudgeError(redact(
                            f"{op}: rate limit reached and {RATE_LIMIT_WAIT_SPENT} "
                            f"({self.run_wait.limit_s:g} s for the whole run, "
                            "--faithfulness-max-rate-limit-wait): "
                            f"{type(exc).__name__}: {_short(exc)}"), kind="rate_limit") from exc
                    limited += 1
                    self.retries += 1
                    await asyncio.sleep(delay)
                    continue
                if not (isinstance(exc, transient) or _transient_status(exc)):
                    # not transient: a 4xx, auth, bad request, ...
                    raise JudgeError(redact(f"{op}: {type(exc).__name__}: {_short(exc)}")) from exc
                last = exc
                if failures == self.max_retries:
                    break
                self.retries += 1
                await asyncio.sleep(self._delay(exc, failures))
                failures += 1
        raise JudgeError(redact(f"{op}: {type(last).__name__} after {self.max_retries + 1} "
                                f"attempt(s): {_short(last)}")) from last

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

    def _delay(self, exc: Exception, attempt: int) -> float:
        """Seconds before retrying a transient failure: ``Retry-After`` (capped at
        ``backoff_max``), else exponential backoff with jitter."""
        retry_after = _wait_hint(_headers(exc))
        if retry_after is not None:
            return min(retry_after, self.backoff_max)
        return min(self.backoff_base * (2 ** attempt) * (1 + random.random() / 4), self.backoff_max)

    def _rate_limit_delay(self, exc: Exception, attempt: int) -> float:
        """Seconds before asking again after a "limit reached" answer: the reply's hint in
        full (plus up to 10% jitter, so that waiting workers do not return all at once), else
        ``backoff_base`` doubling up to ``backoff_max`` with equal jitter; never less than
        ``backoff_base``."""
        hint = _wait_hint(_headers(exc))
        if hint is not None:  # at least backoff_base: "retry after 0 s" must not spin
            return max(hint * (1 + random.random() / 10), self.backoff_base)
        step = min(self.backoff_base * (2 ** min(attempt, 30)), self.backoff_max)
        return step * (0.5 + random.random() / 2)


# request plan ----------------------------------------------------------------------------------

#: How the reply's shape is asked for: ``response_format`` json_schema (strict; the provider
#: enforces it); json_object with the schema in the system prompt; the same with the schema
#: also inside ``response_format`` (llama.cpp's server constrains its output with it).
JSON_SCHEMA = "json_schema"
JSON_OBJECT = "json_object"
JSON_OBJECT_SCHEMA = "json_object+schema"

_SCHEMA_INSTRUCTION = "\nThe reply must be one JSON object valid against this JSON schema:\n"


@dataclass(frozen=True)
class _RequestPlan:
    """What a judge sends besides the messages, decided once per judge from litellm's model
    knowledge: the structured-output mode, the temperature (``None``: not sent) and whether
    verify requests carry a cache marker on the passages block."""

    output_mode: str
    temperature: float | None
    asked_temperature: float
    formats: dict[str, dict[str, Any]]  # reply class name -> litellm's json_schema format
    cache_markers: bool = False

    @classmethod
    def decide(cls, litellm: Any, model: str, temperature: float,
               schema_in_response_format: bool,
               cache_markers: bool | None = None) -> _RequestPlan:
        try:
            name, provider, _, _ = litellm.get_llm_provider(model)
        except Exception:  # litellm does not know the provider: the call will say so
            name, provider = model, None
        if schema_in_response_format:
            mode = JSON_OBJECT_SCHEMA
        else:
            try:
                enforced = litellm.supports_response_schema(model=name,
                                                            custom_llm_provider=provider)
            except Exception:
                enforced = False
            mode = JSON_SCHEMA if enforced else JSON_OBJECT
        sent: float | None = temperature
        try:  # litellm's own mapping, with unsupported values dropped instead of raised
            params = litellm.get_optional_params(model=name, custom_llm_provider=provider or "",
                                                 temperature=temperature, drop_params=True)
            sent = params.get("temperature")
        except Exception:  # a provider whose mapping fails here: send it, the provider decides
            sent = temperature
        from litellm.utils import type_to_response_format_param

        formats: dict[str, dict[str, Any]] = {}
        for reply in (DecomposeReply, VerifyReply):
            found = type_to_response_format_param(reply)
            assert found is not None  # litellm returns None only when given no type
            formats[reply.__name__] = found
        markers = (needs_cache_markers(provider, name) if cache_markers is None
                   else cache_markers)
        return cls(mode, sent, temperature, formats, markers)

    def request(self, messages: list[dict[str, str]],
                reply: type[BaseModel]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """The messages (the schema appended to the system prompt unless the provider
        enforces it) and the ``response_format`` for one call."""
        strict = self.formats[reply.__name__]
        if self.output_mode == JSON_SCHEMA:
            return messages, strict
        schema = strict["json_schema"]["schema"]
        messages = [dict(m) for m in messages]
        # in the schema's own order: the keys are listed as the reply should give them
        messages[0]["content"] += _SCHEMA_INSTRUCTION + json.dumps(schema)
        response_format: dict[str, Any] = {"type": "json_object"}
        if self.output_mode == JSON_OBJECT_SCHEMA:
            response_format["schema"] = schema
        return messages, response_format

    def describe_sampling(self) -> str:
        if self.temperature is None:
            return (f"temperature: provider default (the model does not accept "
                    f"{self.asked_temperature:g})")
        return f"temperature {self.temperature:g}"


#: Providers through which litellm passes a ``cache_control`` marker to a Claude model, which
#: caches a prompt prefix only up to such a marker (litellm's prompt-caching docs).
_CLAUDE_HOSTS = frozenset({"anthropic", "bedrock", "bedrock_converse", "vertex_ai",
                           "vertex_ai_beta", "azure_ai", "openrouter", "databricks"})


def needs_cache_markers(provider: str | None, model: str) -> bool:
    """Whether requests to ``model`` (litellm's model name, without the provider) through
    ``provider`` (litellm's provider name) need an explicit ``cache_control`` marker to have
    their prompt prefix cached: Anthropic's API, and Claude models on the hosts in
    ``_CLAUDE_HOSTS``. OpenAI, Azure OpenAI, DeepSeek, xAI and Gemini 2.5 cache prefixes
    automatically; an OpenAI-compatible server may reject an unknown ``cache_control``
    field, so none is sent unless asked for (``LiteLLMJudge(cache_markers=True)``)."""
    if provider == "anthropic":
        return True
    return provider in _CLAUDE_HOSTS and "claude" in model.lower()


def _schemas_fingerprint() -> str:
    blob = json.dumps([DecomposeReply.model_json_schema(), VerifyReply.model_json_schema(),
                       _SCHEMA_INSTRUCTION], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _litellm_version() -> str | None:
    try:
        return importlib.metadata.version("litellm")
    except importlib.metadata.PackageNotFoundError:
        return None


# endpoint ---------------------------------------------------------------------------------------

#: Environment variables litellm reads a provider's base URL from, in litellm's order
#: (``litellm/main.py``). A provider not listed here: ``<PROVIDER>_API_BASE`` (litellm's
#: convention), then ``<PROVIDER>_BASE_URL``.
_BASE_URL_VARS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "text-completion-openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "azure": ("AZURE_API_BASE",),
    "azure_text": ("AZURE_API_BASE",),
    "azure_ai": ("AZURE_AI_API_BASE",),
    "anthropic": ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"),
    "ollama": ("OLLAMA_API_BASE",),
    "ollama_chat": ("OLLAMA_API_BASE",),
    "vertex_ai": ("VERTEXAI_API_BASE", "VERTEX_API_BASE"),
    "watsonx": ("WATSONX_API_BASE", "WATSONX_URL", "WX_URL", "WML_URL"),
    "litellm_proxy": ("LITELLM_PROXY_API_BASE",),
}


@dataclass(frozen=True)
class Endpoint:
    """A judge's endpoint as litellm will resolve it.

    Attributes:
        display: the base URL for reports, without user info and with query values hidden
            (``None``: the provider's built-in default).
        key: a hash of the whole URL (query string included), for cache keys.
        source: where it came from: ``"api_base"``, ``"litellm.api_base"``, an environment
            variable's name, or ``"provider default"``.
    """

    display: str | None
    key: str
    source: str


def resolve_endpoint(model: str, api_base: str | None = None,
                     environ: dict[str, str] | None = None) -> Endpoint:
    """The base URL litellm will send ``model``'s requests to, without importing litellm.

    Order (litellm's): the explicit ``api_base``; ``litellm.api_base`` when litellm is loaded
    and it is set; with ``USE_LITELLM_PROXY=true``, ``LITELLM_PROXY_API_BASE``; the
    provider's environment variables (``_BASE_URL_VARS``, the provider being the model
    string's prefix, ``openai`` without one); else the provider's default. The URL is
    normalised (``_normalised_url``: a trailing slash is no other endpoint), and the
    provider's known default given explicitly (``_DEFAULT_BASES``) is the default: the same
    display and key as unset, so a replay cache recorded either way is hit either way.
    """
    env = os.environ if environ is None else environ
    provider = model.split("/", 1)[0].strip().lower() if "/" in model else "openai"
    url, source = (api_base or None), "api_base"
    if url is None:
        loaded = sys.modules.get("litellm")
        module_base = getattr(loaded, "api_base", None) if loaded is not None else None
        if isinstance(module_base, str) and module_base:
            url, source = module_base, "litellm.api_base"
    if url is None and (env.get("USE_LITELLM_PROXY") or "").strip().lower() == "true":
        provider = "litellm_proxy"
    if url is None:
        names = _BASE_URL_VARS.get(provider) or (f"{provider.upper()}_API_BASE",
                                                  f"{provider.upper()}_BASE_URL")
        for name in names:
            if env.get(name):
                url, source = env[name], name
                break
    if url is None:
        key_material = {"provider": provider, "url": None}
        return Endpoint(None, _digest(key_material), "provider default")
    url = _normalised_url(url)
    if url == _DEFAULT_BASES.get(provider):  # the default, given: the same endpoint as unset
        return Endpoint(None, _digest({"provider": provider, "url": None}), source)
    return Endpoint(_public_url(url), _digest({"provider": provider, "url": url}), source)


#: The base URL litellm uses for a provider when none is configured (``litellm/main.py``);
#: given explicitly, it is the same endpoint (and cache key) as left unset. Providers not
#: listed: an explicit base URL is keyed as given (normalised), unset as "provider default".
_DEFAULT_BASES: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "text-completion-openai": "https://api.openai.com/v1",
}


def _normalised_url(url: str) -> str:
    """``url`` as one endpoint has one spelling: surrounding spaces and the path's trailing
    slashes removed (``http://host/v1/`` and ``http://host/v1`` are one base URL to the
    OpenAI client), scheme and host lower-cased; user info, path case and query kept."""
    url = url.strip()
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url.rstrip("/")
    userinfo, at, hostport = parts.netloc.rpartition("@")
    return urlunsplit((parts.scheme.lower(), f"{userinfo}{at}{hostport.lower()}",
                       parts.path.rstrip("/"), parts.query, parts.fragment))


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:32]


#: litellm exceptions worth a retry (BadGatewayError exists only in newer releases).
_TRANSIENT = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError",
              "ServiceUnavailableError", "BadGatewayError")


def _transient_status(exc: BaseException) -> bool:
    """A provider error worth a retry by its HTTP status (older litellm releases raise a
    generic APIError for 5xx) or a dropped connection."""
    status = getattr(exc, "status_code", None)
    return status in (408, 409, 425, 429, 500, 502, 503, 504) \
        or "connection error" in str(exc).lower()


#: Error types and codes by which a provider or a litellm proxy says that a budget or quota of
#: its own is spent: the proxy's ``budget_exceeded`` (HTTP 400, 429 or, from litellm 1.108,
#: 422: ``litellm.budget_exceeded_status_code``), OpenAI's ``insufficient_quota`` and
#: ``billing_hard_limit_reached`` (HTTP 429 / 400).
_BUDGET_CODES = ("budget_exceeded", "insufficient_quota", "billing_hard_limit_reached")

#: The same in words, where no such code is given: litellm's ``BudgetExceededError`` ("Budget
#: has been exceeded!"), its proxy's key, user and team budgets ("ExceededTokenBudget: ...",
#: "ExceededBudget: ..."), its router's deployment, provider and tag budgets ("No deployments
#: available - crossed budget: Exceeded budget for ...", HTTP 429), OpenAI's "You exceeded
#: your current quota", Anthropic's "Your credit balance is too low".
_BUDGET_WORDS = re.compile(r"budget has been exceeded|crossed budget|exceeded budget"
                           r"|exceeded\w*budget|exceeded your current quota"
                           r"|credit balance is too low", re.IGNORECASE)


def _error_body(exc: BaseException) -> dict[str, Any]:
    """The provider's error object (``{"message", "type", "code", ...}``) when litellm kept
    it (``exc.body``, as the OpenAI client does), else ``{}``."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    return body if isinstance(body, dict) else {}


def _spent_budget(exc: BaseException) -> str | None:
    """What says that ``exc`` is a spent budget or quota (a code, or the words matched), or
    ``None``. Such an error is final whatever its HTTP status (429 included)."""
    body = _error_body(exc)
    for value in (body.get("type"), body.get("code"), getattr(exc, "code", None)):
        if isinstance(value, str) and value.strip().lower() in _BUDGET_CODES:
            return value.strip().lower()
    for text in (body.get("message"), str(exc)):
        found = _BUDGET_WORDS.search(text) if isinstance(text, str) else None
        if found:
            return found.group(0)
    return None


def _rate_limited(exc: BaseException, litellm: Any) -> bool:
    """A "limit reached" answer: HTTP 429, or litellm's ``RateLimitError``."""
    rate_limit_error = getattr(litellm, "RateLimitError", None)
    return getattr(exc, "status_code", None) == 429 or (
        isinstance(rate_limit_error, type) and isinstance(exc, rate_limit_error))


def _too_large(exc: BaseException) -> bool:
    """A 429 for one request larger than the token limit (OpenAI: "Request too large for
    ... on tokens per min"): it would be refused in every window."""
    return "request too large" in str(exc).lower()


def _headers(exc: BaseException) -> dict[str, str]:
    """The error reply's HTTP headers, lower-cased: litellm keeps them in
    ``litellm_response_headers`` (``exc.response`` holds none for some providers)."""
    merged: dict[str, str] = {}
    for source in (getattr(getattr(exc, "response", None), "headers", None),
                   getattr(exc, "litellm_response_headers", None)):
        try:
            items = list(source.items()) if source is not None else []
        except (AttributeError, TypeError):
            items = []
        for name, value in items:
            if isinstance(name, str) and isinstance(value, str):
                merged[name.lower()] = value
    return merged


_DURATION = re.compile(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?"
                       r"(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?")


def _seconds(value: str | None) -> float | None:
    """``"1.5"`` -> 1.5; OpenAI's reset durations ``"6m0s"``, ``"1s"``, ``"20ms"``; ``None``
    for anything else (negative values count as 0)."""
    if value is None:
        return None
    text = value.strip().lower()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    match = _DURATION.fullmatch(text)
    if not text or match is None:
        return None
    hours, minutes, seconds, millis = (float(g) if g else 0.0 for g in match.groups())
    return hours * 3600 + minutes * 60 + seconds + millis / 1000


def _wait_hint(headers: dict[str, str]) -> float | None:
    """Seconds a reply asks the client to wait, or ``None``: ``retry-after-ms``;
    ``Retry-After`` in seconds or as an HTTP date (RFC 9110, 10.2.3); else the reset time of
    an exhausted ``x-ratelimit-*`` count (OpenAI's ``x-ratelimit-reset-requests`` when
    ``x-ratelimit-remaining-requests`` is 0, the same for tokens)."""
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    retry_after = headers.get("retry-after")
    seconds = _seconds(retry_after)
    if seconds is not None:
        return seconds
    if retry_after:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(retry_after)
        except (TypeError, ValueError):
            when = None
        if when is not None and when.tzinfo is not None:
            import datetime

            return max((when - datetime.datetime.now(datetime.timezone.utc)).total_seconds(),
                       0.0)
    found = [_seconds(headers.get(f"x-ratelimit-reset-{what}"))
             for what in ("requests", "tokens")
             if (headers.get(f"x-ratelimit-remaining-{what}") or "").strip() == "0"]
    resets = [r for r in found if r is not None]
    return max(resets) if resets else None


def _content_policy_code(exc: BaseException) -> bool:
    """A provider error whose code says its content policy refused the request (litellm maps
    only some of these messages to ``ContentPolicyViolationError``)."""
    code = getattr(exc, "code", None)
    return isinstance(code, str) and code.lower() in ("content_policy_violation", "content_filter")


def _key_variable(model: str, environ: dict[str, str] | None = None) -> str:
    """The environment variable that holds the API key for ``model``
    (``redaction.key_variable``)."""
    return key_variable(model, environ)


def _missing_credentials(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "missing credentials" in text or "api_key client option must be set" in text


def _short(exc: BaseException | None, limit: int = 300) -> str:
    """The exception's text on one line, redacted first (a cut must not leave part of a
    secret behind), then cut to ``limit`` characters."""
    text = redact(" ".join(str(exc).split()))
    return text if len(text) <= limit else text[:limit] + "..."


def _public_url(url: str | None) -> str | None:
    """The URL for reports: no user info; each query value hidden (``[REDACTED]``) unless it
    is short and plainly not a secret (``api-version=2024-06-01``)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    query = []
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if is_secret_name(name) or len(value) > 32 or redact(value) != value:
            value = REDACTED
        query.append(f"{name}={value}")
    return urlunsplit((parts.scheme, host, parts.path, "&".join(query), ""))
