"""One sentence -> pieces: ``("claim", None, text, override)`` and ``("drop", reason, text,
None)``, ``text`` the ``Mapped`` part of the sentence each was cut from (``analyse_sentence``).

Openers are split off; a question is read by ``questions``; any other sentence is cut into
clauses, its non-assertive ones set aside (``frames``) and the runs of assertive ones kept
together, an assertion a frame carries made a claim of its own (``embedded``). The two public
tests built on it, ``non_assertive_reason`` and ``set_aside_parts``, are what the pipeline's
alignment holds any decomposer's set-aside text to."""

from __future__ import annotations

from .embedded import conjunct_cuts, embedded_pieces, relative_claim
from .frames import CLAUSE_BOUNDARY, META_LEADIN, OPENER, OPENER_ALONE, clause_reason
from .mapped import Mapped, split_sentences, without_citations
from .questions import (
    WHY_QUESTION,
    answered_question,
    is_bare_reply,
    is_interrogative,
    question_claim,
    rhetorical_claim,
    unquestioned,
)
from .words import WORD

#: One piece of a sentence: ``("claim", None, text, override)`` or ``("drop", reason, text,
#: None)`` (see the module docstring).
Piece = tuple[str, str | None, Mapped, str | None]


def non_assertive_reason(text: str) -> str | None:
    """Why ``text`` is not an assertion as a whole, or ``None`` when it asserts anything.

    The local test every decomposer's set-aside text is held to (the pipeline re-checks an
    LLM's ``dropped`` list with it). ``text`` is one or more sentences; it is non-assertive only
    when every sentence and every clause in it is. An opener followed by an assertion
    ("Of course the X weighs 3 kg", "Thanks to its warranty, the X ...") asserts, and so do
    rhetorical questions that carry a proposition ("Did you know the X weighs 3 kg?") and
    "I couldn't find X, but Y is Z". Reasons: ``"question"``, ``"greeting or pleasantry"``,
    ``"restates the question"``, ``"lead-in"``, ``"refusal"``, ``"offer of help"``,
    ``"reply to a question"`` (a bare "Yes."/"Not at all."/"They aren't."; what it asserts is
    read with the question before it), ``"no words"``. English rules, plus whole-clause
    greetings, thanks and sign-offs in German, French, Spanish, Chinese and Japanese (other
    text in those languages asserts).

    Raises:
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    whole = Mapped(text, list(range(len(text))))
    reasons: list[str | None] = []
    sentences = [without_citations(x) for x in split_sentences(whole)]
    for i, sentence in enumerate(sentences):
        if not WORD.search(sentence.text):
            continue
        if i + 1 < len(sentences) and answered_question(sentence.text, sentences[i + 1].text):
            return None
        if is_bare_reply(sentence.text):  # "No.", "Not at all.", "They aren't."
            reasons.append("reply to a question")
            continue
        pieces = analyse_sentence(sentence)
        if any(kind == "claim" for kind, *_ in pieces):
            return None
        reasons.extend(reason for _, reason, _, _ in pieces if reason != "opener")
    return reasons[0] if reasons else "no words"


def set_aside_parts(sentence: str) -> list[tuple[int, int, str]]:
    """The parts of one sentence the local rules set aside, as ``(start, end, reason)``
    offsets into ``sentence``: the frame of a question or an offer that carries an
    assertion ("Shall I also cancel your subscription," before "which renews daily?"), an
    opener, a non-assertive clause. The pipeline's alignment trusts a decomposer that set
    aside such a part on its own, though the part alone may read otherwise ("Would you like
    me to move you to Basic (" is no question without its question mark).

    Raises:
        TypeError: ``sentence`` is not a string.
    """
    if not isinstance(sentence, str):
        raise TypeError(f"sentence must be a string, got {type(sentence).__name__}")
    m = without_citations(Mapped(sentence, list(range(len(sentence)))))
    out: list[tuple[int, int, str]] = []
    for kind, reason, piece, _ in analyse_sentence(m):
        where = [p for p in piece.pos if p >= 0]
        if kind == "drop" and where and reason is not None:  # a drop always has its reason
            out.append((min(where), max(where) + 1, reason))
    return out


def analyse_sentence(m: Mapped) -> list[Piece]:
    """The pieces of one sentence ``m`` (citation markers removed), in order: each claim with
    its override (the statement to make of it, or ``None``) and each set-aside part with its
    reason; see the module docstring. A sentence with no assertion is one dropped piece."""
    whole = m
    openers: list[Mapped] = []
    while True:
        om = OPENER.match(m.text)
        if not om or not om.end():
            break
        openers.append(m[:om.end()].strip())
        m = m[om.end():].strip()
    if not WORD.search(m.text) or OPENER_ALONE.match(m.text):
        reason: str | None = ("lead-in" if META_LEADIN.match(whole.text)
                              else "greeting or pleasantry")
        return [("drop", reason, whole, None)]
    lead: list[Piece] = [("drop", "opener", o, None) for o in openers if o.text]

    if m.text.rstrip("\"'\u201d)").endswith("?"):
        if not is_interrogative(m.text) and clause_reason(unquestioned(m.text)) is None:
            return lead + [("claim", None, m, unquestioned(m.text))]
        claim = rhetorical_claim(m)
        if claim is None:
            embedded = embedded_pieces(m, "question")
            if embedded and not WHY_QUESTION.match(m.text.rstrip("\"'\u201d)").rstrip()):
                return lead + embedded
            claim = question_claim(m)
        if claim is None:
            return [("drop", "question", whole, None)]
        return lead + [claim]

    # clauses: drop the non-assertive ones, keep runs of assertive ones together
    cuts = [(b.start(), b.end()) for b in CLAUSE_BOUNDARY.finditer(m.text) if b.end() > b.start()]
    embedded = [c for c in conjunct_cuts(m.text)
                if not any(a < c[1] and c[0] < b for a, b in cuts)]
    cuts = sorted(cuts + embedded)
    bounds = [0] + [x for cut in cuts for x in cut] + [len(m.text)]
    clauses = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    reasons = [clause_reason(m.text[a:b], i == 0) if WORD.search(m.text[a:b]) else ""
               for i, (a, b) in enumerate(clauses)]
    if not any(r is None for r in reasons):
        first = next((r for r in reasons if r), None) or "greeting or pleasantry"
        return [("drop", first, whole, None)]
    pieces: list[Piece] = list(lead)
    run: list[tuple[int, int]] = []

    previous: list[tuple[int, int]] = []  # the last dropped clause

    def flush():
        if run:
            text = m[run[0][0]:run[-1][1]]
            override = None
            if previous and any(b == run[0][0] for _, b in embedded):
                override = relative_claim(m.text[previous[0][0]:previous[0][1]], text.text)
            pieces.append(("claim", None, text, override))
            run.clear()

    for (a, b), reason in zip(clauses, reasons):
        if not reason:  # an assertion, or a clause without words (kept with its run)
            if reason is None or run:
                run.append((a, b))
            continue
        flush()
        pieces.append(("drop", reason, m[a:b], None))
        previous[:] = [(a, b)]
    flush()
    return pieces
