"""Untrusted text made safe to show to people: one sanitiser for every human-readable report.

Answers, passages, claims, quotes, rationales and test ids come from models and retrieval
systems, so they can hold characters that act on the reader's display instead of being read:

* ANSI escape sequences and other C0/C1 controls (``ESC [2K`` erases a terminal line,
  ``CR`` rewinds it, so a label such as ``CONTRADICTED`` can vanish from a log);
* bidirectional controls (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C), which
  reorder the text around them (the "Trojan Source" attack, CVE-2021-42574);
* invisible format characters (zero-width space, word joiner, byte-order mark, the
  U+E0000 tag block used to smuggle hidden instructions), which hide differences;
* lone surrogates (``"\\ud800"``), which no UTF-8 writer can encode;
* words of thousands of characters, which stretch a page or flood a terminal.

``printable`` shows each such character as a visible escape (``\\x1b``, ``\\u202e``) or
U+FFFD (a lone surrogate), leaving every other character as it is; ``terminal_text`` also
cuts overlong words with an ellipsis. The JSON report never goes through here: it keeps the
exact text. The zero-width joiner and non-joiner (U+200C/U+200D) are kept: they are part of
the spelling of emoji sequences and of Persian and Indic words; so is the soft hyphen
(U+00AD), common in text taken from PDFs. Nothing here imports pytest.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["cut_long_words", "is_unsafe", "printable", "terminal_text"]

#: Format characters kept as they are: they join letters and emoji, and hide nothing.
_KEEP_FORMAT = frozenset("\u200c\u200d\u00ad")
_LONG_WORD = 200


@lru_cache(maxsize=4096)
def _shown(ch: str) -> str | None:
    """What to show for ``ch`` if it must not reach a display raw, else ``None``."""
    category = unicodedata.category(ch)
    if category == "Cs":
        return "\ufffd"
    if category in ("Cc", "Zl", "Zp") or (category == "Cf" and ch not in _KEEP_FORMAT):
        code = ord(ch)
        if code < 0x100:
            return f"\\x{code:02x}"
        if code < 0x10000:
            return f"\\u{code:04x}"
        return f"\\U{code:08x}"
    return None


def is_unsafe(ch: str) -> bool:
    """True when the single character ``ch`` would be replaced by ``printable``."""
    return _shown(ch) is not None


# Runs of everything outside printable ASCII and ordinary newline/tab: the only text to look at.
_SUSPECT = re.compile(r"[^\n\t\x20-\x7e]+")


def _shown_run(match: re.Match[str]) -> str:
    run = match.group()
    if run.isprintable():  # letters, marks, symbols of any script: nothing to do (C speed)
        return run
    return "".join(_shown(ch) or ch for ch in run)


def printable(text: object, *, newlines: bool = True) -> str:
    """``text`` with every control, bidirectional, invisible-format character and lone
    surrogate made visible, so that what is shown is what is there.

    Controls (C0, DEL, C1), line/paragraph separators and format characters become escapes
    such as ``\\x1b``, ``\\x0d``, ``\\u202e``, ``\\U000e0041``; a lone surrogate becomes
    U+FFFD. Newline and tab are kept when ``newlines`` is true (the layout wants them), else
    newlines (``\\n``, ``\\r\\n``) become one space and tabs a space. ``None`` gives ``""``;
    any other object is shown through ``str``. Never raises on a string.
    """
    text = "" if text is None else str(text)
    if not newlines:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    return _SUSPECT.sub(_shown_run, text)


def cut_long_words(text: str, limit: int = _LONG_WORD) -> str:
    """``text`` with each run of more than ``limit`` non-space characters cut to its first
    ``limit - 1`` characters and an ellipsis, followed by how many characters were left out
    (``"abc…[199801 more characters]"``). Cutting twice changes nothing more."""
    if len(text) <= limit:
        return text

    def cut(match: re.Match[str]) -> str:
        word = match.group()
        return f"{word[:limit - 1]}… [{len(word) - limit + 1} more characters]"

    return re.sub(rf"\S{{{limit + 1},}}", cut, text)


def terminal_text(text: object, limit: int = _LONG_WORD) -> str:
    """``text`` for one terminal line: ``printable`` with newlines folded to spaces and
    overlong words cut (see ``cut_long_words``)."""
    return cut_long_words(printable(text, newlines=False), limit)
