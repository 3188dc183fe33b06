"""Reading the quoted evidence of a verdict: the quotes, the sentence around each, the table row.

``read_evidence`` gathers what the quotes of a verdict say (``QuotedEvidence``): the quotes, the
sentences they stand in (a pronoun read through its antecedent, a bare "Yes" through its
question), the passage titles and table rows, for ``trust.quote_check.check_verdict``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..language.features import TABLE_DELIMITER, table_headers, text_features
from ..language.quantities import surface_form
from ..language.text import fold_typography, passage_sentence_spans, quote_in_passage
from ..language.words import bare_quote
from ..records import Evidence, Passage
from .name_rules import SLOT_TOKEN, subject_run


def by_quote(items: list[Evidence]) -> dict[str, list[str]]:
    """Evidence items grouped by quote: one quote cited to several passages (the older
    ``passage_ids`` + ``quote`` form) is one piece of evidence that must occur in at least one
    of them; the items whose passage does not hold it are dropped from the accepted verdict."""
    groups: dict[str, list[str]] = {}
    for item in items:
        groups.setdefault(item.quote, []).append(item.passage_id)
    return groups


def holds(passage: Passage, quote: str) -> bool:
    """Whether ``quote`` occurs in ``passage``'s text or title (``text.quote_in_passage``)."""
    return any(source and quote_in_passage(quote, source)
               for source in (passage.text, passage.title))


#: A word with its hyphenated parts ("USB-C" is one word for the quote-length rule).
WORD_GROUP = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")

#: Where a claim joins two things: "SSO and audit logs", "A, B or C"; also where it sets one
#: statement beside another ("Refunds take 14 days; exchanges are instant", after a colon or
#: a spaced dash): each side is spoken to on its own.
CONJUNCT = re.compile(r"\band\b|\bor\b|,(?!\d)|;|:(?=[ \t])|\s[\u2014\u2013-]+\s")


@dataclass(frozen=True)
class QuotedEvidence:
    """What a verdict's evidence items say, read for ``_quote_problem``.

    ``quotes`` is the quotes' own words (a bare "Yes."/"No." answer read with its question);
    ``context`` is the sentence(s) around each quote in its passage (the quote itself when it
    is a title); ``titles`` is the cited passages' titles."""

    quotes: str
    context: str
    titles: str
    whole: bool       # some quote is the whole text or title of its passage
    count: int        # distinct quotes
    #: ``context`` sentence by sentence (a quote of two sentences gives two; a table row read
    #: with its header is one), for the rules that read what one sentence says together.
    units: tuple[str, ...] = ()


def read_evidence(items: list[Evidence], by_id: dict[str, Passage],
                  claim: str | None = None) -> QuotedEvidence:
    """The quotes of ``items``, the sentences around them and their passages' titles. A quote
    over several rows of a Markdown table is read row by row, each with its header, and only
    the rows that speak of ``claim`` are kept (``_claim_rows``)."""
    quotes, context, units, whole = [], [], [], False
    for quote in dict.fromkeys(item.quote for item in items):
        pids = [item.passage_id for item in items if item.quote == quote]
        said = quote
        around = []
        for pid in pids:
            passage = by_id[pid]
            for source in (passage.text, passage.title):
                if not source or not quote_in_passage(quote, source):
                    continue
                whole = whole or (bare_quote(fold_typography(source))
                                  == bare_quote(fold_typography(quote)))
                if table := _table_rows(source, fold_typography(quote)):
                    rows = _claim_rows(table, claim)
                    around.append(" ".join(rows))
                    units += rows
                    break
                sentence, before = _sentence_around(quote, source)
                if before:
                    said = f"{before} {quote}"
                    units.append(answered_text(f"{before} {sentence}"))
                else:
                    units += [answered_text(_antecedent_read(sentence[a:b], source))
                              for a, b in passage_sentence_spans(sentence)]
                around.append(f"{before} {sentence}" if before else sentence)
                break
        quotes.append(answered_text(said))
        context.append(answered_text(" ".join(dict.fromkeys(around)) or said))
    titles = " ".join(dict.fromkeys(by_id[i.passage_id].title or "" for i in items)).strip()
    return QuotedEvidence(" . ".join(quotes), " . ".join(context), titles, whole, len(quotes),
                          tuple(dict.fromkeys(units)) or tuple(context))


