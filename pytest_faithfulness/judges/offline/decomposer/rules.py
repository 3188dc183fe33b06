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
   Pico 2 is waterproof."). Only an interrogative is a question (it opens with an auxiliary, a modal or a
   wh-word, is a tag question, or is elliptical: "Anything else?"); declarative word order
   with a "?" ("Sale items can be refunded?") is a claim, its "?" made a full stop.
   A frame is set aside only when nothing factual remains once it is removed
   (``_carries_fact``): a number (digits not inside a name, or a number word) makes the whole
   unit a claim; a clause of its own after ", and/yet/so/because/which ..." (not opening with
   I/we/you, not about the answer itself) is cut off and kept as a claim ("..., which is Z" ->
   "The <noun> is Z."); so is an assertion a question or an offer carries (``_conjunct_cuts``):
   a relative clause with or without a comma ("Shall I also cancel your subscription, which
   renews daily?" -> "The subscription renews daily."; "the plan that renews daily"), a
   parenthetical ("Pro (which includes SSO)" -> "Pro includes SSO."), an appositive ("...
   to Pro, our plan with SSO?" -> "Pro is our plan with SSO.") or a "since/because" clause,
   its frame set aside ("question", "offer of help"); in an offer of help or a pleasantry, a verb, participle or predicative
   adjective outside the frame's own words ("Happy to help with X being refundable") makes it
   a claim. Questions with a number or a relative clause are judged as written; why-questions
   assert what they presuppose ("Why are X always Y?" -> "X are always Y.").
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
   ``_list_topic``), and none when only the frame is left ("Here is how returns work:", "The
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
"""

from __future__ import annotations

import re
from functools import lru_cache

from ....records import Decomposition, DroppedText
from ....text import (
    MD_BULLET,
    MD_FENCE,
    MD_HEADING,
    MD_TABLE_SEP,
    citation_spans,
    has_cjk,
    is_source_line,
    sentence_spans,
)

RULES_VERSION = "rules-2026.12-4"  # prose in fences; "Waterproof? Yes."; elliptical replies; splits at ";", ": ", " — "

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



_LEAD_ADVERBIAL = re.compile(
    r"^((?:in|on|for|at|during|with|under|after|before|since|from|by|within)\s[^,]{1,60},\s+)",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(r"(\s*(?:;\s*|:\s+|\u2014\s*|(?<=\s)[\u2013-]{1,2}\s+|"
                           r",\s*(?:and|but|while|whereas)\s+|\s+(?:and|but)\s+))",
                           re.IGNORECASE)
#: The glue of ``_CLAUSE_SPLIT`` that sets one statement beside another (a semicolon, a colon,
#: a spaced dash) rather than joining two: the side after it may have a subject of its own
#: that is no pronoun or determiner ("Refunds take 14 days; returns are free.").
_BESIDE = re.compile(r"\s*(?:;|:|\u2014|[\u2013-]{1,2})\s*")


# ---------------------------------------------------------------------------------------------
# What is not an assertion.

_ENDS = r"(?:\s*[,!:;.\u2026]+|\s+[-\u2013\u2014]+|\s*[\u2013\u2014]+)\s*"
_INFO = (r"(?:the |these |those )?(?:provided |given |retrieved |available |attached )?"
         r"(?:documents?|context|passages?|sources?|information|documentation|docs|text|manual|"
         r"data|search results?)")
_PLEASANTRY = (
    r"(?:hi|hello|hey)(?: there| all| everyone| team| folks)?|greetings|dear \w+|"
    r"good (?:morning|afternoon|evening|day)|"
    r"thanks?(?: you)?(?: so much| very much| a lot)?(?: for (?:asking|reaching out|waiting|"
    r"your (?:question|patience|message|interest|inquiry|enquiry)|the question|contacting us|"
    r"getting in touch))?|"
    r"you'?re (?:very )?welcome|my pleasure|no problem|no worries|sure thing|cheers|"
    r"(?:i'?m |i am |i'?d be |i would be |we'?re |we are )?(?:happy|glad|delighted) to "
    r"(?:help|assist|answer)(?: with (?:that|this))?|"
    r"(?:i )?hope (?:this|that|it) helps|"
    r"(?:what an? |that'?s an? |such an? )?(?:great|good|excellent|interesting|fair|fantastic) "
    r"question|great news|good news|best regards|kind regards|"
    r"(?:i'?m|i am) (?:so |very |really |truly )?sorry(?: to hear that| about that| for the "
    r"confusion)?|sorry|(?:i )?apologi[sz]e(?: for the confusion)?|unfortunately|"
    r"(?:i'?m|i am) afraid|"
    r"(?:if|should) you (?:have|need) (?:any )?(?:other |more |further |additional )?"
    r"(?:questions?|help|information|assistance|details)"
)
#: Openers that point back at what was said before ("As I said,", "As noted above,", "To
#: recap,"): a discourse frame, not part of the assertion after it. Shared with the
#: pipeline's alignment, which strips them before it measures a sentence's coverage.
RECAP_OPENER = (
    r"to recap|recapping|in recap|to reiterate|once again|again|"
    r"as (?:i|we)(?: have| had|'ve)? (?:said|mentioned|noted|explained|stated|described|"
    r"pointed out|covered)(?: (?:above|earlier|before|previously))?|"
    r"as (?:noted|mentioned|said|stated|explained|discussed|described|shown|covered|"
    r"pointed out) (?:above|earlier|before|previously)"
)
_INTERJECTION = (
    r"yes|yeah|yep|no|nope|sure|certainly|absolutely|indeed|of course|definitely|obviously|"
    r"okay|ok|well|alright|right|great|so|in short|in summary|to summari[sz]e|to sum up|"
    rf"short answer|long story short|the short answer is|{RECAP_OPENER}"
)
_ATTRIBUTION = (
    rf"(?:according to|based on|per|from|as (?:stated|mentioned|noted|described|shown) in) "
    rf"{_INFO}(?: (?:i have|provided|given|you shared))?|"
    r"to answer your question|regarding your question|as for your question"
)
_LEADIN = r"here(?:'s| is| are) (?:what|the|a|an|some|my)\b[^:.!?]{0,60}:"
_OPENER = re.compile(
    rf"^(?:(?P<pleasantry>{_PLEASANTRY})|(?P<interjection>{_INTERJECTION})|"
    rf"(?P<attribution>{_ATTRIBUTION})){_ENDS}|^(?P<bare>of course|certainly|absolutely|indeed|"
    rf"definitely|obviously|(?:i'?m|i am) afraid(?: that)?(?! of\b))\s+(?=\w)|^(?P<leadin>{_LEADIN})\s*",
    re.IGNORECASE,
)
#: Greetings, thanks and sign-offs in German, French, Spanish, Chinese and Japanese, as a
#: whole clause ("Vielen Dank für Ihre Nachricht.", "¡Hola!", "您好！", "ご質問ありがとうございます。").
_OTHER_PLEASANTRY = re.compile(
    r"^[\s\u00a1\u00bf]*(?:"
    # German
    r"hallo|guten (?:morgen|tag|abend)|servus|moin|(?:vielen |herzlichen |besten )?dank(?:e)?"
    r"(?: schön| sehr)?(?: für [^.!?]{0,40})?|ich hoffe,? (?:das|dies) hilft(?: (?:ihnen|dir))?"
    r"(?: weiter)?|gern(?:e)? geschehen|bitte schön|(?:viele|liebe|freundliche) grüße|"
    r"mit freundlichen grüßen|es tut mir leid|entschuldigung|"
    # French
    r"bonjour|bonsoir|salut|merci(?: beaucoup)?(?: pour [^.!?]{0,40})?|"
    r"j'espère que (?:cela|ça|ceci) (?:vous |t')?aide(?:ra)?|avec plaisir|je vous en prie|"
    r"cordialement|bien à vous|(?:je suis )?désolée?|"
    # Spanish
    r"hola|buen(?:os|as) (?:días|tardes|noches)|(?:muchas )?gracias(?: por [^.!?]{0,40})?|"
    r"espero que (?:esto|eso|le|te) (?:le |te )?(?:ayude|sirva)|con (?:mucho )?gusto|de nada|"
    r"saludos(?: cordiales)?|lo siento(?: mucho)?|"
    # Chinese
    r"您好|你好|大家好|(?:非常)?(?:谢谢|感谢)(?:您|你)?(?:的(?:提问|问题|耐心|来信|咨询))?|"
    r"希望(?:这|此|以上)?(?:些)?(?:信息|回答)?(?:能)?(?:对(?:您|你))?有(?:所)?帮助|不客气|祝好|"
    r"很高兴(?:为(?:您|你))?(?:服务|帮忙|回答)|抱歉|"
    # Japanese
    r"こんにちは|こんばんは|おはようございます|(?:ご質問|お問い合わせ)?(?:いただき)?"
    r"(?:どうも)?ありがとうございま(?:す|した)|お役に立てれば(?:幸いです|嬉しいです)|"
    r"どういたしまして|よろしくお願い(?:いた)?します|申し訳(?:ございません|ありません)"
    r")[\s!.,;:\u3002\uff01\uff0c\u3001~\u2026]*$", re.IGNORECASE)
_OPENER_ALONE = re.compile(rf"^(?:{_PLEASANTRY}|{_INTERJECTION}|{_ATTRIBUTION}|{_LEADIN})\W*$",
                           re.IGNORECASE)
_LEAD_CONJ = re.compile(r"^(?:and|but|so|however|though|although|also|plus)\b,?\s*", re.IGNORECASE)
_RESTATE = re.compile(
    r"^(?:you (?:asked|are asking|'re asking|want to know|wanted to know)|your question|"
    r"the question (?:is|was|asks)|you'?d like to know)\b",
    re.IGNORECASE,
)
_META_LEADIN = re.compile(r"^(?:here(?:'s| is| are)\b.*:|(?:in )?summary:?)$", re.IGNORECASE)
#: A sentence that only announces what follows: "Here is how returns work.", "Here's what you
#: need to know." (a lead-in, set aside; with a number it is judged).
_ANNOUNCE = re.compile(
    r"^(?:so,? )?here(?:'s| is| are) (?:how|what|why|where|when|which|who)\b[^:;]*[.!]?$|"
    r"^(?:so,? )?here(?:'s| is| are) (?:an? |the |some |my )?(?:quick |short |brief )?"
    r"(?:overview|summary|rundown|breakdown|answer|explanation|details)\b[^:;]*[.!]?$",
    re.IGNORECASE)
#: A lead-in line that announces a list: "Here is how returns work:", "Here are the Pico's
#: specs:", "Returns work like this:", "The steps are below:" (see ``_list_topic``).
_HERE = re.compile(r"^(?:so,? )?here(?:'s| is| are)\s+", re.IGNORECASE)
_ANNOUNCED = re.compile(r"^(?P<topic>.*?)\s*\b(?:(?:works?|goes|go|happens?|is done|are done|"
                        r"are|is)\s+)?(?:as follows|like this|like so|below)\W*$",
                        re.IGNORECASE)


def _list_topic(lead_in: str) -> str | None:
    """The topic the items under a lead-in line carry: the lead-in without its announcing
    frame ("Here are the Pico's specs" -> "The Pico's specs", "Returns work like this" ->
    "Returns"); ``None`` when nothing but the frame is left ("Here is how returns work": a
    wh-clause names no topic an item could carry). Any other lead-in is its own topic."""
    here = _HERE.match(lead_in)
    if here:
        rest = lead_in[here.end():].strip()
        if not rest or rest.split()[0].lower() in _WH_WORDS:
            return None
        return rest[:1].upper() + rest[1:]
    announced = _ANNOUNCED.match(lead_in)
    if announced:
        topic = announced.group("topic").strip()
        if re.fullmatch(r"(?:the )?(?:steps?|details?|options?|following|answer|list)", topic,
                        re.IGNORECASE):
            return None  # "The steps are below:" names no topic of its own
        return topic or None
    return lead_in
_REFUSAL = re.compile(
    r"^(?:(?:i|we)\s+(?:could(?:n'?t| not)|can(?:'?t|not| not)|do(?:n'?t| not)|did(?:n'?t| not)|"
    r"was(?:n'?t| not) able to|were(?:n'?t| not) able to|am (?:not able|unable) to|"
    r"'?m (?:not able|unable) to|are (?:not able|unable) to|have no|had no|found no|have not|"
    r"haven'?t)\s*(?:\w+\s+){0,3}?(?:find|locate|see|know|access|answer|determine|confirm|"
    r"information|details|data|records?|mention|documentation|specifics)|"
    r"i\s+(?:can(?:'?t|not| not)|could(?:n'?t| not)|am unable to|'?m unable to|am not able to)\s+"
    r"(?:help|provide|assist|answer|say|tell)|"
    rf"{_INFO}(?: (?:i have|provided|given|you shared))? (?:do(?:es)?n'?t|do(?:es)? not|"
    r"did(?:n'?t| not)) (?:mention|say|state|contain|include|specify|cover|provide|discuss|"
    r"address|have)|"
    r"there (?:is|was|are) no (?:information|mention|details?|data|records?)\b.*\b(?:in|from) "
    rf"{_INFO}|no (?:information|details?|data) (?:is|was) (?:available|provided|given))",
    re.IGNORECASE,
)
_APOLOGY = re.compile(r"^(?:(?:i'?m|i am) (?:so |very |really |truly )?sorry|(?:i )?apologi[sz]e|"
                      r"sorry)(?:\s+(?:for|about|to hear|if)\b|\W*$)", re.IGNORECASE)
_OFFER = re.compile(
    r"^(?:please |just |so |and )?(?:let me know|let us know|feel free|don'?t hesitate|"
    r"do not hesitate|i'?d be happy to|i would be happy to|i'?m happy to|i am happy to|"
    r"happy to help|glad to help|(?:i )?hope (?:this|that|it) helps|is there anything else|"
    r"anything else|would you like|do you want|want me to|shall i|"
    r"(?:if|should) you (?:have|need|want)\b)",
    re.IGNORECASE,
)
# Rhetorical questions that assert their proposition.
_DID_YOU_KNOW = re.compile(
    r"^(?:(?:did|do) you know|have you heard|you know|remember|note)(?: that)?\s+"
    r"(?!(?:if|whether|what|how|when|where|why|which|who)\b)(?=\S)",
    re.IGNORECASE,
)
_NEG_AUX = {"isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "were",
            "doesn't": "does", "don't": "do", "didn't": "did", "hasn't": "has",
            "haven't": "have", "hadn't": "had", "can't": "can", "couldn't": "could",
            "won't": "will", "wouldn't": "would", "shouldn't": "should"}
_NEG_QUESTION = re.compile(rf"^({'|'.join(re.escape(a) for a in _NEG_AUX)})\s+(\S.*?)\s*\?$",
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
_CLAUSE_BOUNDARY = re.compile(
    r"\s*;\s*|:\s+|\s+[-\u2013\u2014]+\s+|\s*[\u2013\u2014]+\s*|,?\s+but\s+|,\s*however,?\s+|"
    r"(?<!\bi)(?:,\s*|\s+)(?:and |so )?(?=(?:please )?(?:let me know|let us know|feel free|"
    r"don'?t hesitate|(?:i )?hope (?:this|that|it) helps|is there anything else)\b)",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w")
#: A comma and a word that opens a clause of its own: where a non-assertive frame ("You asked
#: whether X", "The documents don't mention it", "Let me know if ...") may carry a fact after it.
_CONJUNCT = re.compile(r",\s*(?:(?:and|yet|so|because|since|although|though)\s+|(?=(?:which|who)\s))",
                       re.IGNORECASE)
_META_CLAUSE = re.compile(r"\b(?:summary|answer|response|reply|passages?|documents?|context)\b",
                          re.IGNORECASE)
#: Number words (besides digits) that make a frame factual; "one" is left out ("find one").
_NUMBER_WORDS = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|hundred|thousand|million|billion|dozen|half|twice|double|triple)\b",
    re.IGNORECASE)
#: The own vocabulary of offers of help and pleasantries; any other verb, participle or
#: predicative adjective in one ("Happy to help with sale items being refundable") is a fact.
_FRAME_WORDS = frozenset((
    "let me us know if you your you'd you'll you're have has need want like would could can "
    "any other more further additional question questions help helps helped helpful anything "
    "else i i'd i'm i'll we we'd we're we'll to with about on regarding this that it its assist "
    "assistance information details detail reach out contact ask get in touch free feel happy "
    "glad delighted the a an of for and or please hesitate don't do not support team hope there "
    "is are be am clarify clarification further explain elaborate discuss look into check find "
    "just so again always here available thanks thank welcome sorry apologize apologise "
    "confusion inconvenience hear process may might will shall should what else something "
    "reply respond share"
).split())
_PREDICATE_WORD = re.compile(
    r"^(?:being|been|is|are|was|were|\w+(?:able|ible|proof)|\w{3,}(?:ed|en))$", re.IGNORECASE)


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
    read with the question before it), ``"no words"``. English rules, plus whole-clause greetings, thanks and sign-offs in
    German, French, Spanish, Chinese and Japanese (other text in those languages asserts).

    Raises:
        TypeError: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    whole = _Mapped(text, list(range(len(text))))
    reasons = []
    sentences = [_without_citations(x) for x in _sentences(whole)]
    for i, sentence in enumerate(sentences):
        if not _WORD.search(sentence.text):
            continue
        if i + 1 < len(sentences) and answered_question(sentence.text, sentences[i + 1].text):
            return None
        if is_bare_reply(sentence.text):  # "No.", "Not at all.", "They aren't."
            reasons.append("reply to a question")
            continue
        pieces = _analyse(sentence)
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
    m = _without_citations(_Mapped(sentence, list(range(len(sentence)))))
    out = []
    for kind, reason, piece, _ in _analyse(m):
        where = [p for p in piece.pos if p >= 0]
        if kind == "drop" and where:
            out.append((min(where), max(where) + 1, reason))
    return out


def _clause_reason(text: str, first: bool = True) -> str | None:
    """Why one clause (no opener split off yet) is non-assertive as a whole, or ``None``.

    A clause after the first that is a bare interjection ("Free plan: no", "HDR: yes") is a
    value, not an interjection.
    """
    plain = _LEAD_CONJ.sub("", text.strip().strip("\"'\u201c\u201d")).strip()
    if not first and re.fullmatch(rf"(?:{_INTERJECTION})\W*", plain, re.IGNORECASE):
        return None
    if _OTHER_PLEASANTRY.match(plain):
        return "greeting or pleasantry"
    while True:
        m = _OPENER.match(plain)
        if not m or not m.end():
            break
        if _META_LEADIN.match(plain):
            return "lead-in"
        plain = plain[m.end():].lstrip()
    if not _WORD.search(plain) or _OPENER_ALONE.match(plain):
        return "greeting or pleasantry"
    reason = _frame_reason(plain)
    if reason is None or reason == "lead-in" or _carries_fact(plain, reason):
        return reason if reason == "lead-in" else None
    return reason


def _frame_reason(plain: str) -> str | None:
    if plain.rstrip("\"'\u201d)").endswith("?"):
        return "question"
    if _RESTATE.match(plain):
        return "restates the question"
    if _META_LEADIN.match(plain) or (_ANNOUNCE.match(plain) and not _has_number(plain)):
        return "lead-in"
    if _REFUSAL.match(plain):
        return "refusal"
    if _APOLOGY.match(plain):
        return "greeting or pleasantry"
    if _OFFER.match(plain):
        return "offer of help"
    return None


def _has_number(text: str) -> bool:
    """A number as a quantity: digits not inside a name (``K7``, ``A320`` are names), or a
    number word."""
    return bool(re.search(r"(?<![^\W\d_])\d", text) or _NUMBER_WORDS.search(text))


def _carries_fact(plain: str, reason: str) -> bool:
    """True when a clause with a non-assertive frame says something factual besides it: a
    number (digits or a number word), or, in an offer of help or a pleasantry, a verb,
    participle or predicative adjective outside the frame's own vocabulary ("Happy to help
    with sale items being refundable", "Feel free to return sale items at any store").
    Refusals, restatements and questions may name their topic ("You asked whether sale items
    can be refunded"); only a number or a clause of its own (see ``_CONJUNCT``) makes them
    factual."""
    if _has_number(plain):
        return True
    if reason not in {"offer of help", "greeting or pleasantry"}:
        return False
    for token in re.findall(r"[\w'\u2019-]+", plain.lower().replace("\u2019", "'")):
        if token in _FRAME_WORDS:
            continue
        if _is_verb(token) or _PREDICATE_WORD.match(token):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Text with its place in the answer.

class _Mapped:
    """A string and, for each of its characters, its offset in the answer (-1: written by us)."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: list[int]) -> None:
        self.text, self.pos = text, pos

    @classmethod
    def of(cls, answer: str, start: int, end: int) -> _Mapped:
        return cls(answer[start:end], list(range(start, end)))

    @classmethod
    def literal(cls, text: str) -> _Mapped:
        return cls(text, [-1] * len(text))

    def __add__(self, other: _Mapped) -> _Mapped:
        return _Mapped(self.text + other.text, self.pos + other.pos)

    def __getitem__(self, index: slice) -> _Mapped:
        return _Mapped(self.text[index], self.pos[index])

    def without(self, spans) -> _Mapped:
        """This text with the characters in ``spans`` (offsets into ``self.text``) removed."""
        keep = [True] * len(self.text)
        for start, end in spans:
            keep[start:end] = [False] * (end - start)
        return _Mapped("".join(c for c, k in zip(self.text, keep) if k),
                       [p for p, k in zip(self.pos, keep) if k])

    def remove(self, pattern: re.Pattern[str]) -> _Mapped:
        return self.without([m.span() for m in pattern.finditer(self.text)])

    def collapsed(self) -> _Mapped:
        """Whitespace runs -> one space (mapped to the run's first character), ends stripped."""
        text, pos = [], []
        for ch, p in zip(self.text, self.pos):
            if ch.isspace():
                if text and text[-1] != " ":
                    text.append(" ")
                    pos.append(p)
            else:
                text.append(ch)
                pos.append(p)
        if text and text[-1] == " ":
            text.pop()
            pos.pop()
        return _Mapped("".join(text), pos)

    def strip(self) -> _Mapped:
        start, end = 0, len(self.text)
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return self[start:end]

    def first(self) -> int | None:
        """The answer offset of the first character that came from the answer."""
        return next((p for p in self.pos if p >= 0), None)


def _sentences(m: _Mapped) -> list[_Mapped]:
    """Sentences of ``m``; they cover all of it (text pysbd leaves out joins the sentence
    before it), and a sentence that is only bracket markers joins the one before it."""
    starts = sorted({s for s, _ in sentence_spans(m.text)} | {0})
    parts = [m[a:b].strip() for a, b in zip(starts, starts[1:] + [len(m.text)])]
    out: list[_Mapped] = []
    for part in parts:
        if not part.text:
            continue
        if out and not _WORD.search(re.sub(r"\[[^\]]*\]|【[^】]*】", "", part.text)):
            out[-1] = out[-1] + _Mapped.literal(" ") + part
        else:
            out.append(part)
    return out


def _without_citations(m: _Mapped) -> _Mapped:
    return m.without(citation_spans(m.text)).strip()


# ---------------------------------------------------------------------------------------------
# One sentence -> pieces: ("claim", None, text, override) and ("drop", reason, text, None).

def _analyse(m: _Mapped) -> list[tuple[str, str | None, _Mapped, str | None]]:
    whole = m
    openers: list[_Mapped] = []
    while True:
        om = _OPENER.match(m.text)
        if not om or not om.end():
            break
        openers.append(m[:om.end()].strip())
        m = m[om.end():].strip()
    if not _WORD.search(m.text) or _OPENER_ALONE.match(m.text):
        reason = "lead-in" if _META_LEADIN.match(whole.text) else "greeting or pleasantry"
        return [("drop", reason, whole, None)]
    lead = [("drop", "opener", o, None) for o in openers if o.text]

    if m.text.rstrip("\"'\u201d)").endswith("?"):
        if not _interrogative(m.text) and _clause_reason(_unquestioned(m.text)) is None:
            return lead + [("claim", None, m, _unquestioned(m.text))]
        claim = _rhetorical(m)
        if claim is None:
            embedded = _embedded_pieces(m, "question")
            if embedded and not _WHY.match(m.text.rstrip("\"'\u201d)").rstrip()):
                return lead + embedded
            claim = _question_claim(m)
        if claim is None:
            return [("drop", "question", whole, None)]
        return lead + [claim]

    # clauses: drop the non-assertive ones, keep runs of assertive ones together
    cuts = [(b.start(), b.end()) for b in _CLAUSE_BOUNDARY.finditer(m.text) if b.end() > b.start()]
    embedded = [c for c in _conjunct_cuts(m.text)
                if not any(a < c[1] and c[0] < b for a, b in cuts)]
    cuts = sorted(cuts + embedded)
    bounds = [0] + [x for cut in cuts for x in cut] + [len(m.text)]
    clauses = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    reasons = [_clause_reason(m.text[a:b], i == 0) if _WORD.search(m.text[a:b]) else ""
               for i, (a, b) in enumerate(clauses)]
    if not any(r is None for r in reasons):
        first = next((r for r in reasons if r), None) or "greeting or pleasantry"
        return [("drop", first, whole, None)]
    pieces = list(lead)
    run: list[tuple[int, int]] = []

    previous: list[tuple[int, int]] = []  # the last dropped clause

    def flush():
        if run:
            text = m[run[0][0]:run[-1][1]]
            override = None
            if previous and any(b == run[0][0] for _, b in embedded):
                override = _relative_claim(m.text[previous[0][0]:previous[0][1]], text.text)
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


def _unquestioned(text: str) -> str:
    """A declarative sentence with its question mark made a full stop."""
    return re.sub(r"\s*\?+([\"'\u201d)]*)\s*$", r".\1", text.strip())


def _rhetorical(m: _Mapped):
    """A claim piece for a question that asserts its proposition, else ``None``."""
    text = m.text
    q = text.rstrip("\"'\u201d)").rstrip()[:-1].rstrip()  # without the question mark
    dk = _DID_YOU_KNOW.match(q)
    if dk and _WORD.search(q[dk.end():]):
        return ("claim", None, m[dk.end():len(q)], None)
    tag = _TAG_QUESTION.search(text)
    if tag and _WORD.search(text[:tag.start()]) and _clause_reason(text[:tag.start()]) is None:
        return ("claim", None, m[:tag.start()], None)
    neg = _NEG_QUESTION.match(text)
    if neg:
        aux, rest = neg.group(1), neg.group(2)
        if rest.split()[0].lower() in {"you", "i", "we"}:
            return None
        positive = _NEG_AUX[aux.lower().replace("\u2019", "'")]
        return ("claim", None, m, _declarative(positive, rest) or text)
    return None


_POLAR_AUX = "|".join(sorted((a for a in _AUX if a[0].isalpha()), key=len, reverse=True))
_POLAR = re.compile(rf"^({_POLAR_AUX})\s+(\S.*?)\s*\?$", re.IGNORECASE)
_WHY = re.compile(r"^(?:why|how come)\s+(\S+)\s+(\S.*?)\s*\?$", re.IGNORECASE)
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
#: can't."): elliptical, its predicate is in a question before it (``_elliptical``).
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
_WH_WORDS = frozenset("what when where which who whom whose why how".split())
#: First words of elliptical questions ("Anything else?", "Need help?", "Sound good?").
_ELLIPTICAL = frozenset("any anything anyone anybody need needs want wants sound sounds "
                        "questions ok okay or so and but right".split())


def _reply_polarity(reply: str) -> bool | None:
    """``True`` for an affirmative reply to a yes/no question, ``False`` for a negative one,
    ``None`` for anything else."""
    reply = reply.strip().replace("\u2019", "'")
    short = _SHORT_REPLY.match(reply)
    if short:
        aux = short.group(1).lower()
        lead = re.match(_NEGATIVE, reply, re.IGNORECASE)
        return not (short.group(2) or aux in _NEG_AUX or aux in {"cannot"}
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


def _interrogative(text: str) -> bool:
    """True when ``text`` (a sentence ending in "?") is an interrogative: it opens with an
    auxiliary or modal verb or a wh-word, is a tag question, or is elliptical ("Anything
    else?", "Need help?", a phrase with no verb). Declarative word order with a question mark
    ("Sale items can be refunded?") is not: it asserts."""
    q = text.strip().rstrip("\"'\u201d)").rstrip().rstrip("?").strip()
    q = _LEAD_CONJ.sub("", q).strip()
    words = q.replace("\u2019", "'").split()
    if not words:
        return True
    first = words[0].lower().strip(",")
    if first in _AUX or first in _NEG_AUX or first in _WH_WORDS or first in _ELLIPTICAL:
        return True
    if _TAG_QUESTION.search(text) or _DID_YOU_KNOW.match(q):
        return True
    last = re.split(r"[,;:\u2013\u2014]\s*", q)[-1].split()  # "X is Y, what is yours?"
    if len(last) > 1 and last[0].lower() != q.split()[0].lower() and (
            last[0].lower() in _WH_WORDS - {"which", "who", "whom", "whose"}
            or (last[0].lower() in _AUX and last[1].lower() in _SUBJECT_PRONOUNS)):
        return True
    if first in _SUBJECT_PRONOUNS and len(words) > 1:
        return False
    return _subject_of(q) is None


_MODAL_AUX = frozenset("can could will would may might must should shall do does did".split())
_BASE_VERBS = frozenset(_VERB_BASES) | _IMPERATIVES | {"be", "have", "get", "pay", "buy"}


def _declarative(aux: str, rest: str, negate: bool = False) -> str | None:
    """ "Can" + "sale items be refunded" -> "Sale items can be refunded." (``negate``:
    "... cannot be ..."), or ``None`` when no subject can be found."""
    words = rest.split()
    aux = aux.lower().replace("\u2019", "'")
    split = None
    if words and words[0].lower() in _SUBJECT_PRONOUNS:
        split = 1
    elif aux in _MODAL_AUX:  # "Can items bought on sale be refunded": the base verb
        split = next((i for i in range(1, len(words))
                      if words[i].lower() in _BASE_VERBS), None)
    if split is None and not (words and words[0].lower() in _SUBJECT_PRONOUNS):
        for i in range(1, len(words)):
            w = words[i].lower()
            if re.fullmatch(r"\d+[a-z]?", w) and words[i - 1][:1].isupper():
                continue  # a number that ends a name ("the Pico 2", "Windows 11")
            if _is_verb(w) or w in _IMPERATIVES or (
                    aux not in {"does", "do", "did"} and _PREDICATE_START.match(w)):
                split = i
                break
    if split is None:
        return None
    subject = " ".join(words[:split])
    if negate:
        aux = "cannot" if aux == "can" else f"{aux} not"
    return f"{subject[:1].upper()}{subject[1:]} {aux} {' '.join(words[split:])}."


def _question_claim(m: _Mapped):
    """A claim piece for a question that carries a fact, else ``None``: a question with a
    number ("Is it waterproof to 10 m?") or a relative clause of its own ("..., which takes 90
    days?") is judged as written; a why-question presupposes its proposition ("Why are sale
    items always refundable?" -> "Sale items are always refundable.")."""
    text = m.text.rstrip("\"'\u201d)").rstrip()
    why = _WHY.match(text)
    if why and why.group(1).lower().replace("\u2019", "'") in _AUX:
        statement = _declarative(why.group(1), why.group(2))
        if statement:
            return ("claim", None, m, statement)
    if why and why.group(1).lower() not in _AUX and text.lower().startswith("how come"):
        return ("claim", None, m, text[len("how come"):].strip().rstrip("?").strip() + ".")
    if (_has_number(text) or why
            or any(True for _ in _conjunct_cuts(text))):
        return ("claim", None, m, text)
    return None


def answered_question(question: str, reply: str, subject: str | None = None) -> str | None:
    """The statement a yes/no question and the reply after it make together, else ``None``.

    The reply is an affirmative or negative ("Yes.", "Absolutely!", "Of course not.", "They
    can.", "It isn't.", see ``_reply_polarity``). The question is an inverted yes/no question
    ("Can sale items be refunded? Yes." -> "Sale items can be refunded."; a negative one,
    "Isn't X Y? Yes." -> "X is Y."; "Will I get a refund? Yes." -> "You will get a refund.")
    or declarative word order with a question mark ("Refunds take 14 days? No." -> "It is not
    the case that refunds take 14 days."), or a question of only what it asks about
    ("Waterproof? Yes." -> "The Pico is waterproof." with ``subject`` "The Pico", the
    answer's subject so far; "Waterproof: yes." as written without one, or when what it asks
    about is no predicate), or an indirect question answered by a bare reply ("You may wonder
    whether it is waterproof. It is." / "..., but it is." -> "It is waterproof.").
    """
    polarity = _reply_polarity(reply)
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
        if aux in _NEG_AUX:
            aux = _NEG_AUX[aux]
        return _declarative(aux, rest, negate=not polarity)
    keyed = _keyed_question(q.rstrip("?").strip())
    if keyed:
        topic, predicate = keyed
        if predicate.split()[0].lower().replace("\u2019", "'") in _AUX | set(_NEG_AUX):
            predicate = re.sub(r"^(\S+\s+)(?:it|they)\b", lambda m: m.group(1) + topic,
                               predicate, flags=re.IGNORECASE)  # "Sale items: can they ...?"
            return answered_question(predicate + "?", reply)
        if _verb_form(predicate.split()[0]) and predicate.split()[0].lower() not in _AUX:
            body = f"{topic} {predicate}"  # "Refunds: take 14 days?"
        else:
            copula = "are" if _plural(topic) else "is"
            if not polarity:  # "Sale items: refundable? No." -> "... are not refundable."
                return _finish_sentence(f"{topic} {copula} not {predicate}")
            return _finish_sentence(f"{topic} {copula} {predicate}")
        if polarity:
            return _finish_sentence(body)
        return f"It is not the case that {body[:1].lower() + body[1:]}."
    bare = q.rstrip("?").strip()
    words = bare.replace("\u2019", "'").split()
    if (_BARE_QUESTION.match(bare) and len(words) <= 4 and ":" not in bare
            and words[0].lower() not in (_AUX | set(_NEG_AUX) | _WH_WORDS | _ELLIPTICAL
                                         | _SUBJECT_PRONOUNS)
            and not any(_is_verb(w) for w in words)):
        # "Waterproof? Yes." says the answer's subject is waterproof
        predicate = bare[:1].lower() + bare[1:] if not bare[1:2].isupper() else bare
        if subject and (_PREDICATE_WORD.match(words[-1]) or _PREDICATE_START.match(words[0])):
            copula = "are" if _plural(subject) else "is"
            negation = "" if polarity else " not"
            return _finish_sentence(f"{_capital(subject)} {copula}{negation} {predicate}")
        return _finish_sentence(f"{bare}: {'yes' if polarity else 'no'}")  # as written
    if _interrogative(q):
        return None
    body = q.rstrip("?").strip()
    if polarity:
        return _finish_sentence(body)
    return f"It is not the case that {body[:1].lower() + body[1:]}."


def _negated(clause: str, negate: bool) -> str:
    """``clause`` as a sentence, negated at its first auxiliary ("it is waterproof" -> "It is
    not waterproof."), or as "It is not the case that ..." when it has none."""
    if not negate:
        return _finish_sentence(clause)
    words = clause.split()
    at = next((i for i in range(1, len(words)) if words[i].lower() in _AUX), None)
    if at is None:
        return f"It is not the case that {clause[:1].lower() + clause[1:]}."
    aux = "cannot" if words[at].lower() == "can" else f"{words[at]} not"
    return _finish_sentence(" ".join(words[:at] + [aux] + words[at + 1:]))


def elliptical_claim(text: str) -> bool:
    """Whether a claim is only a subject and an auxiliary ("The Pico 2 sure is.", "It is.",
    "They can't."): it has no predicate of its own to judge. The offline decomposer reads
    such a clause with the question it answers; the pipeline scores no such claim of an LLM
    decomposer (its sentence is judged instead)."""
    m = _ELLIPTICAL_CLAIM.match(text.strip().replace("\u2019", "'"))
    return bool(m) and not any(w.lower() in _AUX for w in m.group("subject").split())


def _keyed_question(q: str) -> tuple[str, str] | None:
    """A yes/no question written as a topic and a predicate, without a verb between them:
    "Sale items: refundable" (a ``key: value`` question) or "Sale items refundable" (a
    predicative word after the topic: ``_PREDICATE_WORD``) -> ("Sale items", "refundable");
    ``None`` for any other question (one with a verb after its subject, an inverted or a
    wh-question)."""
    words = q.replace("\u2019", "'").split()
    if not words or words[0].lower().strip(",:") in (_AUX | set(_NEG_AUX) | _WH_WORDS
                                                    | _ELLIPTICAL | _SUBJECT_PRONOUNS):
        return None
    keyed = re.fullmatch(r"(?P<topic>[^:?]{1,60}?)\s*:\s+(?P<predicate>[^:?]*\w[^:?]*)", q)
    if keyed:
        topic, predicate = keyed.group("topic").strip(), keyed.group("predicate").strip()
        if _WORD.search(topic) and not (_subject_of(topic) or any(_is_verb(w) for w in
                                                                  topic.split()[1:])):
            if predicate.split()[0].lower() in _WH_WORDS | _ELLIPTICAL:
                return None
            return _capital(topic), predicate
        return None
    if _subject_of(q) or words[0].lower() in _ELLIPTICAL | _SUBJECT_PRONOUNS:
        return None
    at = next((i for i in range(1, len(words)) if _PREDICATE_WORD.match(words[i].strip(",;"))
               and words[i].lower() not in _AUX), None)
    if at is None:
        return None
    return _capital(" ".join(words[:at])), " ".join(words[at:])


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


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


def _finish_sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _conjunct_cuts(text: str) -> list[tuple[int, int]]:
    """Cuts before a clause of its own inside a sentence, where a non-assertive frame (a
    question, an offer of help) may carry an assertion (see ``_CONJUNCT`` and
    ``_EMBEDDED``): a comma-led clause whose words have a verb within six words (or a verb
    form right after its subject pronoun: "..., since it renews daily"); a relative clause
    ("..., which renews daily", "the subscription that renews daily", "(which includes
    SSO)": the relative pronoun, then a verb form); a causal clause without a comma ("...
    since it renews daily"); an appositive after a name or noun (", our plan with SSO").
    None opens with I/we/you (the frame's own talk: "..., and I'll help", "anything that
    you need") or talks about the answer itself. Returns the cuts' spans, in order."""
    out = []
    for c in list(_CONJUNCT.finditer(text)) + list(_EMBEDDED.finditer(text)):
        after = text[c.end():]
        words = after.split()
        if not words or re.match(r"(?:i|we|you)(?:\b|['\u2019])", words[0], re.IGNORECASE):
            continue
        if _META_CLAUSE.search(" ".join(words[:8])):  # talk about the answer itself
            continue
        if any(a < c.end() and c.start() < b for a, b in out):
            continue
        if c.re is _EMBEDDED and not _embedded_clause(c.lastgroup, text[:c.start()], after):
            continue
        if c.re is _CONJUNCT:
            relative = words[0].lower() in {"which", "who"}
            rest = words[1 if relative else 0:][:6]
            if not (any(_is_verb(w.strip(".!?\"')")) for w in rest)
                    or (relative and _verb_after_adverbs(words[1:]))
                    or (words[0].lower() in _SUBJECT_PRONOUNS - {"i", "you", "we"}
                        and _verb_after_adverbs(words[1:]))
                    or (words[0].lower() in _DETERMINERS
                        and any(_verb_form(w) for w in words[1:5]))):
                continue
        out.append(c.span())
    return sorted(out)


#: Where an assertion may sit inside a question or an offer without a comma-led conjunct: a
#: relative pronoun after a word ("the subscription that renews daily"), a parenthetical
#: ("Pro (which includes SSO)", "Pro (our plan with SSO)"), a causal clause ("... since it
#: renews daily"), an appositive (", our plan with SSO"). ``_embedded_clause`` decides.
_EMBEDDED = re.compile(
    r"(?P<relative>(?<=\w)\s+(?=(?:which|who|that)\s))|(?P<paren>\s*\(\s*)|"
    r"(?P<cause>(?<=\w)\s+(?:because|since|given that|now that|seeing that)\s+(?!of\b))|"
    r"(?P<appositive>,\s*(?=(?:the|our|your|their|its|a|an)\s))", re.IGNORECASE)
#: Words after which "that" opens a complement, not a relative clause ("confirm that ...",
#: "anything else that ...": the frame's own talk).
_NOT_ANTECEDENT = frozenset(
    "know see say said confirm confirmed mean think hope sure ensure check note notice tell told "
    "believe aware understand glad happy sorry so such is are was were be anything something "
    "everything nothing anyone someone else one ones like way fact".split())
#: A question about whether something exists ("Is there a plan that ...?", "Are there any
#: ..."): its relative clause asks, it does not assert.
_EXISTENTIAL = re.compile(r"^\W*(?:(?:is|are|was|were|isn't|aren't)\s+there|any(?:thing|one)?)\b",
                          re.IGNORECASE)
_ADVERBS = frozenset("also still only already always never now then not usually often "
                     "currently automatically just even".split())


def _verb_form(word: str) -> bool:
    """A finite verb by its form: a known verb or auxiliary, or a word ending in -s or -ed
    that is not a plural or an adjective by its ending ("renews", "included"; not "days",
    "glass", "various")."""
    w = word.lower().strip(".,;:!?\"')\u2019")
    if _is_verb(w) or w in _AUX:
        return True
    return bool(len(w) >= 4 and re.fullmatch(r"[a-z]+(?:s|ed)", w)
                and not re.search(r"(?:ss|us|is|ous|ness|less|ics|ys|ings?|ments?|tions?|"
                                  r"ers|ors|als|ies)$", w))


def _verb_after_adverbs(words: list[str]) -> bool:
    """The first word that is not an adverb ("also", "automatically") is a verb form."""
    for w in words[:4]:
        bare = w.lower().strip(".,;:!?\"')")
        if bare in _ADVERBS or (bare.endswith("ly") and len(bare) > 4):
            continue
        return _verb_form(w)
    return False


def _embedded_clause(kind: str, before: str, after: str) -> bool:
    """Whether the text ``after`` an ``_EMBEDDED`` cut is an assertion of its own: a relative
    clause (after a word that can be its antecedent, with a verb form next), a causal clause
    (a subject and a verb), a parenthetical relative clause or noun phrase, or an appositive
    noun phrase after a name or a noun (no verb in it, a word besides its determiner)."""
    words = after.split()
    first = words[0].lower().strip("(") if words else ""
    prev = before.split()[-1].lower().strip(",") if before.split() else ""
    if first in {"which", "who", "that"} and kind in {"relative", "paren"}:
        if (prev in _NOT_ANTECEDENT or prev in _FRAME_WORDS or prev in {"whether", "but", "of"}
                or (first == "that" and _is_verb(prev))):
            return False
        own = [w.lower() for w in re.findall(r"[\w'\u2019-]+", re.split(r"[,;)?!.]", after)[0])]
        if (_EXISTENTIAL.match(before) or "you" in own
                or all(w in _FRAME_WORDS for w in own[1:])):
            return False  # "Is there a plan that interests you?", "..., who can help"
        return _verb_after_adverbs(words[1:])
    if kind == "relative":
        return False
    parts = re.split(r"([,;)?!.])", after, maxsplit=1)
    head = parts[0].split()
    if not head:
        return False
    if kind in {"appositive", "paren"} and first in _DETERMINERS:  # a noun phrase
        if re.match(r"\s*(?:or|and|nor)\b", "".join(parts[2:])) or re.search(
                r"\b(?:or|and)\b", parts[0]):
            return False  # a list of alternatives ("the refund, the store credit, or ...")
        return (len(head) >= 2 and not any(_verb_form(w) for w in head[1:4])
                and bool(re.search(r"(?:[A-Z][\w-]*|[a-z]{3,})$", before.rstrip(" ,(")))
                and prev not in _NOT_ANTECEDENT and not _is_verb(prev))
    if kind == "appositive":
        return False
    # a causal clause (or a parenthetical one): a subject, then a verb
    if first in _SUBJECT_PRONOUNS - {"i", "you", "we"} or first in _DETERMINERS:
        return _verb_after_adverbs(head[1:]) or any(_verb_form(w) for w in head[1:5])
    return any(_is_verb(w) for w in head[:5])


def _relative_claim(frame: str, clause: str) -> str | None:
    """ "... a refund on your sale item" + "which is refundable" -> "The sale item is
    refundable.", or ``None`` when the frame ends in no noun phrase. The same for the other
    assertions a frame may carry (``_conjunct_cuts``): "... upgrade you to Pro" + "which
    includes SSO" -> "Pro includes SSO."; "... cancel the subscription" + "it renews daily"
    (the rest of a causal clause) -> "The subscription renews daily."; "... to Pro" + "our
    plan with SSO" (an appositive) -> "Pro is our plan with SSO."; ``None`` for any other
    clause (it is judged as written)."""
    frame = frame.rstrip(" ,(")
    np = re.search(r"\b(?:the|a|an|your|my|our|their|its|this|that|these|those)\s+"
                   r"((?:[\w-]+\s+){0,3}[\w-]+)\W*$", frame, re.IGNORECASE)
    name = re.search(r"(?<![\w-])((?:[A-Z][\w-]*|\d[\w.-]*)(?:\s+(?:[A-Z][\w-]*|\d[\w.-]*)){0,3})"
                     r"\W*$", frame)
    if np:
        subject = f"the {np.group(1)}"
    elif name and name.group(1).split()[0].lower() not in _SUBJECT_PRONOUNS:
        subject = name.group(1)
    else:
        return None
    body = clause.strip().rstrip(" .?!)")
    words = body.split()
    if not words:
        return None
    first = words[0].lower()
    if first in {"which", "who", "that"}:
        rest = " ".join(words[1:])
    elif first in {"it", "they", "this", "these"} and len(words) > 1:
        rest = " ".join(words[1:])
    elif first in _DETERMINERS and not any(_verb_form(w) for w in words[1:4]):
        number = "are" if subject.lower().endswith("s") and not subject.endswith("ss") else "is"
        rest = f"{number} {body}"
    else:
        return None
    return _finish_sentence(f"{subject} {rest}")


def _embedded_pieces(m: _Mapped, reason: str):
    """A question or an offer that carries an assertion after a cut (``_conjunct_cuts``:
    "Shall I also cancel your subscription, which renews daily?") -> the frame set aside
    (``reason``) and the assertion as a claim ("The subscription renews daily."; judged as
    written when no statement can be made of it); ``None`` when it carries none, or when
    its frame holds a number (then it is judged whole)."""
    text = m.text
    cuts = _conjunct_cuts(text)
    if not cuts:
        return None
    start, end = cuts[0]
    frame = text[:start]
    if _has_number(frame) or not _WORD.search(frame):
        return None
    clause = m[end:]
    statement = _relative_claim(frame, clause.text)
    if statement is None:
        body = clause.text.strip().rstrip(" ?!)")
        statement = _finish_sentence(body) if _WORD.search(body) else None
    if statement is None:
        return None
    return [("drop", reason, m[:start], None), ("claim", None, clause, statement)]


# ---------------------------------------------------------------------------------------------
# Markdown structure.

_QUOTE_MARK = re.compile(r"^\s*(?:>\s*)+")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")
_KEY_VALUE = re.compile(r"^\s*[A-Z][\w ()/%.'-]{0,40}:\s+\S")
_TOPIC_SUFFIX = re.compile(
    r"\s*(?:at a glance|overview|summary|key (?:specs|features|facts|points)|specs|features|"
    r"details|highlights)\s*:?\s*$",
    re.IGNORECASE,
)
_CODE_LANGUAGES = {
    "bash", "sh", "shell", "zsh", "fish", "console", "powershell", "ps1", "ps", "bat", "cmd",
    "python", "py", "python3", "pycon", "js", "javascript", "ts", "typescript", "jsx", "tsx",
    "json", "jsonc", "sql", "go", "rust", "rs", "c", "cpp", "c++", "h", "java", "kotlin", "kt",
    "ruby", "rb", "php", "perl", "swift", "scala", "cs", "csharp", "r", "lua", "html", "xml",
    "css", "scss", "dockerfile", "makefile", "make", "toml", "ini", "diff", "hcl", "terraform",
    "graphql", "proto", "regex", "nginx", "apache", "vim", "elixir", "haskell", "clojure",
}
_CODE_LINE = re.compile(
    r"[{}()\[\];=<>$\\|&`]|->|::|(?:^|\s)--?[A-Za-z]|^\s*(?:#!|//|>>>|\$\s)|\b[a-z]+_[a-z_]+\b|"
    r"\b\w+\.\w+\(|^\s*[a-z][\w.-]*(?:\s|$)"
)


class _Block:
    """A run of answer lines read as one unit: ``kind`` is ``"text" | "bullet" | "heading" |
    "table" | "code" | "group"`` (a fence read as text)."""

    __slots__ = ("kind", "start", "end", "text", "topic", "rows", "children", "label")

    def __init__(self, kind, start, end, text=None, topic=None, rows=None, children=None,
                 label=None):
        self.kind, self.start, self.end = kind, start, end
        self.text, self.topic, self.rows, self.children = text, topic, rows, children
        self.label = label


def _lines(answer: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """(start, end) of each line in ``answer[lo:hi]``, newline excluded."""
    out, start = [], lo
    while start < hi:
        nl = answer.find("\n", start, hi)
        end = hi if nl < 0 else nl
        out.append((start, end))
        start = end + 1
    return out


def _clean_line(answer: str, start: int, end: int, *prefixes: re.Pattern[str]) -> _Mapped:
    m = _Mapped.of(answer, start, end)
    for prefix in prefixes:
        pm = prefix.match(m.text)
        if pm:
            m = m[pm.end():]
    return m.remove(_EMPHASIS).collapsed()


def reads_as_code(info: str, lines: list[str]) -> bool:
    """Whether a fenced block with info string ``info`` (```` ```python ```` -> ``"python"``)
    and inner ``lines`` (no fence lines) is code, set aside (``"code block"``): a
    programming-language tag, or a line with code symbols, flags, identifiers or a lower-case
    command, or a line of fewer than three words that ends no sentence. A block whose every
    line reads as a prose sentence (or the wrapped continuation of one) or a ``key: value``
    line (a list item's marker aside) is not: "The Pico costs $99 (tax included) and is
    waterproof; it floats." is prose, whatever the tag (```` ```text ````, ``~~~``): the
    symbols prose uses (a currency sign before a number, a parenthesis after a space, a
    semicolon or an ampersand between words, a citation marker) are not code symbols. Shared by the offline decomposer and the
    pipeline's alignment, so neither sets aside prose because it is fenced."""
    if info.lower() in _CODE_LANGUAGES:
        return True
    ended = True  # the line before ended a sentence (or there was none)
    for line in lines:
        if not line.strip():
            ended = True
            continue
        if _KEY_VALUE.match(line) and not re.search(r"[{}()\[\];=<>$\\`]", line):
            ended = True
            continue
        line = re.sub(r"^\s*(?:[-*+]|\d{1,2}[.)])\s+(?=\S)", "", line)  # a list item's marker
        text = _PROSE_SYMBOLS.sub(" ", line).strip()
        words = line.split()
        if _CODE_LINE.search(text if ended else "X " + text) or not text:
            return True
        if ended and not text[0].isupper():
            return True
        if len(words) < 3 and not (re.search(r"[.!?][\"')\u201d]*$", line.strip())
                                   or not ended):
            return True
        ended = bool(re.search(r"[.!?:][\"')\u201d]*$", line.strip()))
    return False


#: What prose writes that ``_CODE_LINE`` would read as code: a currency sign before a number
#: ("$99"), a parenthesis opened after a space or at the start ("(tax included)"), a
#: semicolon, an ampersand between words ("R&D", "terms & conditions"), a numeric citation
#: marker ("[1]").
_PROSE_SYMBOLS = re.compile(
    r"[$\u00a3\u20ac]\d|(?:^|(?<=\s))\([^()=;{}<>]*\)(?=[\s.,;:!?]|$)|;(?=\s+\w)|"
    r"(?<=\w)&(?=\w)|\s&\s|\[\d+(?:,\s*\d+)*\]")


def _blocks(answer: str, lo: int, hi: int) -> list[_Block]:
    lines = _lines(answer, lo, hi)
    blocks: list[_Block] = []
    paragraph: list[tuple[int, int]] = []
    topic: str | None = None

    def flush():
        if paragraph:
            text = _Mapped.literal("")
            for i, (s, e) in enumerate(paragraph):
                part = _clean_line(answer, s, e, _QUOTE_MARK)
                text = text + (_Mapped.literal(" ") if i else _Mapped.literal("")) + part
            blocks.append(_Block("text", paragraph[0][0], paragraph[-1][1], text.collapsed()))
            paragraph.clear()

    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = answer[s:e]
        stripped = line.strip()
        fence = MD_FENCE.match(line)
        if fence:
            flush()
            marker = fence.group(1)
            j = i + 1
            while j < len(lines) and not answer[lines[j][0]:lines[j][1]].strip().startswith(marker):
                j += 1
            inner = lines[i + 1:j]
            end = lines[min(j, len(lines) - 1)][1]
            inner_text = [answer[a:b] for a, b in inner]
            if reads_as_code(fence.group(2), inner_text) or not inner:
                blocks.append(_Block("code", s, end))
            else:
                blocks.append(_Block("group", s, end,
                                     children=_blocks(answer, inner[0][0], inner[-1][1])))
            i = j + 1
            continue
        if not stripped:
            flush()
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            j = i
            while j < len(lines) and answer[lines[j][0]:lines[j][1]].strip().startswith("|"):
                j += 1
            blocks.append(_table(answer, lines[i:j]))
            i = j
            continue
        if is_source_line(line):  # "Sources: p-1, p-2", "[^1]: p-1": references, not claims
            flush()
            blocks.append(_Block("heading", s, e, _clean_line(answer, s, e),
                                 label="list of sources"))
            i += 1
            continue
        is_heading = bool(MD_HEADING.match(line))
        plain = _clean_line(answer, s, e, _QUOTE_MARK, MD_HEADING)
        whole_bold = bool(re.fullmatch(r"(\*\*|__).+?\1:?", stripped))
        lead_in = (plain.text.endswith(":") and len(plain.text.split()) <= 8
                   and not MD_BULLET.match(line) and not is_heading and not whole_bold)
        if is_heading or whole_bold or lead_in:
            flush()
            label = is_topic_label(plain.text) if not lead_in else None
            blocks.append(_Block("heading", s, e, plain, label=("lead-in" if lead_in else
                                                                 "heading" if label else None)))
            if label or lead_in:
                topic = _TOPIC_SUFFIX.sub("", plain.text.rstrip(":")).strip() or None
                if topic and lead_in:  # "Here is how returns work:" gives no topic
                    topic = _list_topic(topic)
                    topic = re.sub(r"['\u2019]s$", "", topic) if topic else None
                blocks[-1].topic = topic
            else:
                parsed = _subject_of(plain.text)
                topic = parsed[1] if parsed else None
            i += 1
            continue
        if MD_BULLET.match(line):
            flush()
            blocks.append(_Block("bullet", s, e, _clean_line(answer, s, e, _QUOTE_MARK, MD_BULLET),
                                 topic=topic))
            i += 1
            continue
        if _KEY_VALUE.match(_QUOTE_MARK.sub("", line)) and len(stripped.split()) <= 16:
            flush()
            blocks.append(_Block("text", s, e, _clean_line(answer, s, e, _QUOTE_MARK)))
            i += 1
            continue
        paragraph.append((s, e))
        i += 1
    flush()
    return blocks


def is_topic_label(text: str) -> bool:
    """True when a heading's text (no ``#`` or emphasis marks) is a topic label, not an
    assertion: no verb after its first word, no predicative adjective (``refundable``,
    ``available``) and no quantity (a number not part of a name such as ``Nimbus 4``), and not
    ``key: value`` with a number. Shared by the offline decomposer and the pipeline's
    alignment, so neither sets aside "## Sale items refundable for 90 days"."""
    words = text.rstrip(":").split()
    if has_cjk(text):
        return not re.search(r"\d|です|ます|。$", text)
    if re.match(r"^[^:]{1,40}:\s+\S*\d", text):  # "Warranty: 3 years"
        return False
    if (len(words) >= 3 and not _TOPIC_SUFFIX.search(text)
            and any(re.match(r"\d", w) and not (i and words[i - 1][:1].isupper())
                    for i, w in enumerate(words))):  # "Nimbus 4", "Step 2": a name's number
        return False  # "Sale items refundable for 90 days"
    return not (len(words) >= 3 and any(_is_verb(w) or _PREDICATE_WORD.match(w.strip(",;"))
                                        for w in words[1:]))


def _table(answer: str, lines: list[tuple[int, int]]) -> _Block:
    """A table: the row above a ``|---|`` rule is its header; each row is read as
    ``header: cell; ...`` (or its cells joined by commas when there is no header)."""
    rows = []  # ("header" | "row", text, offset of the line's first character)
    header: list[str] | None = None
    pending = None
    for s, e in lines:
        line = answer[s:e]
        if MD_TABLE_SEP.match(line):
            if pending is not None and header is None:
                header = [c.text for c in pending[1]]
                rows.append(("header", None, pending[0]))
                pending = None
            continue
        if pending is not None:
            rows.append(("row", _row_text(pending[1], None), pending[0]))
        cells = _cells(answer, s, e)
        first = _Mapped.of(answer, s, e).strip().first()
        if header is not None and len(cells) == len(header):
            rows.append(("row", _row_text(cells, header), first))
            pending = None
        else:
            pending = (first, cells)
    if pending is not None:
        rows.append(("row", _row_text(pending[1], None), pending[0]))
    return _Block("table", lines[0][0], lines[-1][1], rows=rows)


def _cells(answer: str, start: int, end: int) -> list[_Mapped]:
    m = _Mapped.of(answer, start, end)
    cells, last = [], 0
    for bar in [i for i, c in enumerate(m.text) if c == "|"] + [len(m.text)]:
        cells.append(m[last:bar].remove(_EMPHASIS).collapsed())
        last = bar + 1
    if cells and not cells[0].text:
        cells = cells[1:]
    if cells and not cells[-1].text:
        cells = cells[:-1]
    return cells


def _row_text(cells: list[_Mapped], header: list[str] | None) -> _Mapped:
    out = _Mapped.literal("")
    if header is not None:
        pairs = [(h, c) for h, c in zip(header, cells) if h and c.text]
        for i, (h, c) in enumerate(pairs):
            out = out + _Mapped.literal(("; " if i else "") + f"{h}: ") + c
    else:
        for i, c in enumerate(c for c in cells if c.text):
            out = out + _Mapped.literal(", " if i else "") + c
    return out + _Mapped.literal(".") if out.text else out


# ---------------------------------------------------------------------------------------------
# The decomposer.

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
        state = {"entity": None}
        markup = markup_spans(answer)
        masked = answer
        for s, e in markup:  # markup reads as a space; its characters are set aside below
            masked = masked[:s] + " " * (e - s) + masked[e:]
        for block in _blocks(masked, 0, len(masked)):
            pieces = self._pieces(block, state)
            for kind, payload, span in _place(masked, block.start, block.end, pieces):
                spans = _cut(answer, span, markup) if span else []
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

    def _pieces(self, block: _Block, state: dict) -> list[tuple[str, str, int | None]]:
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

    def _text(self, text: _Mapped, kind: str, topic: str | None, state: dict):
        out = []
        sentences = [_without_citations(x) for x in _sentences(text)]
        replied: set[int] = set()
        for i, sentence in enumerate(sentences):
            if not _WORD.search(sentence.text):
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
            for piece_kind, reason, m, override in _analyse(sentence):
                if piece_kind == "drop":
                    out.append((reason, "", m.first()))
                    continue
                out.extend(self._claims(m, override, kind, topic, state))
        return out

    def _claims(self, m: _Mapped, override: str | None, kind: str, topic: str | None,
                state: dict):
        body = m.strip()
        text = override if override is not None else body.text
        prefix = 0
        if kind == "bullet" and topic and override is None:
            attached = _attach_topic(text, topic)
            if attached.endswith(text):
                prefix = len(attached) - len(text)
            if attached != text:
                state.setdefault("carried", set()).add(topic)
            text = attached
        out = []
        for clause, start, end in _split_coordination(text):
            reply = _LEAD_CONJ.sub("", clause.strip())
            if elliptical_claim(reply):  # "It sure is." / "..., but it is.": see ``_resolved_reply``
                clause = _resolved_reply(reply, text[:start], state)
            clause, state["entity"] = _resolve(clause, state["entity"])
            clause = _finish(clause)
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
    context = (before if _WORD.search(before) else state.get("before", "")).strip()
    statement = answered_question(context, reply, state["entity"])
    if statement is None and context.endswith("?") and _reply_polarity(reply) is not False:
        statement = answered_question(context, "Yes.", state["entity"])
    return statement or f"{context} {reply}".strip()


def _place(answer: str, lo: int, hi: int, pieces):
    """Give each piece of a block one span: from its first character to the next piece's.

    Yields (kind, payload, (start, end) or None). A block with no piece but with
    non-whitespace text becomes one dropped item (``"no words"``).
    """
    anchored = [p for p in pieces if p[2] is not None]
    if not anchored:
        span = _trim(answer, lo, hi)
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
        yield (kind, payload, _trim(answer, bounds[i], bounds[i + 1]))


#: HTML markup: a comment or something shaped like a tag (``<br>``, ``<p class="x">``,
#: ``</b>``); ``markup_spans`` decides whether a tag shape is a tag. A comment has both ends:
#: ``<!--`` and the first ``-->`` (or ``--!>``) after it; ``<!-->`` and ``<!--->`` are empty
#: comments that end at once (WHATWG HTML, tokenizer: "abrupt closing of empty comment"), so
#: the text after them is shown. An unterminated ``<!--`` is text (CommonMark prints an inline
#: one as written), and is judged.
_MARKUP = re.compile(r"<!--(?:-?>|.*?--!?>)|</?([A-Za-z][\w-]*)((?:\s[^<>\n]*)?)/?>",
                     re.DOTALL)
#: The elements of HTML (WHATWG HTML Living Standard, section 4, plus the obsolete ones that
#: browsers still render, and SVG / MathML roots): a tag of any other name is text to a
#: reader (``<Sale items can be refunded.>``), unless it names a custom element (lower case
#: with a hyphen, as the standard requires).
HTML_ELEMENTS = frozenset("""a abbr address area article aside audio b base bdi bdo blockquote
    body br button canvas caption cite code col colgroup data datalist dd del details dfn dialog
    div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header
    hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta meter
    nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s
    samp script search section select slot small source span strong style sub summary sup table
    tbody td template textarea tfoot th thead time title tr track u ul var video wbr center font
    big tt strike nobr svg math path g circle rect line""".split())
#: Attributes a tag may carry without a value (the standard's boolean attributes); any other
#: bare word inside a tag shape (``<b and sale items can be refunded>``) makes it text.
BOOLEAN_ATTRIBUTES = frozenset("""allowfullscreen async autofocus autoplay checked controls
    default defer disabled formnovalidate hidden inert ismap itemscope loop multiple muted
    nomodule novalidate open playsinline readonly required reversed selected""".split())
#: Attributes whose value a reader sees or hears (alt text, tooltips, screen readers): their
#: text is judged like the answer's, not set aside with the tag.
VISIBLE_ATTRIBUTES = frozenset({"alt", "title", "aria-label", "placeholder", "label", "summary",
                                "aria-description"})
_ATTRIBUTE = re.compile(r"""\s*([^\s"'<>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?""")


def markup_spans(answer: str) -> list[tuple[int, int]]:
    """Character spans of the HTML comments and tags in ``answer``: markup, not text. The
    offline decomposer sets each aside (reason ``"markup"``) and reads it as a space; the
    pipeline's alignment needs no claim for it.

    A tag shape counts as a tag only when its name is an HTML element (``HTML_ELEMENTS``) or
    a custom element, and every bare word in it is a boolean attribute
    (``BOOLEAN_ATTRIBUTES``); otherwise it is text a reader of the answer sees, and is judged.
    The value of an attribute a reader sees (``VISIBLE_ATTRIBUTES``: ``alt``, ``title``, ...)
    is left out of the tag's spans, so it is judged too.
    """
    spans: list[tuple[int, int]] = []
    for m in _MARKUP.finditer(answer):
        if m.group(1) is None:  # a comment
            spans.append(m.span())
            continue
        name = m.group(1)
        if name.lower() not in HTML_ELEMENTS and not (name.islower() and "-" in name):
            continue
        attributes, at = m.group(2), m.start(2)
        visible: list[tuple[int, int]] = []
        tag = True
        for a in _ATTRIBUTE.finditer(attributes):
            key, value = a.group(1).lower(), a.group(2)
            if value is None and key not in BOOLEAN_ATTRIBUTES:
                tag = False
                break
            if value is not None and key in VISIBLE_ATTRIBUTES and re.search(r"[^\W\d_]", value):
                quoted = value[:1] in "\"'"
                visible.append((at + a.start(2) + quoted, at + a.end(2) - quoted))
        if not tag:
            continue
        start = m.start()
        for s, e in visible:
            spans.append((start, s))
            start = e
        spans.append((start, m.end()))
    return spans


def _cut(answer: str, span: tuple[int, int], markup: list[tuple[int, int]]
         ) -> list[tuple[int, int]]:
    """``span`` without the markup inside it, as trimmed non-empty spans."""
    out, start = [], span[0]
    for s, e in markup:
        if e <= start or s >= span[1]:
            continue
        if s > start:
            out.append((start, s))
        start = max(start, e)
    if start < span[1]:
        out.append((start, span[1]))
    return [t for t in (_trim(answer, a, b) for a, b in out) if t]


def _trim(answer: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and answer[start].isspace():
        start += 1
    while end > start and answer[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


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


#: Words that open a subordinate clause (a condition, a time, a cause, a concession). A
#: sentence that opens with one ("If the item is unused, ...") keeps that clause whole and
#: gives it to every conjunct of the main clause after its comma; after a condition inside a
#: sentence (``_CONDITION``: "You get a refund if X and Y") nothing is split, so no conjunct
#: loses its condition.
_SUBORDINATOR = re.compile(
    r"\b(?:if|unless|when|whenever|once|provided(?: that)?|providing|as long as|so long as|"
    r"in case|only if|even if|after|before|until|till|because|since|although|though|"
    r"even though|whereas|wherever)\b", re.IGNORECASE)
#: The subordinators that bind a clause inside a sentence ("... if X and Y"); the others
#: ("since 2020", "after 30 days") are as often prepositions.
_CONDITION = re.compile(r"\b(?:if|unless|provided that|as long as|so long as|in case|"
                        r"only if|even if|whenever|although|though|even though)\b",
                        re.IGNORECASE)


def _split_coordination(text: str) -> list[tuple[str, int, int]]:
    """Split coordinated assertions; conjuncts that share the subject get it copied.

    A sentence that opens with a subordinate clause ("If the item is unused, you get a refund
    and keep the tags.") keeps it whole: its main clause, after the comma, is split, and each
    conjunct gets the clause ("If the item is unused, you keep the tags."); without such a
    comma, or with a subordinate clause later in the sentence, the sentence is not split.

    Returns (clause, start, end): each clause with the part of ``text`` it was cut from (its
    own words; a copied subject, lead adverbial or subordinate clause is not part of that
    range).
    """
    if has_cjk(text):
        return [(text, 0, len(text))]
    opening = _SUBORDINATOR.match(text.lstrip())
    if opening:
        comma = text.find(", ")
        if comma < 0:
            return [(text, 0, len(text))]
        condition, main_at = text[:comma + 2], comma + 2
        parts = _split_main(text[main_at:])
        out = []
        for i, (clause, start, end) in enumerate(parts):
            clause = clause[:1].lower() + clause[1:] if _lower_ok(clause) else clause
            out.append((condition + clause, 0 if i == 0 else main_at + start, main_at + end))
        return out
    if _CONDITION.search(text):  # "A and B if C": which conjuncts C binds is unclear
        return [(text, 0, len(text))]
    return _split_main(text)


def _lower_ok(clause: str) -> bool:
    """Whether a main clause's first word may be lower-cased after a copied condition (not a
    name, an acronym or "I")."""
    first = clause.split()[0] if clause.split() else ""
    return first.lower() in _SUBJECT_PRONOUNS - {"i"} or first.lower() in _DETERMINERS


def _split_main(text: str) -> list[tuple[str, int, int]]:
    """``_split_coordination`` for a clause with no subordinate clause in front of it."""
    pieces = _CLAUSE_SPLIT.split(text)
    if len(pieces) == 1:
        return [(text, 0, len(text))]
    out: list[list] = [[pieces[0], 0, len(pieces[0])]]
    offset = len(pieces[0])
    for glue, part in zip(pieces[1::2], pieces[2::2]):
        start = offset + len(glue)
        offset = start + len(part)
        words = part.split()
        first = words[0].lower() if words else ""
        prev = out[-1][0]
        is_clause = False
        shared_subject = False
        if first in _SUBJECT_PRONOUNS - {"that"}:
            is_clause = True
        elif first in _DETERMINERS and any(w.lower() in _AUX for w in words[1:7]):
            is_clause = True
        elif _BESIDE.fullmatch(glue) and any(w.lower() in _AUX for w in words[1:4]) and (
                glue.strip() == ";" or len(prev.split()) >= 3 or any(
                w.lower() in _AUX or _is_verb(w.lower()) for w in prev.split()[1:])):
            is_clause = True  # "...; returns are free": a statement with its own subject
        elif _BESIDE.fullmatch(glue) and glue.strip() != ";":
            is_clause = False  # "Includes: SSO and audit logs": no statement after a colon
        elif first in _AUX or (_is_verb(first) and first not in {"use", "work", "show", "sell",
                                                                 "stay", "star"}):
            is_clause = True
            shared_subject = True
        elif first in _IMPERATIVES and _starts_imperative(prev):
            is_clause = True
        if not is_clause:
            out[-1][0] = prev + glue + part  # not a clause: keep the original text
            out[-1][2] = offset
            continue
        if shared_subject:
            if _starts_imperative(prev):
                out.append([part, start, offset])
                continue
            parsed = _subject_of(out[0][0])
            if parsed is None:
                out[-1][0] = prev + glue + part
                out[-1][2] = offset
                continue
            lead, subject, _ = parsed
            lead_cap = lead[:1].upper() + lead[1:] if lead else ""
            subj = subject if lead else subject[:1].upper() + subject[1:]
            if lead_cap:
                subj = subject
            out.append([f"{lead_cap}{subj} {part}", start, offset])
        else:
            lead = _LEAD_ADVERBIAL.match(out[0][0])
            out.append([(lead.group(1) if lead else "") + part, start, offset])
    return [(c, s, e) for c, s, e in out]


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
    if clause[-1] not in ".!?\u3002" and not re.search(r"[.!?]\s*(?:\[[^\]]*\]\s*)+$", clause):
        clause += "."  # a bracket of ids after the full stop stays there, for the pipeline
    return clause
