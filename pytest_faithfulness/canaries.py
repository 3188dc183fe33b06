"""Judge canaries: claims built from a run's own passages whose right verdict is known.

Issue 23 checks, inside every run, that the judge can still say "yes" and "no" on this run's
data. This module builds the claims; wiring them into a run (judging them with the run's judge,
the figures, the bounds and the reports) comes with that issue.

* **Controls** must come back ``supported``: a sentence of a passage, taken verbatim as the
  claim, judged against that passage's set.
* **Mutants** must not: the same sentences changed by ``mutants.mutate`` (the generator the
  evidence benchmark uses: a number, a unit, a negation, a negation inside a word, an antonym, a
  name from another passage set, a swapped name or number, a quantifier, an appended clause).

Keyed by content, never by order: the sentences are chosen by the SHA-256 of their text, and the
mutants are seeded by their claim (``mutants``), so the same passages give the same canaries
whatever ``-k``, ``--lf``, sharding or the order of the tests selected, and ``replay`` finds
them in the verdict cache. Pure Python; no pytest, no judge call.

Example::

    from pytest_faithfulness.canaries import build_canaries
    built = build_canaries([[{"id": "p1", "text": "Refunds take 14 days. Call us after 5 pm."}]], 4)
    for c in built.canaries:
        print(c.role, c.kind, c.claim)
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .inputs import to_passages
from .language.text import normalize_ws, passage_sentence_spans
from .mutants import KINDS, mutate, names_in
from .records import Passage

#: A sentence becomes a canary only with this many words at least (a heading or a fragment
#: such as "Pricing." says too little to test a judge on) and this many at most.
MIN_WORDS = 5
MAX_WORDS = 60

_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
#: Lines that are structure, not statements: Markdown headings, table rows, fences.
_STRUCTURE = re.compile(r"^\s*(?:#|\||```|~~~|>)")


@dataclass(frozen=True)
class Canary:
    """One canary claim and the verdict the judge must give it.

    Attributes:
        role: ``"control"`` (must be ``supported``) or ``"mutant"`` (must not be).
        kind: ``"verbatim"`` for a control; a ``mutants.KINDS`` kind for a mutant.
        claim: the claim to judge.
        passages: the passage set the claim is judged against (the set its sentence came from).
        passage_id: the id of the passage whose sentence the claim was built from.
        sentence: that sentence, as the passage writes it.
        detail: what the mutant changed (``"14 -> 17"``); empty for a control.
    """

    role: Literal["control", "mutant"]
    kind: str
    claim: str
    passages: tuple[Passage, ...]
    passage_id: str
    sentence: str
    detail: str = ""

    @property
    def expected(self) -> Literal["supported", "not supported"]:
        """The verdict a judge that can tell must give: controls supported, mutants not."""
        return "supported" if self.role == "control" else "not supported"


@dataclass(frozen=True)
class CanarySet:
    """What ``build_canaries`` built.

    Attributes:
        canaries: the controls first, then the mutants, each in content order.
        asked: how many canaries were asked for.
        note: why fewer were built than asked (too few usable sentences, a kind that did not
            apply), or ``""``. Too few passages is said here, never raised.
    """

    canaries: tuple[Canary, ...] = ()
    asked: int = 0
    note: str = ""

    @property
    def controls(self) -> tuple[Canary, ...]:
        """The canaries that must come back ``supported``."""
        return tuple(c for c in self.canaries if c.role == "control")

    @property
    def mutants(self) -> tuple[Canary, ...]:
        """The canaries that must not."""
        return tuple(c for c in self.canaries if c.role == "mutant")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def usable_sentence(sentence: str) -> bool:
    """Whether ``sentence`` (one passage sentence) states enough to be a canary: between
    ``MIN_WORDS`` and ``MAX_WORDS`` words, not a question, not Markdown structure."""
    if _STRUCTURE.match(sentence) or sentence.rstrip().endswith("?"):
        return False
    return MIN_WORDS <= len(_WORD.findall(sentence)) <= MAX_WORDS


def _sentences(ordered: list[tuple[Passage, ...]]
               ) -> list[tuple[str, str, tuple[Passage, ...], str]]:
    """(digest, sentence, its passage set, passage id) of every usable sentence, each text
    once (the first set, in content order (``ordered``), that holds it), sorted by digest."""
    seen: dict[str, tuple[str, str, tuple[Passage, ...], str]] = {}
    for passages in ordered:
        for p in passages:
            for start, end in passage_sentence_spans(p.text):
                sentence = normalize_ws(p.text[start:end])
                if usable_sentence(sentence):
                    key = _digest(sentence)
                    seen.setdefault(key, (key, sentence, passages, p.id))
    return sorted(seen.values())


def build_canaries(passage_sets: Iterable[Sequence[object]], n: int) -> CanarySet:
    """Build ``n`` canaries from the run's passage sets: ``n // 2`` controls and the rest
    mutants, from the same sentences.

    Args:
        passage_sets: each answer's passages, in any shape ``to_passages`` accepts (strings,
            dicts, ``Passage``, LangChain / LlamaIndex documents). Identical sets count once.
        n: how many canaries (0 builds none).

    Returns:
        a ``CanarySet``; fewer canaries than ``n`` when the passages have too few usable
        sentences (``usable_sentence``), with the reason in ``note``. The same passages give the
        same canaries in any order.

    Raises:
        ValueError: ``n`` is negative, or not an integer.
        TypeError, ValueError: a passage set ``to_passages`` refuses (its message names it).
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"the number of canaries must be a whole number >= 0, got {n!r}")
    sets = {tuple(to_passages(ps)) for ps in passage_sets}  # bad input named even for n=0
    if n == 0:
        return CanarySet((), 0, "")
    ordered = sorted(sets, key=_set_digest)
    sentences = _sentences(ordered)
    n_controls, n_mutants = n // 2, n - n // 2
    controls = _controls(sentences, n_controls)
    mutants = _mutants(sentences, n_mutants, ordered)
    notes = []
    if len(controls) < n_controls or len(mutants) < n_mutants:
        notes.append(f"{len(sentences)} usable passage sentence(s) ({MIN_WORDS}-{MAX_WORDS} "
                     f"words, not a question or heading) gave {len(controls)} of {n_controls} "
                     f"control(s) and {len(mutants)} of {n_mutants} mutant(s)")
    return CanarySet(tuple(controls + mutants), n, "; ".join(notes))


