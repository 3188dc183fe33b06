"""The decomposer's word lists and word tests, shared by its modules: auxiliaries, common verbs,
imperatives, subject pronouns, wh-words (the words that open a noun phrase are
``language.lexicon.NOUN_PHRASE_OPENERS``); whether a word is a verb, where a clause's
subject ends (``subject_of``), and a clause finished as a sentence.

English only, by design: the lists are small and hand-made, for the sentences an assistant
writes ("It is waterproof", "Refunds take 14 days"), not a grammar of the language."""

from __future__ import annotations

import re
from functools import lru_cache

#: Auxiliary and modal verbs, with their negative contractions ("isn't", "can't").
AUX = {
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "can",
    "could", "will", "would", "may", "might", "must", "should", "shall", "does", "do", "did",
    "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "can't", "cannot", "won't",
    "doesn't", "don't", "didn't", "shouldn't", "mustn't", "'s", "'re",
}
#: Common verbs, base form; +s / +es / +ed / +d forms are derived (``is_verb``).
VERB_BASES = (
    "accept add allow appear apply arrive become begin build charge close come connect contain "
    "cost cover create deliver depend design develop die display enable expire export feature "
    "follow get give go grow hold include introduce keep last launch lead let live lose make "
    "manufacture measure need offer open operate own play produce protect provide publish rank "
    "reach receive release remain replace require retain return run score seem sell send serve "
    "ship show sit start stay stop store support take tend win work write weigh use vary star "
    "direct marry join move found form mean refer consist belong range exist occur happen help "
    "allow affect cause increase decrease reduce average"
).split()
_IRREGULAR = {
    "became", "began", "built", "came", "got", "gave", "went", "grew", "held", "kept", "led",
    "lost", "made", "ran", "sold", "sent", "sat", "took", "won", "wrote", "known", "born",
    "shown", "written", "taken", "given", "died", "lies", "lay",
}
#: Verbs that open an instruction ("Click Save", "Contact support").
IMPERATIVES = {
    "make", "configure", "set", "enable", "disable", "go", "click", "select", "use", "ensure",
    "check", "open", "add", "remove", "install", "restart", "navigate", "choose", "create",
    "contact", "visit", "press", "turn", "update", "run", "note", "remember", "call", "email",
    "see", "grant", "allow", "attach", "assign", "upload", "download", "store", "keep", "avoid",
}
#: Words that open a clause as its subject ("it", "they", "this", "there", "i").
SUBJECT_PRONOUNS = {"it", "they", "he", "she", "we", "you", "this", "these", "that", "there", "i"}


@lru_cache(maxsize=1)
def _verb_forms() -> frozenset[str]:
    forms: set[str] = set(AUX) | _IRREGULAR
    for base in VERB_BASES:
        forms.add(base)
        forms.add(base + "s")
        forms.add(base + "es")
        forms.add(base[:-1] + "ies" if base.endswith("y") else base + "s")
        forms.add(base + "d" if base.endswith("e") else base + "ed")
        if base.endswith("y"):
            forms.add(base[:-1] + "ied")
    return frozenset(forms)


def is_verb(token: str) -> bool:
    """Whether ``token`` (any case, a trailing ",;:" ignored) is an auxiliary, a form of a verb
    of ``VERB_BASES`` or a known irregular form ("made", "sold")."""
    return token.lower().strip(",;:") in _verb_forms()


#: A lead adverbial and its comma ("In 2020, ", "For the Pro plan, "): not the subject.
LEAD_ADVERBIAL = re.compile(
    r"^((?:in|on|for|at|during|with|under|after|before|since|from|by|within)\s[^,]{1,60},\s+)",
    re.IGNORECASE,
)
#: Negative auxiliaries and their positive form ("isn't" -> "is").
NEG_AUX = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were",
           "doesn't": "does", "don't": "do", "didn't": "did", "hasn't": "has",
           "haven't": "have", "hadn't": "had", "can't": "can", "couldn't": "could",
           "won't": "will", "wouldn't": "would", "shouldn't": "should"}
#: A word character: text without one has no words ("---", "...").
WORD = re.compile(r"\w")
#: A predicative word by its form: a copula, a participle, or an adjective in -able, -ible or
#: -proof ("refundable", "included", "waterproof").
PREDICATE_WORD = re.compile(
    r"^(?:being|been|is|are|was|were|\w+(?:able|ible|proof)|\w{3,}(?:ed|en))$", re.IGNORECASE)
#: The words that open a wh-question.
WH_WORDS = frozenset("what when where which who whom whose why how".split())


def capitalized(text: str) -> str:
    """``text`` with its first character upper-cased (the rest as written)."""
    return text[:1].upper() + text[1:]


def finish_sentence(text: str) -> str:
    """``text`` stripped, capitalized, and ended with a full stop when it has none."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def subject_of(clause: str) -> tuple[str, str, str] | None:
    """Split a clause into (lead adverbial, subject, predicate) at its first verb."""
    lead = ""
    m = LEAD_ADVERBIAL.match(clause)
    if m:
        lead, clause = m.group(1), clause[m.end():]
    words = clause.split()
    for i, w in enumerate(words):
        if i > 0 and is_verb(w):
            return lead, " ".join(words[:i]), " ".join(words[i:])
        if i > 0 and w.lower().endswith("'s") and i + 1 < len(words) and is_verb(words[i + 1]):
            continue
    return None
