"""Decomposition: an answer -> atomic, self-contained claims, plus the text set aside.

The decomposer sees the answer and nothing else (no passages, no question, no gold answer):
``RuleDecomposer.decompose(answer)`` takes exactly one argument.

Rules, applied in order (the offline judge's decomposer; the LLM judge follows the same
rules through its prompt, see ``prompts.DECOMPOSE_SYSTEM``):

1. Markdown is read as structure: fenced code blocks and headings are set aside; each bullet or
   numbered item is a sentence of its own, even without a full stop; a bullet with no subject
   borrows the topic of the heading above it.
2. Sentences are segmented by pysbd (Sadvilkar & Neumann 2020, "PySBD: Pragmatic Sentence
   Boundary Disambiguation"), with the language taken from the script.
3. Inline citation markers (``[1]``, ``[p-2071, p-2072]``) are removed; they are not claims.
4. Non-assertive sentences are set aside and recorded: greetings, offers of help, questions,
   restatements of the question, and first-person refusals ("I couldn't find that").
   Interjections that open an assertion ("Yes — ...", "According to the documents, ...") are
   stripped from it.
5. Coordinated assertions are split: "X supports A and has B" -> "X supports A." / "X has B.";
   a conjunct that is a clause of its own ("..., and it runs ...") is split too.
6. Pronouns and possessives that open a claim (it, its, they, their, this) are resolved to the
   subject of the previous claim, so each claim stands alone.
7. Hedges stay with the claim they modify ("typically delivered within an hour" is one claim).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .records import Decomposition
from .text import collapse_ws, has_cjk, sentence_spans, strip_citations

RULES_VERSION = "rules-2026.11-1"

_AUX = {
    "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "can",
    "could", "will", "would", "may", "might", "must", "should", "shall", "does", "do", "did",
    "isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "can't", "cannot", "won't",
    "doesn't", "don't", "didn't", "shouldn't", "mustn't", "'s", "'re",
}
# Common verbs, base form; +s / +es / +ed / +d forms are derived.
_VERB_BASES = (
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
_IMPERATIVES = {
    "make", "configure", "set", "enable", "disable", "go", "click", "select", "use", "ensure",
    "check", "open", "add", "remove", "install", "restart", "navigate", "choose", "create",
    "contact", "visit", "press", "turn", "update", "run", "note", "remember", "call", "email",
    "see", "grant", "allow", "attach", "assign", "upload", "download", "store", "keep", "avoid",
}
_SUBJECT_PRONOUNS = {"it", "they", "he", "she", "we", "you", "this", "these", "that", "there", "i"}
_DETERMINERS = {"the", "a", "an", "its", "their", "our", "your", "his", "her", "this", "these",
                "those", "each", "every", "all", "some", "most", "many", "both"}


@lru_cache(maxsize=1)
def _verb_forms() -> frozenset[str]:
    forms: set[str] = set(_AUX) | _IRREGULAR
    for base in _VERB_BASES:
        forms.add(base)
        forms.add(base + "s")
        forms.add(base + "es")
        forms.add(base[:-1] + "ies" if base.endswith("y") else base + "s")
        forms.add(base + "d" if base.endswith("e") else base + "ed")
        if base.endswith("y"):
            forms.add(base[:-1] + "ied")
    return frozenset(forms)


def _is_verb(token: str) -> bool:
    return token.lower().strip(",;:") in _verb_forms()


_GREETING = re.compile(
    r"^(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening)|thanks?(?: you)?(?: so much)?|"
    r"you'?re welcome|(?:i'?m |i am |i'?d be |i would be )?(?:happy|glad) to help|"
    r"(?:i )?hope (?:this|that) helps|let me know|please let me know|feel free|"
    r"don'?t hesitate|is there anything else|anything else|(?:what an? |that's an? )?(?:great|good|excellent|interesting) question|"
    r"sure thing|certainly|of course|absolutely|no problem|cheers|best regards|kind regards)\b",
    re.IGNORECASE,
)
_OFFER = re.compile(
    r"\b(?:let me know|feel free to|happy to help|glad to help|hope (?:this|that) helps|"
    r"if you have any (?:other |more |further )?questions|don'?t hesitate to)\b",
    re.IGNORECASE,
)
_RESTATE = re.compile(
    r"^(?:you (?:asked|are asking|'re asking|want to know|wanted to know)|your question|"
    r"the question (?:is|was|asks)|to answer your question|regarding your question|"
    r"you'?d like to know)\b",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"^(?:(?:i'?m|i am) (?:sorry|afraid)[,.]?\s*(?:but\s*)?)?(?:unfortunately,?\s*)?"
    r"(?:i|we)\s+(?:could(?:n'?t| not)|can(?:'?t|not| not)|do(?:n'?t| not)|did(?:n'?t| not)|"
    r"was(?:n'?t| not) able to|am (?:not able|unable) to|'?m (?:not able|unable) to|"
    r"have no|had no|found no)\s*(?:\w+\s+){0,3}?"
    r"(?:find|locate|see|have|know|access|answer|provide|help|determine|confirm|information|"
    r"details|data|record)",
    re.IGNORECASE,
)
_APOLOGY = re.compile(r"^(?:i'?m|i am) (?:sorry|afraid)\b[^.!?]*$", re.IGNORECASE)
_META_LEADIN = re.compile(r"^(?:here(?:'s| is| are)\b.*:|(?:in )?summary:?)$", re.IGNORECASE)
_OPENERS = re.compile(
    r"^(?:(?:yes|yeah|yep|sure|certainly|absolutely|indeed|of course|great question|good question|"
    r"okay|ok|well)\s*(?:[,!:;.]|\s[-\u2013\u2014])\s*|"
    r"(?:according to|based on|per|as (?:stated|mentioned|noted) in) (?:the )?(?:provided |given |"
    r"retrieved |available )?(?:documents?|context|passages?|sources?|information|documentation|"
    r"docs|text)\s*,\s*)",
    re.IGNORECASE,
)
_LEAD_ADVERBIAL = re.compile(
    r"^((?:in|on|for|at|during|with|under|after|before|since|from|by|within)\s[^,]{1,60},\s+)",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*+\u2022\u25aa\u2023]|\d{1,3}[.)])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_EMPHASIS = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_TOPIC_SUFFIX = re.compile(
    r"\s*(?:at a glance|overview|summary|key (?:specs|features|facts|points)|specs|features|"
    r"details|highlights)\s*:?\s*$",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(r"(\s*(?:;\s*|,\s*(?:and|but|while|whereas)\s+|\s+(?:and|but)\s+))",
                           re.IGNORECASE)


class RuleDecomposer:
    """Rule-based decomposer (no model, no network, deterministic). See the module docstring.

    ``decompose(answer)`` returns a ``Decomposition`` (claims + dropped text).

    Raises:
        TypeError: ``answer`` is not a string.
    """

    version = RULES_VERSION

    def decompose(self, answer: str) -> Decomposition:
        """Split ``answer`` into claims; an empty or whitespace answer gives no claims."""
        if not isinstance(answer, str):
            raise TypeError(f"answer must be a string, got {type(answer).__name__}")
        claims: list[str] = []
        dropped: list[str] = []
        entity: str | None = None
        for kind, block, topic in _blocks(answer):
            if kind == "drop":
                dropped.append(block)
                continue
            for sentence in _sentences(block):
                sentence_raw = collapse_ws(sentence)
                text = strip_citations(sentence_raw)
                if not re.search(r"\w", text):
                    continue
                if _non_assertive(text):
                    dropped.append(sentence_raw)
                    continue
                text = _OPENERS.sub("", text).strip()
                if kind == "bullet" and topic:
                    text = _attach_topic(text, topic)
                for clause in _split_coordination(text):
                    clause, entity = _resolve(clause, entity)
                    clause = _finish(clause)
                    if clause:
                        claims.append(clause)
        return Decomposition(claims=claims, dropped=dropped)


def _blocks(answer: str):
    """Yield ("text" | "bullet" | "drop", text, topic) from markdown-ish answer text."""
    topic: str | None = None
    in_fence = False
    fence_lines: list[str] = []
    paragraph: list[str] = []

    def flush():
        if paragraph:
            joined = " ".join(paragraph)
            paragraph.clear()
            return [("text", joined, None)]
        return []

    table_rows: list[list[str]] = []
    header: list[str] | None = None
    for line in answer.splitlines():
        if _FENCE.match(line):
            if in_fence:
                fence_lines.append(line)
                yield ("drop", "\n".join(fence_lines), None)
                fence_lines = []
                in_fence = False
            else:
                yield from flush()
                in_fence = True
                fence_lines = [line]
            continue
        if in_fence:
            fence_lines.append(line)
            continue
        stripped = line.strip()
        if not stripped:
            yield from flush()
            continue
        if stripped.startswith("|"):
            yield from flush()
            cells = [_clean_md(c.strip()) for c in stripped.strip("|").split("|")]
            if _TABLE_SEP.match(stripped):
                if table_rows:  # the row above the separator is the header
                    header = table_rows.pop()
                    yield ("drop", " | ".join(header), None)
                continue
            if header and len(cells) == len(header):
                pairs = [f"{h}: {c}" for h, c in zip(header, cells) if h and c]
                yield ("text", "; ".join(pairs) + ".", None)
            else:
                table_rows.append(cells)
            continue
        if table_rows or header:  # a table ended: a header-less table is read row by row
            for row in table_rows:
                yield ("text", ", ".join(c for c in row if c) + ".", None)
            table_rows, header = [], None
        is_heading = bool(_HEADING.match(stripped))
        plain = _clean_md(_HEADING.sub("", stripped))
        whole_bold = bool(re.fullmatch(r"(\*\*|__).+?\1:?", stripped))
        if is_heading or whole_bold or (plain.endswith(":") and len(plain.split()) <= 8
                                        and not _BULLET.match(stripped)):
            yield from flush()
            yield ("drop", plain, None)
            topic = _TOPIC_SUFFIX.sub("", plain.rstrip(":")).strip() or None
            continue
        if _BULLET.match(stripped):
            yield from flush()
            yield ("bullet", _clean_md(_BULLET.sub("", stripped)), topic)
            continue
        paragraph.append(plain)
    if in_fence and fence_lines:
        yield ("drop", "\n".join(fence_lines), None)
    for row in table_rows:
        yield ("text", ", ".join(c for c in row if c) + ".", None)
    yield from flush()


def _clean_md(text: str) -> str:
    return _EMPHASIS.sub("", text).strip()


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


def non_assertive_reason(text: str) -> str | None:
    """Why ``text`` (one sentence or item) is not an assertion, or ``None`` when it asserts.

    The local test every decomposer's set-aside text is held to (the pipeline re-checks an
    LLM's ``dropped`` list with it). Reasons: ``"question"``, ``"greeting or pleasantry"``,
    ``"restates the question"``, ``"lead-in"``, ``"refusal"``, ``"offer of help"``.
    English only.

    Raises:
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    plain = text.strip().strip("\"'")
    if plain.endswith("?"):
        return "question"
    if _GREETING.match(plain):
        return "greeting or pleasantry"
    if _RESTATE.match(plain):
        return "restates the question"
    if _META_LEADIN.match(plain):
        return "lead-in"
    if _REFUSAL.match(plain) or _APOLOGY.match(plain):
        return "refusal"
    if _OFFER.search(plain) and len(plain.split()) <= 16:
        return "offer of help"
    return None


