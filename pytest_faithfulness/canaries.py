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
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def usable_sentence(sentence: str) -> bool:
    """Whether ``sentence`` (one passage sentence) states enough to be a canary: between
    ``MIN_WORDS`` and ``MAX_WORDS`` words, not a question, not Markdown structure."""
    if _STRUCTURE.match(sentence) or sentence.rstrip().endswith("?"):
        return False
    return MIN_WORDS <= len(_WORD.findall(sentence)) <= MAX_WORDS


def _sentences(passage_sets: Iterable[tuple[Passage, ...]]
               ) -> list[tuple[str, str, tuple[Passage, ...], str]]:
    """(digest, sentence, its passage set, passage id) of every usable sentence, each text
    once (the first set, in content order, that holds it), sorted by digest."""
    seen: dict[str, tuple[str, str, tuple[Passage, ...], str]] = {}
    for passages in sorted(passage_sets, key=lambda ps: _digest(
            "\x00".join(f"{p.id}\x01{p.text}" for p in ps))):
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
    sentences = _sentences(sets)
    n_controls, n_mutants = n // 2, n - n // 2
    controls = [Canary("control", "verbatim", s, ps, pid, s)
                for _, s, ps, pid in sentences[:n_controls]]
    mutants = _mutants(sentences, n_mutants)
    notes = []
    if len(controls) < n_controls or len(mutants) < n_mutants:
        notes.append(f"{len(sentences)} usable passage sentence(s) ({MIN_WORDS}-{MAX_WORDS} "
                     f"words, not a question or heading) gave {len(controls)} of {n_controls} "
                     f"control(s) and {len(mutants)} of {n_mutants} mutant(s)")
    return CanarySet(tuple(controls + mutants), n, "; ".join(notes))


def _mutants(sentences: list[tuple[str, str, tuple[Passage, ...], str]], wanted: int
             ) -> list[Canary]:
    """One mutant per sentence, in sentence order, the kinds taken in turn (the first kind that
    applies to the sentence, starting from the next kind after the last one used)."""
    out: list[Canary] = []
    turn = 0
    names = {ps: set(names_in(" ".join(p.text for p in ps))) for _, _, ps, _ in sentences}
    for _, sentence, passages, pid in sentences:
        if len(out) == wanted:
            break
        others = sorted(set().union(*(v for ps, v in names.items() if ps != passages)))
        order = KINDS[turn % len(KINDS):] + KINDS[:turn % len(KINDS)]
        for m in mutate(sentence, passages, other_names=others, kinds=order):
            if m.built and m.claim and m.claim != sentence:
                out.append(Canary("mutant", m.kind, m.claim, passages, pid, sentence, m.detail))
                turn = KINDS.index(m.kind) + 1
                break
    return out
