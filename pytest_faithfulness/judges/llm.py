"""The LLM judge: every call goes through litellm, imported only when a call has to go out.

``LiteLLMJudge("openai/gpt-4o-mini")`` decomposes and verifies with any model string litellm
knows; replies are parsed and validated against ``DecomposeReply`` / ``VerifyReply``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .. import _loop
from ..accounting import Budget
from ..accounting import record as record_usage
from ..records import Decomposition, Passage, Verdict, VerdictLabel
from .prompts import decompose_messages, prompt_fingerprint, verify_messages
from .protocol import JudgeError


class DecomposeReply(BaseModel):
    """The LLM's decomposition reply."""

    model_config = ConfigDict(extra="ignore")
    claims: list[str]
    dropped: list[str] = Field(default_factory=list)


class VerifyReply(BaseModel):
    """The LLM's verification reply."""

    model_config = ConfigDict(extra="ignore")
    label: VerdictLabel
    passage_ids: list[str] = Field(default_factory=list)
    quote: str | None = None
    rationale: str | None = None

    @field_validator("passage_ids", mode="before")
    @classmethod
    def _ids_as_strings(cls, value: Any) -> Any:
        """Models write numeric ids as numbers (``[1]``) or one id as a bare value."""
        if value is None:
            return []
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = [value]
        if isinstance(value, list):
            return [str(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value]
        return value

    @field_validator("label", mode="before")
    @classmethod
    def _label_lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


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
    """Parse a model's JSON reply tolerantly.

    A reply that is valid JSON is taken as it is (so fences or JSON quoted inside its string
    values are never mistaken for the reply). Otherwise accepts an object wrapped in a
    Markdown code fence, one after a sentence of preamble, and trailing commas before ``]``
    or ``}``.

    Raises:
        ValueError: no JSON object or array can be read from ``text``.
    """
    if not text or not text.strip():
        raise ValueError("empty reply")
    body = text.strip()
    try:  # a well-formed reply is taken whole: a fence or JSON inside its strings is data
        value = json.loads(body)
        if isinstance(value, (dict, list)):
            return value
    except json.JSONDecodeError:
        pass
    fence = re.search(r"```(?:json|JSON)?\s*(.*?)```", body, re.DOTALL)
    if fence:
        body = fence.group(1).strip()
    starts = [i for i, ch in enumerate(body) if ch in "{["]
    if not starts:
        raise ValueError(f"no JSON object in reply: {text[:120]!r}")
    decoder = json.JSONDecoder()
    for start in starts:  # preamble may hold brackets of its own ("based on [1]: {...}")
        for candidate in (body[start:], _strip_trailing_commas(body[start:])):
            try:
                value, _ = decoder.raw_decode(candidate)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict) or (isinstance(value, list) and value
                                           and all(isinstance(v, dict) for v in value)):
                return value
    raise ValueError(f"reply is not valid JSON: {text[:120]!r}")


def _strip_trailing_commas(text: str) -> str:
    """Drop commas that directly precede ``]`` or ``}``, outside JSON strings only."""
    out: list[str] = []
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            out.append(ch)
            continue
        if ch == '"':
            in_string = True
        elif ch == ",":
            rest = text[i + 1:].lstrip()
            if rest[:1] in ("]", "}"):
                continue
        out.append(ch)
    return "".join(out)


def _unwrap_verdict(value: Any) -> Any:
    """A verdict list or ``{"verdicts": [...]}`` holding exactly one verdict -> that verdict."""
    if isinstance(value, dict) and isinstance(value.get("verdicts"), list):
        value = value["verdicts"]
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, dict) and "label" not in value:
        for alias in ("verdict", "status"):
            if alias in value:
                value = {**value, "label": value[alias]}
                break
    return value