#: A pronoun opening a sentence that stands for the name opening the sentence before it.
_PRONOUN_OPENING = re.compile(r"^\s*(?:It|They|He|She)\b")


def _antecedent_read(sentence: str, source: str) -> str:
    """``sentence`` with an opening "It"/"They"/"He"/"She" read as the name that opens the
    sentence before it in ``source`` ("The Enterprise plan costs $50. It includes SSO." reads
    "The Enterprise plan includes SSO."), so that the name rules see who the sentence is
    about; ``sentence`` as it is otherwise."""
    if not _PRONOUN_OPENING.match(sentence):
        return sentence
    text = fold_typography(source)
    start = text.find(fold_typography(sentence))
    spans = passage_sentence_spans(text[:max(start, 0)])
    if start <= 0 or not spans:
        return sentence
    prev = text[spans[-1][0]:spans[-1][1]]
    tokens = SLOT_TOKEN.findall(surface_form(prev))
    if (subject := subject_run(tokens, frozenset())) is None:
        return sentence
    return _PRONOUN_OPENING.sub(" ".join(tokens[:subject[1]]), sentence, count=1)


def _claim_rows(rows: list[tuple[str, str]], claim: str | None) -> list[str]:
    """The readings of the table rows (``_table_rows``) that speak of ``claim``: those whose own
    cells state a name of the claim ("Basic" for "The Basic plan costs $5"), else those whose
    cells state the most of its content words; all of them when none states any (or without
    a claim). A quote of the whole table is no evidence that one row's value belongs to
    another row's name."""
    readings = [reading for reading, _ in rows]
    if claim is None or len(rows) < 2:
        return readings
    cf = text_features(claim)
    own = [text_features(cells, sentence_start_exempt=False).content for _, cells in rows]
    names = cf.mandatory - cf.numbers
    if named := [r for r, words in zip(readings, own) if names & words]:
        return named
    best = max(len(cf.content & words) for words in own)
    return [r for r, words in zip(readings, own) if len(cf.content & words) == best] \
        if best else readings


#: A bare reply to a yes/no question: "Yes", "No", and the negative replies other than "No"
#: ("Nope", "Unfortunately not", "Sadly, no", "Not really", "I'm afraid not").
_REPLY = (r"(?:Yes|No(?:pe)?|Nah|Not really|Not at all|Not yet|(?:Unfortunately|Sadly|Regrettably"
          r"|I'm afraid|I am afraid|Afraid|Certainly|Definitely|Absolutely|Of course),? "
          r"(?:not|no))")

#: A bare answer of a question-and-answer passage: "Yes.", "No", "A: No.", "Nope.".
_BARE_ANSWER = re.compile(rf"(?:(?:A|Answer)\s*:\s*)?{_REPLY}", re.IGNORECASE)

#: A question followed by its bare answer: "Can I pause? A: No." reads "not Can I pause." and
#: "Can I pause? Yes." reads "Can I pause." for the polarity and coverage rules.
_QA = re.compile(rf"([^.?!\n]*)\?\s*(?:(?:A|Answer)\s*:\s*)?({_REPLY})\b[.!]?", re.IGNORECASE)

_QUESTION_MARK = re.compile(r"^\s*(?:Q|Question)\s*:\s*", re.IGNORECASE)


def answered_text(text: str) -> str:
    """``text`` with every question answered by a bare yes or no read as the statement the
    answer makes."""
    def statement(m: re.Match[str]) -> str:
        question = _QUESTION_MARK.sub("", m.group(1)).strip()
        return f"{'' if m.group(2).lower() == 'yes' else 'not '}{question}."
    return _QA.sub(statement, text)


SENTENCE_BREAK = re.compile(r"[.!?\u3002\n](?!\d)")


#: A bare yes/no cell of a table answers its column: "SSO: Yes" reads "SSO.", "SSO: No"
#: reads "not SSO." (the "No" negates its column only, not the row or the table).
_CELL_ANSWERS = {"yes": "", "true": "", "\u2713": "", "\u2714": "", "\u2705": "",
                 "no": "not ", "false": "not ", "\u2717": "not ",
                 "\u2718": "not ", "\u274c": "not ",
                 # a dash in a feature column says "not included", as "No" does
                 "-": "not ", "\u2014": "not ", "\u2013": "not ", "--": "not "}


