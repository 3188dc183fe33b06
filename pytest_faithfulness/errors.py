"""Every exception and warning of pytest-faithfulness, under one base each.

``except FaithfulnessError`` catches anything this package raises on purpose;
``FaithfulnessWarning`` is the base of every warning it issues. Each class also keeps the
built-in base it always had (``JudgeError`` is a ``RuntimeError``, ``CacheMiss`` a
``LookupError``, ...), so code that catches those keeps working, and each name stays
importable from the module that raised it before (``judges.protocol``, ``accounting``,
``cache``, ``runs.saved``, ``runs.merge``, ``cachemerge``, ``cli``).

An error that ends the judgement of an answer is recorded in it (``AnswerResult.error``) with
its kind (``AnswerResult.error_kind``, one of ``records.ERROR_KINDS``): each class here names
the kind it records as in ``error_kind``; ``error_kind_of`` reads it from any exception.

This module imports nothing of ours at run time (``records`` only for type checking).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .records import ErrorKind

__all__ = [
    "FaithfulnessError", "FaithfulnessWarning", "ConfigError", "UsageError", "JudgeError",
    "BudgetExceeded", "CacheMiss", "CacheRejected", "CacheToolError", "BaselineError",
    "RunSignatureError", "RunEditedError", "MergeError", "CacheCorruptWarning",
    "CacheReadOnlyWarning", "CacheIntegrityWarning", "error_kind_of",
]


class FaithfulnessError(Exception):
    """The base of every exception pytest-faithfulness raises on purpose."""

    #: the ``AnswerResult.error_kind`` an answer whose judgement this error ended records
    error_kind: ErrorKind = "judge"


class FaithfulnessWarning(UserWarning):
    """The base of every warning pytest-faithfulness issues."""


# -- settings and command line ----------------------------------------------------------------

class ConfigError(FaithfulnessError, ValueError):
    """A bad setting (a flag, ini key or environment value); the message names the setting
    and what is wrong with its value."""


class UsageError(FaithfulnessError):
    """A command-line or configuration mistake of the ``pytest-faithfulness`` command
    (exit status 4)."""


# -- judging ------------------------------------------------------------------------------------

class JudgeError(FaithfulnessError, RuntimeError):
    """A judge call failed for good (after retries): transport, HTTP status or reply format.

    Args:
        *args: the message, as for any exception.
        kind: what kind of failure it records as (``AnswerResult.error_kind``): ``"judge"``
            (default), ``"parse"`` (the reply could not be read), ``"gateway_budget"`` (the
            provider or gateway refused: its budget is spent) or ``"rate_limit"`` (still rate
            limited after the allowed wait).
    """

    def __init__(self, *args: object, kind: ErrorKind = "judge") -> None:
        super().__init__(*args)
        self.error_kind = kind


class BudgetExceeded(FaithfulnessError, RuntimeError):
    """The session's judge budget is spent: no new judge call is made."""

    error_kind: ErrorKind = "budget"


# -- the verdict cache ----------------------------------------------------------------------------

class CacheMiss(FaithfulnessError, LookupError):
    """A judge call missed the cache in ``replay`` mode (no judge call is made)."""

    error_kind: ErrorKind = "cache_miss"


class CacheRejected(CacheMiss):
    """In ``replay`` mode: the cached entry exists but is refused (unsigned or mis-signed
    under the signing key, or not a valid record). No judge call is made."""


class CacheToolError(FaithfulnessError, ValueError):
    """A cache directory that is not there or cannot be read; the message names it."""


class CacheCorruptWarning(FaithfulnessWarning):
    """The cache directory could not be read and was set aside and rebuilt."""


class CacheReadOnlyWarning(FaithfulnessWarning):
    """The cache cannot be written: hits are served, new verdicts are not saved."""


class CacheIntegrityWarning(FaithfulnessWarning):
    """Cache entries were refused (unsigned, mis-signed or invalid); raised once, at close."""


# -- saved runs ---------------------------------------------------------------------------------

class BaselineError(FaithfulnessError, ValueError):
    """A saved run cannot be found, read or validated; the message names the path or name."""


class RunSignatureError(BaselineError):
    """A signed saved run whose signature does not match under the signing key."""


class RunEditedError(BaselineError):
    """A saved run edited or corrupt: its stored answers or passages do not match the inputs
    digests it recorded (``runs.baseline_identity.check_stored_inputs``); the message names
    the run, its file and the test ids."""


class MergeError(FaithfulnessError, ValueError):
    """The shards cannot be merged; the message names the files and what is wrong."""


def error_kind_of(exc: BaseException) -> ErrorKind:
    """The ``AnswerResult.error_kind`` an answer records when ``exc`` ended its judgement:
    the error's own ``error_kind`` for ours, ``"judge"`` for anything else a judge raised."""
    if isinstance(exc, FaithfulnessError):
        return exc.error_kind
    return "judge"
