"""The LLM judge (``LiteLLMJudge``): every call goes through litellm, imported only when a call
has to go out.

``judge`` holds the judge; ``replies`` the reply schemas and the strict reading of a reply;
``transport`` the request plan, retries and the classification of failed calls; ``endpoint``
the endpoint as litellm resolves it (part of the cache key). The names importers use are
re-exported here.
"""

from .endpoint import Endpoint, resolve_endpoint
from .judge import LiteLLMJudge
from .replies import (
    SCHEMA_INSTRUCTION,
    DecomposeReply,
    DroppedReply,
    EvidenceReply,
    VerifyReply,
    parse_json_reply,
)
from .transport import JSON_OBJECT, JSON_OBJECT_SCHEMA, JSON_SCHEMA, needs_cache_markers

__all__ = [
    "JSON_OBJECT",
    "JSON_OBJECT_SCHEMA",
    "JSON_SCHEMA",
    "SCHEMA_INSTRUCTION",
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