class LiteLLMJudge:
    """An LLM judge through litellm, for any model string litellm knows.

    Args:
        model: a litellm model string, e.g. ``"openai/gpt-4o-mini"``; API keys come from the
            provider's usual environment variables (``OPENAI_API_KEY``, ...).
        api_base: an OpenAI-compatible base URL (e.g. a local server); default: the provider's.
        timeout: seconds per HTTP request.
        max_retries: retries of a transient failure (429, 5xx, timeout, connection error),
            with exponential backoff that honours ``Retry-After``.
        parse_retries: extra attempts when a reply cannot be parsed or validated.
        context_budget_chars: most characters of passages per verify call; more passages are
            split into several calls (``None``: no limit; a provider's context-window error
            then makes the answer ``error``, never a silent truncation).
        budget: a shared ``accounting.Budget``; once spent, calls raise ``BudgetExceeded``.
        schema_in_response_format: also send the reply's JSON schema inside
            ``response_format={"type": "json_object", "schema": ...}`` (llama.cpp's server
            constrains its output with it; OpenAI-style APIs get the plain ``json_object``).
        max_tokens: most output tokens per reply (``None``: the provider's default); a reply
            cut off by it fails to parse and, after ``parse_retries``, errors the answer.

    Every request adds its tokens (input, output, prompt-cache hits) and its cost from
    litellm's bundled price map to the current answer's ``Usage``.

    Calls run at temperature 0 with JSON output requested and validated against
    ``DecomposeReply`` / ``VerifyReply``. Raises ``JudgeError`` when a call fails for good.
    """

    cacheable = True
    accounts_usage = True

    def __init__(self, model: str, *, api_base: str | None = None, timeout: float = 60.0,
                 max_retries: int = 3, parse_retries: int = 1,
                 context_budget_chars: int | None = None, backoff_base: float = 0.5,
                 backoff_max: float = 20.0, budget: Budget | None = None,
                 schema_in_response_format: bool = False,
                 max_tokens: int | None = None) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty litellm model string")
        self.model = model.strip()
        self.api_base = api_base
        self.timeout = timeout
        self.max_retries = max_retries
        self.parse_retries = parse_retries
        self.context_budget_chars = context_budget_chars
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.budget = budget or Budget()
        self.schema_in_response_format = schema_in_response_format
        self.max_tokens = max_tokens
        self.calls = 0
        self.retries = 0

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
        return Decomposition(claims=reply.claims, dropped=reply.dropped)

    async def averify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Verify ``claim`` against ``passages`` with the LLM."""
        reply = await self._structured(verify_messages(claim, passages), VerifyReply, "verify",
                                       unwrap=_unwrap_verdict)
        return Verdict(reply.label, passage_ids=reply.passage_ids, quote=reply.quote,
                       rationale=reply.rationale)

    def fingerprint(self) -> dict[str, Any]:
        """What makes this judge's verdicts differ: model, endpoint, prompts, parameters."""
        return {"kind": "litellm", "model": self.model, "api_base": _public_url(self.api_base),
                "prompts": prompt_fingerprint(), "temperature": 0,
                "response_format": "json_object+schema" if self.schema_in_response_format
                else "json_object", "max_tokens": self.max_tokens}

    def describe(self) -> str:
        """One line for report headers."""
        return f"litellm judge {self.model} (prompts {prompt_fingerprint()})"

    # internals ------------------------------------------------------------------------------
    async def _structured(self, messages, schema: type[BaseModel], op: str, unwrap=None):
        problems: list[str] = []
        response_format: dict[str, Any] = {"type": "json_object"}
        if self.schema_in_response_format:
            response_format["schema"] = schema.model_json_schema()
        for attempt in range(self.parse_retries + 1):
            content = await self._complete(messages, op, response_format)
            try:
                value = parse_json_reply(content)
                if unwrap is not None:
                    value = unwrap(value)
                return schema.model_validate(value)
            except (ValueError, ValidationError) as exc:
                problems.append(_short(exc))
        raise JudgeError(f"{op}: judge reply could not be read as {schema.__name__} after "
                         f"{self.parse_retries + 1} attempt(s): {problems[-1]}")

    async def _complete(self, messages, op: str, response_format: dict[str, Any]) -> str | None:
        litellm = _import_litellm()
        transient = tuple(getattr(litellm, name) for name in _TRANSIENT if hasattr(litellm, name))
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0,
                                  "response_format": response_format,
                                  "timeout": self.timeout, "max_retries": 0}
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self.max_tokens is not None:
            kwargs["max_tokens"] = self.max_tokens
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            self.budget.check()
            self.calls += 1
            record_usage(calls=1)
            try:
                response = await litellm.acompletion(**kwargs)
                self._account(litellm, response)
                return response.choices[0].message.content
            except Exception as exc:
                if _missing_credentials(exc):  # litellm reports these as server errors
                    raise JudgeError(f"{op}: no API key for {self.model}: set the provider's "
                                     "environment variable (e.g. OPENAI_API_KEY)") from exc
                if not (isinstance(exc, transient) or _transient_status(exc)):
                    # not transient: a 4xx, auth, bad request, ...
                    raise JudgeError(f"{op}: {type(exc).__name__}: {_short(exc)}") from exc
                last = exc
                if attempt == self.max_retries:
                    break
                self.retries += 1
                await asyncio.sleep(self._delay(exc, attempt))
        raise JudgeError(f"{op}: {type(last).__name__} after {self.max_retries + 1} attempt(s): "
                         f"{_short(last)}") from last

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
        record_usage(input_tokens=input_tokens, output_tokens=output_tokens,
                     cached_input_tokens=cached, cost_usd=cost, uncosted_calls=uncosted)

    def _delay(self, exc: Exception, attempt: int) -> float:
        retry_after = None
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or {}
        try:
            retry_after = float(headers.get("retry-after"))
        except (TypeError, ValueError):
            retry_after = None
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.backoff_max)
        return min(self.backoff_base * (2 ** attempt) * (1 + random.random() / 4), self.backoff_max)


#: litellm exceptions worth a retry (BadGatewayError exists only in newer releases).
_TRANSIENT = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError",
              "ServiceUnavailableError", "BadGatewayError")


def _transient_status(exc: BaseException) -> bool:
    """A provider error worth a retry by its HTTP status (older litellm releases raise a
    generic APIError for 5xx) or a dropped connection."""
    status = getattr(exc, "status_code", None)
    return status in (408, 409, 425, 429, 500, 502, 503, 504) or "connection error" in str(exc).lower()


def _missing_credentials(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "missing credentials" in text or "api_key client option must be set" in text


def _short(exc: BaseException | None, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _public_url(url: str | None) -> str | None:
    """The URL without credentials or query string (never part of keys or reports)."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
