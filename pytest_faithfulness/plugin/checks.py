"""Start-up checks of a pytest run, in the controller: options the offline judge ignores,
API keys to redact (and those too short to redact safely), models a budget cannot price."""

from __future__ import annotations

from typing import Any

import pytest

from ..judges.builtin import BUILTIN_JUDGES
from ..settings import Settings


def is_worker(config: Any) -> bool:
    """Whether ``config`` is a pytest-xdist worker's."""
    return hasattr(config, "workerinput")


def worker_input(config: Any) -> dict[str, Any]:
    """An xdist worker's ``workerinput`` (what the controller passed it); only for a worker
    (``is_worker``): raises ``AttributeError`` otherwise."""
    return config.workerinput


def worker_output(config: Any) -> dict[str, Any]:
    """An xdist worker's ``workeroutput`` (what it sends back to the controller); only for a
    worker (``is_worker``): raises ``AttributeError`` otherwise."""
    return config.workeroutput


def warn_ignored_options(config: pytest.Config, settings: Settings) -> None:
    """Warn once at start-up (in the controller) about options the built-in offline judge
    does not read: a CI job relying on replay's "no judge call" guarantee, or on an API base,
    should know they do not apply (the offline judge makes no network call anyway)."""
    if is_worker(config) or config.pluginmanager.hook.pytest_faithfulness_make_judge \
            .get_hookimpls():
        return  # a make_judge hook may read these options its own way
    ignored = settings.ignored_with_offline_judge()
    if ignored:
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"{', '.join(ignored)} do{'es' if len(ignored) == 1 else ''} not apply to the "
            f"{settings.judge!r} judge: it runs locally, makes no network call, spends nothing "
            "and is not cached (these options are for an LLM judge)"), stacklevel=2)


def register_known_keys(config: pytest.Config, settings: Settings) -> None:
    """Register the key variable of the judge and of each panel member, so that their keys
    are redacted from every error text whatever their length (``redaction``), and warn once
    at start-up (in the controller) of each known key so short that redacting it blanks
    ordinary text."""
    from ..redaction import (
        key_variable,
        known_key_variables,
        register_key_variable,
        short_keys,
    )

    for spec in (settings.judge, *settings.panel):
        if spec and spec.strip().lower() not in BUILTIN_JUDGES:
            register_key_variable(key_variable(spec.strip()))
    if is_worker(config):
        return
    for name, length in short_keys(known_key_variables()):
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"{name} is {length} character(s) long: it is redacted from every error text and "
            "report wherever it stands as a whole token, so words or numbers equal to it are "
            "blanked too; use a longer key (16 characters or more)"), stacklevel=2)


def check_budget_prices(settings: Settings) -> None:
    """With ``--faithfulness-budget-usd``: refuse a model litellm's price map cannot price
    (the main judge's or a ``--faithfulness-panel`` member's): its calls would cost $0.

    Raises:
        pytest.UsageError: naming the model and the option.
    """
    from ..accounting import model_is_priced

    members = [("judge", settings.judge or "offline")]
    members += [("panel member", spec) for spec in settings.panel]
    for role, spec in members:  # every model the budget must price, the panel's too
        spec = spec.strip()
        if spec.lower() not in BUILTIN_JUDGES and not model_is_priced(spec):
            raise pytest.UsageError(
                f"--faithfulness-budget-usd cannot apply to the {role} {spec!r}: litellm's "
                "bundled price map has no price for it, so its calls would cost $0 against "
                "the budget; use a priced model string or drop the budget")