def _non_assertive(text: str) -> bool:
    return non_assertive_reason(text) is not None


def _attach_topic(text: str, topic: str) -> str:
    words = text.split()
    if not words:
        return text
    first = words[0].lower()
    if first in _SUBJECT_PRONOUNS or first in _DETERMINERS or topic.lower() in text.lower():
        return text
    if any(_is_verb(w) for w in words[1:]):  # it has a subject and a verb of its own
        return text
    if _is_verb(first) or (first.endswith("s") and not first.endswith("ss") and len(first) > 3):
        return f"{topic} {first}{(' ' + ' '.join(words[1:])) if len(words) > 1 else ''}"
    return f"{topic}: {text}"


def _subject_of(clause: str) -> tuple[str, str, str] | None:
    """Split a clause into (lead adverbial, subject, predicate) at its first verb."""
    lead = ""
    m = _LEAD_ADVERBIAL.match(clause)
    if m:
        lead, clause = m.group(1), clause[m.end():]
    words = clause.split()
    for i, w in enumerate(words):
        if i > 0 and _is_verb(w):
            return lead, " ".join(words[:i]), " ".join(words[i:])
        if i > 0 and w.lower().endswith("'s") and i + 1 < len(words) and _is_verb(words[i + 1]):
            continue
    return None


