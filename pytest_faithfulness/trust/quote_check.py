"""Verification: one claim against the numbered passages -> one ``Verdict``.

Two things live here:

* ``check_verdict``: what any judge returns is checked before it is accepted. The check
  proves what evidence can prove (issue 20): the quotes occur verbatim up to typography, are
  about the claim, state its names (in the quote, the sentence around it or the passage
  title) and numbers (as quantities with units, or computed from quoted numbers), speak to
  every part of it, and agree with it on negation (per clause and scope, inside words,
  opposite words) and quantifiers. Otherwise the verdict becomes ``unsupported``, with the
  judge's own verdict and the reason kept beside it. ``evidence_coverage`` reports how much
  of a claim the quotes state.
* the rules of the offline judges, on the words of a text (``_features``: content words,
  names, numbers with their units, negation per clause part, bounds, counts) and on a claim
  against one evidence window (``_support_problem``, ``statement_problem``,
  ``_contradiction``). The heuristic verifier that applies them alone lives in
  ``judges.heuristic`` (``HeuristicVerifier``, importable from here too).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from itertools import combinations

from ..records import Evidence, Passage, Verdict
from ..language.text import (CJK_CLASS, fold_superscripts, fold_typography, is_common_word, normalize_ws,
                   passage_sentence_spans, quote_in_passage)

HEURISTIC_VERSION = "heuristic-2026.12-11"  # issue 20 round 4: numbers in words/groups, clock ranges, rates, framings, clause polarity, conditions, clause parts
#: Measured balanced accuracy (supported vs not) of the offline judge with this verifier on
#: the public development data (``../shared/data``; measurement only, never tuned on), from
#: ``python benchmarks/measure_offline_verifier.py --only heuristic``.
DEV_BALANCED_ACCURACY = {"claims": 0.620, "answers": 0.700}

#: Minimum share of the claim's content words that one evidence window must contain for
#: ``supported``: all of them...
SUPPORT_COVERAGE = 1.0
#: ... except at most this many that are fillers (``_FILLERS``: words that add no fact).
MAX_MISSING_FILLERS = 1
#: A claim of ``n`` content words may miss ``(n - 2) // MISSING_WORD_PER`` of them that are
#: neither names nor numbers (none up to 4 words, one from 5, two from 8).
MISSING_WORD_PER = 3
#: Minimum share of the claim's content words in a window for a polarity mismatch to make
#: the claim ``contradicted``.
CONTRADICTION_COVERAGE = 0.75
#: Minimum share of the claim's non-numeric content words for a window to be "about the same
#: thing" when judging a number or polarity mismatch as a contradiction.
TOPIC_COVERAGE = 0.6


#: A quote that carries a ``supported`` or ``contradicted`` verdict holds at least this many
#: content words (stop words do not count, numbers do, CJK text counts in character bigrams)...
MIN_QUOTE_CONTENT_WORDS = 2
#: ... and at least this many of them are content words of the claim too (always, even for a
#: quote that is the whole passage or title).
MIN_QUOTE_SHARED_WORDS = 1
#: A quote that carries ``supported`` holds at least this share of the claim's content words,
#: and every name and number of the claim.
QUOTE_CLAIM_COVERAGE = 0.75
#: ... and at least this share of the content words of each part of the claim (its clauses
#: and comma-separated parts), so that "Refunds take 14 days, and sale items can be
#: refunded" is not carried by a quote of its first part alone.
QUOTE_PART_COVERAGE = 0.25


def check_verdict(verdict: Verdict, passages: list[Passage],
                  claim: str | None = None) -> tuple[Verdict, str | None]:
    """Accept a judge's verdict only if its evidence checks out (issue 20).

    The check proves what evidence can prove: the quotes are real, about the claim, and state
    its numbers, names and polarity. Whether they entail the claim is the judge's job (calibrate
    the judge). A ``supported`` or ``contradicted`` verdict is accepted as given when:

    1. it cites at least one passage id for every evidence item, and every id is one of
       ``passages``; every item has a quote;
    2. every quote occurs verbatim, at word boundaries, in the text or title of its passage, up
       to typography only (``text.quote_in_passage``: NFKC, curly/straight quotes, dashes and
       hyphens, no-break and zero-width spaces, ligatures, whitespace); a quote cited to several
       passages (the older ``passage_ids`` + ``quote`` form) is kept where it occurs;
    3. the quotes together hold ``MIN_QUOTE_CONTENT_WORDS`` content words, or one is the whole
       text or title of its passage; with ``claim`` given, they share a content word with it;
       a ``contradicted`` verdict's evidence does not say the claim as it is (``_restates``:
       every claim word stated with the claim's polarity, its numbers, no rival, no other
       quantifier): it must state something opposite (a negation, an opposite word, another
       number or name).

    A ``supported`` verdict must also, reading the quotes, the sentence(s) around each quote in
    its passage (a table row with its header row, a yes/no cell answering its column only:
    "SSO: No" reads "not SSO"; a quote over several rows read row by row, keeping the rows
    that name the claim's names, else those stating most of its words; a bare "Yes."/"No."
    with its question, a question with the bare answer after it) and the cited passages'
    titles:

    4. state every name of the claim (capitalised words, acronyms, letter-led tokens with digits
       such as S3, A320, USB-C; the word opening the claim when it is no common word,
       ``text.is_common_word``, or the passages write it as a name) in a quote, the sentence
       around it or a cited passage's title;
    5. state every number of the claim as a quantity with its unit, compared by value within a
       dimension (1500 ml = 1.5 l = 1,5 l; 680 g = 680 grams; 1,200 = 1200; two weeks = 14
       days; an hour = 60 minutes, half an hour = 30; 14 days != 14 weeks; kg != lb; $ != EUR;
       per month != per year; 2x != 2%; $49 = USD 49 = forty-nine dollars; 10 h = 10 hours;
       17:00 = 5 pm, 9:00 = 9 am or 9 pm, "9am-5pm" a range of times, no -5; 10 000 =
       10\u202f000 = 10'000 = 10,000, 1,00,000 = 100000; 1M = 1 million, $1.2m = $1.2
       million; 2 and a half = 2.5, an hour and a half = 90 minutes; 24/7 = 24 hours a day;
       2024-03-04 = 4 March 2024; 1st = first; half of = 50%, a quarter of = 25%, a third of
       = 33%; -20 \u00b0C = minus 20 degrees Celsius != -20 \u00b0F), with its sign (-20,
       \u221220, minus 20 and 20 degrees below zero != 20); a rate's denominator ($10 per
       user != $10 per team); a pair joined by a hyphen in its order (a score: 3-1 != 1-3);
       a word between a number and its unit that the claim adds stated with the number ("14
       business days" against "14 days" is not; the claim may drop one); a version,
       dotted number, numeric date, ordinal or power as written (2.10 != 2.1, 03/04/2025 !=
       04/03/2025, 3rd != 3, 10\u00b2 != 102); or, where the claim says it computes ("in
       total", "together", "more than": ``_COMPUTATION``), as a sum or difference of two or
       three quoted numbers of that dimension (bare numbers: also a product or ratio of two);
       a count ("20 users") said with its noun; each bound (within, up to, maximum, at least,
       "N+"; at most, a maximum of, no more than read "up to") as the claim states it, also in
       another unit, and no bound of the quotes that the claim drops: no "at least N" / "N+" /
       "up to N" / "within N" / "nearly N" / "almost N" / "close to N" where the claim says N
       (unless the quotes also state N unbounded, or the claim names the bound apart: "the
       maximum speed is N", "the minimum order is N"); a claim's own "nearly N" needs only no
       lower bound on N; no number stated only as an end of a range ("3-5 days", "3 to 5",
       "between 3 and 5") where the claim says it without that end's bound ("up to 5 days"
       and "at least 3 days" are stated, "5 days" is not), nor a clock time stated only as
       the opening or closing end of a range of times ("9am-5pm") where the claim says it
       with no word of that end ("opens at 5 pm" is not stated; "open until 5 pm" is);
    6. speak to every part of the claim (its clauses and comma-separated parts, a part of fewer
       than ``MIN_PART_WORDS`` content words joined to its neighbour), and to more of it than
       the one name it is about ("The Pico 2 causes cancer." is not carried by a quote that
       only names the Pico 2; nor "... and ships from Ohio" by "Our warehouse is in Ohio.";
       nor a subject joined to the stated one: "Refunds and exchanges take...", "..., and
       exchanges too", ``_added_subject``):
       at least
       ``QUOTE_PART_COVERAGE`` of each part's content words (stems, long shared prefixes,
       ``_SYNONYMS``) are stated, so that a rider (", and shipping is free") is refused while a
       paraphrase is not refused for its wording; a rider without a comma ("in cash", "with
       free return shipping": ``_unsaid_phrase``) is refused when the rest of the claim is all
       stated; a word negated inside ("unidentified", "dislike") is stated as it is, or as the
       negated plain word ("not refundable" for "non-refundable"); a statement set beside
       another after a semicolon, a colon or a spaced dash ("Refunds take 14 days; exchanges
       are instant") is a joined item of its own, spoken to like one after ", and";
    7. agree on polarity: a negated claim has a negation in its evidence; no claim word is
       negated on one side only, both in its clause part and in the negation's scope
       (``NEGATION_SCOPE`` words; a "not" in another clause negates nothing there; "it is not
       true that" turns the clause round, as do "it is a myth that", "we deny that",
       "contrary to rumours that", "there is no evidence that", "reports that ... are wrong",
       "a common misconception is that", "users wrongly believe", "it is unclear whether",
       "reports that ... remain unconfirmed", "P, but it is not." / "but that is false"; a
       question answered "No", "Nope", "Unfortunately not" reads "not ..."; "hardly", "far
       from", "anything but", "ceased to", "used to be" and "too X to be" negate; a dash cell
       of a table reads as "No"); a claim word said with both polarities is read in the
       evidence clause stating most of the claim's other words (a clause with no subject,
       "... but cannot delete them", speaks of the clause before it:
       ``_clause_polarity_problem``),
       nor said through its opposite with the same polarity (non-/un-/in-/im-/ir-/il-/dis-,
       de- before a verb, -less, ``_ANTONYM_PAIRS``, ``_OPPOSITE_WORDS``: enabled/disabled,
       accepted/rejected, issued/denied, incur/avoid, buyer/seller, a verb with up/down or
       on/off; ``_OPPOSITE_FAMILIES``, every word of one side against every word of the
       other: rose/climbed/grew/jumped/soared against dropped/fell/declined/shrank/plunged,
       wide/narrow, thriving/struggling; a word of the claim's side of its family states
       it: "rose" for "increased"; a listed opposite states a word the claim negates in its
       scope: "disabled by default" for "not enabled by default"; "not refunded" states
       "non-refundable" and refuses "refundable"); "excluded" reads "not included", "lacks"
       "does not have", "no fee", "at no extra cost", "costs nothing" "free", "no limit on"
       "unlimited";
    8. state the claim's quantifiers (all/every/each, most, only, exactly, always, never...) in
       the evidence, and not another one where the quotes give one (all vs some, always vs
       rarely); and its frequency and degree words (usually, often, sometimes, rarely,
       partly; slightly, significantly...: ``_hedges``) by a word of the same class
       ("seldom" for "rarely"; "skyrocket" states "sharply"); "restricted to X" states "only
       X", a bare negation "never" where nothing else hedges it; no condition on the clause
       stating the claim that the claim drops (if/unless/only for/as long as, whose words the
       claim states none of), no modal of possibility governing a claim word ("may be
       issued"), no plan or hope before the claim ("is planned to", "we hope"), where the
       claim has none (``_hedged_problem``); and no exception naming a name of the claim
       ("all plans include SSO except the Basic plan": ``_excepted_name``);
    9. not swap a number or a name of the evidence into another role: a number stated only
       apart from its claim part's words while the evidence states those words with another
       number (``_unattached``; a parenthesis is a part of its own), a name of the claim
       whose place (the word after it: "Pro plan", "Alice Grant wrote") the evidence sentence
       stating the rest of the claim gives to another name (``_slot_rival``), a claim's
       subject name taken from one clause while every evidence clause part stating the rest
       of the claim opens with another name ("The Pico 2 is waterproof." from "The Pico 2
       weighs 800 g. The Vela lamp is waterproof." or "Unlike the Pico 2, the Vela lamp is
       waterproof.": ``_subject_rival``), a name right
       after a content word that the evidence writes only with another name ("coach Leo
       Park" against "coach Ana Ruiz": ``_slot_problem``), a day or month word and a name
       trading places (``_date_word_problem``); a quote of several sentences is read sentence
       by sentence here ("Ana Ruiz coaches the Tigers. Leo Park coaches the Lions." quoted
       whole does not state "Leo Park coaches the Tigers").

    ``unsupported`` verdicts are accepted as they are. How much of the claim the quotes state is
    reported separately (``evidence_coverage``), and decides nothing.

    Args:
        verdict: the judge's verdict.
        passages: the passages the claim was verified against.
        claim: the claim the verdict is about; when ``None`` only rules 1-3 apply (without the
            word shared with the claim).

    Returns:
        ``(accepted, reason)``. ``reason`` is ``None`` when the verdict is accepted as given
        (items whose passage does not hold their quote dropped); otherwise ``accepted`` is an
        ``unsupported`` verdict and ``reason`` says which rule failed, quoting the evidence.
    """
    if verdict.label == "unsupported":
        return verdict, None
    by_id = {p.id: p for p in passages}
    label = verdict.label
    items = verdict.evidence
    kept = []
    if not items or not all(item.passage_id for item in items):
        reason = f"{label} verdict cites no passage id"
    elif unknown := list(dict.fromkeys(i.passage_id for i in items if i.passage_id not in by_id)):
        reason = f"{label} verdict cites unknown passage id(s) {', '.join(unknown)}"
    elif any(not item.quote.strip() for item in items):
        reason = f"{label} verdict gives no quote"
    else:
        reason = None
        for quote, cited in _by_quote(items).items():
            holding = [pid for pid in cited if _holds(by_id[pid], quote)]
            if not holding:
                reason = (f"{label} verdict's quote does not occur in passage(s) "
                          f"{', '.join(cited)}")
                break
            kept += [Evidence(passage_id=pid, quote=quote) for pid in holding]
        if reason is None:
            reason = _evidence_problem(kept, by_id, label, claim)
        if reason is None:
            if len(kept) == len(items):
                return verdict, None
            return verdict.model_copy(update={"evidence": kept}), None
    return Verdict("unsupported", rationale=f"not accepted: {reason}"), reason


def _by_quote(items: list[Evidence]) -> dict[str, list[str]]:
    """Evidence items grouped by quote: one quote cited to several passages (the older
    ``passage_ids`` + ``quote`` form) is one piece of evidence that must occur in at least one
    of them; the items whose passage does not hold it are dropped from the accepted verdict."""
    groups: dict[str, list[str]] = {}
    for item in items:
        groups.setdefault(item.quote, []).append(item.passage_id)
    return groups


def _holds(passage: Passage, quote: str) -> bool:
    """Whether ``quote`` occurs in ``passage``'s text or title (``text.quote_in_passage``)."""
    return any(source and quote_in_passage(quote, source)
               for source in (passage.text, passage.title))


#: A word with its hyphenated parts ("USB-C" is one word for the quote-length rule).
_WORD_GROUP = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
#: Where a claim joins two things: "SSO and audit logs", "A, B or C"; also where it sets one
#: statement beside another ("Refunds take 14 days; exchanges are instant", after a colon or
#: a spaced dash): each side is spoken to on its own.
_CONJUNCT = re.compile(r"\band\b|\bor\b|,(?!\d)|;|:(?=[ \t])|\s[\u2014\u2013-]+\s")


def _evidence_problem(items: list[Evidence], by_id: dict[str, Passage], label: str,
                      claim: str | None) -> str | None:
    """Why the evidence items (each already found in its passage) cannot carry the verdict,
    or ``None`` when they can."""
    return _quote_problem(items, by_id, label, claim)


@dataclass(frozen=True)
class _Evidence:
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


def _read_evidence(items: list[Evidence], by_id: dict[str, Passage],
                   claim: str | None = None) -> _Evidence:
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
                whole = whole or _bare(fold_typography(source)) == _bare(fold_typography(quote))
                if rows := _table_rows(source, fold_typography(quote)):
                    rows = _claim_rows(rows, claim)
                    around.append(" ".join(rows))
                    units += rows
                    break
                sentence, before = _sentence_around(quote, source)
                if before:
                    said = f"{before} {quote}"
                    units.append(_answered(f"{before} {sentence}"))
                else:
                    units += [_answered(_antecedent_read(sentence[a:b], source))
                              for a, b in passage_sentence_spans(sentence)]
                around.append(f"{before} {sentence}" if before else sentence)
                break
        quotes.append(_answered(said))
        context.append(_answered(" ".join(dict.fromkeys(around)) or said))
    titles = " ".join(dict.fromkeys(by_id[i.passage_id].title or "" for i in items)).strip()
    return _Evidence(" . ".join(quotes), " . ".join(context), titles, whole, len(quotes),
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
    tokens = _SLOT_TOKEN.findall(_surface(prev))
    if (subject := _subject_run(tokens, frozenset())) is None:
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
    cf = _features(claim)
    own = [_features(cells, sentence_start_exempt=False).content for _, cells in rows]
    names = cf.mandatory - cf.numbers
    if named := [r for r, words in zip(readings, own) if names & words]:
        return named
    best = max(len(cf.content & words) for words in own)
    return [r for r, words in zip(readings, own) if len(cf.content & words) == best] \
        if best else readings


#: A bare reply to a yes/no question: "Yes", "No", and the negative replies other than "No"
#: ("Nope", "Unfortunately not", "Sadly, no", "Not really", "I'm afraid not").
_REPLY = (r"(?:Yes|No(?:pe)?|Nah|Not really|Not at all|Not yet|(?:Unfortunately|Sadly|Regrettably"
          r"|I'm afraid|I am afraid|Afraid|Certainly|Definitely|Absolutely|Of course),? (?:not|no))")
#: A bare answer of a question-and-answer passage: "Yes.", "No", "A: No.", "Nope.".
_BARE_ANSWER = re.compile(rf"(?:(?:A|Answer)\s*:\s*)?{_REPLY}", re.IGNORECASE)
#: A question followed by its bare answer: "Can I pause? A: No." reads "not Can I pause." and
#: "Can I pause? Yes." reads "Can I pause." for the polarity and coverage rules.
_QA = re.compile(rf"([^.?!\n]*)\?\s*(?:(?:A|Answer)\s*:\s*)?({_REPLY})\b[.!]?", re.IGNORECASE)
_QUESTION_MARK = re.compile(r"^\s*(?:Q|Question)\s*:\s*", re.IGNORECASE)


def _answered(text: str) -> str:
    """``text`` with every question answered by a bare yes or no read as the statement the
    answer makes."""
    def statement(m: re.Match[str]) -> str:
        question = _QUESTION_MARK.sub("", m.group(1)).strip()
        return f"{'' if m.group(2).lower() == 'yes' else 'not '}{question}."
    return _QA.sub(statement, text)


_SENTENCE_BREAK = re.compile(r"[.!?\u3002\n](?!\d)")


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
    column only. ``headers``: the ``_table_headers`` of ``text`` when the caller has them."""
    out = {}
    if headers is None:
        headers = _table_headers(text, spans)
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
        rows: list[tuple[str, str]] | None = []
        for i in touched:
            if not lines[i].startswith("|"):
                rows = None
                break
            top = i
            while top > 0 and lines[top - 1].startswith("|"):
                top -= 1
            if top == i or _TABLE_DELIMITER.fullmatch(lines[i]):
                continue  # the header or delimiter row
            if (reading := row_reading(lines[top], lines[i])) is None:
                rows = None
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
    quote widened to sentence breaks; a question with the bare yes/no answer after it), and the sentence just before them when the quote is a
    bare yes/no answer (its question), else ``""``. Both typography-folded."""
    text, q = fold_typography(source), fold_typography(quote)
    start = text.find(q)
    if start < 0:
        return q, ""
    end = start + len(q)
    left = max((m.end() for m in _SENTENCE_BREAK.finditer(text, 0, start)), default=0)
    m = _SENTENCE_BREAK.search(text, end - 1 if q[-1:] in ".!?\u3002" else end)
    right = m.end() if m else len(text)
    if text[left:right].rstrip().endswith("?") and (
            answer := _ANSWER_AFTER.match(text, right)):  # "Does it include SSO? No."
        right = answer.end()
    sentence = text[left:right].strip()
    if rows := _table_rows(source, q):
        sentence = " ".join(reading for reading, _ in rows)
    before = ""
    if _BARE_ANSWER.fullmatch(_bare(q)):
        prev = text[:left].rstrip()
        cut = max((m.end() for m in _SENTENCE_BREAK.finditer(prev[:-1])), default=0)
        before = prev[cut:].strip()
    return sentence, before


def _quote_problem(items: list[Evidence], by_id: dict[str, Passage], label: str,
                   claim: str | None) -> str | None:
    """Why the evidence ``items`` cannot carry the verdict, or ``None`` when they can: the
    rules 3-8 of ``check_verdict``, in its order."""
    ev = _read_evidence(items, by_id, claim)
    shown = _clip(" | ".join(dict.fromkeys(i.quote for i in items)))
    qf = _features(ev.quotes, sentence_start_exempt=False)
    groups = [t for t in _WORD_GROUP.findall(ev.quotes) if t.lower() not in _STOP]
    if (len(qf.content) < MIN_QUOTE_CONTENT_WORDS or not _CJK_RUN.search(ev.quotes)
            and len(groups) < MIN_QUOTE_CONTENT_WORDS) and not ev.whole:
        return (f"{label} verdict's quote {shown!r} is too short to carry evidence "
                f"({len(qf.content)} content word(s); needs {MIN_QUOTE_CONTENT_WORDS} or the "
                "whole passage)")
    if claim is None:
        return None
    cf = _features(claim)
    if not _covered(cf.content, qf.content):
        return f"{label} verdict's quote {shown!r} shares no content word with the claim"
    xf = _features(ev.context, sentence_start_exempt=False)
    if label == "contradicted":
        if _restates(claim, cf, xf, qf, ev):
            return (f"contradicted verdict's quote {shown!r} states the claim as it is: "
                    "nothing in it is opposite to the claim (no negation or opposite word, "
                    "no other number or name)")
        return None
    if label != "supported":
        return None
    tf = _features(ev.titles, sentence_start_exempt=False) if ev.titles else None
    names = cf.mandatory - cf.numbers
    stated = xf.content | (tf.content if tf else frozenset())
    opening = _opening_name(claim, (source for p in by_id.values()
                                    for source in (p.title, p.text) if source))
    if missing := sorted({w for w in names if w not in stated}
                         | {w for w in opening if not _stated(w, stated)}):
        return (f"supported verdict's quote {shown!r} does not state the claim's "
                f"{', '.join(missing)} (not in the quotes, the sentences around them or the "
                "passage titles)")
    if problem := _number_problem(cf, xf, qf, claim):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := _rival_in_quotes(cf, qf, names):
        return f"supported verdict's quote {shown!r} {problem}"
    if loose := _unattached(cf, xf, tf, opening):
        return (f"supported verdict's quote {shown!r} states the claim's {loose} only apart "
                "from what the claim says with it, and states that with another number")
    if problem := _slot_rival(claim, list(ev.units), opening):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := _subject_rival(claim, list(ev.units), opening):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := _date_word_problem(claim, f"{ev.context} {ev.titles}"):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := _slot_problem(claim, ev.context):
        return f"supported verdict's quote {shown!r} {problem}"
    entities = _entities(claim)
    for words in _claim_parts(cf):
        said = {w for w in words if _stated(w, stated)}
        predicate = words - cf.mandatory - opening
        if predicate and not predicate & said and said and any(
                said <= entity for entity in entities):
            return (f"supported verdict's quote {shown!r} states nothing of the claim but "
                    f"the name it is about, none of what the claim says of it "
                    f"({', '.join(sorted(predicate))}): a quote about the same thing is no "
                    "evidence for anything said of it")
        if words and len(said) < math.ceil(QUOTE_PART_COVERAGE * len(words)):
            return (f"supported verdict's quote {shown!r} does not speak to a part of the "
                    f"claim ({', '.join(sorted(words - said))}); each part of a claim "
                    f"(clauses, comma-separated parts) needs at least "
                    f"{QUOTE_PART_COVERAGE:.0%} of its content words in the quotes or the "
                    "sentences around them")
    if rider := _unsaid_phrase(claim, stated):
        return (f"supported verdict's quote {shown!r} does not speak to the claim's "
                f"{rider!r} (a phrase the claim adds that no evidence states)")
    if unsaid := sorted(w for w in cf.words - _DISCOURSE - _FILLERS
                        if (_negated_inside(w) or w in _CURATED) and not _stated(w, stated)
                        and not _said_through_opposite(w, cf, xf, claim)
                        and not _said_by_bound(w, cf, xf) and not _said_by_clock_range(w, cf, xf)
                        and not _kin_in_part(w, cf, xf)):
        return (f"supported verdict's quote {shown!r} does not state the claim's "
                f"{', '.join(unsaid)} (a word negated inside, or one with a listed opposite, "
                "must be stated as it is)")
    if cf.negated and not xf.negated and not any(
            _negated_inside(w) or w in _NEGATIVE_WORDS for w in xf.words):
        return (f"supported verdict's quote {shown!r} negates nothing where the claim is "
                "negated (a negated claim needs a negation in its evidence)")
    for item in _CONJUNCT.split(claim.lower()):
        words = _features(item).content - _FILLERS - _DISCOURSE
        said = {w for w in words if _stated(w, stated)}
        unnamed = words - cf.mandatory - opening
        if len(words) >= 2 and (not said or unnamed and not unnamed & said
                                and _VERB_ITEM.match(item)
                                and any(said <= e for e in entities)):
            return (f"supported verdict's quote {shown!r} does not speak to "
                    f"{', '.join(sorted(unnamed if said else words))} (one of the things the "
                    "claim joins with 'and'/'or' or a comma)")
    if added := _added_subject(claim, stated):
        return (f"supported verdict's quote {shown!r} does not state {added!r}, which the claim "
                "joins to what the evidence says ('Refunds and exchanges take...', '..., and "
                "exchanges too')")
    if flipped := [w for w in (_polarity_problem(cf, xf, claim)
                               or _clause_polarity_problem(cf, ev.context))
                   if not _said_by_clock_range(w, cf, xf)]:
        return (f"supported verdict's quote {shown!r}: its sentence negates "
                f"{', '.join(flipped)} where the claim does not (or the reverse)")
    if problem := _particle_problem(claim, ev.context):
        return f"supported verdict's quote {shown!r}: its sentence says {problem}"
    if problem := _quantifier_problem(claim, ev):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := _hedged_problem(claim, cf, ev.context):
        return f"supported verdict's quote {shown!r}: its sentence {problem}"
    if excepted := _excepted_name(claim, names, ev.context):
        return (f"supported verdict's quote {shown!r}: its sentence makes an exception of the "
                f"claim's {excepted} (\"all ... except {excepted}\")")
    return None


#: Words that say a sentence is not asserted as a fact: a modal of possibility, a plan or a
#: hope ("Refunds may be issued", "is planned to support", "We hope ... will support").
_TENTATIVE = re.compile(r"\b(?:(?:is|are|was|were) (?:planned|expected|scheduled|slated|"
                        r"rumou?red|tipped|hoped) to|plan(?:s|ned)? to|hopes?(?: that)?|hoped"
                        r"|hopefully|intends? to|intended to|aims? to)\b")
#: A modal of possibility and the word it governs ("may be issued", "would be waterproof").
_MAY = re.compile(r"\b(?:may|might|could|would)\s+(?:(?:soon|also|still|eventually|then|even|"
                  r"be|have|been)\s+){0,2}([^\W\d_][\w'-]*)")
#: Words that put a condition on a sentence ("If you spend over $50, shipping is free",
#: "free only for members"); the condition runs to the next part or clause break.
_CONDITION = re.compile(r"\b(?:if|unless|only (?:for|if|when|after|with|on|to|in)|as long as|"
                        r"provided(?: that)?|on condition that|so long as)\b")


def _hedged_problem(claim: str, cf: _Features, evidence: str) -> str | None:
    """Why the evidence sentences that state the claim (at least half its content words) do
    not assert it as the claim does, or ``None``: a modal of possibility governing a word of
    the claim (``_MAY``: "may be issued") or a plan or hope before most of the claim's words
    (``_TENTATIVE``), where the claim has no modal, plan or hope; or a condition
    (``_CONDITION``) the claim lacks, on a clause that states three quarters of the claim's
    words besides it, of whose words the claim states none ("If you spend over $50, shipping
    is free" does not state "Shipping is free"; it states "Shipping is free on orders over
    $50")."""
    lower_claim = claim.lower()
    for sentence in _SENTENCE_BREAK.split(evidence):
        lower = sentence.lower()
        sf = _features(sentence, sentence_start_exempt=False)
        if len(cf.content & sf.content) * 2 < len(cf.content) or not cf.content:
            continue
        if not _TENTATIVE.search(lower_claim) and not strength_words(claim) & _MODALS:
            for m in _MAY.finditer(lower):
                if _stem(m.group(1)) in cf.content:  # "Refunds may be issued ..."
                    return f"says it may be so ({m.group(0)!r}) where the claim asserts it"
            for m in _TENTATIVE.finditer(lower):
                rest = _features(_CLAUSE_BREAK.split(lower[m.end():])[0],
                                 sentence_start_exempt=False).content
                if len(cf.content & rest) * 2 >= len(cf.content):
                    return (f"says it is planned or hoped for ({m.group(0)!r}) where the "
                            "claim asserts it")
        if _CONDITION.search(lower_claim):
            continue
        for clause in _CLAUSE_BREAK.split(lower):
            for m in _CONDITION.finditer(clause):
                rest = _PART_BREAK.split(clause[m.end():])[0]
                words = _features(rest, sentence_start_exempt=False).content
                main = _features(clause[:m.start()] + clause[m.end() + len(rest):],
                                 sentence_start_exempt=False).content
                if len(cf.content & main) * 4 < len(cf.content) * 3 or not words or _covered(
                        words, cf.content) or any(_stem(g.group(1)) not in cf.content
                                                  for g in _MAY.finditer(clause)):
                    continue  # the condition is on another clause or on a modal's other
                    # word ("if ..., the flat could be worth"), or the claim states it
                return (f"puts a condition on it ({m.group(0) + rest!r}) that the claim "
                        "drops")
    return None


#: How many words after an exception word ("except", "other than") name what is excepted.
EXCEPTION_REACH = 4


def _excepted_name(claim: str, names: frozenset[str], evidence: str) -> str | None:
    """A name of the claim (``names``: stems) that the evidence names within
    ``EXCEPTION_REACH`` words after an exception word (``_EXCEPTION``: "All plans include SSO
    except the Basic plan", "Every plan other than Basic ..."), when the claim makes no
    exception itself; else ``None``."""
    if not names or _EXCEPTION.search(claim.lower()):
        return None
    lower = _surface(evidence).lower()
    for m in _EXCEPTION.finditer(lower):
        for tok in _TOKEN.findall(lower[m.end():])[:EXCEPTION_REACH]:
            if _stem(tok) in names or tok in names:
                return tok
    return None


#: Prepositions that open a phrase a claim may add to what its evidence says ("in cash",
#: "with free return shipping"); the phrase runs to the next one, or to a clause or part break.
_RIDER_OPENERS = frozenset({"in", "with", "plus"})
#: Prepositions that end such a phrase.
_PREPOSITIONS = frozenset({"in", "with", "by", "via", "through", "without", "using", "for",
                           "at", "on", "from", "to", "during", "after", "before", "under",
                           "over", "within", "including", "plus", "of"})
#: Words that end a phrase (``_unsaid_phrase``) besides the openers.
_RIDER_ENDS = frozenset({"and", "or", "but", "that", "which", "who", "whom", "whose", "where",
                         "when", "while", "because", "if", "as", "than", "so"})
#: Nouns of set phrases that add no fact: "in order to", "in addition", "in terms of".
_IDIOMS = frozenset({"order", "addition", "term", "respons", "fact", "particular", "general",
                     "part", "turn", "cas", "short", "total", "plac", "front", "favor",
                     "favour", "lin", "detail", "effect", "practic", "principl"})
#: A phrase of more content words than this runs into what the claim says next: not read.
MAX_RIDER_WORDS = 3


def _unsaid_phrase(claim: str, stated: frozenset[str]) -> str | None:
    """A prepositional phrase of the claim (``_RIDER_OPENERS``; at most ``MAX_RIDER_WORDS``
    content words, none a number) of whose content words more than half are stated nowhere
    in the evidence (``stated``), while every other content word of the claim is stated: a
    rider without a comma, the evidence's statement with a phrase added ("Refunds are issued
    in cash within 14 days" against "Refunds are issued within 14 days"). A claim that
    words more than the phrase otherwise is a paraphrase, left to the part rule. Returns the
    phrase, or ``None``."""
    lower = _fold_phrases(_surface(claim).lower())
    rest = _features(claim).content - _FILLERS - _DISCOURSE
    for part in _CLAUSE_BREAK.split(lower):
        for sub in _PART_BREAK.split(part or ""):
            tokens = _TOKEN.findall(sub)
            i = 0
            while i < len(tokens):
                if tokens[i] not in _RIDER_OPENERS:
                    i += 1
                    continue
                j = i + 1
                while j < len(tokens) and tokens[j] not in _PREPOSITIONS \
                        and tokens[j] not in _RIDER_ENDS:
                    j += 1
                words = [_stem(t) for t in tokens[i + 1:j] if _is_content(t)]
                if words and len(words) <= MAX_RIDER_WORDS and not set(words) & _IDIOMS \
                        and not any(
                        w[0].isdigit() or w in _UNITS or t in _NUMBER_WORDS
                        for w, t in zip(words, tokens[i + 1:j])):
                    unsaid = [w for w in words if not _stated(w, stated)]
                    if 2 * len(unsaid) > len(words) and all(
                            _stated(w, stated) for w in rest - set(words)):
                        return " ".join(tokens[i:j])
                i = j
    return None


#: Words that make an exception to what a sentence says of all ("all plans except Free").
_EXCEPTION = re.compile(r"\b(?:except|excepting|excluding|other than|apart from|aside from|"
                        r"save for|unless|but not|with the exception of)\b")


def _restates(claim: str, cf: _Features, xf: _Features, qf: _Features, ev: _Evidence) -> bool:
    """Whether the evidence (``xf``: quotes and their sentences; ``qf``: the quotes) says
    the claim as it is, so cannot carry ``contradicted``: it states every content word of the
    claim, with the claim's polarity (no word negated on one side only, no opposite word, no
    negation or negative word the claim lacks, no up/down), states the claim's numbers as
    quantities with no rival beside them (rules 5 and 9 of ``check_verdict``), and no
    quantifier other than the claim's."""
    stated = xf.content | qf.content
    if not all(_stated(w, stated) for w in cf.content):
        return False
    if _EXCEPTION.search(ev.context.lower()) and not _EXCEPTION.search(claim.lower()):
        return False  # "included on all plans except Free" makes an exception to the claim
    if _polarity_problem(cf, xf, claim) or _particle_problem(claim, ev.context) \
            or _clause_polarity_problem(cf, ev.context):
        return False
    negative = any(_negated_inside(w) or w in _NEGATIVE_WORDS for w in xf.words)
    if xf.negated != cf.negated or negative and not cf.negated:
        return False
    if _number_problem(cf, xf, qf, claim) or _rival_in_quotes(cf, qf, cf.mandatory - cf.numbers) \
            or _unattached(cf, xf, None) or _slot_rival(claim, list(ev.units), set()):
        return False
    return not _quantifier_problem(claim, ev) and _quantifiers(ev.quotes) <= _quantifiers(claim)


def _said_through_opposite(word: str, cf: _Features, xf: _Features,
                           claim: str | None = None) -> bool:
    """Whether the evidence ``xf`` states the claim's ``word`` as its opposite by a negating
    prefix with the other polarity ("not refundable" for "non-refundable", "non-refundable"
    for "not refundable"); a listed opposite ("earlier" / "later") does not count, as a
    negation's scope may not reach it."""
    claimed = {neg for w, neg in cf.scoped if w == word}
    listed = _antonyms().get(word, frozenset())
    first = _negated_first(claim) if claim and any(v in listed for v, _ in xf.scoped) else set()
    if any(_opposite(word, v) and (not neg) in claimed
           and (v not in listed or word in first and not neg) for v, neg in xf.scoped):
        return True  # a listed opposite too where the claim's "not" negates the word itself
    # "not refunded" states "non-refundable": the negated verb of a prefixed "-able" word
    base = next((word[len(p):] for p in _NEGATING_PREFIXES if word.startswith(p)), "")
    return claimed == {False} and base.endswith(("abl", "ibl")) and len(base) >= 7 and any(
        neg and v == base[:-3] for v, neg in xf.scoped)


#: A part of a claim (clause or comma-separated part) with fewer content words than this is
#: read with the part before it ("insurance for home, auto, life" is one list).
MIN_PART_WORDS = 3


def _unattached(cf: _Features, xf: _Features, tf: _Features | None,
                opening: set[str] = frozenset()) -> str | None:
    """A number of the claim that the evidence states (rule 5) only in comma-separated parts
    holding none of the other content words of its part of the claim, while another part of
    the evidence states at least half of those words with a number of the claim's kind (year
    or not) that the claim does not give: "competed from 1985 to 1966" against "(born 8
    August 1966), ... who competed from 1985 to 1998" (1966 is there, said of the birth). The
    claim's names, its opening name (``opening``) too, are no words of what it says with the
    number; a parenthesis is a part of its own. A number in a cited title is let be. ``None``
    when no number is so detached."""
    title = tf.content if tf else frozenset()
    for part in cf.parts:
        for term in sorted(part & cf.numbers - title):
            others = part - cf.mandatory - opening - _FILLERS - _DISCOURSE
            if len(others) < 1:
                continue
            holding = [wc for wc in xf.parts if term in wc]
            if not holding or any(_stated(o, wc) for wc in holding for o in others):
                continue
            need = max(1, math.ceil(len(others) / 2))
            year = _is_year(term)
            for wc in xf.parts:
                rivals = {n for n in wc & xf.numbers - cf.numbers if _is_year(n) == year}
                if rivals and sum(_stated(o, wc) for o in others) >= need:
                    return term
    return None


_SLOT_TOKEN = re.compile(r"[^\W_][\w'-]*|[^\w\s]")
_COORDINATORS = frozenset({"and", "or", "&", ",", "/"})


def _capitalised_runs(tokens: list[str], opening: bool) -> list[tuple[int, int]]:
    """The ``(start, end)`` token spans of the names among ``tokens`` (``_SLOT_TOKEN``): runs
    of capitalised words, no stop word; one at the first token only when ``opening``."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok[:1].isupper() and tok.lower() not in _STOP and (i or opening):
            j = i
            while j < len(tokens) and tokens[j][:1].isupper() and tokens[j].lower() not in _STOP:
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def _name_runs(text: str, opening: bool) -> list[tuple[tuple[str, ...], str | None]]:
    """The names of ``text`` (runs of capitalised words, no stop word; the first word of the
    text only when ``opening``), each with the stemmed content word right after it (``None``
    at a punctuation mark, a stop word, a preposition or the end), a name joined by "and"/"or"/a comma to the
    next one taking that one's word ("Pro and Enterprise plans": both "plan")."""
    tokens = _SLOT_TOKEN.findall(_surface(text))
    runs = [([t.lower() for t in tokens[i:j]], j) for i, j in _capitalised_runs(tokens, opening)]
    out: list[tuple[tuple[str, ...], str | None]] = []
    for k, (words, end) in enumerate(runs):
        at = end
        while at < len(tokens) and tokens[at].lower() in _COORDINATORS and k + 1 < len(runs) \
                and runs[k + 1][1] - len(runs[k + 1][0]) == at + 1:
            k += 1
            at = runs[k][1]
        nxt = tokens[at].lower() if at < len(tokens) and tokens[at][:1].isalpha() else None
        if nxt and (not _is_content(nxt) or nxt in _OPENERS or nxt in _PREPOSITIONS
                    or nxt in _RIDER_ENDS):
            nxt = None  # "UK with", "Baugh of", "Stoke City despite": no slot word
        out.append((tuple(words), _stem(nxt) if nxt else None))
    return out


def _slot_rival(claim: str, units: list[str], opening: set[str]) -> str | None:
    """A name of the claim whose place in what the claim says (the word right after it:
    "Pro plan", "Alice Grant wrote") another name holds in the evidence sentence that states
    the rest of the claim, while no evidence sentence states the claim's name there with that
    rest: "The Pro plan includes SSO" stitched from "The Pro plan costs $20" and "The
    Enterprise plan includes SSO"; "Alice Grant wrote the report" from "Alice Grant said that
    Bob Lee wrote the report". The rival has as many words as the claim's name and shares no
    word with the claim. ``units`` are the sentences around each quote. ``None`` when no name
    of the claim is so replaced."""
    claim_runs = [(w, f) for w, f in _name_runs(claim, bool(opening)) if f]
    if not claim_runs:
        return None
    cf = _features(claim)
    named = {_stem(t) for w, _ in claim_runs for t in w} | set(opening)
    for words, follow in claim_runs:
        rest = {w for w in cf.content - cf.numbers - named - _FILLERS
                if w != follow}
        if not rest:
            continue
        holders, rivals = False, []
        for unit in units:
            ucontent = _features(unit, sentence_start_exempt=False).content
            if not all(_stated(w, ucontent) for w in rest):
                continue
            for run, f in _name_runs(unit, True):
                if f != follow:
                    continue
                if run == words:
                    holders = True
                elif len(run) == len(words) and not {_stem(t) for t in run} & cf.content:
                    rivals.append(" ".join(run))
        if rivals and not holders:
            return (f"states {rivals[0]} where the claim says {' '.join(words)} (the sentence "
                    "that states the rest of the claim names another in its place)")
    return None


def _subject_run(tokens: list[str], names: frozenset[str]) -> tuple[frozenset[str], int] | None:
    """The name opening ``tokens`` (``_SLOT_TOKEN`` tokens of a clause), after determiners:
    its stemmed words with the numbers and codes after it ("Pico 2") and the index of the
    token after it; ``None`` when the clause opens with no name. A capitalised common word
    opening the clause with no determiner before it ("Refunds are ...") is a name only when
    ``names`` holds it."""
    i = 0
    while i < len(tokens) and tokens[i].lower() in _DETERMINERS:
        i += 1
    runs = [r for r in _capitalised_runs(tokens, True) if r[0] == i]
    if not runs:
        return None
    start, end = runs[0]
    words, end = _name_with_codes(tokens, start, end)
    if not i and end - start == 1 and tokens[start].lower() in _OPENERS:
        return None
    if not i and end - start == 1 and is_common_word(tokens[start]) and not words <= names:
        return None
    return words, end


def _subject_rival(claim: str, units: list[str], opening: set[str]) -> str | None:
    """The claim's subject name taken from one clause while the clause that states what the
    claim says of it is about another named thing: "The Pico 2 is waterproof." from "The Pico
    2 weighs 800 g. The Vela lamp is waterproof.", or from "Unlike the Pico 2, the Vela lamp
    is waterproof."; "The Basic plan includes SSO." from "The Pro plan includes SSO, whereas
    the Basic plan has only password login." Unlike ``_slot_rival`` the rival need not share
    the word after it ("Pico 2" / "Vela lamp"). The claim's predicate is its content words
    but the subject name and the word right after it (a head noun: "plan", "lamp"); every
    evidence clause part (``units`` split at clause and part breaks) that states all of it
    opens with another name, and none states it with the claim's name. ``None`` otherwise."""
    tokens = _SLOT_TOKEN.findall(_surface(claim))
    cf = _features(claim)
    subject = _subject_run(tokens, cf.mandatory | frozenset(opening))
    if subject is None:
        return None
    words, end = subject
    if not all(w[:1].isdigit() or w in cf.mandatory or w in opening for w in words):
        return None
    head = {_stem(tokens[end].lower())} if end < len(tokens) and tokens[end][:1].islower() \
        else set()
    predicate = cf.content - words - head - _FILLERS - _DISCOURSE
    if not predicate:
        return None
    holders, rivals = False, []
    for unit in units:
        for clause in _CLAUSE_BREAK.split(_surface(unit)):
            for part in _PART_BREAK.split(clause or ""):
                pc = _features(part, sentence_start_exempt=False).content
                if not all(_stated(w, pc) for w in predicate):
                    continue
                if all(w in pc or _stated(w, pc) for w in words):
                    holders = True
                    continue
                ptoks = _SLOT_TOKEN.findall(part)
                other = _subject_run(ptoks, frozenset())
                if other and not other[0] & (words | cf.content):
                    rivals.append(" ".join(ptoks[:other[1]]).strip())
    if rivals and not holders:
        return (f"states what the claim says of {' '.join(tokens[end - len(words):end])} "
                f"of {rivals[0]!r} (the clause that says it is about another name)")
    return None


def _is_year(number: str) -> bool:
    return number.isdigit() and 1800 <= int(number) <= 2100


_DATE_WORD = re.compile(r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|"
                        r"February|March|April|May|June|July|August|September|October|"
                        r"November|December)")
_DATE_ON = re.compile(r"\bon (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                      r"january|february|march|april|may|june|july|august|september|october|"
                      r"november|december)\b")
_PLAIN_TOKEN = re.compile(r"[A-Za-z0-9\u00c0-\u024f'\u2019-]+")
_DETERMINERS = frozenset({"a", "an", "the", "its", "his", "her", "their", "our", "my", "your"})
_AFTER_SUBJECT = frozenset({"is", "was", "will", "has", "had", "and", "or", "to", "of"})


def _date_word_problem(claim: str, evidence: str) -> str | None:
    """A day or month word and a name trading places (a ``swap`` of the mutants):

    - the claim uses a day or month as a name, after a determiner ("an Thursday nursing
      home", "its July project") or as the subject opening the claim ("Friday said"), not
      followed by a number ("the November 2015 expedition") and not so written in the
      evidence;
    - the claim says "on NAME" (a capitalised word, not a day or month, not followed by one:
      "on Good Friday") where the evidence writes the name but never "on NAME", and says "on"
      a day or month ("massacre on Oliveira" against "went on the run Tuesday ... Oliveira").

    ``evidence`` is the quotes with their sentences and titles. Returns the reason, or
    ``None``."""
    tokens = _PLAIN_TOKEN.findall(claim)
    low = " ".join(_PLAIN_TOKEN.findall(evidence)).lower()
    for i, tok in enumerate(tokens):
        prev = tokens[i - 1].lower() if i else ""
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if _DATE_WORD.fullmatch(tok) and not nxt[:1].isdigit():
            as_name = prev in _DETERMINERS or (
                not prev and nxt[:1].islower() and nxt not in _AFTER_SUBJECT)
            written = f"{prev} {tok}" if prev else f"{tok} {nxt}"
            if as_name and written.lower() not in low:
                return (f"does not state the claim's {tok} as the claim uses it (a day or "
                        "month word where the claim needs a name)")
        if (prev == "on" and tok[:1].isupper() and not _DATE_WORD.fullmatch(tok)
                and not _DATE_WORD.fullmatch(nxt) and tok.lower() in low.split()
                and f"on {tok.lower()}" not in low and _DATE_ON.search(low)):
            return (f"does not state 'on {tok}' (the evidence says 'on' a day or month, "
                    f"and names {tok} elsewhere)")
    return None


#: A joined item that says something of its own: it opens with a verb ("ships from Ohio",
#: "is made in Germany"), not a noun of a list or an appositive ("known only as Xu").
_VERB_ITEM = re.compile(r"\s*(?:(?:also|now|then|still|it|they|he|she)\s+)?(?:is|are|was|were|has|"
                        r"have|had|will|can|does|do|did|ships?|comes?|includes?|offers?|"
                        r"costs?|runs?|uses?|makes?|gets?|takes?|[a-z]+s\b(?=\s+(?:from|in|"
                        r"to|with|on|at|by|for)\b))")


#: A subject joined to the claim's own: "Refunds and exchanges take 14 days." (the first
#: word of a claim joined by "and"/"or" to the next) and a trailing "..., and exchanges too",
#: "..., as are exchanges", "... along with a gift".
_JOINED_SUBJECT = re.compile(r"^\s*(?:the |all |both )?(\w+) (?:and|or|&) (?:the )?(\w+)\b")
_TRAILING_ADDITION = re.compile(
    r"(?:,? (?:and|as well as|along with|together with|plus) (?:the |a |an |all )?(\w+) too"
    r"|, as (?:are|is|do|does|were|was|will|can) (?:the |all )?(\w+)"
    r"|,? (?:along|together) with (?:a |an |the )?(\w+(?: \w+)?))\s*[.!]?\s*$")


def _added_subject(claim: str, stated: frozenset[str]) -> str | None:
    """The word of a subject the claim joins to the one the evidence speaks of, when the
    evidence states it nowhere: "exchanges" of "Refunds and exchanges take 14 days." or of
    "..., and exchanges too" against "Refunds take 14 days.". ``None`` when there is none."""
    low = claim.lower()
    found = []
    if m := _JOINED_SUBJECT.match(low):
        found += [m.group(1), m.group(2)]
    if m := _TRAILING_ADDITION.search(low):
        found += [w for g in m.groups() if g for w in g.split()]
    for word in found:
        if word in _STOP or not _is_content(word):
            continue
        stem = _stem(_NUMBER_WORDS.get(word, word))
        if not stem[0].isdigit() and not _stated(stem, stated):
            return word
    return None


def _entities(text: str) -> list[frozenset[str]]:
    """The stemmed words of each name of ``text`` (``_capitalised_runs``, the first word
    included), with the numbers and codes right after it ("Pico 2", "Series 4")."""
    tokens = _SLOT_TOKEN.findall(_surface(text))
    return [_name_with_codes(tokens, i, j)[0] for i, j in _capitalised_runs(tokens, True)]


def _name_with_codes(tokens: list[str], start: int, end: int) -> tuple[frozenset[str], int]:
    """The name ``tokens[start:end]`` (a ``_capitalised_runs`` span) with the numbers and
    codes right after it ("Pico 2", "Series 4"): its stemmed words (numbers as written) and
    the index of the token after it."""
    while end < len(tokens) and any(c.isdigit() for c in tokens[end]):
        end += 1
    return frozenset(_stem(t.lower()) if not t[0].isdigit() else t.lower()
                     for t in tokens[start:end]), end


def _names_after_words(text: str) -> dict[str, set[str]]:
    """The names of ``text`` (``_capitalised_runs``) by the content word right before them,
    lower-cased: ``{"coach": {"Ana Ruiz"}}``. A name after a punctuation mark, a stop word or a
    reporting word ("said", "told") has no such word; nor has one opening the text."""
    tokens = _SLOT_TOKEN.findall(_surface(text))
    slots: dict[str, set[str]] = {}
    for i, j in _capitalised_runs(tokens, False):
        before = tokens[i - 1]
        if before[:1].islower() and before not in _STOP and _stem(before) not in _DISCOURSE:
            slots.setdefault(before, set()).add(" ".join(tokens[i:j]))
    return slots


def _slot_problem(claim: str, evidence: str) -> str | None:
    """A name of the claim put where the evidence has another name: the claim writes name N
    right after a content word w ("coach Leo Park") while the evidence writes w only with
    names M sharing no word with N there ("coach Ana Ruiz"). ``evidence`` is the quotes with
    their sentences. Returns the reason, or ``None``. (The word after a name is
    ``_slot_rival``'s.)"""
    have = _names_after_words(evidence)
    for word, names in _names_after_words(claim).items():
        rivals = have.get(word, set())
        for name in names:
            words = set(_LETTERS.findall(name.lower()))
            if rivals and not any(words & set(_LETTERS.findall(r.lower())) for r in rivals):
                return (f"states {sorted(rivals)[0]!r} where the claim says '{word} {name}' "
                        "(another name in the same place)")
    return None


def _claim_parts(cf: _Features) -> list[frozenset[str]]:
    """The content words (fillers and discourse words out) of each part of the claim, a part
    of fewer than ``MIN_PART_WORDS`` joined to the one before it (the first to the next)."""
    parts: list[frozenset[str]] = []
    for part in cf.parts:
        words = part - _FILLERS - _DISCOURSE
        if not words:
            continue
        if parts and (len(words) < MIN_PART_WORDS or len(parts[-1]) < MIN_PART_WORDS):
            parts[-1] = parts[-1] | words
        else:
            parts.append(words)
    return parts


#: Words that frame or join a statement and carry no fact of their own (the coverage rule
#: skips them, as it skips ``_FILLERS``).
_DISCOURSE = frozenset({"additionally", "furthermore", "moreover", "however", "therefor",
                        "thus", "sadly", "unfortunately", "fortunately", "interestingly",
                        "notably", "finally", "lastly", "mention", "discuss", "conversation",
                        "speaker", "convey", "describ", "explain", "highlight", "emphasiz",
                        "includ", "featur", "provid", "offer", "report", "say", "said",
                        "tell", "told", "stat", "claim", "summary", "articl", "email"})


#: Stems that say "not" in a word of their own ("forbidden from eating": "not allowed to eat"):
#: they count as a negation in the evidence of a negated claim.
_NEGATIVE_WORDS = frozenset({"forbid", "forbidden", "prohibit", "ban", "bann", "refus", "fail",
                             "lack", "deni", "reject", "unabl", "absent", "miss", "exclud",
                             "avoid", "declin", "stopp", "ceas", "unfit", "dash", "los", "lost",
                             "without", "neither", "nor", "barr", "block", "halt"})


#: Words that open a sentence and are no name.
_OPENERS = frozenset({
    "after", "before", "since", "however", "although", "despite", "during", "following",
    "because", "while", "unlike", "like", "besides", "meanwhile", "instead", "still", "later",
    "earlier", "finally", "first", "next", "sure", "well", "overall", "according", "among",
    "along", "without", "until", "upon", "between", "across", "through", "throughout",
    "whether", "though", "therefore", "thus", "hence", "indeed", "perhaps", "maybe", "today",
    "now", "recently", "previously", "currently", "initially", "eventually", "click", "many",
    "several", "both", "every", "each", "another", "one", "two", "three", "people", "users",
    "customers", "researchers", "scientists", "experts", "officials", "police",
    # words that say a figure is computed ("Together, A and B cost $30")
    "together", "altogether", "combined", "collectively", "jointly", "cumulatively", "total",
    "in",
})


def _opening_name(claim: str, sources: Iterable[str] = ()) -> set[str]:
    """The stemmed words of the claim's first word when it is capitalised, no stop word and
    no common word (``text.is_common_word``) unless ``sources`` (the passages' texts and
    titles) write it capitalised away from a sentence start, as a name ("Hull" of "beat Hull
    2-0"): it may be a name ("Nani listed..."), so it is stated in the evidence, as a name or
    as the same word in any case (``_stated``). A common word opening the claim ("Markup is
    shown...", "Unfortunately, ...") is read as any other word of its part."""
    tokens = _TOKEN.findall(_surface(claim))
    if not tokens or not tokens[0][:1].isupper() or tokens[0].lower() in _STOP:
        return set()
    first = tokens[0].lower()
    if first in _OPENERS or _stem(first) in _DISCOURSE or (
            is_common_word(tokens[0]) and not _written_as_name(tokens[0], sources)) or (
            tokens[0][1:].islower() and first.endswith(("ing", "ed", "ly", "ers"))):
        return set()  # "After ...", "However ...", "Named after ...", "Sinking sand ..."
    return set(_name_parts(tokens[0].lower()))


#: What may stand between a sentence start and its first word: spaces, quotes, a bullet.
_LEAD_IN = frozenset(" \t\"'\u201c\u2018(*#-")


def _written_as_name(word: str, sources: Iterable[str]) -> bool:
    """Whether one of ``sources`` writes the capitalised ``word`` away from a sentence start
    (after a word or a comma, not after ``.!?:``, a line break, a bullet or an opening quote,
    nor at the start of a source). Reads back from each occurrence only as far as the
    character before it: passages may be megabytes."""
    pattern = re.compile(rf"\b{re.escape(word)}\b")
    for text in sources:
        for m in pattern.finditer(text):
            i = m.start()
            while i > 0 and text[i - 1] in _LEAD_IN:
                i -= 1
            if i > 0 and text[i - 1] not in ".!?:\n|\u3002":
                return True
    return False


def _negated_inside(word: str) -> bool:
    """Whether the stem ``word`` reads as another word with a negating prefix (other than
    ``in-``, too often a word's own start) or ``-less``: "unidentifi", "dislik", "impossibl"."""
    if word in _NOT_NEGATED:
        return False
    if word.endswith("less") and len(word) > 7:
        return True
    return any(word.startswith(p) and len(word) - len(p) >= 3 for p in
               ("non", "un", "dis", "dys", "im", "ir", "il")) and not word.startswith(
        ("unit", "univers", "uniqu", "union", "under", "until", "unless", "imag", "immediat",
         "immun", "immigr", "immers", "impuls", "implem", "impli", "imply", "illumin", "irrit",
         "distr", "dismal", "display", "discov", "discuss", "dissert", "unanim", "uncl",
         "import", "impact", "improv", "impress", "illustrat", "dish", "disc", "disk", "dispos"))


def evidence_coverage(verdict: Verdict | None, claim: str) -> float | None:
    """The share (0..1) of ``claim``'s content words (stems, numbers as digits) that the
    quotes of ``verdict``'s evidence state (``_stated``: same stem, same long prefix or a
    ``_SYNONYMS`` word); ``None`` when the verdict gives no quote or the claim no content word.

    Reported per claim (``ClaimResult.evidence_coverage``); it decides nothing by itself: a
    paraphrase covers less than a copy and is not refused for it (``check_verdict`` asks
    every part of the claim to be spoken to instead)."""
    if verdict is None or not verdict.evidence:
        return None
    quotes = " . ".join(_answered(q) for q in dict.fromkeys(i.quote for i in verdict.evidence)
                        if q.strip())
    words = _features(claim).content
    if not quotes or not words:
        return None
    have = _features(quotes, sentence_start_exempt=False).content
    return round(sum(1 for w in words if _stated(w, have)) / len(words), 3)


#: Words that say the same thing for the coverage rule (stems, one way: claim word -> the
#: evidence words that state it).
_SYNONYMS = {
    "cost": {"price", "fee", "charg", "pay", "usd", "eur", "gbp"},
    "price": {"cost", "fee", "charg", "usd", "eur", "gbp"}, "fee": {"cost", "price", "charg"},
    "buy": {"purchas"}, "purchas": {"buy"}, "allow": {"permit", "let"},
    "permit": {"allow"}, "get": {"receiv"}, "receiv": {"get"}, "offer": {"provid", "includ"},
    "includ": {"offer", "come", "contain", "provid"}, "provid": {"offer", "includ"},
    "take": {"last"}, "last": {"take"}, "user": {"seat"}, "seat": {"user"},
    "start": {"begin"}, "begin": {"start"}, "end": {"finish", "expir"}, "expir": {"end"},
    "weigh": {"weight", "kg", "g", "lb"}, "weight": {"weigh"}, "hold": {"capacity", "l", "ml"},
    "capacity": {"hold"}, "requir": {"need"}, "need": {"requir"},
}


def _stated(word: str, have: frozenset[str] | set[str]) -> bool:
    """Whether the stemmed ``word`` is among ``have``: the same stem, the same first five
    letters of two long stems ("configur" / "configuration"; never an opposite word), or a
    ``_SYNONYMS`` word."""
    if word in have:
        return True
    if len(word) >= 5 and not word[0].isdigit():
        head = word[:5]
        if any(len(h) >= 5 and h[:5] == head and not _opposite(word, h) for h in have):
            return True
    return bool(_SYNONYMS.get(word, set()) & have)


def _covered(words: frozenset[str], have: frozenset[str]) -> bool:
    return any(_stated(w, have) for w in words)


#: unit (as ``_features`` reads it) -> (dimension, factor to the dimension's base unit).
#: Units of different systems (kg / lb) and currencies are different dimensions: never
#: converted into each other.
_DIMENSIONS = {
    "mg": ("mass", 0.001), "g": ("mass", 1.0), "kg": ("mass", 1000.0),
    "lb": ("mass-lb", 1.0), "pound": ("mass-lb", 1.0), "oz": ("mass-lb", 1 / 16),
    "ml": ("volume", 1.0), "cl": ("volume", 10.0), "l": ("volume", 1000.0),
    "mm": ("length", 1.0), "cm": ("length", 10.0), "m": ("length", 1000.0),
    "km": ("length", 1e6), "inch": ("length-in", 1.0), "foot": ("length-in", 12.0),
    "feet": ("length-in", 12.0),
    "second": ("time", 1.0), "minute": ("time", 60.0), "minut": ("time", 60.0),
    "hour": ("time", 3600.0),
    "day": ("time", 86400.0), "week": ("time", 604800.0), "fortnight": ("time", 1209600.0),
    "month": ("months", 1.0), "year": ("months", 12.0),
    "mb": ("data", 1.0), "gb": ("data", 1e3), "tb": ("data", 1e6),
    "w": ("power", 1.0), "kw": ("power", 1e3), "wh": ("energy", 1.0), "kwh": ("energy", 1e3),
    "usd": ("usd", 1.0), "dollar": ("usd", 1.0), "eur": ("eur", 1.0), "euro": ("eur", 1.0),
}


def _value(number: str, unit: str) -> tuple[str, float]:
    """``(dimension, value in its base unit)`` of a number with its unit."""
    dim, factor = _DIMENSIONS.get(unit, (unit, 1.0))
    if not _plain(number):
        return dim, math.nan  # a version, date, ordinal or power: equal only as written
    return dim, float(number) * factor


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _thirds(a: float, b: float, dim: str) -> bool:
    """Whether two percentages are a third (two thirds) and its rounding: "a third" (33.3)
    is "33%" and "33.33%"."""
    return dim == "percent" and any(abs(a - t) < 0.05 or abs(b - t) < 0.05 for t in _THIRDS) \
        and abs(a - b) < 0.5


_DIGIT_ONE = re.compile(r"(?<![\d.])1(?![\d])")


def _rival_in_quotes(cf: _Features, qf: _Features, names: frozenset[str]) -> str | None:
    """A name or quantity of the claim that only the sentence around a quote (or a title)
    states, while the quotes themselves state another in its place: "The Basic plan includes
    SSO" is not carried by the quote "The Pro plan includes SSO" because its sentence goes on
    "which the Basic plan lacks", nor "$10 per month" by "the Pro plan costs $20 per month"
    beside "the Basic plan costs $10 per month". ``None`` when there is no such rival."""
    from_context = sorted(w for w in names if w not in qf.content)
    rivals = sorted(qf.mandatory - qf.numbers - cf.content)
    if from_context and rivals:
        return (f"states {', '.join(rivals)} where the claim says {', '.join(from_context)} "
                "(found only around the quote)")
    quoted = {_value(n, u) for n, u in qf.number_labels if u in _UNITS}
    for number, unit in sorted(_quantities(cf)):
        dim, value = _value(number, unit)
        if (number, unit) in qf.number_labels or _computed(value, dim, qf) or any(
                d == dim and (_same(v, value) or _thirds(v, value, dim)) for d, v in quoted):
            continue
        if others := sorted({f"{v:g}" for d, v in quoted if d == dim}):
            return (f"states {', '.join(others)} where the claim says {number} {unit} "
                    "(found only around the quote)")
    return None


#: Words by which a claim says it computes a figure ("in total", "together", "$15 more than",
#: "twice", "3 years later"): only then may its number be a sum or difference of quoted ones
#: ("The course takes 35 hours" is not stated by modules of 20, 10 and 5 hours).
_COMPUTATION = re.compile(
    r"\b(?:totals?|totall?(?:ed|ing)|in all|together|combined|altogether|overall|sum|"
    r"adds? up|added up|plus|minus|difference|more|less|fewer|longer|shorter|older|younger|"
    r"higher|lower|bigger|smaller|larger|greater|cheaper|dearer|heavier|lighter|faster|"
    r"slower|earlier|later|times|twice|thrice|(?<!and a )half(?! of\b| the\b)|ratio|"
    r"remain(?:s|ed|ing)?|left|net|extra|"
    r"additional|increas\w*|decreas\w*|ris(?:e|es|en|ing)|rose|drop(?:s|ped)?|f[ae]ll|"
    r"falls|gain(?:s|ed)?|los(?:s|t|es)|sav(?:e|es|ed|ing)|apart|gap|cumulative\w*|"
    r"collectively|jointly|aggregate|average|up from|down from|ago)\b", re.IGNORECASE)


def _number_problem(cf: _Features, xf: _Features, qf: _Features, claim: str) -> str | None:
    """Why the claim's numbers are not stated by the evidence (``xf``: the quotes and the
    sentences around them; ``qf``: the quotes alone), or ``None``."""
    claim_q = _quantities(cf)
    ev_values = {_value(n, u) for n, u in xf.number_labels if u in _UNITS}
    computing = _COMPUTATION.search(claim) is not None
    ok: set[str] = set()
    for number, unit in sorted(claim_q):
        dim, value = _value(number, unit)
        if (number, unit) in xf.number_labels or _computed(value, dim, qf, computing) or any(
                d == dim and (_same(v, value) or _thirds(v, value, dim)) for d, v in ev_values) \
                or _clock_said(number, unit, xf.number_labels):
            ok.add(number)
            continue
        if not computing and _computed(value, dim, qf):
            return (f"does not state {number} {unit} (a sum or difference of quoted numbers "
                    "needs a word of the claim that says so: total, together, more than...)")
        return f"does not state {number} {unit} (compared as a quantity with its unit)"
    for number in sorted(cf.numbers - ok):
        if number == "1" and not _DIGIT_ONE.search(claim):
            continue  # "one of the greatest", "a single day": the word, not a figure
        if _ORDINAL.fullmatch(number) and not re.search(rf"\b{number}\b", claim, re.IGNORECASE) \
                and _ORDINAL.fullmatch(number).group(1) not in xf.numbers \
                and not any(_ORDINAL.fullmatch(n) for n in xf.numbers - cf.numbers):
            continue  # "a fifth season": a word, refused only beside a rival (3, "4th")
        if number in xf.numbers or (not any(n == number for n, _ in claim_q) and _plain(number)
                                    and _computed(float(number), None, qf, computing)):
            continue
        if not computing and _plain(number) and _computed(float(number), None, qf) and not any(
                n == number for n, _ in claim_q):
            return (f"does not state the claim's number {number} (a sum or difference of "
                    "quoted numbers needs a word of the claim that says so: total, together, "
                    "more than...)")
        return f"does not state the claim's number {number}"
    if unsaid := sorted((n, w) for n, w in cf.number_nouns - xf.number_labels
                        if n in xf.numbers):
        return "does not state " + ", ".join(f"{n} {w}" for n, w in unsaid) + " together"
    if problem := _range_problem(cf, xf) or _clock_range_problem(cf, xf):
        return problem
    if problem := _rate_problem(cf, xf):
        return problem
    if problem := _pair_problem(cf, xf) or _qualifier_problem(cf, xf):
        return problem
    for number, bound in sorted(cf.bounds):
        if number in cf.approximate and (number, ">=") not in xf.bounds:
            continue  # "close to 100" of an evidence's 100 bounded no other way
        if (number, bound) not in xf.bounds and not _keyed_bound(number, bound, xf) \
                and not _bound_by_value(number, bound, cf, xf):
            return f"does not state the bound on {number} ({bound})"
    for number, bound in sorted(qf.bounds - cf.bounds):
        said = {u for n, b, u in qf.bound_units if n == number and b == bound}
        claimed = {_DIMENSIONS[u][0] for n, u in cf.number_units
                   if n == number and u in _DIMENSIONS}
        if claimed and said and said <= _DIMENSIONS.keys() and not claimed & {
                _DIMENSIONS[u][0] for u in said}:
            continue  # "over a one-year span" bounds no "hour"
        if any(number in (lo, hi) and {lo, hi} <= cf.numbers for lo, hi in qf.ranges):
            continue  # the claim states both ends of the range ("from 10 to 12 March")
        if any(hi == number for _, hi in qf.ranges):
            continue  # the high end of a range the claim drops: ``_range_problem``
        if number in qf.unbounded and number in qf.loose:
            continue  # stated without the bound too ("five members ... children under five")
        if _BOUND_NOUNS[bound] & {w for w, _ in cf.scoped}:
            continue  # "the maximum speed is 3,200 rpm" states the bound of "max_rpm=3200"
        if (number in cf.numbers or _said_by_value(number, cf, qf)) \
                and not _bound_by_value(number, bound, qf, cf):
            side = "below (at least)" if bound == ">=" else "above (up to)"
            return f"bounds {number} from {side} where the claim states it without that bound"
    return None


#: Words by which a claim bounds a number it states apart from them ("the maximum speed is
#: 3,200 rpm", "limited to ... 25 users").
_BOUND_NOUNS = {"<=": frozenset({"maximum", "limit", "cap", "peak"}),
                ">=": frozenset({"minimum"})}


def _said_by_bound(word: str, cf: _Features, xf: _Features) -> bool:
    """Whether the evidence states the claim's "minimum" or "maximum" as a bound on a number
    of the claim ("The minimum order is $10" / "Orders must be at least $10")."""
    bound = next((b for b, nouns in _BOUND_NOUNS.items() if word in nouns), None)
    return bound is not None and word in ("minimum", "maximum") and any(
        (n, bound) in xf.bounds for n in cf.numbers)


def _said_by_value(number: str, cf: _Features, xf: _Features) -> bool:
    """Whether the claim states the quantity ``number`` (a number of ``xf``) in another unit
    ("two weeks" for the "14" of "14 days")."""
    values = {_value(number, u) for n, u in xf.number_units if n == number and u in _DIMENSIONS}
    return any(d == dim and _same(v, value) for d, v in values for dim, value in (
        _value(n, u) for n, u in cf.number_units if u in _DIMENSIONS))


def _clock_said(number: str, unit: str, labels: frozenset[tuple[str, str]]) -> bool:
    """Whether ``labels`` state the clock time ``number unit``: "9 oclock" (a "9:00" without
    am/pm) is "9 am" or "9 pm", and either states it."""
    if unit == "oclock":
        return bool({(number, "am"), (number, "pm")} & labels)
    return unit in ("am", "pm") and (number, "oclock") in labels


def _pair_problem(cf: _Features, xf: _Features) -> str | None:
    """A pair of numbers joined by a hyphen or dash that the evidence states the other way
    round: "1-3" against "beat the Tigers 3-1" (a score or result is ordered)."""
    for a, b in sorted(cf.pairs):
        if a != b and (b, a) in xf.pairs and (a, b) not in xf.pairs:
            return f"states {b}-{a} where the claim says {a}-{b} (the order of a pair is stated)"
    return None


def _qualifier_problem(cf: _Features, xf: _Features) -> str | None:
    """A word between a number and its unit ("14 business days") that the claim adds and the
    evidence does not state with that number (or the same quantity in another unit). A claim
    may drop the evidence's qualifier ("3 days" against "3 business days" is kept)."""
    def same(n: str, u: str, m: str, w: str) -> bool:
        return n == m and u == w or u in _DIMENSIONS and w in _DIMENSIONS and (
            (a := _value(n, u))[0] == (b := _value(m, w))[0] and _same(a[1], b[1]))
    for n, q, u in sorted(cf.qualified):
        if not any(same(n, u, m, w) and _stated(q, {p}) for m, p, w in xf.qualified):
            return f"does not state {n} {q} {u} (the word between a number and its unit)"
    return None


def _bound_by_value(number: str, bound: str, cf: _Features, xf: _Features) -> bool:
    """Whether the evidence bounds the claim's quantity the same way in another unit ("within
    two weeks" / "within 14 days")."""
    values = {_value(number, u) for n, u in cf.number_units if n == number and u in _DIMENSIONS}
    for m, b in xf.bounds:
        if b != bound:
            continue
        for n, u in xf.number_units:
            if n == m and u in _DIMENSIONS:
                dim, value = _value(m, u)
                if any(d == dim and _same(v, value) for d, v in values):
                    return True
    return False


def _range_problem(cf: _Features, xf: _Features) -> str | None:
    """A number of the claim that the evidence states only as an end of a range ("3-5 days",
    "3 to 5 days", "between 3 and 5 days"), where the claim says it without that end's bound
    ("3 days", "5 days"; "at least 3 days", "up to 5 days" and the range itself are stated).
    Compared as written and as a quantity ("72 hours" is the 3 of "3-5 days"). ``None`` when
    there is none."""
    ends = {}
    for lo, hi in xf.ranges:
        ends.setdefault(lo, (">=", lo, hi))
        ends.setdefault(hi, ("<=", lo, hi))
    ends = {n: e for n, e in ends.items() if n not in xf.loose}
    if not ends:
        return None
    claim_ends = {(lo, ">=") for lo, _ in cf.ranges} | {(hi, "<=") for _, hi in cf.ranges}
    for number in sorted(cf.numbers):
        stating = {number} if number in xf.numbers else set()
        for unit in {u for n, u in cf.number_units if n == number and u in _DIMENSIONS}:
            dim, value = _value(number, unit)
            stating |= {m for m, u in xf.number_units if m in ends and u in _DIMENSIONS
                        and _value(m, u)[0] == dim and _same(_value(m, u)[1], value)}
        if not stating or any(m not in ends for m in stating):
            continue
        for m in sorted(stating):
            bound, lo, hi = ends[m]
            if {lo, hi} <= cf.numbers:
                continue  # the claim states both ends ("from 10 to 12 March")
            if (number, bound) not in claim_ends | cf.bounds:
                side = "lower" if bound == ">=" else "upper"
                return (f"states {m} only as the {side} end of a range ({lo} to {hi}) where "
                        f"the claim says {number} without that bound")
    return None


#: Words by which a claim says a clock time opens (starts) or closes (ends) a span.
_OPENING_WORDS = frozenset({"open", "start", "begin", "from", "since", "commenc"})  # stems
_CLOSING_WORDS = frozenset({"clos", "end", "finish", "until", "till", "to", "by", "shut",
                            "stop"})


def _clock_side(number: str, unit: str, xf: _Features) -> str | None:
    """"opening" / "closing" when the evidence states the clock time only as the start / end
    of a range of clock times ("9 am to 5 pm"), else ``None``."""
    labels = frozenset({(number, unit)})
    if (number, unit) in xf.loose_clocks or any(_clock_said(n, u, labels)
                                                 for n, u in xf.loose_clocks):
        return None
    for lo, hi in xf.clock_ranges:
        for end, side in ((lo, "opening"), (hi, "closing")):
            if end == (number, unit) or _clock_said(*end, labels) \
                    or _clock_said(number, unit, frozenset({end})):
                return side
    return None


def _clock_range_problem(cf: _Features, xf: _Features) -> str | None:
    """A clock time of the claim that the evidence states only as one end of a range of
    clock times, said by the claim with a word of the other end or with none: "The office
    opens at 5 pm" is not stated by "open 9am-5pm" (5 pm closes it); "opens at 9 am" and
    "open until 5 pm" are."""
    if not xf.clock_ranges:
        return None
    words = {w for w, _ in cf.scoped}
    stated_ends = {t for r in cf.clock_ranges for t in r}
    for number, unit in sorted(_quantities(cf)):
        if unit not in ("am", "pm", "oclock") or (number, unit) in stated_ends:
            continue
        side = _clock_side(number, unit, xf)
        if side is None:
            continue
        if not words & (_OPENING_WORDS if side == "opening" else _CLOSING_WORDS):
            return (f"states {number} {unit} only as the {side} time of a range where the "
                    "claim says it otherwise")
    return None


def _said_by_clock_range(word: str, cf: _Features, xf: _Features) -> bool:
    """Whether the claim's "closes" ("opens") is stated by a range of clock times whose end
    (start) is the claim's time ("closes at 5 pm" / "open 9 am to 5 pm")."""
    side = "closing" if word in _CLOSING_WORDS else "opening" if word in _OPENING_WORDS else None
    return side is not None and any(
        u in ("am", "pm", "oclock") and _clock_side(n, u, xf) == side for n, u in
        _quantities(cf))


def _rate_problem(cf: _Features, xf: _Features) -> str | None:
    """A rate of the claim whose denominator the evidence states otherwise for that number:
    "$10 per user" is not stated by "$10 per team"."""
    for number, per in sorted(cf.rates):
        said = {d for n, d in xf.rates if n == number}
        if said and per not in said:
            return (f"states {number} per {', '.join(sorted(said))} where the claim says "
                    f"{number} per {per}")
    return None


def _keyed_bound(number: str, bound: str, xf: _Features) -> bool:
    """A key/value or table passage states a bound in its key: ``"max_users": 25``."""
    return (bound == "<=" and (number, "maximum") in xf.number_labels
            or bound == ">=" and (number, "minimum") in xf.number_labels)


def _computed(value: float, dim: str | None, qf: _Features, sign: bool = True) -> bool:
    """Whether ``value`` (in the base unit of ``dim``; ``None``: a bare number) is a sum or
    difference of two or a sum of three numbers the quotes state (with units of the same
    dimension), or (bare numbers) a product or ratio of two; never of numbers only a rationale
    names. Without ``sign`` (the claim says nothing of a computation: ``_COMPUTATION``) only a
    percentage of two quoted numbers is computed."""
    if math.isnan(value):
        return False
    if dim is None or dim == "percent":
        operands = sorted({float(n) for n in qf.numbers if _plain(n)})
    else:
        operands = sorted({v for d, v in (_value(n, u) for n, u in qf.number_labels
                                          if u in _UNITS) if d == dim})
    operands = operands[:12]
    if len(operands) < 2:
        return False
    if dim is None and value.is_integer() and 1800 <= value <= 2100:
        return False  # a year is stated, never computed
    for a, b in combinations(operands, 2):
        if sign and (_same(a + b, value) or _same(b - a, value)):
            return True
        if dim == "percent" and a > 0 and _same(100 * a / b, value):
            return True
    return sign and any(_same(sum(c), value) for c in combinations(operands, 3))


#: Prefixes that negate the word they are put before (on a rest of at least four letters).
_NEGATING_PREFIXES = ("non", "un", "in", "im", "ir", "il", "dis", "dys")
#: ``de-`` negates a verb with one of these endings ("deactivate", "decentralise",
#: "declassify"); before any other word it is too often the word's own start ("design").
_DE_VERB_ENDS = ("at", "iz", "is", "ifi", "ify", "regist", "select", "compress", "install")
#: Stems that begin like a negating prefix and negate nothing.
_NOT_NEGATED = frozenset({
    "inform", "install", "instal", "income", "increas", "import", "impress", "impact",
    "improv", "impos", "invest", "involv", "insur", "intend", "interest", "internal",
    "indicat", "insid", "includ", "instanc", "instant", "insight", "input", "invit", "invoic",
    "inventory", "discount", "discover", "display", "discharg", "dismiss", "dispos",
    "distanc", "distribut", "discuss", "dispatch", "district", "unit", "under", "unless",
    "until", "uniqu", "univers", "union", "illustrat", "imag", "immediat", "irrigat",
    "inch", "index", "industry", "infant", "ingredient", "initial", "inner", "innovat",
    "inquir", "inspect", "insert", "inspir", "instruct", "integrat", "interact", "interval",
    "introduc", "invent", "island", "issu", "disput", "dispens", "distinct",
})
#: Opposite words (stems), both ways: asserting one is negating the other.
_ANTONYM_PAIRS = (
    ("enabl", "disabl"), ("accept", "reject"), ("accept", "declin"), ("issu", "deni"),
    ("issu", "deny"), ("grant", "deni"), ("grant", "deny"), ("approv", "reject"),
    ("approv", "deni"), ("includ", "exclud"), ("incur", "avoid"), ("qualify", "exclud"),
    ("qualifi", "exclud"), ("allow", "prohibit"), ("allow", "forbid"), ("allow", "block"),
    ("permit", "prohibit"), ("requir", "optional"), ("mandatory", "optional"),
    ("public", "privat"), ("increas", "decreas"), ("higher", "lower"), ("open", "clos"),
    ("online", "offlin"), ("internal", "external"), ("automatic", "manual"),
    ("automatically", "manually"), ("free", "paid"), ("same", "different"), ("pass", "fail"),
    ("success", "failur"), ("add", "remov"), ("keep", "delet"), ("retain", "delet"),
    ("earlier", "later"), ("minimum", "maximum"), ("faster", "slower"),
    ("cheaper", "expensiv"), ("larger", "smaller"), ("bigger", "smaller"), ("less", "more"),
    ("lock", "unlock"), ("upload", "download"), ("gain", "loss"), ("profit", "loss"),
    ("rise", "fall"), ("refundabl", "forfeit"), ("win", "lose"), ("won", "lost"),
    ("suppli", "withh"), ("wireless", "wired"), ("first", "last"), ("before", "after"),
)
#: Everyday opposites, as words (stemmed when the table is built): direction, size, age,
#: time, quality, outcome, relation.
_OPPOSITE_WORDS = (
    "new old", "young old", "younger older", "youngest oldest", "high low", "higher lower",
    "highest lowest", "large small", "big small", "larger smaller", "largest smallest",
    "long short", "longer shorter", "heavy light", "upper lower", "top bottom", "above below",
    "inside outside", "north south", "northern southern", "east west", "eastern western",
    "inbound outbound", "input output", "early late", "earliest latest", "morning evening",
    "summer winter", "day night", "ancient modern", "urban rural", "domestic foreign",
    "alive dead", "died survived", "live die", "male female", "men women", "man woman",
    "boy girl", "boys girls", "hot cold", "wet dry", "rich poor", "wealthy poor", "cheap expensive",
    "easy difficult", "easy hard", "fast slow", "best worst", "better worse", "major minor",
    "full empty", "true false", "positive negative", "strong weak", "stronger weaker",
    "similar different", "expand shrink", "expanded shrank", "ascending descending",
    "buy sell", "bought sold", "buys sells", "support oppose", "supports opposes",
    "supported opposed", "won lost", "win lose", "wins loses", "gained lost", "gain lose",
    "victory defeat", "succeeded failed", "success failure", "arrived departed",
    "arrive depart", "entered left", "joined left", "hired fired", "agreed refused",
    "accepted refused", "guilty innocent", "ally enemy", "friend enemy", "friends enemies",
    "love hate", "loved hated", "loves hates", "allowed banned", "allow ban", "push pull",
    "attack defend", "attacked defended", "began ended", "started ended", "start end",
    "begins ends", "opened closed", "opens closes", "rose fell", "rises falls", "risen fallen",
    "increased decreased", "increases decreases", "increasing decreasing", "raised lowered",
    "left right", "lead trail", "led trailed", "leading trailing", "remove add",
    "removed added", "import export", "imports exports", "win's loss's", "maximum minimum",
    "first last", "before after", "more fewer", "most least", "always never", "always rarely",
    "always sometimes", "often rarely", "usually rarely",
    # roles: who is on which side of a deal or a contest (not family words: a text about a
    # mother often names the father too)
    "buyer seller", "buyers sellers", "landlord tenant", "landlords tenants",
    "employer employee", "employers employees", "lender borrower", "lenders borrowers",
    "lend borrow", "lent borrowed", "winner loser", "winners losers", "creditor debtor",
    "sender recipient", "sender receiver", "host guest", "hosts guests",
    "plaintiff defendant", "predecessor successor", "importer exporter", "majority minority", "inflow outflow", "incoming outgoing", "upstream downstream",
    "upgrade downgrade", "upgraded downgraded", "credit debit", "arrival departure",
    "entrance exit", "promoted demoted", "acquitted convicted", "friend foe", "friends foes",
    # directions, outcomes and qualities the list above lacks
    "good bad", "improve worsen", "improves worsens", "improved worsened",
    "strengthen weaken", "strengthened weakened", "strengthening weakening",
    "explicit implicit", "encoder decoder", "encoding decoding", "encode decode",
    "encrypt decrypt", "encrypted decrypted", "distant nearby", "ahead behind",
    "shut opened", "reveal hide", "revealed hidden", "visible hidden", "help hinder",
    # "at no cost" reads "free" (``_PHRASES``): "at some cost" is its opposite
    "free cost",
)
#: Families of opposites: every word of one side is the opposite of every word of the other
#: (stemmed when the table is built), and the words of one side say the same thing, so that
#: evidence stating one of them with the claim's polarity agrees with a claim saying another
#: ("dropped" for "fell") even where it also states the other side ("rose, then fell").
_OPPOSITE_FAMILIES = (
    # the direction of a quantity
    ("rise rises rose risen rising climb climbed grow grows grew grown growing increase "
     "increased increases gain gained gains jump jumped jumps soar soared surge surged "
     "rocket rocketed skyrocket skyrocketed",
     "drop dropped drops fall falls fell fallen falling decline declined decrease decreased "
     "decreases shrink shrank shrunk slump slumped plunge plunged dip dipped slide slid sink "
     "sank sunk tumble tumbled plummet plummeted"),
    ("accelerate accelerated spur spurred",
     "decelerate decelerated hinder hindered hamper hampered impede impeded"),
    ("wide wider broad broader", "narrow narrower"),
    ("specific", "generic"),
    ("thrive thrives thrived thriving", "struggle struggles struggled struggling"),
    ("endorse endorsed endorsing", "ban banned banning"),
    ("reveal revealed unveil unveiled disclose disclosed", "hide hid hidden conceal concealed"),
)
#: Stop words that are opposites after the same verb (the coverage rules skip stop words):
#: "Sales went up" is not "Sales went down"; "turned on" is not "turned off".
_STOP_OPPOSITES = {"up": "down", "down": "up", "on": "off", "off": "on"}
_VERB_PARTICLE = re.compile(r"\b([a-z]{2,}) (up|down|on|off)\b")


#: The curated (domain) opposites' stems: a claim word among them is stated as it is.
_CURATED = frozenset(w for pair in _ANTONYM_PAIRS for w in pair) - {
    "add", "keep", "open", "more", "less", "first", "last", "before", "after", "same", "start",
    "win", "on", "pass", "rise", "fall", "allow", "permit", "includ", "requir", "free"}


@cache
def _antonyms() -> dict[str, frozenset[str]]:
    """Stem -> its opposite stems, both ways (``_ANTONYM_PAIRS``, ``_OPPOSITE_WORDS`` and
    every cross pair of ``_OPPOSITE_FAMILIES``)."""
    table: dict[str, set[str]] = {}
    families = tuple((_stem(a), _stem(b)) for up, down in _OPPOSITE_FAMILIES
                     for a in up.split() for b in down.split())
    for a, b in _ANTONYM_PAIRS + tuple((_stem(a), _stem(b)) for a, b in
                                       (pair.split() for pair in _OPPOSITE_WORDS)) + families:
        if a != b:
            table.setdefault(a, set()).add(b)
            table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


@cache
def _kin() -> dict[str, frozenset[str]]:
    """Stem -> the stems on its side of its ``_OPPOSITE_FAMILIES`` family (itself included):
    words that say the same direction ("drop", "fell", "declin")."""
    table: dict[str, set[str]] = {}
    for family in _OPPOSITE_FAMILIES:
        for side in family:
            stems = {_stem(w) for w in side.split()}
            for w in stems:
                table.setdefault(w, set()).update(stems)
    return {k: frozenset(v) for k, v in table.items()}


def _kin_in_part(word: str, cf: _Features, xf: _Features) -> bool:
    """Whether the evidence ``xf`` states ``word`` of the claim by a word of its side of its
    family (``_kin``: "rose" for "increased") in a part that also states another word of the
    claim's part holding ``word`` (so that "costs fell" elsewhere in a long passage does not
    state "decreased yields")."""
    kin = _kin().get(word, frozenset()) - {word}
    if not kin:
        return False
    others = {w for part in cf.parts if word in part for w in part} - {word} - _FILLERS
    return any(part & kin and any(_stated(o, part) for o in others) for part in xf.parts)


def _said_by_kin(word: str, negs: set[bool], scoped: dict[str, set[bool]]) -> bool:
    """Whether a word of ``word``'s side of its family (``_kin``) is in ``scoped`` (stem ->
    polarities) with one of the polarities ``negs``."""
    return any(negs & scoped.get(k, set()) for k in _kin().get(word, ()))


@lru_cache(maxsize=65536)
def _opposite(a: str, b: str) -> bool:
    """Whether the stems ``a`` and ``b`` are opposites: one is the other with a negating
    prefix ("refundabl" / "nonrefundabl", "encrypt" / "unencrypt"), or with ``-less``
    ("cord" / "cordless"), or they are an ``_ANTONYM_PAIRS`` pair ("enabl" / "disabl")."""
    if a == b:
        return False
    if b in _antonyms().get(a, ()):
        return True
    for x, y in ((a, b), (b, a)):
        if x in _NOT_NEGATED:  # the prefixed word only: "uninsur" is "insur" negated
            continue
        for prefix in _NEGATING_PREFIXES:
            if x.startswith(prefix) and len(y) >= 4 and \
                    x[len(prefix):].rstrip("e") == y.rstrip("e"):
                return True
        if x.startswith("de") and x[2:] == y and y.endswith(_DE_VERB_ENDS) and len(y) >= 5:
            return True  # "deactivat" / "activat", "decentraliz" / "centraliz"
        if x.endswith("less") and len(x) > 7 and (x[:-4].rstrip("e") == y.rstrip("e") or
                                                   y.endswith("ful") and x[:-4] == y[:-3]):
            return True
    return False


def _negated_first(claim: str) -> set[str]:
    """The stems of the words right after a forward negation of ``claim`` ("not enabled by
    default": "enabl"); none when the claim is framed as false whole ("it is not true that")."""
    tokens = _TOKEN.findall(_fold_phrases(_surface(claim).lower()))
    if "notthat" in tokens:
        return set()
    return {_stem(tokens[i + 1]) for i, t in enumerate(tokens[:-1])
            if t in _FORWARD_NEGATIONS or t.endswith("n't")}


def _polarity_problem(cf: _Features, xf: _Features, claim: str | None = None) -> list[str]:
    """The claim's words that the evidence ``xf`` says with the other polarity and nowhere
    with the claim's: a word negated on one side only, both in its clause part and in the
    negation's scope (the words after the negation: "Sale items can be exchanged but not
    refunded" negates "refunded", not "sale items"), or an opposite word ("nonrefundable",
    "disabled", ``_opposite``) said with the claim's polarity."""
    ev_clause: dict[str, set[bool]] = {}
    ev_scope: dict[str, set[bool]] = {}
    claim_scope: dict[str, set[bool]] = {}
    for w, neg in xf.polar:
        ev_clause.setdefault(w, set()).add(neg)
    for w, neg in xf.scoped:
        ev_scope.setdefault(w, set()).add(neg)
    for w, neg in cf.scoped:
        claim_scope.setdefault(w, set()).add(neg)
    flipped = set()
    for w, neg in cf.polar:
        scope = claim_scope.get(w, {neg})
        if w in ev_clause:
            if neg not in ev_clause[w] and not scope & ev_scope.get(w, set()):
                flipped.add(w)
            continue
        if w in cf.numbers or _said_by_kin(w, scope, ev_scope):
            continue
        if w.endswith(("abl", "ibl")) and len(w) >= 7 and ev_scope.get(w[:-3]) \
                and not scope & ev_scope[w[:-3]]:
            flipped.add(w)  # "refundable" against "not refunded" (only)
            continue
        opposed = [v for v in ev_scope if _opposite(w, v)]
        same = any(s in ev_scope[v] for v in opposed for s in scope)
        reversed_ = any((not s) in ev_scope[v] for v in opposed for s in scope)
        if same and not reversed_:
            flipped.add(w)
    if flipped and claim and (through := {u for u in _negated_first(claim) if any(
            not nv and _opposite(u, v) for v, nv in xf.scoped)}):
        # the claim's negation is said by an opposite word of the word it negates ("not
        # enabled by default" by "disabled by default"): the words after it in its scope are
        # not negated apart
        flipped -= {w for w in flipped if w not in through and claim_scope.get(w) == {True}}
    return sorted(flipped)


#: Words that open a clause with no subject of its own ("... but cannot delete them"): the
#: clause speaks of the subject of the clause before it.
_ELLIPTIC = frozenset({"can", "cannot", "can't", "not", "is", "isn't", "are", "aren't", "does",
                       "doesn't", "do", "don't", "will", "won't", "may", "must", "has", "have",
                       "hasn't", "haven't", "was", "wasn't", "were", "weren't", "did", "didn't",
                       "should", "could", "would", "never", "also", "only", "still"})


def _clause_polarity_problem(cf: _Features, evidence: str) -> list[str]:
    """The claim's words that the evidence says with both polarities, and only with the other
    one in the clauses that state the most of the claim's other words: the clause that says
    the claim most fully decides ("Exports, which are not encrypted, are stored in S3;
    backups are encrypted." negates "Exports are encrypted"; a clause with no subject of its
    own, ``_ELLIPTIC``, speaks of the clause before it: "Admins can view exports but cannot
    delete them; owners can delete exports." negates "Admins can delete exports")."""
    lower = _spelled_units(_fold_phrases(_surface(evidence).lower()))
    clauses: list[tuple[set[str], set[tuple[str, bool]]]] = []
    before: set[str] = set()
    for clause in _CLAUSE_BREAK.split(lower):
        tokens = [_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(clause)]
        if not tokens:
            continue
        scoped: set[tuple[str, bool]] = set()
        for sub in _PART_BREAK.split(clause):
            if stoks := [_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(sub)]:
                scoped |= _scoped_polarity(stoks)
        words = {w for w, _ in scoped}
        if tokens[0] in _ELLIPTIC:
            words |= before
        clauses.append((words, scoped))
        before = words
    claimed: dict[str, set[bool]] = {}
    for w, neg in cf.scoped:
        if w in cf.content and w not in cf.numbers:
            claimed.setdefault(w, set()).add(neg)
    flipped = []
    for w, negs in claimed.items():
        if negs != {False}:
            continue  # a word the claim asserts (a negated claim word: ``_polarity_problem``)
        neg = False
        others = cf.content - {w}
        holding = [(len(others & words), {n for v, n in scoped if v == w})
                   for words, scoped in clauses if any(v == w for v, _ in scoped)]
        if not holding or not any(neg in pols for _, pols in holding):
            continue
        best = max(k for k, _ in holding)
        if best and all(neg not in pols for k, pols in holding if k == best):
            flipped.append(w)
    return sorted(flipped)


def _particle_problem(claim: str, evidence: str) -> str | None:
    """A verb with "up"/"down" or "on"/"off" in the claim that the evidence says with the
    opposite particle and never with the claim's ("went up" / "went down"), or ``None``."""
    said = {(_stem(v), p) for v, p in _VERB_PARTICLE.findall(evidence.lower())}
    for verb, particle in _VERB_PARTICLE.findall(claim.lower()):
        v = _stem(verb)
        if (v, particle) not in said and (v, _STOP_OPPOSITES[particle]) in said:
            return f"{verb} {_STOP_OPPOSITES[particle]} where the claim says {verb} {particle}"
    return None


#: Quantifiers and frequency words, by what they claim: a claim's quantifier must be the
#: evidence's ("all" is not "some", "always" is not "rarely").
_QUANTIFIERS = {
    "all": "all", "every": "all", "each": "all", "always": "always", "most": "most",
    "mostly": "most", "majority": "most", "usually": "usually", "generally": "usually",
    "typically": "usually", "often": "often", "frequently": "often", "some": "some",
    "several": "some", "sometimes": "sometimes", "occasionally": "sometimes", "few": "few",
    "rarely": "rarely", "seldom": "rarely", "only": "only", "exclusively": "only",
    "solely": "only", "never": "never", "none": "none", "many": "many", "exactly": "exactly",
    "precisely": "exactly", "also": "also", "both": "both", "neither": "neither",
    "entire": "all", "whole": "all", "partial": "partial", "partly": "partial",
}
#: Quantifiers a claim may not state unless its evidence does ("all", "only", ...); a weaker
#: one ("some", "often") is refused only when the quotes state another.
_STRONG_QUANTIFIERS = frozenset({"all", "always", "only", "never", "none", "most", "exactly",
                                 "neither"})
_LETTERS = re.compile(r"[a-z]+")


_AT_MOST = re.compile(r"\bat most\b")


def _quantifiers(text: str) -> set[str]:
    """The quantifiers of ``text`` ("at most 5" is a bound, no "most")."""
    return {_QUANTIFIERS[w] for w in _LETTERS.findall(_AT_MOST.sub(" ", text.lower()))
            if w in _QUANTIFIERS}


#: Modal verbs: how strongly a sentence asserts ("may" is not "must"); stop words elsewhere.
_MODALS = frozenset({"may", "might", "must", "can", "could", "will", "would", "should",
                     "shall", "cannot"})


def strength_words(text: str) -> frozenset[str]:
    """The quantifiers (as ``_QUANTIFIERS`` reads them: "every" is "all") and modal verbs of
    ``text``: the words stop-word lists drop that still change what a sentence claims
    ("Only the Business plan ..." is not "The Business plan ..."; "may" is not "must")."""
    words = _LETTERS.findall(text.lower())
    return frozenset(_quantifiers(text) | {w for w in words if w in _MODALS})


#: How often or how much: a claim's word of these must be stated by its evidence ("The seller
#: rarely pays" is not "The seller pays"), by a word of the same class ("seldom" for
#: "rarely", "sharply" for "significantly"). By class; ``_QUANTIFIERS`` gives the classes of
#: the frequency words.
_HEDGE_CLASSES = frozenset({"usually", "often", "sometimes", "rarely", "partial"})
_DEGREES = {
    "normally": "usually", "commonly": "often", "regularly": "often", "routinely": "usually",
    "infrequently": "rarely", "hardly": "rarely", "barely": "rarely", "scarcely": "rarely",
    "partially": "partial",
    "slightly": "slightly", "somewhat": "slightly", "marginally": "slightly",
    "modestly": "slightly", "significantly": "sharply", "substantially": "sharply",
    "considerably": "sharply", "greatly": "sharply", "sharply": "sharply",
    "dramatically": "sharply", "drastically": "sharply", "hugely": "sharply",
    "vastly": "sharply", "massively": "sharply", "steeply": "sharply",
}


#: Verbs that say a change was sharp ("will see the value skyrocket" states "significantly
#: elevate"), as stem prefixes: evidence stating one states "sharply".
_SHARP_VERBS = ("skyrocket", "soar", "surg", "plung", "plummet", "tumbl", "rocket", "spik",
                "slump", "balloon", "doubl", "tripl", "quadrupl", "halv")


def _hedges(text: str, *, evidence: bool = False) -> set[str]:
    """The frequency and degree classes of ``text`` (``_HEDGE_CLASSES``, ``_DEGREES``); of
    ``evidence``, a verb of ``_SHARP_VERBS`` says "sharply" too."""
    words = _LETTERS.findall(text.lower())
    sharp = evidence and any(w.startswith(_SHARP_VERBS) for w in words)
    return ({_QUANTIFIERS[w] for w in words if _QUANTIFIERS.get(w) in _HEDGE_CLASSES}
            | {_DEGREES[w] for w in words if w in _DEGREES} | ({"sharply"} if sharp else set()))


def _hedge_classes(f: _Features, *, evidence: bool = False) -> set[str]:
    """``_hedges`` of a text read from its features (every word is in ``scoped``)."""
    stems = _hedge_stems()
    sharp = evidence and any(w.startswith(_SHARP_VERBS) for w, _ in f.scoped)
    return {c for w, _ in f.scoped if (c := stems.get(w))} | ({"sharply"} if sharp else set())


@cache
def _hedge_stems() -> dict[str, str]:
    """Stem -> class of the words ``_hedges`` reads."""
    return {_stem(w): c for w, c in _QUANTIFIERS.items() if c in _HEDGE_CLASSES} | {
        _stem(w): c for w, c in _DEGREES.items()}


#: Words that say "only": "restricted to admins", "reserved for members".
_RESTRICTED = re.compile(r"\b(?:restricted|limited|reserved|exclusive) (?:to|for) "
                         r"(?:the |our |your )?([^\W\d_]+)")


def _quantifier_problem(claim: str, ev: _Evidence) -> str | None:
    """Why the claim's quantifiers are not the evidence's, or ``None``: a strong one
    (``_STRONG_QUANTIFIERS``) or a frequency or degree word (``_hedges``) the evidence does
    not state, or another quantifier where the quotes state one."""
    said = _quantifiers(ev.context) | _hedges(ev.context, evidence=True)
    claimed = _quantifiers(claim)
    hedged = _hedges(claim)
    if any(_stem(m.group(1)) in _clause_content(_TOKEN.findall(claim.lower()))
           for m in _RESTRICTED.finditer(ev.context.lower())):
        said.add("only")  # "restricted to admins" says "only admins"
    if "never" in claimed and not said and any(
            _negates(t) for t in _TOKEN.findall(_fold_phrases(ev.context.lower()))):
        said.add("never")  # "does not expire" says "never expires" where nothing hedges it
    for q in sorted(claimed - said):
        if q in _STRONG_QUANTIFIERS or q in hedged or _quantifiers(ev.quotes) - claimed:
            return f"does not say {q!r} as the claim does"
    for q in sorted(hedged - said):
        return f"does not say {q!r} as the claim does (a frequency or degree word)"
    return None


def _bare(text: str) -> str:
    """Whitespace-normalised, without the punctuation that may end or open a quote."""
    return normalize_ws(text).strip(" .,;:!?\"'()[]\u3002\uff0c")


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


# --------------------------------------------------------------------------------------------
# The offline heuristic verifier.

_STOP = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "then", "than", "of", "to", "in", "on", "at", "by", "for", "from", "with", "within", "into", "onto", "over", "under", "about", "as", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have", "had", "having", "it", "its", "it's", "this", "that", "these", "those", "there", "here", "their", "they", "them", "he", "she", "his", "her", "we", "our", "you", "your", "i", "me", "my", "us", "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "only", "own", "same", "so", "too", "very", "can", "could", "will", "would", "may", "might", "must", "should", "shall", "also", "just", "not", "no", "nor", "yet", "up", "out", "down", "off", "again", "further", "once", "s", "t", "ll", "re", "ve", "d", "m", "also", "currently", "typically", "usually", "generally", "normally", "often", "always", "sometimes", "around", "approximately", "about", "roughly", "nearly", "almost", "make", "sure", "please", "note", "ensure", "remember", "want", "need", "per", "via", "one's", "yes"]
)
#: Words a claim may hold that its passage need not (at most ``MAX_MISSING_FILLERS`` of them):
#: they add emphasis or frame the statement, never a fact of their own.
_FILLERS = frozenset({"actually", "really", "indeed", "specifically", "particularly", "overall",
                      "clearly", "certainly", "definitely", "simply", "basically", "essentially",
                      "explicitly", "mention", "state", "say", "according", "passag", "document",
                      "text", "context", "provid", "information"})
_NEGATIONS = frozenset({"not", "no", "never", "n't", "without", "cannot", "none", "neither",
                        "nor", "nothing", "nobody", "unavailable", "doesn't", "isn't", "aren't",
                        "don't", "won't", "can't", "wasn't", "weren't", "didn't", "hasn't",
                        "haven't", "shouldn't", "mustn't",
                        # the same written without the apostrophe (or with one the Markdown
                        # reader took for a code mark: "isn`t"); "cant" and "wont" are also
                        # rare words of their own: read as negations, the side that fails closed
                        "doesnt", "isnt", "arent", "dont", "wont", "cant", "wasnt", "werent",
                        "didnt", "hasnt", "havent", "shouldnt", "mustnt", "couldnt", "wouldnt",
                        # German, French (``n'`` is read as ``ne``), Spanish
                        "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie",
                        "niemals", "ohne", "ne", "pas", "jamais", "aucun", "aucune", "sans",
                        "nunca", "jamás", "ningún", "ninguno", "ninguna", "sin", "tampoco",
                        # "it is not true that P" (``_PHRASES``): negates the whole of P
                        "notthat"})
#: Negation inside a run of Chinese or Japanese text (不可以, 没有, 無料 is read as negated
#: too: a cheap rule), and Japanese negative verb endings (できません, ない).
_CJK_NEGATION = re.compile("[\u4e0d\u6ca1\u6c92\u65e0\u7121\u672a\u975e\u522b]|"
                           "\u306a\u3044|\u307e\u305b\u3093|\u306a\u3057")


def _negates(token: str) -> bool:
    """Whether ``token`` (lower-cased) is a negation: an English, German, French or Spanish
    negation word, ``...n't``, or a Chinese/Japanese run holding a negation."""
    return (token in _NEGATIONS or token.endswith("n't")
            or (token[0] >= "\u3040" and bool(_CJK_NEGATION.search(token))))
_NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "once": "1", "twice": "2", "single": "1",
    "double": "2", "triple": "3", "dozen": "12",
    # ordinals are numbers of their own ("third" is "3rd", never "3"); "first" and "second"
    # (a unit) stay words
    "third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th", "seventh": "7th",
    "eighth": "8th", "ninth": "9th", "tenth": "10th", "eleventh": "11th", "twelfth": "12th",
    "thirteenth": "13th", "fourteenth": "14th", "fifteenth": "15th", "sixteenth": "16th",
    "seventeenth": "17th", "eighteenth": "18th", "nineteenth": "19th", "twentieth": "20th",
}
_PHRASES = (
    (re.compile(r"revolutions? per minute"), " rpm "),
    (re.compile(r"\bper ?cent\b|%"), " percent "),
    # "2x faster", "3\u00d7 the price": a multiplier, not a bare 2 ("2x" is not "2%")
    (re.compile(r"(?<=\d) ?[x\u00d7](?=[\s.,;:!?)]|$)"), " times "),
    (re.compile(r"kilomet(?:re|er)s? per hour|km ?/ ?h\b|kph\b"), " kmh "),
    (re.compile(r"miles? per hour|\bmph\b"), " mph "),
    (re.compile(r"\bkilograms?\b|\bkilos?\b"), " kg "),
    (re.compile(r"\bmilligrams?\b"), " mg "),
    (re.compile(r"\bgrams?\b|(?<=\d)\s?gr?\b"), " g "),
    (re.compile(r"\bmillilit(?:re|er)s?\b"), " ml "),
    (re.compile(r"\blbs?\b"), " lb "),
    (re.compile(r"\bounces?\b"), " oz "),
    (re.compile(r"\beuros?\b"), " eur "),
    (re.compile(r"(?<=\d) ?(?:us )?dollars?\b|\busd\b"), " usd "),
    (re.compile(r"\bmillimet(?:re|er)s?\b"), " mm "),
    (re.compile(r"\bcentimet(?:re|er)s?\b"), " cm "),
    (re.compile(r"\bkilomet(?:re|er)s?\b"), " km "),
    (re.compile(r"\bmet(?:re|er)s?\b"), " m "),
    (re.compile(r"\blit(?:re|er)s?\b"), " l "),
    (re.compile(r"\bdecibels?\b"), " db "),
    # a temperature scale is a unit: "-20 \u00b0C", "-20 degrees Celsius", "-20 C"
    (re.compile(r"\u00b0\s?c\b|\bdegrees? (?:celsius|centigrade|c)\b|\b(?:celsius|centigrade)\b"
                r"|(?<=\d) c\b"), " degree celsius "),
    (re.compile(r"\u00b0\s?f\b|\bdegrees? (?:fahrenheit|f)\b|\bfahrenheit\b|(?<=\d) f\b"),
     " degree fahrenheit "),
    (re.compile(r"\u00b0"), " degree "),
    # one bound said several ways: "at most 5", "a maximum of 5", "no more than 5" are "up to
    # 5"; "a minimum of 5", "no less than 5" are "at least 5"
    (re.compile(r"\b(?:at most|(?:a )?maximum of|(?:no|not) more than)\s+(?=[\d-]|(?:one|two|three|"
                r"four|five|six|seven|eight|nine|ten|a|an)\b)"), " up to "),
    (re.compile(r"\b(?:(?:a )?minimum of|(?:no|not) (?:less|fewer) than)\s+(?=[\d-]|(?:one|two|"
                r"three|four|five|six|seven|eight|nine|ten|a|an)\b)"), " at least "),
    (re.compile(r"\bwatts?\b"), " w "),
    (re.compile(r"(?<=\d)\s*([ap])\.?\s?m\b\.?"), r" \1m "),  # "9 a.m." -> "9 am"
    # "10 h", "24h", "14 d", "30 s": a unit only right after a number ("3D", "the 1990s" not)
    (re.compile(r"(?<=\d) ?h\b"), " hour "),
    (re.compile(r"(?<=\d) d\b"), " day "),
    (re.compile(r"(?<=\d) s\b"), " second "),
    (re.compile(r"\bhrs?\b"), " hour "),
    (re.compile(r"\bmins?\b(?!imum)"), " minute "),
    (re.compile(r"\bsecs?\b"), " second "),
    (re.compile(r"\byrs?\b"), " year "),
    (re.compile(r"\bmax\b"), " maximum "),
    (re.compile(r"\bqty\b"), " quantity "),
    (re.compile(r"\bapprox\.?"), " approximately "),
    (re.compile(r"\bu\.s\.(?:a\.)?|\bunited states(?: of america)?\b|\busa\b"), " us "),
    (re.compile(r"\bu\.k\.|\bunited kingdom\b"), " uk "),
    (re.compile(r"\bchief executive(?: officer)?\b"), " ceo "),
    (re.compile(r"\bchief financial officer\b"), " cfo "),
    (re.compile(r"\bchief technology officer\b"), " cto "),
    (re.compile(r"\bchief operating officer\b"), " coo "),
    (re.compile(r"\bn'(?=[aeiouyh\u00e9\u00e8\u00ea])"), " ne "),  # French "n'est"
    # "it is false that P" negates P as "not" does ("it is not true that" has its "not");
    # so do the other framings that call P false: "it is a myth that P", "we deny that P",
    # "contrary to rumours that P", "there is no evidence that P", "reports that P are wrong"
    (re.compile(r"\bit(?: is|'s| was) (?:false|untrue|incorrect|wrong|not true|not the case"
                r"|not correct|an? (?:common |popular )?(?:myth|misconception|fallacy)) that\b"
                # "a common misconception is that P", "the myth that P persists"
                r"|\b(?:an?|the) (?:(?:common|popular|widespread|persistent|old) )?(?:myth|"
                r"misconception|fallacy|misunderstanding)(?: is)? that\b"
                # "some users wrongly believe (that) P", "an older FAQ incorrectly states P"
                r"|\b(?:wrongly|mistakenly|falsely|incorrectly|erroneously) (?:believ|think|"
                r"thought|claim|stat|say|said|assum|report|suggest|assert|list|show|describ|"
                r"impl)\w*(?: that)?\b"
                # "it is unclear whether P": P is not stated
                r"|\bit(?: is|'s| was| remains) (?:unclear|uncertain|not clear|not known|unknown"
                r"|not yet known|unconfirmed|undecided) (?:whether|if)\b"
                r"|\b(?:den(?:y|ies|ied|ying)|disput(?:e|es|ed|ing)|refut(?:e|es|ed|ing)|"
                r"reject(?:s|ed|ing)?) (?:the (?:claims?|reports?|rumou?rs?|suggestions?|"
                r"allegations?|idea|notion) )?that\b"
                r"|\bcontrary to (?:\w+ ){0,2}?(?:rumou?rs?|reports?|claims?|beliefs?|reviews?|"
                r"posts?|articles?|suggestions?|speculation|allegations?)"
                r" (?:that|claiming|saying|suggesting|stating)(?: that)?\b"
                r"|\bthere (?:is|was|'s) no (?:evidence|proof|truth to the (?:claims?|reports?|"
                r"rumou?rs?)) that\b"
                r"|\b(?:the )?(?:reports?|claims?|rumou?rs?|suggestions?|allegations?|stor(?:y|ies)"
                r"|idea|notion|belief|assertion)s? that(?=[^.;!?]+? (?:is|are|was|were|have been"
                r"|has been|proved|proven|remain|remains|remained) (?:\w+ )?(?:wrong|false|untrue|"
                r"incorrect|unfounded|baseless|mistaken|inaccurate|a myth|myths|not true|"
                r"debunked|groundless|unconfirmed|unverified|unsubstantiated|unproven)\b)"),
     " notthat "),
    # "Many think P, but it is not." / "..., but that is false.": the closing clause denies
    # the clause before it, as "it is not true that P" does
    (re.compile(r"(?<![^.!?;\n])([^.!?;\n]+?),? but (?:it|that|this|they|he|she)"
                r"(?:'s| is| are| was| were| does| do| did| has| have| can| will| would)?"
                r"(?: not(?: true| the case| so| correct)?|n't(?: true| the case| so)?| false"
                r"| untrue| wrong| incorrect| a myth|not| cannot| can't| won't)\s*(?=[.!?;]|$)"),
     r" notthat \1 , but it is not"),
    # degree negations: "hardly waterproof", "far from waterproof", "anything but
    # waterproof" say "not waterproof"; "too fragile to be waterproof" negates what follows;
    # "ceased to support" / "stopped supporting" / "used to be" (no longer) say "not"
    (re.compile(r"\bhardly\b(?! ever\b| any)|\banything but\b|\bfar from\b(?! (?:the|a|an|"
                r"our|your|my|his|her|its|their|this|that|these|those|here|there|home|"
                r"town|\d)\b)|\bceas(?:e|es|ed|ing) to\b|\bstop(?:s|ped) (?=\w+ing\b)"
                r"|(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!\bbe )(?<!\bbeen )(?<!\balso )"
                r"\bused to (?=be\b)"), " not "),
    (re.compile(r"\btoo (\w+) to be\b"), r"too \1 , not be"),
    # "no fee for returns", "at no extra charge": free ("Returns are free")
    (re.compile(r"\b(?:at )?no (?:additional |extra )?(?:fees?|charges?)\b"), " free "),
    # "at no extra cost", "costs nothing", "free of charge": free ("Shipping is free")
    (re.compile(r"\b(?:at|for) no (?:additional |extra )?cost\b|\bcost(?:s|ing)? nothing\b"
                r"|\bfree of charge\b"), " free "),
    # "no limit on the number of users" is "unlimited users"
    (re.compile(r"\b(?:there is |there's )?no (?:limit|cap|maximum)s? (?:on|to) (?:the (?:number|"
                r"amount) of )?"), " unlimited "),
    # "excluded" is "not included", "lacks" is "does not have" ("Accidental damage is
    # excluded" states "The warranty does not cover accidental damage")
    (re.compile(r"\bexclud(?:e|es|ed|ing)\b"), " not include "),
    (re.compile(r"\black(?:s|ed|ing)?\b(?: of\b)?"), " not have "),
    # "failed to get the balance right" says "did not get the balance right"
    (re.compile(r"\bfail(?:s|ed|ing)? to\b"), " not "),
    # "A rather than B", "A instead of B": B is negated, in a part of its own
    (re.compile(r"\brather than\b|\binstead of\b"), " , not "),
)
#: Any of ``_PHRASES``: when none occurs in a text, folding the phrases changes nothing (each
#: substitution could only act on what an earlier one wrote), so the loop is skipped.
_ANY_PHRASE = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _PHRASES))


def _fold_phrases(lower: str) -> str:
    """``lower`` with every ``_PHRASES`` pattern replaced by its unit or word, in order."""
    if _ANY_PHRASE.search(lower) is None:
        return lower
    for pattern, repl in _PHRASES:
        lower = pattern.sub(repl, lower)
    return lower


_CJK_CLASS = CJK_CLASS
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
#: A number as ``_TOKEN`` reads it: a sign that is no hyphen ("-20", not the "-5" of "3-5"),
#: digits with dots (a decimal "2.5", a dotted "1.2.3", a version or date ``_surface`` marked
#: with U+2024: "2\u202410"), an ordinal ending ("3rd") and an exponent ("10^2").
_NUM = (r"(?:(?<![\w.])-)?\d+(?:[.\u2024]\d+)*(?:(?:(?<=1)st|(?<=2)nd|(?<=3)rd|th)(?![^\W_]))?"
        r"(?:\^-?\d+)?")
#: A token: a letter-led word with a digit in it (a name: "S3", "A320", "mp3"), a number, a
#: CJK run, or a word.
_TOKEN = re.compile(rf"(?:(?![{_CJK_CLASS}])[^\W\d_])+\d(?:(?![{_CJK_CLASS}])[^\W_])*"
                    rf"|{_NUM}|[{_CJK_CLASS}]+|(?:(?![{_CJK_CLASS}])[^\W\d_])+(?:'t)?")
_UNITS = frozenset({"percent", "rpm", "kmh", "mph", "kg", "g", "mm", "cm", "km", "m", "l", "ml",
                    "db", "w", "wh", "kwh", "v", "hour", "minute", "minut", "second", "day", "week",
                    "month", "year", "gb", "mb", "tb", "ghz", "mhz", "hz", "lumen", "inch",
                    "foot", "feet", "lb", "pound", "mg", "oz", "dollar", "euro", "usd", "eur", "point", "fortnight",
                    "time", "people", "person", "page", "mile", "seat", "port", "level", "gbp", "jpy", "am", "pm", "january", "february", "march", "april", "may",
                    "june", "july", "august", "september", "october", "november", "december",
                    "oclock", "celsius", "fahrenheit"})

#: Words between a number and the unit of a rate: "$20 per month", "3 days a week".
_RATE = frozenset({"per", "a", "an", "each", "every"})

#: A quantity's unit names the quantity ("3200 rpm" is a speed), so a passage that gives only
#: the unit still speaks to a claim that names the quantity.
_UNIT_IMPLIES = {"rpm": "speed", "kmh": "speed", "mph": "speed", "kg": "weigh", "db": "noise",
                 "w": "power", "wh": "capacity", "kwh": "capacity", "lumen": "brightness",
                 "g": "weigh"}
#: Stems read as one word: a label and the verb a sentence says it with ("Price: $12" /
#: "costs $12", "Weight: 680 g" / "weighs 680 grams").
_SAME_STEM = {"pric": "cost", "weight": "weigh"}


#: British spellings written the American way, so that both read as one stem ("colours" /
#: "colors", "organised" / "organized", "centre" / "center", "licence" / "license").
_BRITISH = (
    (re.compile(r"(?<=[a-z]{3})our(s|ed|ing|ful|ite|ites)?$"), r"or\1"),
    (re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{3})tre(s|d)?$"), r"ter\1"),
    (re.compile(r"^(lic|def|off|pret)ence(s)?$"), r"\1ense\2"),
)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    for pattern, repl in _BRITISH:
        word = pattern.sub(repl, word)
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return _SAME_STEM.get(word, word)


@dataclass(frozen=True)
class _Features:
    content: frozenset[str]   # stemmed content tokens, numbers included
    words: frozenset[str]     # content tokens that are not numbers
    numbers: frozenset[str]
    number_units: frozenset[tuple[str, str]]  # (number, one of the next two tokens)
    number_labels: frozenset[tuple[str, str]]  # those, and (number, the token before it)
    mandatory: frozenset[str]  # names and numbers that must be matched for support
    negated: bool
    polar: frozenset[tuple[str, bool]]  # (content word, whether its clause is negated)
    clauses: tuple[frozenset[str], ...]  # content words of each clause
    bounds: frozenset[tuple[str, str]]  # (number, "<=" or ">=") from "within 14", "more than 14"
    parts: tuple[frozenset[str], ...]  # content words of each comma-separated part of a clause
    number_nouns: frozenset[tuple[str, str]]  # (count, the content word right after it)
    #: (word, whether a negation governs it): every word of the text (stop words too, so that
    #: "always" / "rarely" can be opposed), negation read forward from an English negation
    #: word to the end of its clause part or to a preposition after the first word it
    #: governs ("Items bought on sale cannot be refunded": only "refunded" is negated);
    #: ``non-`` governs the next word only (joined: "non-refundable" is "nonrefundable");
    #: other languages' negations govern their whole part (``_scoped_polarity``).
    scoped: frozenset[tuple[str, bool]] = frozenset()
    #: (content words, the content words in a negation's scope) of each negated clause part.
    negated_parts: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()
    #: (low, high) of each range ("3-5 days", "3 to 5", "between 3 and 5"; not years, not
    #: "from 3 to 5", a change): its ends are in ``bounds`` too, as "at least 3", "up to 5".
    ranges: frozenset[tuple[str, str]] = frozenset()
    #: The numbers the text states outside any range.
    loose: frozenset[str] = frozenset()
    #: (number, bound, the word after the number) of each bound of ``bounds`` a bound word
    #: states ("over a one-year span": ("1", ">=", "year")).
    bound_units: frozenset[tuple[str, str, str]] = frozenset()
    #: The numbers the text states at least once without a bound word before them.
    unbounded: frozenset[str] = frozenset()
    #: (first, second) of each pair of numbers joined by a hyphen or dash ("3-1", "3\u20135"):
    #: a score or result is ordered, "3-1" is not "1-3" (``_pair_problem``).
    pairs: frozenset[tuple[str, str]] = frozenset()
    #: (number, word, unit) where a word between a number and its unit qualifies the unit
    #: ("14 business days": ("14", "business", "day")).
    qualified: frozenset[tuple[str, str, str]] = frozenset()
    #: (first, second, joined) stems of each hyphenated pair of words ("water-proof":
    #: ("water", "proof", "waterproof")), read as the one word they join to.
    joined: frozenset[tuple[str, str, str]] = frozenset()
    #: ((number, unit), (number, unit)) of each range of clock times ("9 am to 5 pm",
    #: "9am-5pm", "from 9:00 to 17:00"): its ends are the opening and the closing time.
    clock_ranges: frozenset[tuple[tuple[str, str], tuple[str, str]]] = frozenset()
    #: The clock times (number, unit) the text states outside any range of clock times.
    loose_clocks: frozenset[tuple[str, str]] = frozenset()
    #: (number, stem of the word after per/a/each/every) of each rate ("$10 per user":
    #: ("10", "user"); "$10 per user per month": ("10", "user"), ("10", "month")).
    rates: frozenset[tuple[str, str]] = frozenset()
    #: The numbers an approximation from below bounds ("nearly 100": "100"; ``_APPROXIMATE``).
    approximate: frozenset[str] = frozenset()


#: A negation scopes this many content words after it in its clause part ("may never walk
#: again after the accident in Portugal" negates "walk" and "again", not "Portugal").
NEGATION_SCOPE = 3

#: Where a clause ends, for negation scope and for what must be said together: sentence and
#: clause punctuation (not a decimal point or a thousands comma) and contrasting conjunctions.
_PART_BREAK = re.compile(r"[,\uff0c](?!\d)|[()]")
_CLAUSE_BREAK = re.compile(r"[;:!?\u3002\uff1b]|[.](?!\d)|\b(?:but|whereas|while|although|"
                           r"though|however|except|unlike|yet|whilst)\b"
                           r"|\n(?=[ \t]*\|)")  # each row of a Markdown table
_UPPER_BOUND = frozenset({"within", "under", "below", "maximum", "less than", "fewer than",
                          "up to", "at most", "no more than", "not more than", "before",
                          "maximum of", "a maximum of", "limit of", "a limit of", "limited to",
                          "as much as", "as many as", "as high as",
                          # an approximation from below: "nearly 100", "almost 100", "close
                          # to 100" is not 100 ("just under" is "under")
                          "nearly", "almost", "close to"})
#: Bound words that approximate: an evidence's bound the claim must state, while a claim's
#: needs only no other bound in its evidence ("close to \u00a362m" / "(\u00a362m)").
_APPROXIMATE = frozenset({"nearly", "almost", "close to"})
_LOWER_BOUND = frozenset({"over", "above", "minimum", "more than", "greater than", "at least",
                          "exceeding", "exceeds", "beyond", "after", "no less than",
                          "minimum of", "a minimum of", "as little as", "as few as",
                          "as low as"})



#: Words that may stand between a bound and its number: "within the next 10 days".
_BOUND_GAP = frozenset({"the", "next", "first", "a", "an", "last", "coming", "following"})


def _bound(tokens: list[str], i: int) -> str | None:
    """``<=`` / ``>=`` when the words just before ``tokens[i]`` bound the number from above or
    below ("within 14", "more than 14"), else ``None``."""
    for n in (3, 2, 1):
        if i >= n:
            phrase = " ".join(tokens[i - n:i])
            if phrase in _UPPER_BOUND:
                return "<="
            if phrase in _LOWER_BOUND:
                return ">="
    for n in (2, 3):  # "within the next 10 days", "after the first 3 months"
        if i >= n and all(t in _BOUND_GAP for t in tokens[i - n + 1:i]):
            if tokens[i - n] in _UPPER_BOUND:
                return "<="
            if tokens[i - n] in _LOWER_BOUND:
                return ">="
    if i >= 2 and tokens[i - 2] in ("maximum", "minimum"):  # a key: "max_users: 25"
        return "<=" if tokens[i - 2] == "maximum" else ">="
    return None


#: English negation words whose scope runs forward (``_scoped_polarity``); the others
#: (German, French, Spanish, CJK runs) negate their whole clause part, as they may follow
#: the verb they negate ("funktioniert nicht").
_FORWARD_NEGATIONS = frozenset(
    t for t in _NEGATIONS if t.isascii() and t not in {
        "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
        "ohne", "ne", "pas", "jamais", "aucun", "aucune", "sans", "nunca", "sin", "tampoco"})
#: Words that end a forward negation's scope once it governs two words: the adjunct that
#: follows says where or when, it is not what is negated ("no credit card is required |
#: for the free trial"; "we do not answer phone calls | on weekends"); after one word the
#: phrase is still the negated one ("no option for renewal"). The scope also ends after
#: ``NEGATION_SCOPE`` content words.
_SCOPE_ENDS = frozenset({"for", "on", "in", "at", "with", "within", "during", "after", "before",
                         "from", "to", "by", "under", "over", "until", "via", "per", "when",
                         "if", "because", "since", "unless", "where", "and", "or"})


def _scoped_polarity(tokens: list[str]) -> set[tuple[str, bool]]:
    """``(word, negated)`` for the tokens of one clause part (``_Features.scoped``): stems of
    every word, numbers as written, CJK runs as their bigrams; negation words themselves are
    left out. A part whose negation governs no word after it ("the screen is not") is negated
    whole, as is a part negated in another language."""
    words = [t for t in tokens if t in _NEGATIONS and t.isascii() or t.endswith("n't")]
    if any(_negates(t) and t not in _FORWARD_NEGATIONS and not t.endswith("n't")
           for t in tokens):
        return {(w, True) for w in _all_words([t for t in tokens if t not in words])}
    out: set[tuple[str, bool]] = set()
    negated = whole = False
    governs = 0  # content words the current negation governs so far
    skip = False
    for i, tok in enumerate(tokens):
        if skip:
            skip = False
            continue
        if _negates(tok):
            negated, governs = True, 0
            whole = tok == "notthat"  # "it is not true that P": all of P
            continue
        if negated and not whole and (governs >= NEGATION_SCOPE
                                      or governs >= 2 and tok in _SCOPE_ENDS):
            negated = False
        if tok == "non" and i + 1 < len(tokens) and not tokens[i + 1][0].isdigit():
            out.add((_stem("non" + tokens[i + 1]), negated))
            skip = True
            continue
        for w in _all_words([tok]):
            out.add((w, negated))
            governs += negated and _is_content(tok)
    if negated and not governs:
        return {(w, True) for w, _ in out}
    return out


def _all_words(tokens: list[str]) -> set[str]:
    """Every word of ``tokens`` as ``_features`` reads it (stop words and negations kept)."""
    return _clause_content(tokens, content_only=False)


def _is_content(tok: str) -> bool:
    return not (tok in _STOP or tok in _NEGATIONS or tok.endswith("n't")
                or len(tok) < 2 and tok not in "bcdefghjklmnpqrvwxyz")


_ORDINAL = re.compile(r"(-?\d+)(?:st|nd|rd|th)")
#: A number that is a value (compared as one: "2.50" is "2.5"); any other (a version, a date,
#: an ordinal, a power) is compared as written.
_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _is_number(tok: str) -> bool:
    """Whether the token ``tok`` is a number (``_NUM``), signed or not."""
    return tok[0].isdigit() or tok[0] == "-" and tok[1:2].isdigit()


def _plain(number: str) -> bool:
    """Whether ``number`` (as ``_number`` writes it) is a value: "-20", "2.5"; not "2.10" of
    a version, "3rd", "10^2", "03.04.2025"."""
    return _PLAIN_NUMBER.fullmatch(number) is not None


def _number(tok: str) -> str:
    """A number token as the check compares it: a decimal without trailing zeros ("2.50" ->
    "2.5"); a version, dotted number or date (U+2024 marks, several dots) as written; an
    ordinal with the ending of its number ("11st" -> "11th")."""
    if "\u2024" in tok or tok.count(".") > 1 or "^" in tok:
        return tok.replace("\u2024", ".")
    if m := _ORDINAL.fullmatch(tok):
        n = int(m.group(1))
        end = "th" if 10 <= abs(n) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
            abs(n) % 10, "th")
        return f"{n}{end}"
    return tok.rstrip("0").rstrip(".") if "." in tok else tok


def _clause_content(tokens: list[str], *, content_only: bool = True) -> set[str]:
    """The words of ``tokens`` as ``_features`` reads them: numbers normalised, CJK runs as
    character bigrams, other words stemmed; stop words and negations left out unless
    ``content_only`` is false."""
    out: set[str] = set()
    for tok in tokens:
        if _is_number(tok):
            out.add(_number(tok))
        elif _CJK_RUN.fullmatch(tok):
            out.update(tok[j:j + 2] for j in range(max(1, len(tok) - 1)))
        elif not content_only or _is_content(tok):
            out.add(_stem(tok))
    for unit, implied in _UNIT_IMPLIES.items():
        if unit in out:
            out.add(implied)
    return out


_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
#: A decimal comma before a unit: "1,5 l", "2,5 kg" read "1.5 l", "2.5 kg".
_DECIMAL_COMMA = re.compile(
    r"(?<![\d.,])(\d+),(\d{1,2})(?=\s?(?:kg|g|mg|l|ml|cl|km|m|cm|mm|%|percent|lit(?:re|er)s?|"
    r"grams?|kilo(?:gram)?s?|met(?:re|er)s?|euros?|eur|lb|lbs|oz|h|hours?)\b)", re.IGNORECASE)
#: A key and its number, in a key/value or labelled passage (``"max_users": 25``, "Price:
#: $20"): the colon is no clause break there, so the key is the number's label.
_KEY_VALUE = re.compile(r'(?<=[A-Za-z])"?\s*[:=]\s*(?=[$\u20ac\u00a3]?\d)')
#: "10+ users" reads "at least 10 users".
_AT_LEAST = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\+(?![\d+])")
#: "non-refundable" and "non refundable" read as one word "nonrefundable", negated inside.
_NON = re.compile(r"\b(non)[-\u2010\u2011 ](?=[A-Za-z])", re.IGNORECASE)  # NON-REFUNDABLE too
_TOKEN_BREAKERS = re.compile(r"[_=]")


_MAGNITUDE = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion|trillion|k|mn|bn)\b",
                        re.IGNORECASE)
