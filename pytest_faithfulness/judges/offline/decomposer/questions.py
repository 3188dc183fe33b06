"""Questions and the replies to them: which sentences are questions (``is_interrogative``: an
interrogative, not declarative word order with a "?"), the questions that assert their
proposition ("Did you know P?", "Isn't X Y?", "P, doesn't it?", why-questions), and a yes/no
question read with the reply after it ("Can X be Y? Yes." -> "X can be Y.";
``answered_question``), including elliptical replies ("It sure is.", ``elliptical_claim``).

A piece, here and in ``sentence``, is ``("claim", None, text, override)``: the ``Mapped`` text
it was cut from and the claim to state instead of it (``None``: the text itself)."""

from __future__ import annotations

import re

from .embedded import conjunct_cuts, is_verb_form
from .frames import LEAD_CONJ, clause_reason, has_number
from .mapped import Mapped
from .words import (
    AUX,
    IMPERATIVES,
    NEG_AUX,
    PREDICATE_WORD,
    SUBJECT_PRONOUNS,
    VERB_BASES,
    WH_WORDS,
    WORD,
    capitalized,
    finish_sentence,
    is_verb,
    subject_of,
)

# Rhetorical questions that assert their proposition.
_DID_YOU_KNOW = re.compile(
    r"^(?:(?:did|do) you know|have you heard|you know|remember|note)(?: that)?\s+"
    r"(?!(?:if|whether|what|how|when|where|why|which|who)\b)(?=\S)",
    re.IGNORECASE,
)
_NEG_QUESTION = re.compile(rf"^({'|'.join(re.escape(a) for a in NEG_AUX)})\s+(\S.*?)\s*\?$",
                           re.IGNORECASE)
_TAG_QUESTION = re.compile(
    r",\s*(?:(?:(?:is|are|was|were|does|do|did|has|have|had|could|would|should|must|need)"
    r"n['\u2019]?t|can['\u2019]?t|cannot|won['\u2019]?t|ain['\u2019]?t|"
    r"is|are|was|were|does|do|did|has|have|can|will|would|could|should)\s+(?:it|they|he|she|there|"
    r"that|this|we|you|i)|right|correct|no|yes|eh|true)\s*\?\s*$",
    re.IGNORECASE,
)
_PREDICATE_START = re.compile(
    r"^(?:in|on|at|for|with|to|from|by|under|over|up|about|a|an|the|no|not|very|more|less|"
    r"still|already|also|always|never|usually|often|only|fully|generally|\S*\d\S*|\S+(?:proof|able|ible|ful|less|ous|ive|ic|ed|ing|ant|ent|ary))$",
    re.IGNORECASE,
)


def unquestioned(text: str) -> str:
    """A declarative sentence with its question mark made a full stop."""
    return re.sub(r"\s*\?+([\"'\u201d)]*)\s*$", r".\1", text.strip())


def rhetorical_claim(m: Mapped):
    """A claim piece for a question that asserts its proposition, else ``None``."""
    text = m.text
    q = text.rstrip("\"'\u201d)").rstrip()[:-1].rstrip()  # without the question mark
    dk = _DID_YOU_KNOW.match(q)
    if dk and WORD.search(q[dk.end():]):
        return ("claim", None, m[dk.end():len(q)], None)
    tag = _TAG_QUESTION.search(text)
    if tag and WORD.search(text[:tag.start()]) and clause_reason(text[:tag.start()]) is None:
        return ("claim", None, m[:tag.start()], None)
    neg = _NEG_QUESTION.match(text)
    if neg:
        aux, rest = neg.group(1), neg.group(2)
        if rest.split()[0].lower() in {"you", "i", "we"}:
            return None
        positive = NEG_AUX[aux.lower().replace("\u2019", "'")]
        return ("claim", None, m, _declarative(positive, rest) or text)
    return None


