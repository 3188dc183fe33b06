"""Judge names checked at start-up: ``check_judge_name`` refuses a ``--faithfulness-judge`` or
``--faithfulness-panel`` name that would only fail once tests run, without importing litellm
(its bundled price map and provider list are read from the installed package's files).
Imports neither pytest nor litellm.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .builtin import BUILTIN_JUDGES as BUILTIN_JUDGE_TABLE
from .builtin import builtin_judge

#: The built-in judge names, as ``--faithfulness-judge`` takes them.
BUILTIN_JUDGES = tuple(BUILTIN_JUDGE_TABLE)


def check_judge_name(spec: str | None) -> None:
    """Refuse, at start-up, a judge name that would only fail once tests run.

    * ``offline`` / ``offline-heuristic`` / ``offline-nli`` (any case): built in;
      ``offline-nli`` needs the ``[offline]`` extra, checked with
      ``importlib.util.find_spec`` (nothing is imported).
    * a name without ``/`` must be a model in litellm's bundled price map
      (``model_prices_and_context_window_backup.json``, read from the installed package
      without importing litellm): ``gpt-4o-mini`` passes, ``nli`` or ``heuristic`` does not.
    * ``provider/model``: the provider must be one litellm knows (its ``LlmProviders`` enum,
      read from litellm's source text, its JSON-configured OpenAI-compatible providers and
      the providers of the price map); the model name
      is the provider's to judge.

    When litellm's files cannot be read, the litellm checks are skipped (never a false
    refusal).

    Raises:
        ConfigError: naming ``--faithfulness-judge``, the built-in judges and, for a
            missing extra, the pip command that installs it.
    """
    name = (spec or "").strip()
    lowered = name.lower()
    entry = builtin_judge(name)
    if entry is not None:
        missing = [m for m in entry.needs if _find_spec(m) is None]
        if missing:
            raise ConfigError(
                f"--faithfulness-judge {entry.name} needs the [{entry.extra}] extra: "
                f"pip install 'pytest-faithfulness[{entry.extra}]' "
                f"(missing: {', '.join(missing)})")
        return
    builtin = ", ".join(BUILTIN_JUDGES)
    if "/" not in name:
        models = _litellm_models()
        if models is not None and name not in models:
            import difflib

            close = difflib.get_close_matches(lowered, list(BUILTIN_JUDGES), n=1, cutoff=0.75)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ConfigError(
                f"--faithfulness-judge {name!r}: unknown judge; {hint}the built-in judges are "
                f"{builtin}; an LLM judge is a litellm model string such as "
                "openai/gpt-4o-mini (or a model litellm knows by name, such as gpt-4o-mini)")
        return
    provider = name.split("/", 1)[0]
    if _provider_known(provider) is False:
        raise ConfigError(
            f"--faithfulness-judge {name!r}: {provider!r} is not a provider litellm knows "
            f"(e.g. openai, anthropic, ollama, azure); the built-in judges are {builtin}")


def _find_spec(module: str) -> Any:
    try:
        return importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None


def _litellm_dir() -> Path | None:
    spec = _find_spec("litellm")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]) if locations else None


def _litellm_models() -> set[str] | None:
    """The model names of litellm's bundled price map, or ``None`` when it cannot be read."""
    folder = _litellm_dir()
    if folder is None:
        return None
    try:
        data = json.loads((folder / "model_prices_and_context_window_backup.json")
                          .read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {k for k in data if k != "sample_spec"} if isinstance(data, dict) else None


def _provider_known(provider: str) -> bool | None:
    """Whether litellm accepts ``provider`` as a model prefix; ``None`` when its files cannot
    be read (the enum first, then its JSON-configured providers, then the price map)."""
    import re

    folder = _litellm_dir()
    if folder is None:
        return None
    try:
        source = (folder / "types" / "utils.py").read_text(encoding="utf-8")
    except OSError:
        return None
    block = re.search(r"^class LlmProviders\(.*?\):\n(.*?)(?=^\S)", source, re.M | re.S)
    providers = set(re.findall(r'^\s+\w+\s*=\s*"([^"]+)"', block.group(1), re.M)) \
        if block is not None else set()
    if len(providers) < 10:  # the layout changed: do not guess
        return None
    if provider in providers:
        return True
    try:  # providers litellm configures from JSON (OpenAI-compatible endpoints)
        data = json.loads((folder / "llms" / "openai_like" / "providers.json")
                          .read_text(encoding="utf-8"))
        if isinstance(data, dict) and provider in data:
            return True
    except (OSError, ValueError):
        pass
    try:
        data = json.loads((folder / "model_prices_and_context_window_backup.json")
                          .read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return any(isinstance(v, dict) and v.get("litellm_provider") == provider
               for v in data.values())
