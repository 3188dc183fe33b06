"""How figures and short texts are shown to people, shared by every report."""

from __future__ import annotations

from .text import printable

_EPS = 1e-9


def fmt(value: float | None) -> str:
    """A faithfulness score with 2 decimals, ``n/a`` for none."""
    return "n/a" if value is None else f"{value:.2f}"


def format_figure(value: float | None, key: str) -> str:
    """A figure for people: rates and means with 3 decimals, counts as integers, ``n/a``."""
    if value is None:
        return "n/a"
    if key in ("mean_faithfulness", "unsupported_answer_rate"):
        return f"{value:.3f}"
    return f"{value:g}"


def format_change(value: float | None, key: str) -> str:
    """A signed change (``+0.020``, ``-3``), ``=`` for none, empty when unknown."""
    if value is None:
        return ""
    if abs(value) < _EPS:
        return "="
    return ("+" if value > 0 else "-") + format_figure(abs(value), key)


def short(text: str, limit: int = 120) -> str:
    """``text`` on one line, sanitised (``text.printable``), cut to ``limit`` characters."""
    text = " ".join(printable(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
