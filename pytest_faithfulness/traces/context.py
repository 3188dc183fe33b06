"""Which retrieved passages reached the model: a passage looked for in the recorded prompt
(``in_prompt``), and the prompt a turn's answer came from (``context_prompt``).

Pure Python. The rules (``docs/traces.md``, "The context"):

* a passage counts when its text occurs in the prompt as written, with JSON / Python string
  escapes decoded (once and twice), or with HTML entities decoded (``prompt_views``); text is
  compared NFKC, whitespace collapsed, default-ignorable characters (soft hyphen, zero-width
  space) removed;
* a passage counts whole when it occurs once markup at the start of each line (``> ``,
  ``- ``, ``1. ``) is taken out of the prompt, or once its own HTML tags are taken out of it;
* a passage cut short in the prompt counts by the part that is there: at least
  ``MIN_CUT_CHARS`` characters, and only where that part ends the text it is in (the end of a
  line, a closing quote of a JSON or Python value, a closing bracket or element, an ellipsis,
  a ``(truncated)``-style marker), and not with a question. A document's first words or first
  sentence repeated inside other text (quoted or asked in the user's question) are not the
  document;
* the prompt of an answer is its generation's prompt; when that holds no retrieved passage,
  plus the prompt of every earlier model call whose output it holds (a draft the generation
  rewrote), and so on back.
"""

from __future__ import annotations

import html
import re
import unicodedata

from ..records import Passage
from .spans import SpanInfo, normal

#: A document cut short in the prompt counts when at least this many characters of it are there.
MIN_CUT_CHARS = 40
#: An earlier model output counts as fed to a later prompt when at least this long (characters).
MIN_FED_CHARS = 20

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\"'\\/bfnrt])")
_SIMPLE = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_IGNORABLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
#: What may follow the kept part of a document cut short: the end of a line, a closing quote
#: that ends a JSON or Python value, a closing bracket, the end of an element, an ellipsis, a
#: truncation marker. Not a quote that closes a quotation inside prose (the user's question
#: quoting a document's first words), nor the end of the prompt (where the question is).
_BOUNDARY = re.compile(r"[ \t]*(?:[\r\n]|[\"'][ \t]*(?:[,:}\]\r\n]|$)|[\]}]|</|…|\.\.\."
                       r"|[(\[][ \t]*(?:truncated|cut|more|…|\.\.\.))", re.IGNORECASE)
#: Markup at the start of a line a prompt builder may add (a quote, a bullet, a number).
_LINE_MARK = re.compile(r"(?m)^[ \t]*(?:>+|[-*•+]|\d+[.)])[ \t]+")
_TAG = re.compile(r"<[^<>]{1,200}>")


def _unescape(text: str) -> str:
    """``text`` with JSON / Python string escapes decoded (``\\"``, ``\\n``, ``\\u00e9``,
    surrogate pairs), as an app that put its documents into the prompt with ``json.dumps`` or
    ``repr`` wrote them."""
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "ux":
            return chr(int(code[1:], 16))
        return _SIMPLE.get(code, code)
    decoded = _ESCAPE.sub(one, text)
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _raw_views(prompt: str) -> list[str]:
    """The prompt as written, JSON / Python unescaped once and twice, and HTML-unescaped,
    NFKC with default-ignorable characters removed, whitespace as written."""
    views = [prompt]
    text = prompt
    for _ in range(2):
        text = _unescape(text)
        views.append(text)
    views.append(html.unescape(prompt))
    views += [_LINE_MARK.sub("", v) for v in views]  # "> " or "- " before each line
    return list(dict.fromkeys(_IGNORABLE.sub("", unicodedata.normalize("NFKC", v))
                              for v in views))


def plain(text: str) -> str:
    """Text as the prompt check compares it: NFKC (a ligature as its letters, as a prompt
    builder that normalises writes it), default-ignorable characters (soft hyphen,
    zero-width space) removed, then ``spans.normal``."""
    return normal(_IGNORABLE.sub("", unicodedata.normalize("NFKC", text)))


