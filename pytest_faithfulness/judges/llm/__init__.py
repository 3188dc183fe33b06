"""The LLM judge (``LiteLLMJudge``): every call goes through litellm, imported only when a call
has to go out.

The names importers use are re-exported here: ``LiteLLMJudge``, the reply schemas
(``DecomposeReply``, ``VerifyReply``, ``EvidenceReply``, ``DroppedReply``), ``parse_json_reply``,
``needs_cache_markers``, ``Endpoint`` and ``resolve_endpoint``.
"""

from .judge import (
    _SCHEMA_INSTRUCTION,  # noqa: F401 - tests/scripted_model.py (public in the split)
    JSON_OBJECT,
    JSON_OBJECT_SCHEMA,
    JSON_SCHEMA,
    DecomposeReply,
    DroppedReply,
    Endpoint,
    EvidenceReply,
    LiteLLMJudge,
    VerifyReply,
    needs_cache_markers,
    parse_json_reply,
    resolve_endpoint,
)

__all__ = [
    "JSON_OBJECT",
    "JSON_OBJECT_SCHEMA",
    "JSON_SCHEMA",
    "DecomposeReply",
    "DroppedReply",
    "Endpoint",
    "EvidenceReply",
    "LiteLLMJudge",
    "VerifyReply",
    "needs_cache_markers",
    "parse_json_reply",
    "resolve_endpoint",
]