_POLAR_AUX = "|".join(sorted((a for a in AUX if a[0].isalpha()), key=len, reverse=True))
_POLAR = re.compile(rf"^({_POLAR_AUX})\s+(\S.*?)\s*\?$", re.IGNORECASE)
#: A why-question ("Why are sale items refundable?", "How come it floats?"): it presupposes
#: its proposition.
WHY_QUESTION = re.compile(r"^(?:why|how come)\s+(\S+)\s+(\S.*?)\s*\?$", re.IGNORECASE)
#: A reply to a yes/no question: an affirmative or negative word or phrase ("Yes",
#: "Absolutely", "Of course not"), alone or opening its sentence ("Yes, ..."), or a bare
#: pronoun + auxiliary ("They are.", "It isn't.").
_AFFIRMATIVE = (r"yes|yeah|yep|yup|yes indeed|correct|indeed|absolutely|definitely|certainly|"
                r"sure|of course|that'?s right|right|exactly|true|affirmative")
_NEGATIVE = (r"no|nope|nah|not at all|not really|never|incorrect|false|"
             r"(?:absolutely|definitely|certainly|of course|sadly|unfortunately) not")
_YES_NO = re.compile(rf"^(?:({_NEGATIVE})|({_AFFIRMATIVE}))(?:\W*$|\s*[,.!:;\u2013\u2014-])",
                     re.IGNORECASE)
#: Adverbs an elliptical reply may carry around its auxiliary ("It sure is.", "They
#: certainly can.", "It is indeed.").
_REPLY_ADVERBS = (r"sure|surely|certainly|definitely|absolutely|really|indeed|actually|truly|"
                  r"still|also|too|so|though")
_SHORT_REPLY = re.compile(
    rf"^(?:(?:{_AFFIRMATIVE}|{_NEGATIVE})\s*[,!.]?\s*)?(?:it|they|he|she|we|you|i|that|there)"
    rf"\s+(?:(?:{_REPLY_ADVERBS})\s+)?(?:({_POLAR_AUX})(?:\s+(not))?)"
    rf"(?:\s+(?:{_REPLY_ADVERBS}))?\s*[.!]*$", re.IGNORECASE)
#: A clause that is only a subject and an auxiliary ("The Pico 2 sure is.", "It is.", "They
#: can't."): elliptical, its predicate is in a question before it (``elliptical_claim``).
_ELLIPTICAL_CLAIM = re.compile(
    rf"^(?P<subject>(?:[\w'\u2019-]+\s+){{1,6}}?)(?:(?:{_REPLY_ADVERBS})\s+)?"
    rf"(?P<aux>{_POLAR_AUX})(?:\s+(?P<neg>not))?(?:\s+(?:{_REPLY_ADVERBS}))?\s*[.!]*$",
    re.IGNORECASE)
#: An indirect yes/no question: "You may wonder whether it is waterproof", "I cannot confirm
#: whether the Pico is waterproof, but ..." -> its clause ("it is waterproof").
_INDIRECT = re.compile(
    r"\b(?:wonder(?:s|ed|ing)?|ask(?:s|ed|ing)?|know|confirm|check|tell|say|sure|certain|"
    r"clear|unclear|verify|see|find out|question(?: is)?)\s+(?:me\s+|you\s+|us\s+)?"
    r"(?:whether|if)\s+(?P<clause>[^,;:?!.]*\w)", re.IGNORECASE)
#: A yes/no question with no subject and no verb, only what it asks about: "Waterproof?",
#: "Free shipping?" (``answered_question``).
_BARE_QUESTION = re.compile(r"^[^\W\d_][\w'\u2019 -]{0,40}$")
#: First words of elliptical questions ("Anything else?", "Need help?", "Sound good?").
_ELLIPTICAL = frozenset("any anything anyone anybody need needs want wants sound sounds "
                        "questions ok okay or so and but right".split())


def reply_polarity(reply: str) -> bool | None:
    """``True`` for an affirmative reply to a yes/no question, ``False`` for a negative one,
    ``None`` for anything else."""
    reply = reply.strip().replace("\u2019", "'")
    short = _SHORT_REPLY.match(reply)
    if short:
        aux = short.group(1).lower()
        lead = re.match(_NEGATIVE, reply, re.IGNORECASE)
        return not (short.group(2) or aux in NEG_AUX or aux in {"cannot"}
                    or (lead and lead.end() < len(reply) and not reply[lead.end()].isalpha()))
    answer = _YES_NO.match(reply)
    if not answer:
        return None
    return answer.group(2) is not None