_SCALE = {"thousand": 3, "k": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9, "trillion": 12,
          "m": 6, "b": 9}
#: "1M", "2.5B" (a capital letter right after the digits), "$1.2m", "$3 bn": a magnitude too
#: ("10 m" is ten metres; "Section 4B", after a capitalised word, is left alone).
_MAGNITUDE_LETTER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([MB])\b"
                               r"|(?<=[$\u20ac\u00a3\u00a5])(\d+(?:\.\d+)?)\s?([mbMB])\b")
#: Thousands grouped with a space (a narrow or no-break space reads as one after NFKC) or an
#: apostrophe ("10 000", "1'000'000"), or in the Indian way ("1,00,000"): one number. Only
#: groups of exactly three digits (two in the Indian pattern), the first of one to three.
_GROUPED = re.compile(r"(?<![\w.,'\u2024/:-])\d{1,3}(?:([ '])\d{3})(?:\1\d{3})*"
                      r"(?![\w\u2024/]|[.,:']\d)"
                      r"|(?<![\w.,'\u2024/:-])\d{1,2}(?:,\d{2})+,\d{3}(?![\w\u2024/]|[.,]\d)")
#: A sign said in words: "minus 20", "negative 4.5" (not "50 minus 20", a difference: no
#: number just before), and "20 degrees below zero": part of the number.
_SIGN_WORD = re.compile(r"\b(?:minus|negative)\s+(?=\d)", re.IGNORECASE)
_BELOW_ZERO = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)(\s*(?:\u00b0\s?[CcFf]\b|degrees?(?:\s+(?:"
                         r"celsius|centigrade|fahrenheit|[CcFf])\b)?)?)\s+below\s+(?:zero|0)\b",
                         re.IGNORECASE)
#: "2 and a half", "two and a half": the number and .5; "an hour and a half": 1.5 hours.
_AND_A_HALF = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                         r"twelve)\s+and\s+a\s+half\b", re.IGNORECASE)
_UNIT_AND_A_HALF = re.compile(r"\b(?:an?|one)\s+(minute|hour|day|week|month|year)\s+and\s+a\s+"
                              r"half\b", re.IGNORECASE)
#: An ISO date ("2024-03-04": year, month, day, never read otherwise) as the day, the month
#: name and the year a sentence writes ("4 march 2024").
_ISO_DATE = re.compile(r"(?<![\w.\u2024/-])(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
                       r"(?![\w\u2024/]|[.-]\d)")
#: A fraction of a whole ("half of the users", "half the users", "a quarter of", "two thirds
#: of", "one in five users"): a percentage ("50 percent of"), compared with the evidence's.
_FRACTION = re.compile(
    r"\b(?:(?:a|one)[- ])?(half)(?: of\b|(?= (?:the|all|our|their|its|his|her|your|these|those)\b))"
    r"|\b(a|one|two|three|four)[- ](third|quarter|fifth|tenth)s? of\b"
    r"|\bone (?:in|out of) (two|three|four|five|ten|2|3|4|5|10|20|100)\b(?! (?:and|or|to|-)\b)",
    re.IGNORECASE)
_PARTS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10, "two": 2, "three": 3,
          "four": 4, "five": 5, "ten": 10}
#: Percentages a fraction of thirds is written as ("a third": 33.3), and "33%" rounds to.
_THIRDS = (100 / 3, 200 / 3)


def _fraction(match: re.Match[str]) -> str:
    """"half of" -> "50 percent of", "two thirds of" -> "66.7 percent of", "one in five" ->
    "20 percent" (``_FRACTION``)."""
    if match.group(1):
        return "50 percent of"
    if match.group(2):
        count = 1 if match.group(2).lower() in ("a", "one") else _PARTS[match.group(2).lower()]
        return f"{100 * count / _PARTS[match.group(3).lower()]:.3g} percent of"
    whole = match.group(4).lower()
    return f"{100 / int(_PARTS.get(whole, whole)):.3g} percent"


#: A slash after a number (or a number and a short unit) before a word is "per": "$10/user",
#: "20 GB/month" read "10 usd per user", "20 GB per month" ("km/h" is left to ``_PHRASES``).
_SLASH_RATE = re.compile(r"(?<=\d)((?:\s?[A-Za-z]{1,4})?)\s?/\s?(?=[A-Za-z]{3,})")
#: "24/7" is "24 hours a day, 7 days a week".
_ALL_HOURS = re.compile(r"(?<![\w./])24\s?/\s?7(?:\s?/\s?365)?(?![\w/]|\.\d)")
#: "1st" and "2nd" standing alone are the words "first" and "second" (not "21st", "May 1st").
_FIRST_SECOND = re.compile(r"(?<![\w.\u2024-])(1st|2nd)\b", re.IGNORECASE)
_CURRENCY = re.compile(r"([$\u20ac\u00a3\u00a5])\s*(\d+(?:\.\d+)?)")
_CURRENCY_UNIT = {"$": "usd", "\u20ac": "eur", "\u00a3": "gbp", "\u00a5": "jpy"}


def _scaled(match: re.Match[str]) -> str:
    """``50 million`` -> ``50000000``: a magnitude word is part of the number it follows."""
    if match.re is _MAGNITUDE_LETTER:
        if match.group(1) and _NAME_BEFORE.search(match.string, max(0, match.start() - 40),
                                                  match.start()):
            return match.group(0)  # "Section 4B", "Model 3M": a name
        number, scale = (match.group(1), match.group(2)) if match.group(1) else \
            (match.group(3), match.group(4))
    else:
        number, scale = match.group(1), match.group(2)
    whole, _, frac = number.partition(".")
    digits = _SCALE[scale.lower()]
    frac = frac.ljust(digits, "0")
    value = (whole + frac[:digits]).lstrip("0") or "0"
    rest = frac[digits:].rstrip("0")
    return value + ("." + rest if rest else "")


#: Unicode format characters (category Cf: soft hyphen, zero-width space and joiners, word
#: joiner, bidi marks, BOM, tags). They are invisible and split no word, so the verifier drops
#: them before it tokenises ("re\u200bfunded" is "refunded").
_FORMAT_CHARS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]")
#: Month names and their abbreviations, capitalised as dates write them.
_MONTH = (r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?")
_DAY = r"(\d{1,2}|\d{4})(?:st|nd|rd|th)?\b"
#: A month before or after a day number (or a year) is that number's unit: "May 3" and
#: "3rd of May" both read "3 may", so "May 3" is not "March 3".
_MONTH_BEFORE = re.compile(rf"\b{_MONTH}\s*{_DAY}(?![.:]\d)")
_MONTH_AFTER = re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}")
_MONTHS = {name[:3]: name for name in ("january", "february", "march", "april", "may", "june",
                                       "july", "august", "september", "october", "november",
                                       "december")}