def _set_digest(passages: tuple[Passage, ...]) -> str:
    return _digest("\x00".join(f"{p.id}\x01{p.text}" for p in passages))


# --- controls: the sentence, and light rewordings that stay entailed ---------------------------

#: The control kinds, taken in turn (a rewording that does not apply falls back to the next).
CONTROL_KINDS: tuple[str, ...] = ("verbatim", "reordered", "synonym")

#: Word -> a synonym that keeps the sentence entailed in any context it can occur in (one
#: part of speech, one inflection; words that are also nouns, or mean something else in
#: software, are left out).
SYNONYMS: dict[str, str] = {
    "purchased": "bought", "bought": "purchased", "begins": "starts", "starts": "begins",
    "assists": "helps", "approximately": "about", "roughly": "about",
    "nearly": "almost", "almost": "nearly", "requires": "needs", "permitted": "allowed",
    "allowed": "permitted", "prohibited": "forbidden", "forbidden": "prohibited",
    "customers": "clients", "customer": "client", "quickly": "rapidly", "rapidly": "quickly",
    "additional": "extra", "annual": "yearly", "annually": "yearly", "contains": "includes",
    "includes": "contains",
    "located": "situated", "receives": "gets", "obtain": "get", "modified": "changed",
    "assist": "help", "commonly": "often", "frequently": "often", "currently": "now",
}