def is_bare_reply(reply: str) -> bool:
    """True when ``reply`` is only an answer to a yes/no question ("Yes.", "Of course!",
    "They can."), with nothing else in it."""
    reply = reply.strip().replace("\u2019", "'")
    return bool(_SHORT_REPLY.match(reply) or re.fullmatch(
        rf"(?:{_AFFIRMATIVE}|{_NEGATIVE})\W*", reply, re.IGNORECASE))


def is_interrogative(text: str) -> bool:
    """True when ``text`` (a sentence ending in "?") is an interrogative: it opens with an
    auxiliary or modal verb or a wh-word, is a tag question, or is elliptical ("Anything
    else?", "Need help?", a phrase with no verb). Declarative word order with a question mark
    ("Sale items can be refunded?") is not: it asserts."""
    q = text.strip().rstrip("\"'\u201d)").rstrip().rstrip("?").strip()
    q = LEAD_CONJ.sub("", q).strip()
    words = q.replace("\u2019", "'").split()
    if not words:
        return True
    first = words[0].lower().strip(",")
    if first in AUX or first in NEG_AUX or first in WH_WORDS or first in _ELLIPTICAL:
        return True
    if _TAG_QUESTION.search(text) or _DID_YOU_KNOW.match(q):
        return True
    last = re.split(r"[,;:\u2013\u2014]\s*", q)[-1].split()  # "X is Y, what is yours?"
    if len(last) > 1 and last[0].lower() != q.split()[0].lower() and (
            last[0].lower() in WH_WORDS - {"which", "who", "whom", "whose"}
            or (last[0].lower() in AUX and last[1].lower() in SUBJECT_PRONOUNS)):
        return True
    if first in SUBJECT_PRONOUNS and len(words) > 1:
        return False
    return subject_of(q) is None


#: Auxiliaries a base verb follows in a question ("Can items ... be refunded", "Does it ship").
#: Not ``language.lexicon.MODALS`` (the modal verbs a claim's strength is read from): it has
#: "do", "does", "did" and no "cannot".
_BASE_VERB_AUX = frozenset("can could will would may might must should shall do does did".split())
_BASE_VERBS = frozenset(VERB_BASES) | IMPERATIVES | {"be", "have", "get", "pay", "buy"}


def _declarative(aux: str, rest: str, negate: bool = False) -> str | None:
    """ "Can" + "sale items be refunded" -> "Sale items can be refunded." (``negate``:
    "... cannot be ..."), or ``None`` when no subject can be found."""
    words = rest.split()
    aux = aux.lower().replace("\u2019", "'")
    split = None
    if words and words[0].lower() in SUBJECT_PRONOUNS:
        split = 1
    elif aux in _BASE_VERB_AUX:  # "Can items bought on sale be refunded": the base verb
        split = next((i for i in range(1, len(words))
                      if words[i].lower() in _BASE_VERBS), None)
    if split is None and not (words and words[0].lower() in SUBJECT_PRONOUNS):
        for i in range(1, len(words)):
            w = words[i].lower()
            if re.fullmatch(r"\d+[a-z]?", w) and words[i - 1][:1].isupper():
                continue  # a number that ends a name ("the Pico 2", "Windows 11")
            if is_verb(w) or w in IMPERATIVES or (
                    aux not in {"does", "do", "did"} and _PREDICATE_START.match(w)):
                split = i
                break
    if split is None:
        return None
    subject = " ".join(words[:split])
    if negate:
        aux = "cannot" if aux == "can" else f"{aux} not"
    return f"{subject[:1].upper()}{subject[1:]} {aux} {' '.join(words[split:])}."


