"""The quote check: what any judge returns is checked before it is accepted.

``check_verdict(verdict, passages, claim)`` proves what evidence can prove (issue 20): the
quotes occur verbatim up to typography, are about the claim, state its names (in the quote, the
sentence around it or the passage title) and numbers (as quantities with units, or computed
from quoted numbers), speak to every part of it, and agree with it on negation (per clause and
scope, inside words, opposite words) and quantifiers. Otherwise the verdict becomes
``unsupported``, with the judge's own verdict and the reason kept beside it.
``evidence_coverage`` reports how much of a claim the quotes state.

The rules live beside this module (``evidence``: reading the quotes; ``claim_rules``,
``name_rules``, ``number_rules``, ``polarity_rules``), on the words the language layer reads
(``language.features.text_features``). The offline judges' own support rules live in
``judges.offline.heuristic``.
"""

from __future__ import annotations

import math

from ..language.features import text_features
from ..language.lexicon import DISCOURSE, FILLERS, NEGATIVE_WORDS, STOP_WORDS
from ..language.words import CJK_RUN, CURATED, clip, covers_any, is_stated
from ..records import Evidence, Passage, Verdict
from .claim_rules import (
    claim_parts,
    excepted_name,
    hedged_problem,
    negated_inside,
    opening_name,
    restates,
    said_through_opposite,
    unattached,
    unsaid_phrase,
)
from .evidence import (
    CONJUNCT,
    WORD_GROUP,
    answered_text,
    by_quote,
    holds,
    read_evidence,
)
from .name_rules import (
    VERB_ITEM,
    added_subject,
    date_word_problem,
    name_entities,
    slot_problem,
    slot_rival,
    subject_rival,
)
from .number_rules import (
    number_problem,
    rival_in_quotes,
    said_by_bound,
    said_by_clock_range,
)
from .polarity_rules import (
    clause_polarity_problem,
    kin_in_part,
    particle_problem,
    polarity_problem,
    quantifier_problem,
)

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
       a ``contradicted`` verdict's evidence does not say the claim as it is (``restates``:
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
       exchanges too", ``added_subject``):
       at least
       ``QUOTE_PART_COVERAGE`` of each part's content words (stems, long shared prefixes,
       ``SYNONYMS``) are stated, so that a rider (", and shipping is free") is refused while a
       paraphrase is not refused for its wording; a rider without a comma ("in cash", "with
       free return shipping": ``unsaid_phrase``) is refused when the rest of the claim is all
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
       ``clause_polarity_problem``),
       nor said through its opposite with the same polarity (non-/un-/in-/im-/ir-/il-/dis-,
       de- before a verb, -less, ``ANTONYM_PAIRS``, ``OPPOSITE_WORDS``: enabled/disabled,
       accepted/rejected, issued/denied, incur/avoid, buyer/seller, a verb with up/down or
       on/off; ``OPPOSITE_FAMILIES``, every word of one side against every word of the
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
       claim has none (``hedged_problem``); and no exception naming a name of the claim
       ("all plans include SSO except the Basic plan": ``excepted_name``);
    9. not swap a number or a name of the evidence into another role: a number stated only
       apart from its claim part's words while the evidence states those words with another
       number (``unattached``; a parenthesis is a part of its own), a name of the claim
       whose place (the word after it: "Pro plan", "Alice Grant wrote") the evidence sentence
       stating the rest of the claim gives to another name (``slot_rival``), a claim's
       subject name taken from one clause while every evidence clause part stating the rest
       of the claim opens with another name ("The Pico 2 is waterproof." from "The Pico 2
       weighs 800 g. The Vela lamp is waterproof." or "Unlike the Pico 2, the Vela lamp is
       waterproof.": ``subject_rival``), a name right
       after a content word that the evidence writes only with another name ("coach Leo
       Park" against "coach Ana Ruiz": ``slot_problem``), a day or month word and a name
       trading places (``date_word_problem``); a quote of several sentences is read sentence
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
        for quote, cited in by_quote(items).items():
            holding = [pid for pid in cited if holds(by_id[pid], quote)]
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


def _evidence_problem(items: list[Evidence], by_id: dict[str, Passage], label: str,
                      claim: str | None) -> str | None:
    """Why the evidence items (each already found in its passage) cannot carry the verdict,
    or ``None`` when they can."""
    return _quote_problem(items, by_id, label, claim)


def _quote_problem(items: list[Evidence], by_id: dict[str, Passage], label: str,
                   claim: str | None) -> str | None:
    """Why the evidence ``items`` cannot carry the verdict, or ``None`` when they can: the
    rules 3-8 of ``check_verdict``, in its order."""
    ev = read_evidence(items, by_id, claim)
    shown = clip(" | ".join(dict.fromkeys(i.quote for i in items)))
    qf = text_features(ev.quotes, sentence_start_exempt=False)
    groups = [t for t in WORD_GROUP.findall(ev.quotes) if t.lower() not in STOP_WORDS]
    if (len(qf.content) < MIN_QUOTE_CONTENT_WORDS or not CJK_RUN.search(ev.quotes)
            and len(groups) < MIN_QUOTE_CONTENT_WORDS) and not ev.whole:
        return (f"{label} verdict's quote {shown!r} is too short to carry evidence "
                f"({len(qf.content)} content word(s); needs {MIN_QUOTE_CONTENT_WORDS} or the "
                "whole passage)")
    if claim is None:
        return None
    cf = text_features(claim)
    if not covers_any(cf.content, qf.content):
        return f"{label} verdict's quote {shown!r} shares no content word with the claim"
    xf = text_features(ev.context, sentence_start_exempt=False)
    if label == "contradicted":
        if restates(claim, cf, xf, qf, ev):
            return (f"contradicted verdict's quote {shown!r} states the claim as it is: "
                    "nothing in it is opposite to the claim (no negation or opposite word, "
                    "no other number or name)")
        return None
    if label != "supported":
        return None
    tf = text_features(ev.titles, sentence_start_exempt=False) if ev.titles else None
    names = cf.mandatory - cf.numbers
    stated = xf.content | (tf.content if tf else frozenset())
    opening = opening_name(claim, (source for p in by_id.values()
                                   for source in (p.title, p.text) if source))
    if missing := sorted({w for w in names if w not in stated}
                         | {w for w in opening if not is_stated(w, stated)}):
        return (f"supported verdict's quote {shown!r} does not state the claim's "
                f"{', '.join(missing)} (not in the quotes, the sentences around them or the "
                "passage titles)")
    if problem := number_problem(cf, xf, qf, claim):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := rival_in_quotes(cf, qf, names):
        return f"supported verdict's quote {shown!r} {problem}"
    if loose := unattached(cf, xf, tf, opening):
        return (f"supported verdict's quote {shown!r} states the claim's {loose} only apart "
                "from what the claim says with it, and states that with another number")
    if problem := slot_rival(claim, list(ev.units), opening):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := subject_rival(claim, list(ev.units), opening):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := date_word_problem(claim, f"{ev.context} {ev.titles}"):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := slot_problem(claim, ev.context):
        return f"supported verdict's quote {shown!r} {problem}"
    entities = name_entities(claim)
    for words in claim_parts(cf):
        said = {w for w in words if is_stated(w, stated)}
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
    if rider := unsaid_phrase(claim, stated):
        return (f"supported verdict's quote {shown!r} does not speak to the claim's "
                f"{rider!r} (a phrase the claim adds that no evidence states)")
    if unsaid := sorted(w for w in cf.words - DISCOURSE - FILLERS
                        if (negated_inside(w) or w in CURATED) and not is_stated(w, stated)
                        and not said_through_opposite(w, cf, xf, claim)
                        and not said_by_bound(w, cf, xf) and not said_by_clock_range(w, cf, xf)
                        and not kin_in_part(w, cf, xf)):
        return (f"supported verdict's quote {shown!r} does not state the claim's "
                f"{', '.join(unsaid)} (a word negated inside, or one with a listed opposite, "
                "must be stated as it is)")
    if cf.negated and not xf.negated and not any(
            negated_inside(w) or w in NEGATIVE_WORDS for w in xf.words):
        return (f"supported verdict's quote {shown!r} negates nothing where the claim is "
                "negated (a negated claim needs a negation in its evidence)")
    for item in CONJUNCT.split(claim.lower()):
        words = text_features(item).content - FILLERS - DISCOURSE
        said = {w for w in words if is_stated(w, stated)}
        unnamed = words - cf.mandatory - opening
        if len(words) >= 2 and (not said or unnamed and not unnamed & said
                                and VERB_ITEM.match(item)
                                and any(said <= e for e in entities)):
            return (f"supported verdict's quote {shown!r} does not speak to "
                    f"{', '.join(sorted(unnamed if said else words))} (one of the things the "
                    "claim joins with 'and'/'or' or a comma)")
    if added := added_subject(claim, stated):
        return (f"supported verdict's quote {shown!r} does not state {added!r}, which the claim "
                "joins to what the evidence says ('Refunds and exchanges take...', '..., and "
                "exchanges too')")
    if flipped := [w for w in (polarity_problem(cf, xf, claim)
                               or clause_polarity_problem(cf, ev.context))
                   if not said_by_clock_range(w, cf, xf)]:
        return (f"supported verdict's quote {shown!r}: its sentence negates "
                f"{', '.join(flipped)} where the claim does not (or the reverse)")
    if problem := particle_problem(claim, ev.context):
        return f"supported verdict's quote {shown!r}: its sentence says {problem}"
    if problem := quantifier_problem(claim, ev):
        return f"supported verdict's quote {shown!r} {problem}"
    if problem := hedged_problem(claim, cf, ev.context):
        return f"supported verdict's quote {shown!r}: its sentence {problem}"
    if excepted := excepted_name(claim, names, ev.context):
        return (f"supported verdict's quote {shown!r}: its sentence makes an exception of the "
                f"claim's {excepted} (\"all ... except {excepted}\")")
    return None


def evidence_coverage(verdict: Verdict | None, claim: str) -> float | None:
    """The share (0..1) of ``claim``'s content words (stems, numbers as digits) that the
    quotes of ``verdict``'s evidence state (``is_stated``: same stem, same long prefix or a
    ``SYNONYMS`` word); ``None`` when the verdict gives no quote or the claim no content word.

    Reported per claim (``ClaimResult.evidence_coverage``); it decides nothing by itself: a
    paraphrase covers less than a copy and is not refused for it (``check_verdict`` asks
    every part of the claim to be spoken to instead)."""
    if verdict is None or not verdict.evidence:
        return None
    quotes = " . ".join(answered_text(q) for q in dict.fromkeys(i.quote for i in verdict.evidence)
                        if q.strip())
    words = text_features(claim).content
    if not quotes or not words:
        return None
    have = text_features(quotes, sentence_start_exempt=False).content
    return round(sum(1 for w in words if is_stated(w, have)) / len(words), 3)