def _month(name: str) -> str:
    return _MONTHS[name[:3].lower()]


#: Cyrillic and Greek letters drawn like Latin ones (Unicode's confusables, the common few).
_LOOKALIKES = str.maketrans("аеорсухіјѕԁАВЕКМНОРСТХІЈЅοΟαΑΒΕΗΙΚΜΝΡΤΧΥΖνρ",
                            "aeopcyxijsdABEKMHOPCTXIJSoOaABEHIKMNPTXYZvp")
_WORD = re.compile(r"\w+")
#: Marks written for an apostrophe ("isn`t", "isn´t", "isnʼt").
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'",
                              "\u02bc": "'"})


def _unmasked(word: re.Match[str]) -> str:
    """A word that mixes Latin letters with Cyrillic or Greek look-alikes ("n\u043et") read as
    the Latin word it is drawn as; a word wholly in another script is left alone."""
    w = word.group(0)
    if w.isascii() or not any(c.isascii() and c.isalpha() for c in w):
        return w
    latin = w.translate(_LOOKALIKES)
    return latin if latin.isascii() else w


#: A unit with an exponent ("m^2" from "m\u00b2"): read as one token, "m2".
_UNIT_POWER = re.compile(r"(?<=[^\W\d_])\^(\d+)")
#: A minus sign before a number ("\u221220"), and a hyphen spaced from the number before it
#: and not from the one after ("3 -5": a range, not -5).
_SIGNED = re.compile(r"\u2212(?=\d)|(?<=\d)\s+-(?=\d)")
#: Numbers joined by a hyphen right after a capitalised word inside a sentence ("the Boeing
#: 737-800"): a model number, not a range (``_RANGE`` does not read U+2011).
_MODEL_NUMBER = re.compile(r"(?<=[^\s.!?:;] )([A-Z][\w]*\s+\d+)-(?=\d)")
#: A version number: compared as text, "2.10" is not "2.1".
_VERSION = re.compile(r"\b(version|ver\.?|release|build|firmware|patch|update|v)(\s?)"
                      r"(\d+(?:\.\d+)+)\b", re.IGNORECASE)