def _split_coordination(text: str) -> list[str]:
    """Split coordinated assertions; conjuncts that share the subject get it copied."""
    if has_cjk(text):
        return [text]
    pieces = _CLAUSE_SPLIT.split(text)
    if len(pieces) == 1:
        return [text]
    out: list[str] = [pieces[0]]
    for glue, part in zip(pieces[1::2], pieces[2::2]):
        words = part.split()
        first = words[0].lower() if words else ""
        prev = out[-1]
        is_clause = False
        shared_subject = False
        if first in _SUBJECT_PRONOUNS - {"that"}:
            is_clause = True
        elif first in _DETERMINERS and any(w.lower() in _AUX for w in words[1:7]):
            is_clause = True
        elif first in _AUX or (_is_verb(first) and first not in {"use", "work", "show", "sell",
                                                                 "stay", "star"}):
            is_clause = True
            shared_subject = True
        elif first in _IMPERATIVES and _starts_imperative(prev):
            is_clause = True
        if not is_clause:
            out[-1] = prev + glue + part  # not a clause: keep the original text
            continue
        if shared_subject:
            if _starts_imperative(prev):
                out.append(part)
                continue
            parsed = _subject_of(out[0])
            if parsed is None:
                out[-1] = prev + glue + part
                continue
            lead, subject, _ = parsed
            lead_cap = lead[:1].upper() + lead[1:] if lead else ""
            subj = subject if lead else subject[:1].upper() + subject[1:]
            if lead_cap:
                subj = subject
            out.append(f"{lead_cap}{subj} {part}")
        else:
            lead = _LEAD_ADVERBIAL.match(out[0])
            out.append((lead.group(1) if lead else "") + part)
    return out


