"""Decomposition: an answer -> atomic, self-contained claims, plus the text set aside.

The decomposer sees the answer and nothing else (no passages, no question, no gold answer):
``RuleDecomposer.decompose(answer)`` takes exactly one argument.

Rules, applied in order (the offline judge's decomposer; the LLM judge follows the same
rules through its prompt, see ``prompts.DECOMPOSE_SYSTEM``):

1. Markdown is read as structure. Each bullet or numbered item, each table row and each
   ``key: value`` line is a unit of its own, even without a full stop; a bullet with no subject
   borrows the topic of the heading above it. A heading (``#``, a whole-bold line, a short line
   ending in ``:``) that is a topic label (``## Warranty``) is set aside (reason ``"heading"``
   or ``"lead-in"``); a heading that asserts (``## The Pico has a 3-year warranty``, a verb
   after its first word, or ``key: value`` with a number) is read as a sentence. A fenced
   block is set aside (``"code block"``) only when it reads as code (a programming-language
   tag, or a line with code symbols, flags, identifiers or a lower-case command); prose and
   ``key: value`` lines inside a fence are decomposed like any other text, whatever the tag
   that names no language (```` ```text ````, ``~~~``), with the symbols prose writes ("$99",
   "(tax included)", "; ", "R&D") and across wrapped lines (``reads_as_code``).
2. Sentences are segmented by pysbd (Sadvilkar & Neumann 2020, "PySBD: Pragmatic Sentence
   Boundary Disambiguation"), with the language taken from the script.
3. Numeric citation markers in citation position (``[1]``, ``[1, 2]``, ``[^1]``, ``【1】``; see
   ``text.citation_spans``) are removed. A bracket of ids (``[p-2071]``) is left in the claim
   for the pipeline, which knows the passage ids; any other bracket (``[3-year]``) is text.
   A labelled parenthetical (``(Source 2)``) is a marker too. A line that lists sources
   (``Sources: p-2071, p-2072``) or defines a footnote (``[^1]: p-2071``) is set aside
   (``"list of sources"``, ``text.is_source_line``).
4. Only a unit that is non-assertive *as a whole* is set aside, with its reason (see
   ``non_assertive_reason``): a greeting or pleasantry, a question, a restatement of the
   question, a lead-in, a first-person refusal, an offer of help. An opener that precedes an
   assertion ("Of course", "Absolutely,", "Good question:", "According to the documents,",
   "I'm afraid") is split off and set aside (reason ``"opener"``) and the rest is kept. A
   sentence of several clauses ("I couldn't find X, but Y is Z"; "Y is Z - let me know ...")
   loses only its non-assertive clauses. Rhetorical questions that carry a proposition are
   assertions and become declarative claims: "Did you know (that) P?" -> "P."; a negative
   yes/no question "Isn't the X waterproof to 10 m?" -> "The X is waterproof to 10 m." (kept
   as written when its subject cannot be found; not when its subject is you/I/we); a tag
   question "P, doesn't it?" -> "P."; a yes/no question answered by an affirmative or
   negative ("Yes.", "Absolutely!", "Of course.", "They can.", "No.", "Not at all.")
   -> its proposition (or its negation): "Can X be Y? Yes." -> "X can be Y.", "P? No." ->
   "It is not the case that P.", a topic and a predicate "Sale items: refundable? No." (or
   "Sale items refundable? No.") -> "Sale items are not refundable.", a bare question of
   only what it asks about "Waterproof? Yes." -> "<the answer's subject so far> is
   waterproof." ("Waterproof: yes." as written when there is no subject or what it asks
   about is no predicate: "Free shipping: yes."), an indirect question "You may wonder
   whether it is waterproof. It is." -> "It is waterproof."; the bare reply is set aside
   (``"reply to the question before it"``). An elliptical reply ("It sure is.", "..., but
   it is."; only a subject and an auxiliary, ``elliptical_claim``) takes its predicate from
   the question it answers, in its sentence or the one before, and is never a claim alone:
   when that question cannot be read, the two are judged as written together. An inverted
   question keeps a name that ends in a number whole ("Is the Pico 2 waterproof?" -> "The
   Pico 2 is waterproof."). Only an interrogative is a question (it opens with an auxiliary,
   a modal or a wh-word, is a tag question, or is elliptical: "Anything else?"); declarative
   word order with a "?" ("Sale items can be refunded?") is a claim, its "?" made a full stop.
   A frame is set aside only when nothing factual remains once it is removed
   (``frames``): a number (digits not inside a name, or a number word) makes the whole
   unit a claim; a clause of its own after ", and/yet/so/because/which ..." (not opening with
   I/we/you, not about the answer itself) is cut off and kept as a claim ("..., which is Z" ->
   "The <noun> is Z."); so is an assertion a question or an offer carries (``embedded``):
   a relative clause with or without a comma ("Shall I also cancel your subscription, which
   renews daily?" -> "The subscription renews daily."; "the plan that renews daily"), a
   parenthetical ("Pro (which includes SSO)" -> "Pro includes SSO."), an appositive ("...
   to Pro, our plan with SSO?" -> "Pro is our plan with SSO.") or a "since/because" clause,
   its frame set aside ("question", "offer of help"); in an offer of help or a pleasantry, a
   verb, participle or predicative adjective outside the frame's own words ("Happy to help
   with X being refundable") makes it a claim. Questions with a number or a relative clause
   are judged as written; why-questions assert what they presuppose ("Why are X always Y?"
   -> "X are always Y.").
8. HTML comments (``<!-- ... -->`` with both ends; ``<!-->`` and ``<!--->`` are empty ones,
   and an unterminated ``<!--`` is text) and tags are markup: set aside (``"markup"``), read as
   a space, and cut out of the spans of the claims around them.
5. Coordinated assertions are split: "X supports A and has B" -> "X supports A." / "X has B.";
   a conjunct that is a clause of its own ("..., and it runs ...") is split too. A sentence
   that opens with a subordinate clause keeps it whole and gives it to each conjunct of its
   main clause ("If the item is unused, you get a refund and keep the tags." -> "If the item
   is unused, you get a refund." / "If the item is unused, you keep the tags."); a condition
   inside a sentence ("... if X and Y") stops any split. A lead-in line gives the items below
   it its topic without its announcing frame ("Here are the Pico's specs:" -> "The Pico";
   ``markdown``), and none when only the frame is left ("Here is how returns work:", "The
   steps are below:"); a lead-in whose topic items carry is set aside with a reason that
   says so. Recap openers ("As
   I said,", "As noted above,", "To recap,") are openers (rule 4); "Here is how returns
   work." is a lead-in.
6. Pronouns and possessives that open a claim (it, its, they, their, this) are resolved to the
   subject of the previous claim, so each claim stands alone.
7. Hedges stay with the claim they modify ("typically delivered within an hour" is one claim).

Where every character goes (the coverage property, tested with hypothesis): the answer is cut
into pieces, one per claim and one per dropped item, and

* every span ``(s, e)`` (``Decomposition.claim_spans`` and ``DroppedText.spans``) has
  ``0 <= s < e <= len(answer)`` and starts and ends on a non-whitespace character;
* no two spans overlap, whether of claims or of dropped items, so each character is in at
  most one place;
* every non-whitespace character of the answer lies in exactly one span.

Consequences of that choice: text that two claims share (a subject copied into the second
conjunct, a pronoun's antecedent, a heading topic given to a bullet) lies only in the span of
the claim or heading it was written in, not in the borrower's. Markup (bullet markers, ``#``,
``|``, table rules, fences, emphasis marks, ``>``) and removed citation markers lie in the span
of the piece they frame or follow, as does punctuation between pieces; a piece's span runs up to
the start of the next piece of the same block (paragraph, item, table, fence). A block with no
word in it (``---``) is a dropped item of its own (reason ``"no words"``). The offline
decomposer gives every claim and every dropped item exactly one span, and a dropped item's
``text`` is exactly ``answer[s:e]``.

Where each rule lives (this package, lower layers first: a module imports only from those
before it in this list): ``words`` (word lists and tests), ``mapped`` (text with its offsets in
the answer), ``frames`` (what is not an assertion, rule 4), ``embedded`` (an assertion a
question or an offer carries), ``questions`` (questions and replies), ``sentence`` (one sentence
-> pieces), ``markdown`` (rule 1), ``markup`` (rule 8), ``coordination`` (rules 5 and 6), and
this module: ``RuleDecomposer``, which runs them in order and gives every piece its span.
"""