def prompt_views(prompt: str) -> list[str]:
    """The forms of a recorded prompt a passage is looked for in (``plain`` text): as
    written, with JSON / Python string escapes decoded (once and twice: a JSON document
    inside a JSON message), and with HTML entities decoded (an autoescaping template). A
    passage the model saw escaped was still seen."""
    return list(dict.fromkeys(plain(view) for view in _raw_views(prompt)))


def _longest_prefix(text: str, view: str) -> int:
    """The length of the longest prefix of ``text`` that occurs in ``view`` (prefixes are
    monotone: a prefix of one that occurs occurs)."""
    low, high = 0, len(text)
    while low < high:
        mid = (low + high + 1) // 2
        if text[:mid] in view:
            low = mid
        else:
            high = mid - 1
    return low


def _ends_there(part: str, raw_views: list[str]) -> bool:
    """Whether ``part`` (a cut document's kept start) occurs in a raw view followed by a
    boundary (``_BOUNDARY``): the app cut the document there. Ending a sentence is not
    enough: a document's first sentence quoted inside the user's question is not the
    document. A part that ends with a question (an FAQ entry's question, asked by the user)
    says nothing a claim could rest on."""
    if part.rstrip().endswith("?"):
        return False
    words = part.split()
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
    for view in raw_views:
        for match in pattern.finditer(view):
            if _BOUNDARY.match(view, match.end()):
                return True
    return False


def in_prompt(passages: list[Passage], prompt: str,
              warnings: list[str]) -> list[Passage]:
    """The passages that reached ``prompt`` (the module docstring's rules): whole, or, cut
    short, as the part that is there (with a warning naming it).

    Args:
        passages: the retrieved passages, in order.
        prompt: the recorded prompt (``context_prompt``).
        warnings: remarks for the report, appended to.

    Returns:
        The passages seen, in order (a cut one as a ``Passage`` with the kept text).
    """
    raw = _raw_views(prompt)
    views = list(dict.fromkeys(plain(view) for view in raw))
    kept = []
    for passage in passages:
        text = plain(passage.text)
        if any(text in view for view in views):
            kept.append(passage)
            continue
        untagged = plain(_TAG.sub(" ", passage.text))  # an HTML document, its tags stripped
        if untagged != text and any(untagged in view for view in views):
            kept.append(Passage(passage.id, normal(_TAG.sub(" ", passage.text))))
            warnings.append(f"passage {passage.id} is judged without its HTML tags, as the "
                            "prompt holds it")
            continue
        low = max(_longest_prefix(text, view) for view in views)
        part = text[:low].rstrip()
        if low >= MIN_CUT_CHARS and _ends_there(part, raw):
            kept.append(Passage(passage.id, part))
            warnings.append(f"passage {passage.id} was cut short in the prompt: judged by its "
                            f"first {low} of {len(text)} characters (the part the prompt holds)")
    return kept


def context_prompt(members: list[SpanInfo], generation: SpanInfo,
                   passages: list[Passage]) -> tuple[str | None, list[str]]:
    """The prompt the answer came from: ``generation``'s recorded prompt; when it holds none
    of ``passages`` (a rewrite, polish or translate call, given only a draft), joined with the
    prompt of every model call that ended before it and whose output (at least
    ``MIN_FED_CHARS`` characters) that prompt holds, back to the first. A generation that saw
    retrieved passages itself is judged by its own prompt only: an earlier call's output in
    it (chat history, a search query it wrote) does not bring that call's documents along.

    Returns:
        ``(prompt or None when none was recorded, names of the earlier model spans joined)``.
    """
    if not generation.prompt_text:
        return None, []
    if in_prompt(passages, generation.prompt_text, []):
        return generation.prompt_text, []
    prompts, fed = [generation.prompt_text], []
    chain, seen = [generation], {generation.span_id}
    while chain:
        later = chain.pop()
        held = plain(later.prompt_text or "")
        for span in members:
            output = plain(span.output_text or "")
            if (span.span_id in seen or span.kind != "llm" or span.end is None
                    or span.end > later.start or len(output) < MIN_FED_CHARS
                    or output not in held):
                continue
            seen.add(span.span_id)
            fed.append(f"{span.name!r} ({span.span_id})")
            if span.prompt_text:
                prompts.append(span.prompt_text)
                chain.append(span)
    return "\n\n".join(prompts), fed