def _starts_imperative(clause: str) -> bool:
    m = _LEAD_ADVERBIAL.match(clause)
    words = (clause[m.end():] if m else clause).split()
    return bool(words) and words[0].lower() in _IMPERATIVES


_PRONOUN_SUBJECT = re.compile(r"^(it|they|this|these)\b(?!\s*'s\b)(?=\s+\S)", re.IGNORECASE)
_PRONOUN_POSSESSIVE = re.compile(r"^(its|their)\b", re.IGNORECASE)


_CONTRACTION = re.compile(r"^(it|they|this)(?:'s|\u2019s|'re|\u2019re)\s+|^(its)\s+(?=(?:the|a|an)\s)",
                          re.IGNORECASE)


def _expand_contraction(body: str) -> str:
    m = _CONTRACTION.match(body)
    if not m:
        return body
    pronoun = m.group(1) or m.group(2)[:2]
    verb = "are" if pronoun.lower() == "they" else "is"
    return f"{pronoun} {verb} " + body[m.end():]


def _resolve(clause: str, entity: str | None) -> tuple[str, str | None]:
    """Resolve an opening pronoun to ``entity``; return the clause and the new entity."""
    m = _LEAD_ADVERBIAL.match(clause)
    lead, body = (m.group(1), clause[m.end():]) if m else ("", clause)
    if entity:
        body = _expand_contraction(body)
    if entity:
        pm = _PRONOUN_SUBJECT.match(body)
        nxt = body[pm.end():].split()[0].lower() if pm and body[pm.end():].split() else ""
        if pm and (pm.group(1).lower() in {"it", "they"} or _is_verb(nxt)):
            body = _the(entity) + body[pm.end():]
        else:
            pp = _PRONOUN_POSSESSIVE.match(body)
            if pp:
                body = _possessive(_the(entity)) + body[pp.end():]
    if not lead:
        body = body[:1].upper() + body[1:]
    clause = lead + body
    parsed = _subject_of(clause)
    if parsed is not None:
        subject = parsed[1]
        first = subject.split()[0].lower() if subject.split() else ""
        if (first not in _SUBJECT_PRONOUNS and first not in {"its", "their", "his", "her"}
                and "," not in subject and len(subject.split()) <= 8):
            poss = re.match(r"^(.+?)'s?\s+\S", subject)
            entity = poss.group(1) if poss and "'" in subject else subject
    return clause, entity


def _the(entity: str) -> str:
    return entity[:1].lower() + entity[1:] if entity.split()[0].lower() in _DETERMINERS else entity


def _possessive(np: str) -> str:
    return np + ("'" if np.endswith("s") else "'s")


def _finish(clause: str) -> str:
    clause = clause.strip().strip(",;:").strip()
    if not clause or not re.search(r"\w", clause):
        return ""
    if has_cjk(clause):
        return clause
    clause = clause[:1].upper() + clause[1:]
    if clause[-1] not in ".!\u3002":
        clause += "."
    return clause
