"""The LLM judge's reply schemas and the strict reading of a reply.

``DecomposeReply`` and ``VerifyReply`` (with ``DroppedReply`` and ``EvidenceReply`` items) are
the shapes a model must reply in; their JSON schemas are what the judge sends (no docstrings, no
defaults, items written in place). ``parse_json_reply`` believes a reply only when it is exactly
one JSON value; ``unwrap_verdict`` reads the few harmless wrappings of a verdict.
Imports nothing of litellm.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...records import VerdictLabel


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


def unwrap_verdict(value: Any) -> Any:
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


#: What the judge appends to the system prompt, before the reply's JSON schema, where the
#: provider does not enforce the schema itself (``transport.RequestPlan.request``).
SCHEMA_INSTRUCTION = "\nThe reply must be one JSON object valid against this JSON schema:\n"


def schemas_fingerprint() -> str:
    """A 16-hex-digit hash of the reply schemas and ``SCHEMA_INSTRUCTION``, for the judge's
    cache key: a change of either is a new key."""
    blob = json.dumps([DecomposeReply.model_json_schema(), VerifyReply.model_json_schema(),
                       SCHEMA_INSTRUCTION], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]