from __future__ import annotations

from typing import Any

from ....records import Decomposition, DroppedText
from .coordination import (
    attach_topic,
    finish_claim,
    resolve_pronouns,
    split_coordination,
)
from .frames import LEAD_CONJ
from .mapped import Mapped, split_sentences, trim_span, without_citations
from .markdown import Block, markdown_blocks
from .markup import cut_markup, markup_spans
from .questions import (
    answered_question,
    elliptical_claim,
    is_bare_reply,
    reply_polarity,
)
from .sentence import analyse_sentence
from .words import WORD

# rules-2026.12-4: prose in fences; "Waterproof? Yes."; elliptical replies; splits at ";", ": ",
# " — "
RULES_VERSION = "rules-2026.12-4"


class RuleDecomposer:
    """Rule-based decomposer (no model, no network, deterministic). See the module docstring.

    ``decompose(answer)`` returns a ``Decomposition``: the claims, the text set aside (each
    ``DroppedText`` with its reason and its one span), and one span per claim
    (``claim_spans``), all character offsets into ``answer``.

    Raises:
        TypeError: ``answer`` is not a string.
    """

    version = RULES_VERSION

    def decompose(self, answer: str) -> Decomposition:
        """Split ``answer`` into claims; an empty or whitespace answer gives no claims."""
        if not isinstance(answer, str):
            raise TypeError(f"answer must be a string, got {type(answer).__name__}")
        claims: list[str] = []
        claim_spans: list[list[tuple[int, int]]] = []
        dropped: list[DroppedText] = []
        state: dict[str, Any] = {"entity": None}
        markup = markup_spans(answer)
        masked = answer
        for s, e in markup:  # markup reads as a space; its characters are set aside below
            masked = masked[:s] + " " * (e - s) + masked[e:]
        for block in markdown_blocks(masked, 0, len(masked)):
            pieces = self._pieces(block, state)
            for kind, payload, span in _place(masked, block.start, block.end, pieces):
                spans = cut_markup(answer, span, markup) if span else []
                if kind == "claim":
                    claims.append(payload)
                    claim_spans.append(spans)
                else:
                    text = " ".join(answer[a:b] for a, b in spans) if spans else payload
                    dropped.append(DroppedText(text=text, reason=kind, spans=spans))
        # a heading or lead-in whose topic items below it carry is not only set aside: say so
        carried = state.get("carried", set())
        for at, topic in state.get("topics", {}).items():
            if topic not in carried or at is None:
                continue
            for i, item in enumerate(dropped):
                if item.reason in ("heading", "lead-in") and any(a <= at < b
                                                                 for a, b in item.spans):
                    dropped[i] = DroppedText(text=item.text, spans=item.spans,
                                             reason=f"{item.reason} (its topic is carried "
                                             "into the list items below it)")
        for s, e in markup:
            dropped.append(DroppedText(text=answer[s:e], reason="markup", spans=[(s, e)]))
        dropped.sort(key=lambda d: d.spans[0][0] if d.spans else len(answer))
        return Decomposition(claims=claims, dropped=dropped, claim_spans=claim_spans)

    def _pieces(self, block: Block, state: dict) -> list[tuple[str, str, int | None]]:
        """(``"claim"`` or a drop reason, claim text or "", first answer offset) in order."""
        if block.kind == "code":
            return [("code block", "", block.start)]
        if block.kind == "group":
            return [p for child in block.children for p in self._pieces(child, state)]
        if block.kind == "table":
            out = []
            for kind, text, line_start in block.rows:
                if kind == "header":
                    out.append(("table header", "", line_start))
                    continue
                row = self._text(text, "text", None, state)
                if row and row[0][2] is not None:  # the row's leading "|" is its own
                    row[0] = (row[0][0], row[0][1], line_start)
                out.extend(row)
            return out
        if block.kind == "heading" and block.label:
            if block.topic:  # a topic the items below may carry: see ``decompose``
                state.setdefault("topics", {})[block.text.first()] = block.topic
            return [(block.label, "", block.text.first())]
        kind = "bullet" if block.kind == "bullet" else "text"
        return self._text(block.text, kind, block.topic, state)

    def _text(self, text: Mapped, kind: str, topic: str | None, state: dict):
        out = []
        sentences = [without_citations(x) for x in split_sentences(text)]
        replied: set[int] = set()
        for i, sentence in enumerate(sentences):
            if not WORD.search(sentence.text):
                continue
            subject = state["entity"] or topic
            answered = (answered_question(sentence.text, sentences[i + 1].text, subject)
                        if i + 1 < len(sentences) else None)
            if answered:  # "Can X be Y? Yes." asserts "X can be Y."
                out.extend(self._claims(sentence, answered, kind, topic, state))
                if is_bare_reply(sentences[i + 1].text):
                    replied.add(i + 1)
                continue
            if i in replied:  # "Yes." / "They can.": its meaning is in the claim before it
                out.append(("reply to the question before it", "", sentence.first()))
                continue
            state["before"] = sentences[i - 1].text if i else ""
            for piece_kind, reason, m, override in analyse_sentence(sentence):
                if piece_kind == "drop":
                    out.append((reason, "", m.first()))
                    continue
                out.extend(self._claims(m, override, kind, topic, state))
        return out

    def _claims(self, m: Mapped, override: str | None, kind: str, topic: str | None,
                state: dict):
        body = m.strip()
        text = override if override is not None else body.text
        prefix = 0
        if kind == "bullet" and topic and override is None:
            attached = attach_topic(text, topic)
            if attached.endswith(text):
                prefix = len(attached) - len(text)
            if attached != text:
                state.setdefault("carried", set()).add(topic)
            text = attached
        out = []
        for clause, start, end in split_coordination(text):
            reply = LEAD_CONJ.sub("", clause.strip())
            # "It sure is." / "..., but it is.": see ``_resolved_reply``
            if elliptical_claim(reply):
                clause = _resolved_reply(reply, text[:start], state)
            clause, state["entity"] = resolve_pronouns(clause, state["entity"])
            clause = finish_claim(clause)
            if not clause:
                continue
            source = body if override is not None else body[max(0, start - prefix):
                                                             max(0, end - prefix)]
            out.append(("claim", clause, source.first() if source.text else body.first()))
        return out


