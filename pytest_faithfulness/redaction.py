"""Redaction of secrets from error texts before they are stored or shown.

A provider may echo an API key inside an error message ("Incorrect API key provided:
sk-..."); that text would otherwise reach the JSON, HTML and Markdown reports, the GitHub
step summary, JUnit XML and the terminal. ``redact(text)`` replaces with ``[REDACTED]``:

* the value of every environment variable whose name looks secret: it contains ``KEY``,
  ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD``, ``CREDENTIAL`` or ``PRIVATE``, or starts
  with ``AUTH`` (values of 8 characters or more; shorter ones are too likely to occur in
  ordinary text), also in URL-encoded form;
* the keys the run knows of, whatever their length: the values of
  ``FAITHFULNESS_CACHE_KEY``, ``LITELLM_PROXY_API_KEY`` (a litellm proxy's virtual key,
  often as short as ``sk-1234``) and of each judge's provider key variable
  (``register_key_variable``: ``LiteLLMJudge`` registers ``OPENAI_API_KEY``,
  ``GROQ_API_KEY``, ...), each matched whole at token boundaries (so ``sk-1234`` goes, and
  ``sk-12345`` or ``task-1234`` stay); a key so short that redacting it would blank
  ordinary text (``short_keys``, under 8 characters) gets a warning at start-up from the
  plugin;
* key-shaped tokens whatever their source (a key a litellm proxy echoes back from its
  upstream provider is in no variable of this run): OpenAI / Anthropic / DeepSeek /
  OpenRouter keys and litellm virtual keys (``sk-...``, ``sk-ant-...``), Groq (``gsk_``),
  Hugging Face (``hf_``), xAI (``xai-``), Replicate (``r8_``), Perplexity (``pplx-``),
  NVIDIA (``nvapi-``), Fireworks (``fw_``), Together (``tgp_v1_``), LangSmith (``lsv2_``),
  Stripe-style (``sk_live_``, ``rk_test_``), GitLab (``glpat-``), Google API keys
  (``AIza...``), GitHub tokens (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``,
  ``github_pat_``), Slack tokens (``xoxb-``, ``xoxp-``, ...), AWS access key ids
  (``AKIA...``, ``ASIA...``), JSON Web Tokens, ``Bearer <token>``;
* credentials in URLs (``scheme://user:password@host``) and blob-like values (16 characters
  or more) after a secret-looking name (``api_key=...``, ``"token": "..."``, ``?sig=...``).

Standard library only; imported by the core (``pipeline``, ``judges.llm``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote

__all__ = ["REDACTED", "redact", "secret_env_values", "is_secret_name", "register_key_variable",
           "known_key_variables", "short_keys", "key_variable"]

REDACTED = "[REDACTED]"

#: Environment variable names whose values are treated as secrets.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|^AUTH",
                          re.IGNORECASE)
_MIN_SECRET_LENGTH = 8

#: Tokens that are secrets by their shape alone (a prefix must not follow a letter or digit).
_P = r"(?<![A-Za-z0-9])"
_TOKEN_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"),                       # OpenAI, Anthropic (sk-ant-)
    re.compile(_P + r"gsk_[A-Za-z0-9]{16,}"),                       # Groq
    re.compile(_P + r"hf_[A-Za-z0-9]{16,}"),                        # Hugging Face
    re.compile(_P + r"xai-[A-Za-z0-9_\-]{16,}"),                    # xAI
    re.compile(_P + r"r8_[A-Za-z0-9]{16,}"),                        # Replicate
    re.compile(_P + r"pplx-[A-Za-z0-9]{16,}"),                      # Perplexity
    re.compile(_P + r"nvapi-[A-Za-z0-9_\-]{16,}"),                  # NVIDIA
    re.compile(_P + r"fw_[A-Za-z0-9]{16,}"),                        # Fireworks
    re.compile(_P + r"tgp_v1_[A-Za-z0-9_\-]{16,}"),                 # Together
    re.compile(_P + r"lsv2_[a-z]{2}_[A-Za-z0-9_]{16,}"),            # LangSmith
    re.compile(_P + r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),       # Stripe-style
    re.compile(_P + r"glpat-[A-Za-z0-9_\-]{16,}"),                  # GitLab
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),                      # Google API keys
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),                   # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),                 # GitHub fine-grained tokens
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),               # Slack tokens
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),                  # AWS access key ids
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),  # JWT
]
#: ``Bearer <token>`` / ``Basic <token>``: the scheme stays, the token goes.
_AUTH_HEADER = re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/\-]{8,}=*")
#: ``scheme://user:password@`` -> ``scheme://[REDACTED]@``.
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@:]+:[^/\s@]+@")
#: A blob after a secret-looking name: ``api_key=...``, ``"token": "..."``, ``&sig=...``.
_NAMED_VALUE = re.compile(
    r"(?i)((?:key|token|secret|password|passwd|credential|signature|\bsig)[\w\-]{0,40}"
    r"[\"']?\s*[:=]\s*[\"']?)([A-Za-z0-9+/_.~%\-]{16,}=*)")


#: The variables that hold keys the run knows of: redacted whatever their length.
_KNOWN_KEY_VARIABLES: set[str] = {"FAITHFULNESS_CACHE_KEY", "LITELLM_PROXY_API_KEY"}
#: Characters that continue a key-like token: a known key is redacted only where neither
#: side of it continues the token.
_TOKEN_CHAR = r"A-Za-z0-9_\-"


#: The environment variable litellm reads a provider's API key from, where it is not
#: ``<PROVIDER>_API_KEY``.
_KEY_VARS = {"text-completion-openai": "OPENAI_API_KEY", "azure_text": "AZURE_API_KEY"}


def key_variable(model: str, environ: Mapping[str, str] | None = None) -> str:
    """The environment variable that holds the API key for ``model`` (a litellm model
    string): the provider's (``openai/...`` -> ``OPENAI_API_KEY``, ``groq/...`` ->
    ``GROQ_API_KEY``, ``litellm_proxy/...`` -> ``LITELLM_PROXY_API_KEY``, the proxy's
    virtual key; also for any model with ``USE_LITELLM_PROXY=true``, which sends every call
    through the proxy)."""
    env = os.environ if environ is None else environ
    provider = model.split("/", 1)[0].strip().lower() if "/" in model else "openai"
    if (env.get("USE_LITELLM_PROXY") or "").strip().lower() == "true":
        provider = "litellm_proxy"
    return _KEY_VARS.get(provider, f"{provider.upper()}_API_KEY")


def register_key_variable(name: str) -> None:
    """Add an environment variable holding a key of this run (a judge's provider key,
    e.g. ``GROQ_API_KEY``): its value is redacted whatever its length (``redact``)."""
    if name and name.strip():
        _KNOWN_KEY_VARIABLES.add(name.strip())


def known_key_variables() -> list[str]:
    """The variables whose values are the run's own keys (``register_key_variable``)."""
    return sorted(_KNOWN_KEY_VARIABLES)


