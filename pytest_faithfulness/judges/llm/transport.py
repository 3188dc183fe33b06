"""How the LLM judge's requests go out: litellm imported on first use, the request plan
(structured-output mode, temperature sent, cache markers), the waits before a retry, and the
classification of a failed call (transient, spent budget, rate limit, too large, missing
credentials, content policy).

litellm is imported only by ``import_litellm`` and ``RequestPlan.decide`` (a call going out).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import random
import re
import threading
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from ...redaction import redact
from .replies import SCHEMA_INSTRUCTION, DecomposeReply, VerifyReply

_litellm_lock = threading.Lock()


def import_litellm():
    """Import litellm on first use, with its price map read from the package, never fetched."""
    with _litellm_lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm

        litellm.telemetry = False
        litellm.suppress_debug_info = True
        return litellm


#: litellm's callback lists: a user (or a library) that registers a logger, a tracer or a
#: cost tracker in any of them gets every judge call logged as before (``quiet_call``).
_CALLBACK_LISTS = ("callbacks", "success_callback", "failure_callback", "_async_success_callback",
                   "_async_failure_callback", "input_callback", "_async_input_callback",
                   "service_callback")


class quiet_call:  # noqa: N801 - used as a context manager, like contextlib's
    """Around one ``litellm.acompletion``: when no callback is registered with litellm (its
    ``_CALLBACK_LISTS`` all empty), mark the call as one litellm need not log, through its
    ``is_internal_call`` context variable, so that it schedules no success-logging task per
    call (litellm's logging worker would build a logging payload no one reads: about 1 ms of
    CPU per call). The response, its usage and its cost (``_hidden_params["response_cost"]``)
    are the same either way. With any callback registered, or a litellm without that
    variable, nothing is changed.

    Usage: ``with quiet_call(litellm): response = await litellm.acompletion(...)``."""

    def __init__(self, litellm: Any) -> None:
        self._var: Any = None  # litellm's ContextVar[bool], when it is to be set
        self._token: Any = None
        if any(getattr(litellm, name, None) for name in _CALLBACK_LISTS):
            return
        try:
            from litellm._internal_context import is_internal_call
        except ImportError:  # an older litellm: it logs as it always did
            return
        self._var = is_internal_call

    def __enter__(self) -> quiet_call:
        if self._var is not None:
            self._token = self._var.set(True)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._var is not None and self._token is not None:
            self._var.reset(self._token)


#: How the reply's shape is asked for: ``response_format`` json_schema (strict; the provider
#: enforces it); json_object with the schema in the system prompt; the same with the schema
#: also inside ``response_format`` (llama.cpp's server constrains its output with it).
JSON_SCHEMA = "json_schema"
JSON_OBJECT = "json_object"
JSON_OBJECT_SCHEMA = "json_object+schema"


@dataclass(frozen=True)
class RequestPlan:
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
               cache_markers: bool | None = None) -> RequestPlan:
        """The plan for ``model`` (a litellm model string) from ``litellm``'s model knowledge:
        ``json_schema`` where litellm says the model enforces a schema, else ``json_object``
        (``json_object+schema`` when ``schema_in_response_format``); ``temperature`` as
        litellm maps it (``None`` where the model accepts no such value); cache markers per
        ``needs_cache_markers`` unless ``cache_markers`` says. Never raises for an unknown
        provider or model: the call then says what is wrong."""
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
        messages[0]["content"] += SCHEMA_INSTRUCTION + json.dumps(schema)
        response_format: dict[str, Any] = {"type": "json_object"}
        if self.output_mode == JSON_OBJECT_SCHEMA:
            response_format["schema"] = schema
        return messages, response_format

    def describe_sampling(self) -> str:
        """The temperature sent, for report headers."""
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


def litellm_version() -> str | None:
    """The installed litellm's version, read without importing it; ``None`` when it is not
    installed."""
    try:
        return importlib.metadata.version("litellm")
    except importlib.metadata.PackageNotFoundError:
        return None


# retries ---------------------------------------------------------------------------------------

def retry_delay(exc: BaseException, attempt: int, base: float, cap: float) -> float:
    """Seconds before retrying a transient failure (``attempt``: 0 for the first retry): the
    reply's wait hint (``wait_hint``) capped at ``cap``, else ``base`` doubling per attempt
    with up to 25% jitter, capped at ``cap``."""
    retry_after = wait_hint(error_headers(exc))
    if retry_after is not None:
        return min(retry_after, cap)
    return min(base * (2 ** attempt) * (1 + random.random() / 4), cap)


def rate_limit_delay(exc: BaseException, attempt: int, base: float, cap: float) -> float:
    """Seconds before asking again after a "limit reached" answer (``attempt``: how many
    were waited out before): the reply's hint in full (plus up to 10% jitter, so that waiting
    workers do not return all at once), else ``base`` doubling up to ``cap`` with equal
    jitter; never less than ``base``."""
    hint = wait_hint(error_headers(exc))
    if hint is not None:  # at least base: "retry after 0 s" must not spin
        return max(hint * (1 + random.random() / 10), base)
    step = min(base * (2 ** min(attempt, 30)), cap)
    return step * (0.5 + random.random() / 2)


# error classification --------------------------------------------------------------------------

#: litellm exceptions worth a retry (BadGatewayError exists only in newer releases).
TRANSIENT_ERRORS = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError",
              "ServiceUnavailableError", "BadGatewayError")


def transient_status(exc: BaseException) -> bool:
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


def spent_budget(exc: BaseException) -> str | None:
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


def rate_limited(exc: BaseException, litellm: Any) -> bool:
    """A "limit reached" answer: HTTP 429, or litellm's ``RateLimitError``."""
    rate_limit_error = getattr(litellm, "RateLimitError", None)
    return getattr(exc, "status_code", None) == 429 or (
        isinstance(rate_limit_error, type) and isinstance(exc, rate_limit_error))


def too_large(exc: BaseException) -> bool:
    """A 429 for one request larger than the token limit (OpenAI: "Request too large for
    ... on tokens per min"): it would be refused in every window."""
    return "request too large" in str(exc).lower()


def error_headers(exc: BaseException) -> dict[str, str]:
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


def wait_hint(headers: dict[str, str]) -> float | None:
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


def content_policy_code(exc: BaseException) -> bool:
    """A provider error whose code says its content policy refused the request (litellm maps
    only some of these messages to ``ContentPolicyViolationError``)."""
    code = getattr(exc, "code", None)
    return isinstance(code, str) and code.lower() in ("content_policy_violation", "content_filter")


def missing_credentials(exc: BaseException) -> bool:
    """A provider error that says no API key was given (litellm reports these as server
    errors)."""
    text = str(exc).lower()
    return "missing credentials" in text or "api_key client option must be set" in text


def short_error(exc: BaseException | None, limit: int = 300) -> str:
    """The exception's text on one line, redacted first (a cut must not leave part of a
    secret behind), then cut to ``limit`` characters."""
    text = redact(" ".join(str(exc).split()))
    return text if len(text) <= limit else text[:limit] + "..."