#: A date written with numbers only ("03/04/2025", "2025-03-04", "3.4.25"): one token, compared
#: as written (03/04 may be 3 April or 4 March).
_DATE_NUMBERS = re.compile(r"(?<![\w.\u2024/-])(?:\d{1,2}([/.-])\d{1,2}\1(?:\d{4}|\d{2})"
                           r"|\d{4}([/.-])\d{1,2}\2\d{1,2})(?![\w\u2024/]|[.-]\d)")


_JOINERS = re.compile(r"[./-]")

#: A currency code before its number ("USD 49", "EUR 1,200") is that number's unit, as a
#: sign is ("$49" -> "49 usd").
_CODE_BEFORE = re.compile(r"\b(USD|EUR|GBP|JPY)\s?(\d+(?:\.\d+)?)(?!\d|\.\d)", re.IGNORECASE)
_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SPELLED = {w: i + 1 for i, w in enumerate(_ONES)} | {w: i + 10 for i, w in enumerate(_TEENS)} \
    | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
#: A number word of tens and units ("forty-nine", "twenty one"): one number.
_TENS_UNITS = re.compile(rf"\b({'|'.join(_TENS)})(?:[-\u2010\u2011]|\s(?=\w+\b(?!-)))"
                         rf"({'|'.join(_ONES)})\b", re.IGNORECASE)