def short_keys(names: Iterable[str] | None = None,
               environ: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """``(variable, length)`` of each known key (``names``, default the registered ones)
    shorter than 8 characters: redacting it blanks every occurrence of that token in an
    error text ("sk-1234", "test"), ordinary words and numbers included. The plugin warns
    of each at start-up."""
    env = os.environ if environ is None else environ
    out = []
    for name in sorted(set(names) if names is not None else _KNOWN_KEY_VARIABLES):
        value = (env.get(name) or "").strip()
        if value and len(value) < _MIN_SECRET_LENGTH:
            out.append((name, len(value)))
    return out


def _known_key_pattern(environ: Mapping[str, str] | None) -> re.Pattern[str] | None:
    """One pattern matching every known key's value (and its URL-encoded form) whole, at
    token boundaries; ``None`` when no known key is set."""
    env = os.environ if environ is None else environ
    values: set[str] = set()
    for name in _KNOWN_KEY_VARIABLES:
        value = (env.get(name) or "").strip()
        if value:
            values.update((value, quote(value, safe="")))
    if not values:
        return None
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(f"(?<![{_TOKEN_CHAR}])(?:{alternatives})(?![{_TOKEN_CHAR}])")


def is_secret_name(name: str) -> bool:
    """Whether an environment variable (or parameter) name looks like it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def secret_env_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of secret-looking environment variables, longest first (so a value that
    contains another is replaced whole), each also URL-encoded where that differs."""
    env = os.environ if environ is None else environ
    values: set[str] = set()
    for name, value in env.items():
        value = value.strip()
        if len(value) >= _MIN_SECRET_LENGTH and is_secret_name(name):
            values.add(value)
            values.add(quote(value, safe=""))
    return sorted(values, key=len, reverse=True)


def redact(text: str | None, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with secrets replaced by ``[REDACTED]`` (see the module docstring).

    Args:
        text: any error text; ``None`` gives ``""``.
        environ: the environment to read secret values from (default ``os.environ``).

    Returns:
        the redacted text; text without secrets comes back unchanged.
    """
    if not text:
        return ""
    known = _known_key_pattern(environ)
    if known is not None:
        text = known.sub(REDACTED, text)
    for value in secret_env_values(environ):
        text = text.replace(value, REDACTED)
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return _NAMED_VALUE.sub(lambda m: m.group(1) + REDACTED, text)
