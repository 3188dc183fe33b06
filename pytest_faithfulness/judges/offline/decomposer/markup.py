"""HTML markup in an answer: comments and tags (``markup_spans``), set aside (reason
``"markup"``), read as a space, and cut out of the spans of the claims around them
(``cut_markup``). A tag shape whose name is no HTML element, or that holds words, is text a
reader sees, and is judged; so is the value of an attribute a reader sees (``alt``, ``title``)."""

from __future__ import annotations

import re

from .mapped import trim_span

#: HTML markup: a comment or something shaped like a tag (``<br>``, ``<p class="x">``,
#: ``</b>``); ``markup_spans`` decides whether a tag shape is a tag. A comment has both ends:
#: ``<!--`` and the first ``-->`` (or ``--!>``) after it; ``<!-->`` and ``<!--->`` are empty
#: comments that end at once (WHATWG HTML, tokenizer: "abrupt closing of empty comment"), so
#: the text after them is shown. An unterminated ``<!--`` is text (CommonMark prints an inline
#: one as written), and is judged.
_MARKUP = re.compile(r"<!--(?:-?>|.*?--!?>)|</?([A-Za-z][\w-]*)((?:\s[^<>\n]*)?)/?>",
                     re.DOTALL)
#: The elements of HTML (WHATWG HTML Living Standard, section 4, plus the obsolete ones that
#: browsers still render, and SVG / MathML roots): a tag of any other name is text to a
#: reader (``<Sale items can be refunded.>``), unless it names a custom element (lower case
#: with a hyphen, as the standard requires).
HTML_ELEMENTS = frozenset("""a abbr address area article aside audio b base bdi bdo blockquote
    body br button canvas caption cite code col colgroup data datalist dd del details dfn dialog
    div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header
    hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta meter
    nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s
    samp script search section select slot small source span strong style sub summary sup table
    tbody td template textarea tfoot th thead time title tr track u ul var video wbr center font
    big tt strike nobr svg math path g circle rect line""".split())
#: Attributes a tag may carry without a value (the standard's boolean attributes); any other
#: bare word inside a tag shape (``<b and sale items can be refunded>``) makes it text.
BOOLEAN_ATTRIBUTES = frozenset("""allowfullscreen async autofocus autoplay checked controls
    default defer disabled formnovalidate hidden inert ismap itemscope loop multiple muted
    nomodule novalidate open playsinline readonly required reversed selected""".split())
#: Attributes whose value a reader sees or hears (alt text, tooltips, screen readers): their
#: text is judged like the answer's, not set aside with the tag.
VISIBLE_ATTRIBUTES = frozenset({"alt", "title", "aria-label", "placeholder", "label", "summary",
                                "aria-description"})
_ATTRIBUTE = re.compile(r"""\s*([^\s"'<>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")


def markup_spans(answer: str) -> list[tuple[int, int]]:
    """Character spans of the HTML comments and tags in ``answer``: markup, not text. The
    offline decomposer sets each aside (reason ``"markup"``) and reads it as a space; the
    pipeline's alignment needs no claim for it.

    A tag shape counts as a tag only when its name is an HTML element (``HTML_ELEMENTS``) or
    a custom element, and every bare word in it is a boolean attribute
    (``BOOLEAN_ATTRIBUTES``); otherwise it is text a reader of the answer sees, and is judged.
    The value of an attribute a reader sees (``VISIBLE_ATTRIBUTES``: ``alt``, ``title``, ...)
    is left out of the tag's spans, so it is judged too.
    """
    spans: list[tuple[int, int]] = []
    for m in _MARKUP.finditer(answer):
        if m.group(1) is None:  # a comment
            spans.append(m.span())
            continue
        name = m.group(1)
        if name.lower() not in HTML_ELEMENTS and not (name.islower() and "-" in name):
            continue
        attributes, at = m.group(2), m.start(2)
        visible: list[tuple[int, int]] = []
        tag = True
        for a in _ATTRIBUTE.finditer(attributes):
            key, value = a.group(1).lower(), a.group(2)
            if value is None and key not in BOOLEAN_ATTRIBUTES:
                tag = False
                break
            if value is not None and key in VISIBLE_ATTRIBUTES and re.search(r"[^\W\d_]", value):
                quoted = value[:1] in "\"'"
                visible.append((at + a.start(2) + quoted, at + a.end(2) - quoted))
        if not tag:
            continue
        start = m.start()
        for s, e in visible:
            spans.append((start, s))
            start = e
        spans.append((start, m.end()))
    return spans


def cut_markup(answer: str, span: tuple[int, int], markup: list[tuple[int, int]]
               ) -> list[tuple[int, int]]:
    """``span`` without the markup inside it, as trimmed non-empty spans."""
    out, start = [], span[0]
    for s, e in markup:
        if e <= start or s >= span[1]:
            continue
        if s > start:
            out.append((start, s))
        start = max(start, e)
    if start < span[1]:
        out.append((start, span[1]))
    return [t for t in (trim_span(answer, a, b) for a, b in out) if t]