#: Words after which a leading adverbial ends at its comma ("If ..., ", "In 2020, ").
_LEADERS = ("if", "when", "after", "before", "once", "unless", "while", "since", "until",
            "in", "on", "at", "during", "for", "from", "by", "within", "without", "under",
            "between", "as of", "since")
#: Subordinators a trailing clause starts with ("..., if ...").
_TRAILERS = ("if", "when", "unless", "after", "before", "once", "while", "until")
#: First words of a main clause that are lower-cased when it moves inside the sentence (any
#: other first word may be a name, so the rewording is not made).
_LOWERABLE = frozenset("""the a an it its this that these those they their we our you your
each every all some most many there he she his her customers users""".split())


def _lower_first(clause: str) -> str | None:
    first = clause.split(" ", 1)[0]
    if first.lower() in _LOWERABLE and first[:1].isupper():
        return clause[:1].lower() + clause[1:]
    return clause if first[:1].islower() else None


def reordered(sentence: str) -> str | None:
    """The sentence with a leading adverbial moved to its end, after a comma that keeps it on
    the whole clause ("If X, Y." -> "Y, if X."), or a trailing subordinate clause moved to its
    front ("Y if X." -> "If X, Y."), else ``None``. Only a main clause without a comma is
    reordered (a comma inside it may start another clause the adverbial would then seem to
    belong to), and one whose first word may be a name is never lower-cased."""
    body, end = sentence.rstrip(), ""
    if body[-1:] in ".!":
        body, end = body[:-1].rstrip(), body[-1]
    if not body or any(c in body for c in ";:()\"“”"):
        return None
    leaders = "|".join(re.escape(w) for w in _LEADERS)
    m = re.match(rf"^((?:{leaders})\b[^,]{{2,80}}),\s+([^,]+)$", body, flags=re.IGNORECASE)
    if m and len(m.group(2).split()) >= 3:
        head, main = m.group(1), m.group(2)  # the comma keeps it on the whole clause
        return f"{main[:1].upper()}{main[1:]}, {head[:1].lower()}{head[1:]}{end or '.'}"
    trailers = "|".join(_TRAILERS)
    m = re.match(rf"^([^,]{{8,}}?),?\s+((?:{trailers})\s[^,]{{4,}})$", body)
    if m:
        main, tail = m.group(1), m.group(2)
        lowered = _lower_first(main)
        if lowered is not None and len(main.split()) >= 3:
            return f"{tail[:1].upper()}{tail[1:]}, {lowered}{end or '.'}"
    return None


def synonym(sentence: str) -> str | None:
    """The sentence with its first word of ``SYNONYMS`` replaced (case kept), else ``None``;
    a capitalised word inside the sentence may be a name or a title ("Batman Begins"), and is
    left alone."""
    for m in _WORD.finditer(sentence):
        new = SYNONYMS.get(m.group(0).lower())
        if new is None or (m.start() > 0 and m.group(0)[:1].isupper()):
            continue
        if m.group(0)[:1].isupper():
            new = new[:1].upper() + new[1:]
        return sentence[:m.start()] + new + sentence[m.end():]
    return None


def _controls(sentences: list[tuple[str, str, tuple[Passage, ...], str]], wanted: int
              ) -> list[Canary]:
    """``wanted`` controls, the kinds of ``CONTROL_KINDS`` in turn: each the first sentence
    not used yet (in content order) that the kind applies to; a kind that applies to none
    left gives a verbatim control instead."""
    makers = {"reordered": reordered, "synonym": synonym}
    used: set[int] = set()
    at = dict.fromkeys(CONTROL_KINDS, 0)  # where each kind's scan goes on from
    out: list[Canary] = []
    for i in range(min(wanted, len(sentences))):
        for kind in (CONTROL_KINDS[i % len(CONTROL_KINDS)], "verbatim"):
            while at[kind] < len(sentences):
                j = at[kind]
                at[kind] += 1
                if j in used:
                    continue
                _, sentence, passages, pid = sentences[j]
                claim = sentence if kind == "verbatim" else makers[kind](sentence)
                if claim and (kind == "verbatim" or claim != sentence):
                    used.add(j)
                    detail = "" if kind == "verbatim" else f"{sentence!r} -> {claim!r}"
                    out.append(Canary("control", kind, claim, passages, pid, sentence, detail))
                    break
            else:
                continue
            break
    return out


