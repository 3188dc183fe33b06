"""The options with pytest: every ``settings.Settings`` option registered as a flag (one
group) and an ini key, and read back into ``Settings.from_mapping``."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from ..settings import ConfigError, Settings


def add_options(parser: pytest.Parser) -> None:
    """Register every option's flag (one group) and ini key with pytest."""
    group = parser.getgroup("faithfulness", "faithfulness of RAG answers")
    for opt in Settings.options():
        extra = dict(opt.argparse)
        ini_default: Any = None
        ini_type: Literal["bool", "args", "string"]
        if opt.kind == "flag":
            extra["action"], ini_type, ini_default = "store_true", "bool", False
        elif opt.kind == "args":
            extra["action"], ini_type, ini_default = "append", "args", []
        else:
            ini_type = "string"
        group.addoption(opt.flag, dest=opt.dest, default=None, help=opt.help, **extra)
        parser.addini(opt.dest, opt.help, type=ini_type, default=ini_default)


def raw_values(config: pytest.Config) -> dict[str, Any]:
    """Each option's raw value, by ``Settings`` field name: the flag's if given, else the ini
    value; ``None`` when neither is set (a switch: ``False``; a repeatable option: ``()``)."""
    values: dict[str, Any] = {}
    for opt in Settings.options():
        name = opt.dest[len("faithfulness_"):]
        value = config.getoption(opt.dest, default=None)
        if opt.kind == "flag":
            values[name] = bool(value or config.getini(opt.dest))
            continue
        if opt.kind == "args":
            values[name] = tuple(value or config.getini(opt.dest) or ())
            continue
        if value is None:
            value = config.getini(opt.dest)
        if value == [] or value is None or (isinstance(value, str) and not value.strip()):
            value = None  # unset (pytest 7 gives [] for an unset string ini)
        values[name] = value
    return values


def settings_from_config(config: pytest.Config) -> Settings:
    """Read, parse and check every option of a pytest run (``Settings.from_mapping``).

    Raises:
        pytest.UsageError: a bad value (see ``Settings.from_mapping``), naming the flag and
            the ini key.
    """
    judge_hook = bool(config.pluginmanager.hook.pytest_faithfulness_make_judge.get_hookimpls())
    try:
        return Settings.from_mapping(raw_values(config), rootdir=config.rootpath,
                                     worker=hasattr(config, "workerinput"),
                                     judge_hook=judge_hook)
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