def question_claim(m: Mapped):
    """A claim piece for a question that carries a fact, else ``None``: a question with a
    number ("Is it waterproof to 10 m?") or a relative clause of its own ("..., which takes 90
    days?") is judged as written; a why-question presupposes its proposition ("Why are sale
    items always refundable?" -> "Sale items are always refundable.")."""
    text = m.text.rstrip("\"'\u201d)").rstrip()
    why = WHY_QUESTION.match(text)
    if why and why.group(1).lower().replace("\u2019", "'") in AUX:
        statement = _declarative(why.group(1), why.group(2))
        if statement:
            return ("claim", None, m, statement)
    if why and why.group(1).lower() not in AUX and text.lower().startswith("how come"):
        return ("claim", None, m, text[len("how come"):].strip().rstrip("?").strip() + ".")
    if (has_number(text) or why
            or any(True for _ in conjunct_cuts(text))):
        return ("claim", None, m, text)
    return None


def answered_question(question: str, reply: str, subject: str | None = None) -> str | None:
    """The statement a yes/no question and the reply after it make together, else ``None``.

    The reply is an affirmative or negative ("Yes.", "Absolutely!", "Of course not.", "They
    can.", "It isn't.", see ``reply_polarity``). The question is an inverted yes/no question
    ("Can sale items be refunded? Yes." -> "Sale items can be refunded."; a negative one,
    "Isn't X Y? Yes." -> "X is Y."; "Will I get a refund? Yes." -> "You will get a refund.")
    or declarative word order with a question mark ("Refunds take 14 days? No." -> "It is not
    the case that refunds take 14 days."), or a question of only what it asks about
    ("Waterproof? Yes." -> "The Pico is waterproof." with ``subject`` "The Pico", the
    answer's subject so far; "Waterproof: yes." as written without one, or when what it asks
    about is no predicate), or an indirect question answered by a bare reply ("You may wonder
    whether it is waterproof. It is." / "..., but it is." -> "It is waterproof.").
    """
    polarity = reply_polarity(reply)
    if polarity is None:
        return None
    q = question.strip().rstrip("\"'\u201d)").rstrip()
    if not q.endswith("?"):
        indirect = list(_INDIRECT.finditer(q))
        if not indirect or not is_bare_reply(reply):
            return None
        return _negated(indirect[-1].group("clause"), not polarity)
    polar = _POLAR.match(q.replace("\u2019", "'"))
    if polar:
        aux, rest = polar.group(1).lower(), _second_person(polar.group(2))
        if aux in NEG_AUX:
            aux = NEG_AUX[aux]
        return _declarative(aux, rest, negate=not polarity)
    keyed = _keyed_question(q.rstrip("?").strip())
    if keyed:
        topic, predicate = keyed
        if predicate.split()[0].lower().replace("\u2019", "'") in AUX | set(NEG_AUX):
            predicate = re.sub(r"^(\S+\s+)(?:it|they)\b", lambda m: m.group(1) + topic,
                               predicate, flags=re.IGNORECASE)  # "Sale items: can they ...?"
            return answered_question(predicate + "?", reply)
        if is_verb_form(predicate.split()[0]) and predicate.split()[0].lower() not in AUX:
            body = f"{topic} {predicate}"  # "Refunds: take 14 days?"
        else:
            copula = "are" if _plural(topic) else "is"
            if not polarity:  # "Sale items: refundable? No." -> "... are not refundable."
                return finish_sentence(f"{topic} {copula} not {predicate}")
            return finish_sentence(f"{topic} {copula} {predicate}")
        if polarity:
            return finish_sentence(body)
        return f"It is not the case that {body[:1].lower() + body[1:]}."
    bare = q.rstrip("?").strip()
    words = bare.replace("\u2019", "'").split()
    if (_BARE_QUESTION.match(bare) and len(words) <= 4 and ":" not in bare
            and words[0].lower() not in (AUX | set(NEG_AUX) | WH_WORDS | _ELLIPTICAL
                                         | SUBJECT_PRONOUNS)
            and not any(is_verb(w) for w in words)):
        # "Waterproof? Yes." says the answer's subject is waterproof
        predicate = bare[:1].lower() + bare[1:] if not bare[1:2].isupper() else bare
        if subject and (PREDICATE_WORD.match(words[-1]) or _PREDICATE_START.match(words[0])):
            copula = "are" if _plural(subject) else "is"
            negation = "" if polarity else " not"
            return finish_sentence(f"{capitalized(subject)} {copula}{negation} {predicate}")
        return finish_sentence(f"{bare}: {'yes' if polarity else 'no'}")  # as written
    if is_interrogative(q):
        return None
    body = q.rstrip("?").strip()
    if polarity:
        return finish_sentence(body)
    return f"It is not the case that {body[:1].lower() + body[1:]}."


