"""The LLM judge's endpoint as litellm will resolve it, worked out without importing litellm:
the base-URL environment variables and defaults per provider, one spelling per URL
(``normalised_url``), and the URL as reports may show it (``public_url``). The endpoint is part
of the judge's cache key (``LiteLLMJudge.fingerprint``).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from ...redaction import REDACTED, is_secret_name, redact

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
    normalised (``normalised_url``: a trailing slash is no other endpoint), and the
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
    url = normalised_url(url)
    if url == _DEFAULT_BASES.get(provider):  # the default, given: the same endpoint as unset
        return Endpoint(None, _digest({"provider": provider, "url": None}), source)
    return Endpoint(public_url(url), _digest({"provider": provider, "url": url}), source)


#: The base URL litellm uses for a provider when none is configured (``litellm/main.py``);
#: given explicitly, it is the same endpoint (and cache key) as left unset. Providers not
#: listed: an explicit base URL is keyed as given (normalised), unset as "provider default".
_DEFAULT_BASES: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "text-completion-openai": "https://api.openai.com/v1",
}


def normalised_url(url: str) -> str:
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


def public_url(url: str | None) -> str | None:
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