#: "one hundred and twenty", "a hundred and 5" (after ``_TENS_UNITS``): one number.
_HUNDREDS = re.compile(
    rf"\b({'|'.join(_ONES)}|a)\s+hundred(?:\s+(?:and\s+)?("
    rf"{'|'.join(_TENS + _TEENS + _ONES)}|\d{{1,2}}))?\b(?!\s+(?:hundred|thousand))",
    re.IGNORECASE)
#: A clock time ("9:00", "17:30", "9:30 a.m."): read as hours and a unit, "9 am", "5.5 pm";
#: an hour of 1 to 11 written without a leading zero and without am/pm is either
#: ("9:00": "9 oclock", stated by "9 am" or "9 pm": ``_clock_said``).
_CLOCK = re.compile(r"(?<![\w.:\u2024])(\d{1,2}):([0-5]\d)(?::[0-5]\d)?"
                    r"(?:\s*([AaPp])\.?\s?[Mm]\b\.?)?(?![\d:])")
#: A dash between two clock times ("9 am-5 pm", "9am\u20135pm"): "to", no minus sign.
_CLOCK_DASH = re.compile(r"(\d\s*[ap]\.?m\.?)\s*[-\u2010\u2011\u2013\u2014]\s*(?=\d)",
                         re.IGNORECASE)


