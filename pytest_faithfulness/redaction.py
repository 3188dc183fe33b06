"""Redaction of secrets from error texts before they are stored or shown.

A provider may echo an API key inside an error message ("Incorrect API key provided:
sk-..."); that text would otherwise reach the JSON, HTML and Markdown reports, the GitHub
step summary, JUnit XML and the terminal. ``redact(text)`` replaces with ``[REDACTED]``:

* the value of every environment variable whose name looks secret: it contains ``KEY``,
  ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD``, ``CREDENTIAL`` or ``PRIVATE``, or starts
  with ``AUTH`` (values of 8 characters or more; shorter ones are too likely to occur in
  ordinary text), also in URL-encoded form;
* key-shaped tokens whatever their source: OpenAI / Anthropic keys (``sk-...``,
  ``sk-ant-...``), Google API keys (``AIza...``), GitHub tokens (``ghp_``, ``gho_``, ``ghu_``,
  ``ghs_``, ``ghr_``, ``github_pat_``), Slack tokens (``xoxb-``, ``xoxp-``, ...), AWS access
  key ids (``AKIA...``, ``ASIA...``), JSON Web Tokens, ``Bearer <token>``;
* credentials in URLs (``scheme://user:password@host``) and blob-like values (16 characters
  or more) after a secret-looking name (``api_key=...``, ``"token": "..."``, ``?sig=...``).

Standard library only; imported by the core (``pipeline``, ``judges.llm``).
"""

from __future__ import annotations

import os
import re
from urllib.parse import quote

__all__ = ["REDACTED", "redact", "secret_env_values", "is_secret_name"]

REDACTED = "[REDACTED]"

#: Environment variable names whose values are treated as secrets.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|^AUTH",
                          re.IGNORECASE)
_MIN_SECRET_LENGTH = 8

#: Tokens that are secrets by their shape alone.
_TOKEN_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{16,}"),                       # OpenAI, Anthropic (sk-ant-)
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


def is_secret_name(name: str) -> bool:
    """Whether an environment variable (or parameter) name looks like it holds a secret."""
    return bool(_SECRET_NAME.search(name))


def secret_env_values(environ: os._Environ[str] | dict[str, str] | None = None) -> list[str]:
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


def redact(text: str | None, environ: dict[str, str] | None = None) -> str:
    """``text`` with secrets replaced by ``[REDACTED]`` (see the module docstring).

    Args:
        text: any error text; ``None`` gives ``""``.
        environ: the environment to read secret values from (default ``os.environ``).

    Returns:
        the redacted text; text without secrets comes back unchanged.
    """
    if not text:
        return ""
    for value in secret_env_values(environ):
        text = text.replace(value, REDACTED)
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + REDACTED + "@", text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return _NAMED_VALUE.sub(lambda m: m.group(1) + REDACTED, text)
