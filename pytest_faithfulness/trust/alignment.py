"""Alignment: hold any decomposer's claims and set-aside text against the answer itself.

A decomposer (offline rules, an LLM, a user's own) is not believed about what it left out.
``align(answer, decomposition, passage_ids)`` checks its output against the answer text and
returns the claims to verify, each with the answer spans it came from, plus the text set
aside with reasons. Rules, in order:

1. **Claims.** Citation markers are removed from each claim (``markers.strip_citations`` with the
   answer's passage ids); a claim left with no text is recorded as set aside ("only citation
   markers"), never dropped silently. A claim that is only a subject and an auxiliary ("The
   Pico 2 sure is.", ``decomposition.elliptical_claim``) asserts nothing of its own: it is
   recorded as set aside, and its sentence is judged by the coverage rule (5) with the
   question it answers.
2. **Set-aside text is checked.** Each ``dropped`` item must be text of the answer: it is
   looked up after normalisation (NFKC, typographic quotes unified, Markdown emphasis, heading,
   table and quote marks removed, whitespace collapsed, case folded). An item that is not
   found is not trusted: it is recorded with that reason, a warning says so, and the text it
   claimed to stand for stays uncovered (rule 5). An item that is found is split into
   sentences (``text.sentence_spans``) and each sentence must be non-assertive by the local
   test (``decomposition.non_assertive_reason``), have no content words at all ("Yes"), lie
   in Markdown structure (rule 4), or be a piece of a sentence that the local rules set aside
   in it (``decomposition.set_aside_parts``: "Shall I also cancel your subscription," before
   "which renews daily?", whose relative clause is a claim). A sentence that fails is not set
   aside: it must be covered by claims like any other sentence (rule 5), and when it is not,
   it becomes a claim with a note saying the decomposer had set it aside. A yes/no question
   followed by an affirmative
   or negative reply ("Yes.", "Absolutely!", "They can.", "No.") is not set aside: the pair
   asserts the question's proposition (or its negation), and the question's sentence is
   covered only by claims that match that statement, negation included
   (``decomposition.answered_question``). A sentence of declarative word order with a question
   mark ("Sale items can be refunded?") is a claim, not a question.
3. **Sources of claims.** A claim's spans are the decomposer's ``claim_spans`` when given and
   inside the answer; otherwise a claim that is text of the answer word for word (normalised
   as in rule 2) gets that text's span, and any other claim is aligned to the answer sentence
   that holds most of its content words, weighing first the words no other claim has (so
   "The Kestrel e-bike is red." goes to "It is red.", not to the sentence that named the e-bike),
   numbers three
   times and names twice. A claim whose words or numbers are not in the answer gets no spans
   and a note saying its source was not found. A bracket of numbers inside a sentence that
   names no passage ("weighs [800]." with three passages: ``markers.citation_spans``) is a value,
   not a citation: a claim aligned to that text that holds the word before it and not the
   value gets the value back, after that word, with a note.
4. **Structure.** HTML comments and tags (``<!-- ... -->``, ``<br>``) are markup, set aside
   (``"markup"``) and left out of every sentence; only tags of HTML elements count
   (``decomposition.markup_spans``): other text in angle brackets, and the value of an
   attribute a reader sees (``alt``, ``title``), is text and judged. Fenced blocks that read
   as code (``decomposition.reads_as_code``; a fence of prose sentences, "The API allows 100
   requests per minute.", is text and judged, only its fence lines are markup), and headings,
   label lines ("Key features:"), whole-bold lines and table header rows of at most eight words are
   Markdown structure (the offline
   decomposer's rule 1), not assertions: they
   need no claim and, when the decomposer did not list them, are recorded as set aside by
   the pipeline. So are lines that list sources ("Sources: p-1, p-2") and Markdown footnote
   definitions ("[^1]: p-1"), reason ``"list of sources"`` (``markers.is_source_line``).
5. **Coverage.** The answer is cut into sentences (``text.sentence_spans``, then at line
   breaks). The part of a sentence not set aside (rule 2), without its list marker, citation
   markers, an opening interjection ("Yeah, ...", "No, ...") and attribution lead-ins
   ("According to the documents,"), is *covered* when the claims aligned
   to it - or one single claim anywhere - contain every number and name of it and all
   (``COVERAGE``) of its content words (the offline verifier's content words: stop words out,
   stems, number words as digits, CJK as character bigrams), and when their polarity matches
   the sentence's both ways: a negated sentence has a negated claim among them, and a sentence
   that is not negated has none; and when they hold every quantifier and modal verb of it
   (``strength_of``: "All plans include SSO." is not covered by "Some plans include SSO.").
   A part with no content words needs nothing. An uncovered part that the local test finds
   non-assertive is recorded as set aside by the pipeline with that
   reason; any other uncovered part becomes a claim of its own, verified like the others,
   with a note saying why.
6. **Duplicates.** Claims identical after normalisation (case, whitespace, punctuation,
   quotes) are one claim; each later copy is recorded as set aside ("duplicate of claim N")
   with its spans. Paraphrases of one sentence must not outweigh it, so near-duplicates are
   merged by content: a decomposer's claim aligned to the same answer sentence as another,
   with the same polarity, quantifiers and modals, and no content word the other lacks ("has
   three levels" / "has 3 levels" / "There are three levels on it", or a fragment of it), is
   recorded as set aside ("restates claim N ... counted once"); the one with more content
   words stays.
7. **Grounding.** A decomposer's claim must be grounded in the answer: each of its content
   words (stems, numbers, names) in the sentence it is aligned to or in the answer before it
   (so "It comes with ..." -> "The Vela lamp comes with ..." is grounded once the answer named
   the Vela lamp). A claim that is not ("sold in black", aligned to "comes with a 5-year
   warranty" because they share a word), or whose source was not found, keeps the reason
   (``AlignedClaim.ungrounded``, in its note) and the pipeline scores it ``unsupported``
   without a judge call: a claim the answer never made can lift no score. So is a claim that
   changes what the sentences it is aligned to say: a quantifier or modal verb they do not
   hold ("Some plans include SSO." from "All plans include SSO."; "may" from "must"; modal
   verbs read by what they say, so "must allow" is "make sure ... allows"), or a negation
   where they hold none (the statement of an answered yes/no question counts as its
   sentence); the sentence itself is then judged (rule 5). Grounding is
   checked before rule 6's merge by content, so an ungrounded claim absorbs no other.

The result keeps the decomposer's claims in their order, with added claims placed by their
position in the answer.

The spans it works on live in ``answer_spans``; the claims-to-sentences rules (coverage,
values, restatements, grounding) in ``claim_alignment``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..judges.offline.decomposer import elliptical_claim, markup_spans, non_assertive_reason
from ..language.features import text_features
from ..language.markers import strip_citations
from ..language.text import collapse_ws
from ..language.words import clip
from ..records import Decomposition, DroppedText, Span
from .answer_spans import (
    AlignedClaim,
    answer_units,
    answered_in_answer,
    bare_sentence,
    canonical_map,
    canonical_text,
    frame_of,
    given_reason,
    in_bounds,
    inside_structure,
    locate,
    markdown_structure,
    overlaps,
    remainder_text,
    sentence_parts,
    set_aside_label,
    set_aside_reason,
)
from .claim_alignment import (
    Coverage,
    align_claims,
    dedupe_key,
    in_answer_order,
    keep_values,
    merge_restatements,
    strength_of,
    ungrounded_reason,
)


@dataclass
class Alignment:
    """What ``align`` made of a decomposition: the claims to verify (in order), the text set
    aside with its reasons, and warnings for the answer's result."""

    claims: list[AlignedClaim]
    dropped: list[DroppedText]
    warnings: list[str]