def _spelled_number(match: re.Match[str]) -> str:
    """"forty-nine" -> "49"; "one hundred and twenty" -> "120" (``_TENS_UNITS``,
    ``_HUNDREDS``)."""
    if match.re is _TENS_UNITS:
        return str(_SPELLED[match.group(1).lower()] + _SPELLED[match.group(2).lower()])
    hundreds = 1 if match.group(1).lower() == "a" else _SPELLED[match.group(1).lower()]
    rest = match.group(2)
    rest = 0 if rest is None else int(rest) if rest.isdigit() else _SPELLED[rest.lower()]
    return str(100 * hundreds + rest)


def _clock(match: re.Match[str]) -> str:
    """A clock time as hours and a unit (``_CLOCK``): "17:00" -> "5 pm", "9:30" -> "9.5
    oclock"; an hour over 23 is left as written."""
    hour, minute, marker = int(match.group(1)), int(match.group(2)), match.group(3)
    if hour > 23 or marker and not 1 <= hour <= 12:
        return match.group(0)
    if marker:
        unit = marker.lower() + "m"
    elif hour == 0 or hour == 12 or hour > 12 or match.group(1).startswith("0"):
        unit = "am" if hour < 12 else "pm"
        hour = hour % 12 or 12
    else:
        unit = "oclock"
    value = hour + minute / 60
    return f"{value:.6g} {unit}"


