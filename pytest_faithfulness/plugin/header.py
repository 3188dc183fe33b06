"""The plugin's lines in pytest's header (``pytest_report_header``): what this run will be
judged by, before any answer is.

Read from the run's ``settings.Settings`` and the built-in judges' table
(``judges.builtin``) alone: no judge is built, no judge call is made, and neither litellm nor
pydantic is imported (start-up stays fast, see ``plugin``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .. import __version__
from ..judges.builtin import builtin_judge
from ..judges.prompts import prompt_fingerprint


def judge_text(settings: Any, *, judge_hook: bool = False) -> str:
    """The judge as the header names it: a built-in one with its verifier, else the litellm
    model string; the panel and the votes when set; a note when a
    ``pytest_faithfulness_make_judge`` hook may replace it (``judge_hook``)."""
    builtin = builtin_judge(settings.judge)
    text = (f"{builtin.name} (built in, {builtin.verifier} verifier)" if builtin is not None
            else settings.judge)
    if settings.panel:
        text += f" + panel {', '.join(settings.panel)}"
    if settings.votes > 1:
        text += f", {settings.votes} votes"
    if judge_hook:
        text += " (a pytest_faithfulness_make_judge hook may replace it)"
    return text


def uses_prompts(settings: Any) -> bool:
    """Whether an LLM judge (the main one or a panel member) reads the prompts."""
    return any(builtin_judge(name) is None for name in (settings.judge, *settings.panel))


def settings_fingerprint(settings: Any) -> str:
    """A short hash (12 hex digits, SHA-256) of what decides the verdicts that the settings
    can name before any judge is built: the judge (a built-in one by name), the panel, the
    votes, the endpoint (``api_base``), the temperature, the prompts (LLM judges), the first
    filter's mode and this package's version (which fixes the built-in judges' rules). The
    verdict cache's key, the judge's own ``fingerprint()``, is known only once the judge is
    built: the reports name it."""
    builtin = builtin_judge(settings.judge)
    what = {"judge": builtin.name if builtin is not None else settings.judge,
            "panel": list(settings.panel), "votes": settings.votes,
            "api_base": settings.api_base, "temperature": settings.temperature,
            "prompts": prompt_fingerprint() if uses_prompts(settings) else None,
            "package": __version__, "first_filter": settings.first_filter}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:12]


def cache_text(settings: Any) -> str:
    """The verdict cache as the run will use it: ``off``, ``not used`` (the built-in offline
    judges are not cached), or its mode (record mode) and folder."""
    if not uses_prompts(settings):
        return "not used (offline judge)"
    if settings.no_cache:
        return "off (--faithfulness-no-cache)"
    return f"{settings.cache_mode} at {settings.cache_path}"


def thresholds_text(settings: Any) -> str:
    """The session thresholds set, ``name value`` comma-separated (``none``: no session
    gate)."""
    found = []
    for flag in settings.session_threshold_flags():
        name = flag[len("--faithfulness-"):]
        value = getattr(settings, name.replace("-", "_"))
        if isinstance(value, (tuple, list)):
            value = " ".join(str(v) for v in value)
        found.append(f"{name} {value:g}" if isinstance(value, float) else f"{name} {value}")
    return ", ".join(found) or "none"


def canaries_text(settings: Any) -> str:
    """``N`` judge canaries per run, or ``off`` (0, or a version without canaries)."""
    count = getattr(settings, "canaries", None)
    return str(count) if isinstance(count, int) and not isinstance(count, bool) and count > 0 \
        else "off"


def header_lines(settings: Any, *, judge_hook: bool = False) -> list[str]:
    """The two header lines::

        faithfulness: judge offline (built in, calibrated verifier); fingerprint 1a2b3c4d5e6f;
            prompts not used (offline judge)
        faithfulness: cache not used (offline judge); session thresholds min-mean 0.8;
            canaries 40
    """
    prompts = prompt_fingerprint() if uses_prompts(settings) else "not used (offline judge)"
    return [f"faithfulness: judge {judge_text(settings, judge_hook=judge_hook)}; "
            f"fingerprint {settings_fingerprint(settings)}; prompts {prompts}",
            f"faithfulness: cache {cache_text(settings)}; session thresholds "
            f"{thresholds_text(settings)}; canaries {canaries_text(settings)}"]