def _resolved_reply(reply: str, before: str, state: dict) -> str:
    """The claim an elliptical reply ("It sure is.", "The Pico 2 is.") makes with the question
    it answers: in its own sentence before it (``before``: "I cannot confirm whether X is Y,
    but it is.") or in the sentence before ("Is it Y? It sure is."; "You may wonder whether it
    is Y. It is."). A reply whose question cannot be read is judged as written together with
    that question, never alone: a subject and an auxiliary assert nothing to check."""
    context = (before if WORD.search(before) else state.get("before", "")).strip()
    statement = answered_question(context, reply, state["entity"])
    if statement is None and context.endswith("?") and reply_polarity(reply) is not False:
        statement = answered_question(context, "Yes.", state["entity"])
    return statement or f"{context} {reply}".strip()


def _place(answer: str, lo: int, hi: int, pieces):
    """Give each piece of a block one span: from its first character to the next piece's.

    Yields (kind, payload, (start, end) or None). A block with no piece but with
    non-whitespace text becomes one dropped item (``"no words"``).
    """
    anchored = [p for p in pieces if p[2] is not None]
    if not anchored:
        span = trim_span(answer, lo, hi)
        if span:
            yield ("no words", answer[span[0]:span[1]], span)
        for kind, payload, _ in pieces:
            yield (kind, payload, None)
        return
    bounds = [p[2] for p in anchored]
    for i in range(1, len(bounds)):  # anchors are in answer order; keep them so
        bounds[i] = max(bounds[i], bounds[i - 1])
    bounds[0] = lo
    bounds.append(hi)
    it = iter(range(len(anchored)))
    for kind, payload, first in pieces:
        if first is None:
            yield (kind, payload, None)
            continue
        i = next(it)
        yield (kind, payload, trim_span(answer, bounds[i], bounds[i + 1]))