def _negated(clause: str, negate: bool) -> str:
    """``clause`` as a sentence, negated at its first auxiliary ("it is waterproof" -> "It is
    not waterproof."), or as "It is not the case that ..." when it has none."""
    if not negate:
        return finish_sentence(clause)
    words = clause.split()
    at = next((i for i in range(1, len(words)) if words[i].lower() in AUX), None)
    if at is None:
        return f"It is not the case that {clause[:1].lower() + clause[1:]}."
    aux = "cannot" if words[at].lower() == "can" else f"{words[at]} not"
    return finish_sentence(" ".join(words[:at] + [aux] + words[at + 1:]))


def elliptical_claim(text: str) -> bool:
    """Whether a claim is only a subject and an auxiliary ("The Pico 2 sure is.", "It is.",
    "They can't."): it has no predicate of its own to judge. The offline decomposer reads
    such a clause with the question it answers; the pipeline scores no such claim of an LLM
    decomposer (its sentence is judged instead)."""
    m = _ELLIPTICAL_CLAIM.match(text.strip().replace("\u2019", "'"))
    return m is not None and not any(w.lower() in AUX for w in m.group("subject").split())


def _keyed_question(q: str) -> tuple[str, str] | None:
    """A yes/no question written as a topic and a predicate, without a verb between them:
    "Sale items: refundable" (a ``key: value`` question) or "Sale items refundable" (a
    predicative word after the topic: ``PREDICATE_WORD``) -> ("Sale items", "refundable");
    ``None`` for any other question (one with a verb after its subject, an inverted or a
    wh-question)."""
    words = q.replace("\u2019", "'").split()
    if not words or words[0].lower().strip(",:") in (AUX | set(NEG_AUX) | WH_WORDS
                                                    | _ELLIPTICAL | SUBJECT_PRONOUNS):
        return None
    keyed = re.fullmatch(r"(?P<topic>[^:?]{1,60}?)\s*:\s+(?P<predicate>[^:?]*\w[^:?]*)", q)
    if keyed:
        topic, predicate = keyed.group("topic").strip(), keyed.group("predicate").strip()
        if WORD.search(topic) and not (subject_of(topic) or any(is_verb(w) for w in
                                                                topic.split()[1:])):
            if predicate.split()[0].lower() in WH_WORDS | _ELLIPTICAL:
                return None
            return capitalized(topic), predicate
        return None
    if subject_of(q) or words[0].lower() in _ELLIPTICAL | SUBJECT_PRONOUNS:
        return None
    at = next((i for i in range(1, len(words)) if PREDICATE_WORD.match(words[i].strip(",;"))
               and words[i].lower() not in AUX), None)
    if at is None:
        return None
    return capitalized(" ".join(words[:at])), " ".join(words[at:])


def _plural(noun_phrase: str) -> bool:
    """Whether a noun phrase's head (its last word) reads as plural ("Sale items", "Refunds";
    not "Glass", "Status", "The warranty")."""
    last = noun_phrase.split()[-1].lower() if noun_phrase.split() else ""
    return bool(re.search(r"[^s]s$", last) and not re.search(r"(?:us|is|ss)$", last)) or (
        last in {"people", "children", "data", "media", "criteria"})


def _second_person(text: str) -> str:
    """The asker's words in the answerer's voice: I/me/my -> you/you/your."""
    swap = {"i": "you", "me": "you", "my": "your", "mine": "yours", "i'm": "you're"}
    return re.sub(r"\b(?:i'm|i|me|my|mine)\b", lambda m: swap[m.group(0).lower()], text,
                  flags=re.IGNORECASE)