def _table_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def row_reading(header_line: str, row_line: str) -> str | None:
    """A Markdown table row read with its header row, cell by cell ("| Team | 25 |" under
    "| Plan | Users |" reads "Plan: Team. Users: 25."; a yes/no cell answers its column:
    "SSO: No" reads "not SSO.", "SSO: Yes" reads "SSO."); ``None`` when the two rows do not
    have as many cells."""
    header, cells = _table_cells(header_line), _table_cells(row_line)
    if len(header) != len(cells):
        return None
    return " ".join(
        f"{answer}{h}." if h and (answer := _CELL_ANSWERS.get(c.lower())) is not None
        else f"{h}: {c}." for h, c in zip(header, cells) if c)


def table_readings(text: str, spans, headers: dict[int, int] | None = None) -> dict[int, str]:
    """For each sentence (index into ``spans``, ``text.passage_sentence_spans``) that is a
    body row of a Markdown table of ``text``, the row read with its header (``row_reading``),
    for the offline judges: each row is read on its own, its "No" cells negating their
    column only. ``headers``: the ``table_headers`` of ``text`` when the caller has them."""
    out = {}
    if headers is None:
        headers = table_headers(text, spans)
    for k, h in headers.items():
        reading = row_reading(text[slice(*spans[h])], text[slice(*spans[k])])
        if reading is not None:
            out[k] = reading
    return out


def _table_rows(source: str, quote: str) -> list[tuple[str, str]] | None:
    """``(reading, own cells)`` of each body row of a Markdown table of ``source`` that the
    (typography-folded) ``quote`` touches (the reading as ``row_reading`` gives it; the cells
    as written, without the header); ``None`` when the quote lies outside a table (in part,
    too) or only in its header."""
    lines = [fold_typography(line) for line in source.splitlines()]
    joined = " ".join(lines)
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    at = joined.find(quote) if quote else -1
    while at >= 0:
        end = at + len(quote)
        touched = [i for i, s0 in enumerate(starts) if s0 < end and s0 + len(lines[i]) > at]
        rows: list[tuple[str, str]] = []  # emptied when the quote leaves the table
        for i in touched:
            if not lines[i].startswith("|"):
                rows = []
                break
            top = i
            while top > 0 and lines[top - 1].startswith("|"):
                top -= 1
            if top == i or TABLE_DELIMITER.fullmatch(lines[i]):
                continue  # the header or delimiter row
            if (reading := row_reading(lines[top], lines[i])) is None:
                rows = []
                break
            rows.append((reading, " ".join(c for c in _table_cells(lines[i]) if c)))
        if rows:
            return rows
        at = joined.find(quote, at + 1)
    return None


#: A bare yes/no answer right after a question: the question's sentence is read with it.
_ANSWER_AFTER = re.compile(rf"\s*(?:(?:A|Answer)\s*:\s*)?{_REPLY}\b[.!]?", re.IGNORECASE)


def _sentence_around(quote: str, source: str) -> tuple[str, str]:
    """The sentence(s) of ``source`` that the first occurrence of ``quote`` lies in (the
    quote widened to sentence breaks; a question with the bare yes/no answer after it), and
    the sentence just before them when the quote is a bare yes/no answer (its question), else
    ``""``. Both typography-folded."""
    text, q = fold_typography(source), fold_typography(quote)
    start = text.find(q)
    if start < 0:
        return q, ""
    end = start + len(q)
    left = max((m.end() for m in SENTENCE_BREAK.finditer(text, 0, start)), default=0)
    m = SENTENCE_BREAK.search(text, end - 1 if q[-1:] in ".!?\u3002" else end)
    right = m.end() if m else len(text)
    if text[left:right].rstrip().endswith("?") and (
            answer := _ANSWER_AFTER.match(text, right)):  # "Does it include SSO? No."
        right = answer.end()
    sentence = text[left:right].strip()
    if rows := _table_rows(source, q):
        sentence = " ".join(reading for reading, _ in rows)
    before = ""
    if _BARE_ANSWER.fullmatch(bare_quote(q)):
        prev = text[:left].rstrip()
        cut = max((m.end() for m in SENTENCE_BREAK.finditer(prev[:-1])), default=0)
        before = prev[cut:].strip()
    return sentence, before