def align(answer: str, decomposition: Decomposition, passage_ids: tuple[str, ...] = ()
          ) -> Alignment:
    """Check ``decomposition`` against ``answer`` (see the module docstring for the rules).

    Args:
        answer: the answer text.
        decomposition: what the decomposer returned for it.
        passage_ids: the ids of the answer's passages (for citation markers).

    Returns:
        an ``Alignment``; every sentence of the answer ends up in a claim or in the set-aside
        text with a reason.
    """
    ids = tuple(passage_ids)
    dropped: list[DroppedText] = []
    warnings: list[str] = []
    claims: list[AlignedClaim] = []

    # 1. claims, citation markers out
    given = decomposition.claim_spans
    for index, raw in enumerate(decomposition.claims):
        text = collapse_ws(strip_citations(raw, passage_ids=ids, passage_count=len(ids)))
        spans = list(given[index]) if given else []
        if not re.search(r"\w", text):
            dropped.append(DroppedText(text=raw, reason="claim holds only citation markers",
                                       spans=in_bounds(spans, answer) or []))
            continue
        if elliptical_claim(text):  # "The Pico 2 sure is.": nothing of its own to judge
            dropped.append(DroppedText(text=raw, spans=[], reason=(
                "a subject and an auxiliary with no predicate, so not a claim; its sentence "
                "is judged with the question it answers")))
            continue
        claim = AlignedClaim(text=text)
        if spans:
            checked = in_bounds(spans, answer)
            if checked is None:
                claim.notes.append(f"the decomposer's spans {spans} are outside the answer "
                                   f"({len(answer)} characters): ignored")
            else:
                claim.spans = checked
        claims.append(claim)

    canon, where = canonical_map(answer)
    markup = markup_spans(answer)
    structure = markdown_structure(answer) + [(s, e, "markup") for s, e in markup]
    all_units = answer_units(answer)

    # 2. set-aside text
    trusted: list[DroppedText] = []
    flagged: list[tuple[Span, str]] = []  # set aside by the decomposer, yet assertive
    used: list[Span] = []
    for item in decomposition.dropped:
        span = locate(item.text, canon, where, used)
        own = in_bounds(item.spans, answer) if len(item.spans) == 1 else None
        if (span is not None and own and own[0][0] <= span[0] and span[1] <= own[0][1]
                and canonical_text(answer[own[0][0]:own[0][1]]) == canonical_text(item.text)
                and not any(overlaps(own[0], u) for u in used)):
            span = own[0]  # its own span, with the markup (a fence) the search skips
        if span is None:
            dropped.append(DroppedText(text=item.text, reason=f"{item.reason}; not text of the "
                                       "answer, so not trusted", spans=[]))
            warnings.append(f"the decomposer set aside text that is not in the answer: "
                            f"{clip(item.text, 80)!r}")
            continue
        used.append(span)
        parts = sentence_parts(answer, span)
        verdicts = [(p, set_aside_reason(answer[p[0]:p[1]], p, structure)
                     or frame_of(answer, p, all_units)) for p in parts]
        verdicts = [(p, None if reason == "question" and answered_in_answer(answer, p, all_units)
                     else reason) for p, reason in verdicts]
        if all(reason is not None for _, reason in verdicts):
            trusted.append(DroppedText(text=item.text,
                                       reason=set_aside_label(item.reason, verdicts),
                                       spans=[span]))
            continue
        for piece, reason in verdicts:
            if reason is not None:
                trusted.append(DroppedText(text=answer[piece[0]:piece[1]],
                                           reason=set_aside_label(item.reason, [(piece, reason)]),
                                           spans=[piece]))
            else:  # not trusted: its sentence must be covered by claims like any other
                flagged.append((piece, item.reason))
    dropped[:0] = trusted

    # 3. sources of claims; bracketed values kept in them
    units = answer_units(answer)
    align_claims(answer, claims, units)
    keep_values(answer, claims, ids, units)

    # 4 + 5. structure and coverage
    dropped_spans = [s for d in trusted for s in d.spans]
    coverage = Coverage(units, claims)
    for unit, (start, end) in enumerate(units):
        if inside_structure(start, end, structure):
            continue
        part = bare_sentence(remainder_text(answer, start, end, dropped_spans + markup), ids)
        statement = answered_in_answer(answer, (start, end), units)
        if statement:  # "Can X be Y? No." is covered by "X cannot be Y.", not by the question
            part = statement
        features = text_features(part)
        if not features.content or coverage.covered(features, unit, strength_of(part)):
            continue
        reason = None if statement else non_assertive_reason(part)
        if reason is not None:  # the local test sets it aside itself, on the record
            dropped.append(DroppedText(text=answer[start:end], spans=[(start, end)],
                                       reason=f"{reason} (set aside by the pipeline)"))
            continue
        why = next((f"set aside by the decomposer{given_reason(reason)} but it asserts something"
                    for span, reason in flagged if overlaps(span, (start, end))),
                   "in no claim of the decomposer and not set aside")
        claims.append(AlignedClaim(text=part, spans=[(start, end)], added=True,
                                   notes=[f"sentence of the answer {why}: judged as a claim"]))
        coverage.add(claims[-1])
    for start, end, kind in structure:
        if any(overlaps((start, end), s) for s in dropped_spans):
            continue
        if any(overlaps((start, end), s) for c in claims for s in c.spans):
            continue
        dropped.append(DroppedText(text=answer[start:end], reason=f"{kind} (set aside by the "
                                   "pipeline)", spans=[(start, end)]))

    ordered = in_answer_order(claims)

    # 6. duplicates, word for word and by content
    kept: list[AlignedClaim] = []
    first: dict[str, int] = {}
    for claim in ordered:
        key = dedupe_key(claim.text)
        if key in first:
            dropped.append(DroppedText(text=claim.text, reason=f"duplicate of claim {first[key]}",
                                       spans=claim.spans))
            continue
        kept.append(claim)
        first[key] = len(kept)
    # 7. grounding (before restatements are merged: an ungrounded claim absorbs none)
    for claim in kept:
        if not claim.spans:
            claim.notes.append("its source was not found in the answer")
        claim.ungrounded = ungrounded_reason(answer, claim, units)
        if claim.ungrounded and claim.spans:
            claim.notes.append(claim.ungrounded)
    kept = merge_restatements(kept, units, dropped)
    dropped.sort(key=lambda d: d.spans[0][0] if d.spans else len(answer) + 1)
    return Alignment(claims=kept, dropped=dropped, warnings=warnings)