# --- mutants ---------------------------------------------------------------------------------

#: The mutant kinds: ``mutants.KINDS``, then the evidence moved to a passage set that does not
#: hold the sentence (``moved_evidence``: the sentence verbatim, judged against another set).
MUTANT_KINDS: tuple[str, ...] = (*KINDS, "moved_evidence")

_STOP = frozenset("""the a an and or but of to in on at for from by with is are was were be
been has have had it its this that these those as not no can will may their there which who
what""".split())


def _content(text: str) -> set[str]:
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text))
            if w not in _STOP and len(w) > 2}


def _moved(sentence: str, passages: tuple[Passage, ...],
           ordered: list[tuple[Passage, ...]], texts: dict[tuple[Passage, ...], set[str]]
           ) -> tuple[tuple[Passage, ...], str] | None:
    """Another passage set that does not hold ``sentence`` (under half of its content words,
    and not its text): the first after ``passages`` in content order, wrapping round."""
    words = _content(sentence)
    if not words or len(ordered) < 2:
        return None
    at = ordered.index(passages)
    for other in ordered[at + 1:] + ordered[:at]:
        if other == passages:
            continue
        if other not in texts:  # each set's words once (not once per sentence)
            texts[other] = _content(" ".join(p.text for p in other))
        if len(words & texts[other]) < 0.5 * len(words) and sentence.lower() not in \
                normalize_ws(" ".join(p.text for p in other)).lower():
            return other, ", ".join(p.id for p in other)
    return None


def _mutants(sentences: list[tuple[str, str, tuple[Passage, ...], str]], wanted: int,
             ordered: list[tuple[Passage, ...]]) -> list[Canary]:
    """One mutant per sentence, in sentence order, the kinds of ``MUTANT_KINDS`` taken in
    turn (the first kind that applies to the sentence, starting from the next kind after the
    last one used). Names from other passage sets (``foreign_name``) are counted once over
    every set and looked up per set, never re-unioned per sentence."""
    out: list[Canary] = []
    turn = 0
    names = {ps: set(names_in(" ".join(p.text for p in ps))) for ps in ordered}
    counts = Counter(n for found in names.values() for n in found)
    everyone = sorted(counts)
    others_of: dict[tuple[Passage, ...], list[str]] = {}
    texts: dict[tuple[Passage, ...], set[str]] = {}
    for _, sentence, passages, pid in sentences:
        if len(out) == wanted:
            break
        if passages not in others_of:
            own = names[passages]
            others_of[passages] = [n for n in everyone if counts[n] > (n in own)]
        order = MUTANT_KINDS[turn % len(MUTANT_KINDS):] + MUTANT_KINDS[:turn % len(MUTANT_KINDS)]
        for kind in order:
            if kind == "moved_evidence":
                moved = _moved(sentence, passages, ordered, texts)
                if moved is None:
                    continue
                out.append(Canary("mutant", kind, sentence, moved[0], pid, sentence,
                                  f"judged against passage(s) {moved[1]}"))
            else:
                m = mutate(sentence, passages, other_names=others_of[passages], kinds=(kind,))[0]
                if not (m.built and m.claim and m.claim != sentence):
                    continue
                out.append(Canary("mutant", kind, m.claim, passages, pid, sentence, m.detail))
            turn = MUTANT_KINDS.index(kind) + 1
            break
    return out