def _half(match: re.Match[str]) -> str:
    """"2 and a half" -> "2.5", "an hour and a half" -> "1.5 hours" (``_AND_A_HALF``)."""
    if match.re is _UNIT_AND_A_HALF:
        return f"1.5 {match.group(1)}s"
    whole = match.group(1)
    return f"{whole if whole.isdigit() else _SPELLED[whole.lower()]}.5"


def _signed_word(match: re.Match[str]) -> str:
    """"minus 20" -> "-20" unless a number comes just before ("50 minus 20": a difference)."""
    before = match.string[max(0, match.start() - 24):match.start()].split()[-2:]
    if any(any(c.isdigit() for c in t) for t in before):
        return match.group(0)
    return "-"


def _iso_date(match: re.Match[str]) -> str:
    """"2024-03-04" -> "4 march 2024" (``_ISO_DATE``)."""
    month = list(_MONTHS.values())[int(match.group(2)) - 1]
    return f"{int(match.group(3))} {month} {match.group(1)}"


def _marked(match: re.Match[str]) -> str:
    """Digits joined by dots, slashes or hyphens, joined by U+2024 (one token, ``_number``)."""
    return _JOINERS.sub("\u2024", match.group(0))


def _version(match: re.Match[str]) -> str:
    """"version 2.10" -> "version 2\u202410", "v2.10" -> "v 2\u202410" (``_marked``)."""
    return f"{match.group(1)} {_JOINERS.sub(chr(0x2024), match.group(3))}"


def _surface(text: str) -> str:
    """The text ``_features`` tokenises: NFKC, one apostrophe, no thousands commas, no ``_=``,
    magnitudes folded into their number (``$50 million`` -> ``$50000000``, ``50k`` ->
    ``50000``) and a currency sign written as a unit after its number (``$5`` -> ``5 usd``);
    superscripts an exponent ("10\u00b2" -> "10^2", "m\u00b2" -> "m2"), a minus sign a
    hyphen, versions and numeric dates one token each (``_marked``), and a model number's
    hyphen ("Boeing 737-800") no range."""
    if not text.isascii():
        text = _WORD.sub(_unmasked, _FORMAT_CHARS.sub("", text))
    norm = unicodedata.normalize("NFKC", fold_superscripts(text.translate(_APOSTROPHES)))
    if "^" in norm:
        norm = _UNIT_POWER.sub(r"\1", norm)  # "m^2" reads "m2", as before
    if any(c in norm for c in " '"):
        norm = _GROUPED.sub(lambda m: re.sub(r"[ ',]", "", m.group(0)), norm)
    elif "," in norm:
        norm = _GROUPED.sub(lambda m: m.group(0).replace(",", ""), norm)
    if "-" in norm:
        norm = _ISO_DATE.sub(_iso_date, norm)
    if "/" in norm:
        norm = _ALL_HOURS.sub("24 hours a day, 7 days a week", norm)
    norm = _BELOW_ZERO.sub(r"-\1\2", _SIGN_WORD.sub(_signed_word, norm))
    norm = _UNIT_AND_A_HALF.sub(_half, _AND_A_HALF.sub(_half, norm))
    if "alf" in norm or " of" in norm or "one " in norm.lower():
        norm = _FRACTION.sub(_fraction, norm)
    norm = _SIGNED.sub("-", _DATE_NUMBERS.sub(_marked, _VERSION.sub(_version, norm)))
    if ":" in norm:
        norm = _CLOCK.sub(_clock, norm)
    norm = _CLOCK_DASH.sub(r"\1 to ", norm)
    norm = _HUNDREDS.sub(_spelled_number, _TENS_UNITS.sub(_spelled_number, norm))
    if "-" in norm:  # "Boeing 737-800" is a model, not a range: a non-breaking hyphen
        norm = _MODEL_NUMBER.sub("\\1\u2011", norm)
    norm = _MONTH_AFTER.sub(lambda m: f"{m.group(1)} {_month(m.group(2))}", norm)
    norm = _MONTH_BEFORE.sub(lambda m: f"{m.group(2)} {_month(m.group(1))}", norm)
    norm = _FIRST_SECOND.sub(lambda m: "first" if m.group(1)[0] == "1" else "second", norm)
    norm = _KEY_VALUE.sub(" ", norm)
    norm = _NON.sub(r"\1", _AT_LEAST.sub(r"at least \1", _DECIMAL_COMMA.sub(r"\1.\2", norm)))
    norm = _MAGNITUDE.sub(_scaled, _THOUSANDS_COMMA.sub("", norm))
    norm = _MAGNITUDE_LETTER.sub(_scaled, norm)
    norm = _CURRENCY.sub(lambda m: f"{m.group(2)} {_CURRENCY_UNIT[m.group(1)]}", norm)
    norm = _CODE_BEFORE.sub(lambda m: f"{m.group(2)} {m.group(1).lower()}", norm)
    if "/" in norm:
        norm = _SLASH_RATE.sub(r"\1 per ", norm)
    return _TOKEN_BREAKERS.sub(" ", norm)


@lru_cache(maxsize=16384)
def _name_parts(lowered: str) -> tuple[str, ...]:
    """The content words of one capitalised token (lower-cased), phrases folded, stemmed: what
    it makes mandatory for ``_features``."""
    return tuple(_stem(part) if not part[0].isdigit() else part
                 for part in (_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(_fold_phrases(lowered)))
                 if part not in _STOP)


@lru_cache(maxsize=65536)
def _features(text: str, *, sentence_start_exempt: bool = True) -> _Features:
    norm = _surface(text)
    raw_tokens = _TOKEN.findall(norm)
    lower = _spelled_units(_fold_phrases(norm.lower()))
    tokens = [_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(lower)]
    negated = any(_negates(t) for t in tokens)
    content: set[str] = set()
    numbers: set[str] = set()
    number_units: set[tuple[str, str]] = set()
    number_labels: set[tuple[str, str]] = set()
    for i, tok in enumerate(tokens):
        if _is_number(tok):
            num = _number(tok)
            numbers.add(num)
            content.add(num)
            for j in (i + 1, i + 2):  # "3 days", "3 business days"
                if j < len(tokens):
                    number_units.add((num, _stem(tokens[j])))
                    if tokens[j] in _RATE and j + 1 < len(tokens):  # "$20 per month"
                        number_units.add((num, _stem(tokens[j + 1])))
            if i > 0:  # "max_rpm=3200"
                number_labels.add((num, _stem(tokens[i - 1])))
            continue
        if _CJK_RUN.fullmatch(tok):
            run = tok
            content.update(run[j:j + 2] for j in range(max(1, len(run) - 1)))
            continue
        if _is_content(tok):
            content.add(_stem(tok))
    # an acronym spelled like a stopword ("US", "IT", "AT&T") is a name, not "us" / "it"
    acronyms = {t.lower() for t in raw_tokens if len(t) > 1 and t.isalpha() and t.isupper()
                and t.lower() in _STOP}
    content |= acronyms
    mandatory: set[str] = set(numbers)
    for i, tok in enumerate(raw_tokens):
        if tok[0].isdigit() or _CJK_RUN.fullmatch(tok):
            continue
        if sentence_start_exempt and i == 0:
            continue
        if tok.lower() in acronyms:
            mandatory.add(tok.lower())
        elif any(ch.isupper() for ch in tok) and tok.lower() not in _STOP:
            mandatory.update(_name_parts(tok.lower()))
    for unit, implied in _UNIT_IMPLIES.items():
        if unit in content:
            content.add(implied)
    words = frozenset(c for c in content if c not in numbers)
    clauses = []
    parts = []
    polar: set[tuple[str, bool]] = set()
    scoped: set[tuple[str, bool]] = set()
    negated_parts: list[tuple[frozenset[str], frozenset[str]]] = []
    bounds: set[tuple[str, str]] = set()
    bound_units: set[tuple[str, str, str]] = set()
    unbounded: set[str] = set()
    approximate: set[str] = set()
    for part in _CLAUSE_BREAK.split(lower):
        ctoks = [_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(part)]
        if not ctoks:
            continue
        clauses.append(frozenset(_clause_content(ctoks)))
        for sub in _PART_BREAK.split(part):
            if stoks := [_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(sub)]:
                pcontent = _clause_content(stoks)
                parts.append(frozenset(pcontent))
                # "it is not true that P" turns P's own negation round ("... cannot ...")
                pneg = any(_negates(t) for t in stoks if t != "notthat") != ("notthat" in stoks)
                polar.update((w, pneg) for w in pcontent)
                sub_scoped = _scoped_polarity(stoks)
                scoped.update(sub_scoped)
                if pneg:
                    negated_parts.append((frozenset(pcontent), frozenset(
                        w for w, neg in sub_scoped if neg and w in pcontent)))
        for i, tok in enumerate(ctoks):
            if _is_number(tok) and (b := _bound(ctoks, i)):
                bounds.add((_number(tok), b))
                bound_units.add((_number(tok), b, _stem(ctoks[i + 1]) if i + 1 < len(ctoks)
                                 else ""))
                if ctoks[i - 1] in _APPROXIMATE or " ".join(ctoks[i - 2:i]) in _APPROXIMATE:
                    approximate.add(_number(tok))
            elif _is_number(tok):
                unbounded.add(_number(tok))
    number_nouns = set()
    measured = {n for n, u in number_units if u in _UNITS}
    for m in _NUMBER_NOUN.finditer(norm):
        if _NAME_BEFORE.search(norm, max(0, m.start() - 40), m.start()):
            continue  # a model number or the like: "Nimbus 4 covers"
        num = _number(_NUMBER_WORDS.get(m.group(1).lower(), m.group(1)))
        if _ORDINAL.fullmatch(num):
            continue  # "23rd place" is no count of places
        if num not in measured and (word := _counted_word(m.group(2).lower())):
            number_nouns.add((num, word))
    ranges, loose = _ranges(lower)
    bounds |= {(lo, ">=") for lo, _ in ranges} | {(hi, "<=") for _, hi in ranges}
    pairs = frozenset((_number(a), _number(b)) for a, b in _PAIR.findall(lower)) \
        if "-" in lower or "\u2011" in lower or "\u2013" in lower or "\u2014" in lower \
        else frozenset()
    qualified = frozenset(
        (_number(tok), _stem(tokens[i + 1]), _stem(tokens[i + 2]))
        for i, tok in enumerate(tokens[:-2]) if _is_number(tok)
        and _stem(tokens[i + 2]) in _QUALIFIED_UNITS and _is_content(tokens[i + 1])
        and not _is_number(tokens[i + 1]) and tokens[i + 1] not in _UNITS
        and tokens[i + 1] not in _RATE and _stem(tokens[i + 1]) not in _UNITS)
    joined = frozenset((_stem(a), _stem(b), _stem(a + b)) for a, b in _HYPHENATED.findall(lower))
    # the low end of "3 to 5 days" counts days too
    number_units |= {(lo, u) for lo, hi in ranges for n, u in number_units
                     if n == hi and u in _UNITS}
    clock_ranges, loose_clocks = _clock_ranges(lower)
    return _Features(frozenset(content), words, frozenset(numbers), frozenset(number_units),
                     frozenset(number_units | number_labels),
                     frozenset(mandatory & content | (mandatory & numbers)), negated,
                     frozenset(polar), tuple(clauses), frozenset(bounds),
                     tuple(parts), frozenset(number_nouns), frozenset(scoped),
                     tuple(negated_parts), ranges,
                     frozenset(numbers) if loose is None else loose, frozenset(bound_units),
                     frozenset(unbounded), pairs, qualified, joined, clock_ranges, loose_clocks,
                     _rates(tokens), frozenset(approximate))


_CLOCK_TIME = r"(\d+(?:\.\d+)?)\s*(am|pm|oclock)\b"
#: Two clock times joined by "to", "until", "till" or a dash (``_CLOCK_DASH`` wrote "to").
_CLOCK_RANGE = re.compile(rf"{_CLOCK_TIME}\s*(?:to|until|till|through|[-\u2013\u2014])\s*"
                          rf"{_CLOCK_TIME}")
_CLOCK_ANY = re.compile(_CLOCK_TIME)


def _clock_ranges(lower: str) -> tuple[frozenset, frozenset]:
    """``_Features.clock_ranges`` and ``loose_clocks`` of the folded text ``lower``."""
    if "am" not in lower and "pm" not in lower and "oclock" not in lower:
        return frozenset(), frozenset()
    ranges = frozenset(((_number(m.group(1)), m.group(2)), (_number(m.group(3)), m.group(4)))
                       for m in _CLOCK_RANGE.finditer(lower))
    rest = _CLOCK_RANGE.sub(" ", lower) if ranges else lower
    return ranges, frozenset((_number(m.group(1)), m.group(2))
                             for m in _CLOCK_ANY.finditer(rest))


#: Words after a number (and one word after it: "$10 per user", "5 seats per team") that
#: open a rate's denominator.
_RATE_OPENERS = frozenset({"per", "each", "every", "a", "an"})


def _rates(tokens: list[str]) -> frozenset[tuple[str, str]]:
    """``_Features.rates`` of the folded tokens."""
    out = set()
    for i, tok in enumerate(tokens):
        if not _is_number(tok):
            continue
        j = i + 1
        unit = j < len(tokens) and tokens[j] in _UNITS
        if j < len(tokens) and _is_content(tokens[j]) and not _is_number(tokens[j]) \
                and tokens[j] not in _RATE_OPENERS:
            j += 1  # "$10 per user" reads "10 usd per user"; "5 seats per team"
        while j + 1 < len(tokens) and tokens[j] in _RATE_OPENERS \
                and (j == i + 1 or unit or tokens[j] not in ("a", "an")) \
                and not _is_number(tokens[j + 1]) and _is_content(tokens[j + 1]):
            out.add((_number(tok), _stem(tokens[j + 1])))
            j += 2
    return frozenset(out)


#: Two numbers joined by a hyphen or dash, not inside a date, version or longer chain:
#: ``_Features.pairs``.
_PAIR = re.compile(r"(?<![\w.\u2024\u2011-])(\d+(?:\.\d+)?)\s?[-\u2011\u2013\u2014]\s?"
                   r"(\d+(?:\.\d+)?)(?![\w\u2024\u2011]|[.-]\d)")
#: Two words joined by a hyphen ("water-proof"): ``_Features.joined``.
_HYPHENATED = re.compile(r"\b([a-z]{2,})-([a-z]{2,})\b")
#: Units a word between them and their number qualifies ("14 business days", "2 full hours").
_QUALIFIED_UNITS = frozenset(_DIMENSIONS) - {"usd", "eur"} | {"people", "person", "page",
                                                               "seat", "mile"}


_CARDINALS = [w for w, d in _NUMBER_WORDS.items() if d.isdigit()
              and w not in ("once", "twice", "single", "double", "triple")]
_RANGE_END = rf"\d+(?:\.\d+)?|{'|'.join(sorted(_CARDINALS, key=len, reverse=True))}"
#: A range of two numbers: "3-5", "3\u20135 days", "$3-$5", "3 to 5", "between 3 and 5"
#: ("from 3 to 5" is matched to be set aside: a change, not a range).
_RANGE = re.compile(rf"(?<![\w.\u2024-])(?:(between|from)\s+)?({_RANGE_END})"
                    r"(?:\s?(?:usd|eur|gbp|jpy|percent))?(\s?[-\u2013\u2014]\s?|\s+to\s+|\s+and\s+)"
                    rf"({_RANGE_END})(?![\w\u2024]|\.\d)")


def _ranges(lower: str) -> tuple[frozenset[tuple[str, str]], frozenset[str] | None]:
    """The ranges of ``lower`` (``_Features.ranges``: a low end below its high end, not two
    years, "and" only after "between", "to" not after "from") and the numbers stated outside
    them (``None``: no range, every number)."""
    if not any(c.isdigit() for c in lower) and " to " not in lower and "between" not in lower:
        return frozenset(), None
    ranges, spans = set(), []
    for m in _RANGE.finditer(lower):
        lead, sep = m.group(1), m.group(3).strip()
        if (sep == "and") != (lead == "between") or sep == "to" and (
                lead == "from" or not m.group(2)[-1:].isalnum() or m.end(2) != m.start(3)):
            continue
        lo, hi = (_number(_NUMBER_WORDS.get(g, g)) for g in (m.group(2), m.group(4)))
        if not float(lo) < float(hi) or _is_year(lo) and _is_year(hi):
            continue
        ranges.add((lo, hi))
        spans.append(m.span())
    if not ranges:
        return frozenset(), None
    rest, last = [], 0
    for start, end in spans:
        rest.append(lower[last:start])
        last = end
    rest.append(lower[last:])
    loose = {_number(t) for t in (_NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(" ".join(rest)))
             if _is_number(t)}
    return frozenset(ranges), frozenset(loose)


#: "an hour", "a week", "half an hour", "a half day": a quantity of one (or half a) unit,
#: unless a rate ("$20 a month", "twice a week", "3 meals a day": a number or a frequency
#: word just before). "a second" is left alone ("a second time").
_SPELLED_UNIT = re.compile(r"\b(half an?|an? half|an?)\s+(minute|hour|day|week|fortnight|"
                           r"month|year)\b(?![-\w])")
_RATE_WORDS = frozenset({"once", "twice", "thrice", "times", "time", "per", "every", "each"})


def _spelled_units(lower: str) -> str:
    """``lower`` with "an hour" read "1 hour", "half an hour" "0.5 hour" (``_SPELLED_UNIT``)."""
    if " a" not in lower and not lower.startswith("a"):
        return lower

    def quantity(m: re.Match[str]) -> str:
        before = re.findall(r"[\w.]+", lower[max(0, m.start() - 40):m.start()])[-3:]
        if any(t[0].isdigit() or t in _RATE_WORDS or t in _NUMBER_WORDS for t in before):
            return m.group(0)
        return f"{'0.5' if 'half' in m.group(1) else '1'} {m.group(2)}"
    return _SPELLED_UNIT.sub(quantity, lower)


#: A number and the word right after it (a space or hyphen between, no punctuation):
#: "20 users", "2-year", "two seats".
_NUMBER_NOUN = re.compile(
    rf"(?<![\w.\u2024])({_NUM}|{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})"
    r"(?:\s+|-)((?:(?![\d_])\w)+)", re.IGNORECASE)
_NAME_BEFORE = re.compile(r"\b[A-Z][\w-]*\s*\Z")


@lru_cache(maxsize=8192)
def _counted_word(word: str) -> str | None:
    """The stemmed content word ``_features`` reads ``word`` as (after ``_PHRASES``: "hrs" is
    "hour"), or ``None`` when it is a stop word, a negation or a number word."""
    tokens = _TOKEN.findall(_fold_phrases(word))
    if not tokens or tokens[0] in _NUMBER_WORDS or tokens[0][0].isdigit() \
            or not _is_content(tokens[0]):
        return None
    return _stem(tokens[0])


@lru_cache(maxsize=4096)
def _windows(text: str) -> tuple[tuple[int, int], ...]:
    """Character spans of one- and two-sentence windows of a passage: every sentence (from
    ``text.passage_sentence_spans``) in order, then every pair of neighbours in order."""
    spans = passage_sentence_spans(text)
    windows = list(spans)
    windows += [(spans[i][0], spans[i + 1][1]) for i in range(len(spans) - 1)]
    return tuple(windows)


def _title_speaks(cf: _Features, title: _Features | None) -> bool:
    """Whether a passage's title names what the claim is about: it states a name of the
    claim, or every word of it is a word of the claim ("Starter kit" for "The starter kit
    weighs 680 grams")."""
    return title is not None and bool((cf.mandatory - cf.numbers) & title.content
                                      or title.words and title.words <= cf.words)


def _with_title(cf: _Features, wf: _Features, title: _Features | None) -> _Features:
    """The window ``wf`` read with its passage's title, when the title names what the claim
    is about (``_title_speaks``: "three brightness levels" under the title "Vela lamp" speaks
    of the Vela lamp): the title's words count as the window's, with the title's polarity.
    Numbers, units, bounds and clause parts stay the window's own; any other title adds
    nothing (a "Refund policy" title does not make every sentence say "refund")."""
    if not _title_speaks(cf, title):
        return wf
    extra = title.words - wf.content
    if not extra:
        return wf
    return replace(wf, content=wf.content | extra, words=wf.words | extra,
                   mandatory=wf.mandatory | (title.mandatory & extra),
                   polar=wf.polar | {(w, n) for w, n in title.polar if w in extra},
                   scoped=wf.scoped | {(w, n) for w, n in title.scoped if w in extra})


def _with_header(wf: _Features, header: _Features) -> _Features:
    """A Markdown table row's window read with its table's header row: the column names
    count as the row's words ("| Basic | 50 GB |" under "| Plan | Storage |" speaks of the
    Basic plan's storage); numbers, units and clause parts stay the row's own."""
    extra = header.words - wf.content
    if not extra:
        return wf
    return replace(wf, content=wf.content | extra, words=wf.words | extra,
                   polar=wf.polar | {(w, n) for w, n in header.polar if w in extra},
                   scoped=wf.scoped | {(w, n) for w, n in header.scoped if w in extra})


#: A Markdown table's delimiter row ("| --- | :---: |") and any row of one.
_TABLE_DELIMITER = re.compile(r"\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*")
_TABLE_ROW = re.compile(r"\s*\|.*\|\s*")


def _table_headers(text: str, spans) -> dict[int, int]:
    """For each sentence (index into ``spans``) that is a row of a Markdown table's body, the
    index of its table's header row."""
    out: dict[int, int] = {}
    header = None
    for k, (start, end) in enumerate(spans):
        line = text[start:end]
        if _TABLE_DELIMITER.fullmatch(line) and k > 0 and _TABLE_ROW.fullmatch(
                text[spans[k - 1][0]:spans[k - 1][1]]):
            header = k - 1
        elif header is not None and _TABLE_ROW.fullmatch(line):
            out[k] = header
        else:
            header = None
    return out


def _quantities(f: _Features) -> set[tuple[str, str]]:
    """(number, unit) pairs of a text whose unit is a known unit ("2 l", "3 day")."""
    return {(n, u) for n, u in f.number_units if u in _UNITS}


def _unmatched_quantities(cf: _Features, wf: _Features) -> set[tuple[str, str]]:
    """The claim's quantities that the window does not state with the same unit (after the
    number, or as its label just before it: "max_rpm=3200") nor as the same quantity in
    another unit ("0.8 kg" / "800 grams", ``_value``; "9:00" / "9 am", ``_clock_said``):
    "holds 2 litres" is not supported by "1.7 litres ... a 2-year warranty", whose 2 counts
    years."""
    values = {_value(n, u) for n, u in wf.number_labels if u in _DIMENSIONS}
    return {(n, u) for n, u in _quantities(cf) - wf.number_labels
            if not _clock_said(n, u, wf.number_labels) and not (u in _DIMENSIONS and any(
                d == dim and _same(v, value) for d, v in values
                for dim, value in [_value(n, u)]))}


def said_otherwise(cf: _Features, wf: _Features) -> frozenset[str]:
    """The claim's content words the window states in another form: the number and unit of a
    quantity it states in another unit or spelling ("0.8 kg" / "800 grams", "two weeks" /
    "14 days", "9:00" / "9 am"), and the parts of a hyphenated word it writes as one
    ("water-proof" / "waterproof"), or a word it hyphenates. Counted as covered by the
    offline judges' coverage, as the evidence check compares them."""
    out: set[str] = set()
    for n, u in _quantities(cf) - _unmatched_quantities(cf, wf):
        if (n, u) not in wf.number_labels:
            out |= {n, u} - wf.content
    for a, b, ab in cf.joined:
        if ab in wf.content:
            out |= {a, b} - wf.content
    out |= {ab for _, _, ab in wf.joined} & cf.content
    out |= {w for w in ("minimum", "maximum") if _said_by_bound(w, cf, wf)}
    if wf.clock_ranges:  # "closes at 5 pm" / "open 9 am to 5 pm"
        out |= {w for w in cf.words & (_OPENING_WORDS | _CLOSING_WORDS)
                if _said_by_clock_range(w, cf, wf)}
    return frozenset(out & cf.content)


def _support_problem(cf: _Features, wf: _Features) -> str | None:
    """Why the window ``wf`` does not support the claim ``cf``, or ``None`` when it does.

    The rules of the module docstring, in order: coverage of the claim's content words,
    names and numbers, negation per word, quantities and bounds, what is said together."""
    missing = cf.content - wf.content - said_otherwise(cf, wf)
    if cf.mandatory & missing:
        return f"the passage does not state {', '.join(sorted(cf.mandatory & missing))}"
    if len(missing) > max(MAX_MISSING_FILLERS if not missing - _FILLERS else 0,
                          (len(cf.content) - 2) // MISSING_WORD_PER):
        return f"the passage does not say {', '.join(sorted(missing))}"
    return statement_problem(cf, wf)


#: Frequency words that a claim's frequency word is not ("always" is not "rarely"), by the
#: class ``_QUANTIFIERS`` gives them.
_FREQUENCY_CLASH = {"always": {"rarely", "sometimes", "often", "usually", "never"},
                    "usually": {"rarely", "never"}, "often": {"rarely", "never"},
                    "rarely": {"always", "usually", "often"},
                    "never": {"always", "usually", "often", "sometimes"}}
_FREQUENCY = {_stem(w): c for w, c in _QUANTIFIERS.items() if c in _FREQUENCY_CLASH}


def _opposites(cf: _Features, wf: _Features) -> list[tuple[str, str]]:
    """Pairs (claim word, window word) that state opposites with the same polarity
    ("enabled" / "disabled", "refundable" / "non-refundable", "always" / "rarely"), where the
    window does not also state the claim's word with the claim's polarity. A negated opposite
    agrees ("not disabled" / "enabled") and is not listed."""
    out = []
    window: dict[str, set[bool]] = {}
    for w, neg in wf.scoped:
        window.setdefault(w, set()).add(neg)
    said = {(_FREQUENCY[w], neg) for w, neg in wf.scoped if w in _FREQUENCY}
    for a, neg in sorted(cf.scoped):
        if a[0].isdigit() or neg in window.get(a, ()) or _said_by_kin(a, {neg}, window) \
                or _said_by_clock_range(a, cf, wf):
            continue
        if a in _FREQUENCY and (_FREQUENCY[a], neg) not in said:
            if clash := sorted(c for c, n in said if n == neg
                               and c in _FREQUENCY_CLASH[_FREQUENCY[a]]):
                out.append((a, clash[0]))
                continue
        for b, negs in window.items():
            if neg in negs and _opposite(a, b):
                out.append((a, b))
                break
    return out


def _flipped(cf: _Features, wf: _Features) -> list[str]:
    """The claim's content words that the window states only with the other polarity (per
    clause part, ``polar``), less those a negation's scope excuses: a word outside the scope
    on the negated side (its subject, an adjunct after it) is no flip when the other side does
    not assert any word in that scope. "Items bought on sale cannot be refunded" is not
    opposed by "Sale items can be exchanged but not refunded" (the window negates "refunded"
    too); "The warranty covers the screen" is opposed by "The screen is not covered" (the
    claim asserts "covered")."""
    part = [w for w, neg in cf.polar if w in wf.content and (w, neg) not in wf.polar]
    return sorted(w for w in part if not _excused(w, *((cf, wf) if (w, True) in cf.polar
                                                         else (wf, cf))))


def _excused(word: str, negating: _Features, other: _Features) -> bool:
    """Whether ``negating`` negates ``word`` only as a word outside its negations' scope,
    each scope's words not asserted by ``other`` (see ``_flipped``)."""
    for content, scope in negating.negated_parts:
        if word not in content:
            continue
        if word in scope or any(_asserts(other, x) for x in scope):
            return False
    return True


def _asserts(f: _Features, word: str) -> bool:
    """Whether ``f`` states ``word`` (``_stated``: its stem, a long common prefix as in
    "renew" / "renewal", or a synonym) outside any negation."""
    return _stated(word, {w for w in f.content if (w, True) not in f.polar})


def _loose_bounds(cf: _Features, wf: _Features) -> list[str]:
    """Numbers of the claim the window bounds from below ("10+ users", "at least 10") while
    the claim states them without a bound ("10 users"), unless the claim names the bound
    apart ("the minimum order is $10": ``_BOUND_NOUNS``)."""
    bounded = {n for n, _ in cf.bounds}
    if _BOUND_NOUNS[">="] & {w for w, _ in cf.scoped}:
        return []
    return sorted(n for n, b in wf.bounds if b == ">=" and n in cf.numbers and n not in bounded)


def statement_problem(cf: _Features, wf: _Features) -> str | None:
    """Why the window ``wf`` does not state what it shares with the claim ``cf`` as the claim
    does, whatever its coverage, or ``None``: a word negated on one side only, a quantity not
    stated with its unit, a bound or a count not stated, a number said with another name."""
    if flipped := _flipped(cf, wf):
        return f"negated on one side only: {', '.join(flipped)}"
    if opposed := _opposites(cf, wf):
        return "opposite words: " + ", ".join(f"{a} / {b}" for a, b in opposed)
    if hedges := sorted(_hedge_classes(cf) - _hedge_classes(wf, evidence=True)):
        return f"the passage does not say {', '.join(hedges)} (how often or how much)"
    if loose := _loose_bounds(cf, wf):
        return f"the passage says at least {', '.join(loose)} where the claim says exactly"
    if _unmatched_quantities(cf, wf):
        return "a quantity is not stated with its unit"
    if any(not _bound_by_value(n, b, cf, wf) for n, b in cf.bounds - wf.bounds):
        return "a bound (within, more than) is not stated"
    if unsaid := sorted(cf.number_nouns - wf.number_labels):
        return "not stated with its number: " + ", ".join(f"{n} {w}" for n, w in unsaid)
    names = cf.mandatory - cf.numbers
    for part in cf.parts:
        for number in part & cf.numbers:
            named = part & names - _UNITS  # "GB" is a unit, not the name a number belongs to
            units = {u for n, u in cf.number_units if n == number and u in _UNITS}
            rivals = {n for n, u in wf.number_labels if u in units and n != number}
            if named and not any(number in wp and wp & named for wp in wf.parts) and any(
                    wp & named & names and wp & rivals for wp in wf.parts):
                return f"{number} is not said with {', '.join(sorted(part & names))}"
    return None


def _contradiction(cf: _Features, wf: _Features, coverage: float) -> str | None:
    for number, word in sorted(cf.number_nouns - wf.number_labels):
        other = sorted(n for n, w in wf.number_nouns if w == word and n != number)
        if other:
            return (f"number mismatch: the claim says {number} {word}, the passage says "
                    f"{', '.join(other)} {word}")
    for number, unit in sorted(_unmatched_quantities(cf, wf)):
        other = sorted(n for n, u in _quantities(wf) if u == unit and n != number)
        if other:
            return (f"number mismatch: the claim says {number} {unit}, the passage says "
                    f"{', '.join(other)} {unit}")
    missing_numbers = cf.numbers - wf.numbers - said_otherwise(cf, wf)
    if missing_numbers and wf.numbers:
        claim_units = {u for n, u in cf.number_units if n in missing_numbers}
        window_units = {u for n, u in wf.number_units if n not in cf.numbers}
        shared = claim_units & window_units & _UNITS
        if shared or (not claim_units and wf.numbers - cf.numbers):
            return (f"number mismatch: the claim says {', '.join(sorted(missing_numbers))}, "
                    f"the passage says {', '.join(sorted(wf.numbers - cf.numbers))}")
        if cf.words and len(cf.words & wf.words) == len(cf.words) and wf.numbers - cf.numbers:
            return (f"number mismatch: the claim says {', '.join(sorted(missing_numbers))}, "
                    f"the passage says {', '.join(sorted(wf.numbers - cf.numbers))}")
    if coverage >= CONTRADICTION_COVERAGE:
        if flipped := _flipped(cf, wf):
            return f"polarity mismatch: negated on one side only ({', '.join(flipped)})"
        if opposed := _opposites(cf, wf):
            return ("polarity mismatch: opposite words ("
                    + ", ".join(f"{a} / {b}" for a, b in opposed) + ")")
    return None


def __getattr__(name: str):
    """``HeuristicVerifier`` and its window search moved to ``judges.heuristic``; they stay
    importable from here."""
    if name in ("HeuristicVerifier", "_candidate_windows", "_passage_windows", "_spellings"):
        from ..judges.offline import heuristic

        return getattr(heuristic, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
