"""What is not an assertion: the frames an answer wraps its facts in (greetings and
pleasantries, openers, lead-ins, restated questions, refusals, apologies, offers of help), as
patterns, and the local test of one clause (``clause_reason``).

A frame is set aside only when nothing factual remains once it is removed (``_carries_fact``):
a number (``has_number``) or, in an offer of help or a pleasantry, a word outside the frame's
own vocabulary (``FRAME_WORDS``) makes the clause a claim. Whole sentences are judged in
``sentence``; questions in ``questions``."""

from __future__ import annotations

import re

from .words import PREDICATE_WORD, WORD, is_verb

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
#: Interjections and summary lead-ins split off the assertion after them. Not the lists
#: ``trust.answer_spans`` strips before it measures coverage (a different job, tuned on its
#: own cases).
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
#: An opener that precedes an assertion and is split off it ("Of course", "Absolutely,",
#: "Good question:", "According to the documents,", "I'm afraid", "Here is the answer:").
OPENER = re.compile(
    rf"^(?:(?P<pleasantry>{_PLEASANTRY})|(?P<interjection>{_INTERJECTION})|"
    rf"(?P<attribution>{_ATTRIBUTION})){_ENDS}|^(?P<bare>of course|certainly|absolutely|indeed|"
    rf"definitely|obviously|(?:i'?m|i am) afraid(?: that)?(?! of\b))\s+(?=\w)|"
    rf"^(?P<leadin>{_LEADIN})\s*",
    re.IGNORECASE,
)
#: Greetings, thanks and sign-offs in German, French, Spanish, Chinese and Japanese, as a
#: whole clause ("Vielen Dank für Ihre Nachricht.", "¡Hola!", "您好！",
#: "ご質問ありがとうございます。").
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
#: A clause that is nothing but an opener ("Thanks!", "Of course.", "Great question.").
OPENER_ALONE = re.compile(rf"^(?:{_PLEASANTRY}|{_INTERJECTION}|{_ATTRIBUTION}|{_LEADIN})\W*$",
                          re.IGNORECASE)
#: A conjunction or connective that opens a clause ("But ", "However, ", "Also ").
LEAD_CONJ = re.compile(r"^(?:and|but|so|however|though|although|also|plus)\b,?\s*", re.IGNORECASE)
_RESTATE = re.compile(
    r"^(?:you (?:asked|are asking|'re asking|want to know|wanted to know)|your question|"
    r"the question (?:is|was|asks)|you'?d like to know)\b",
    re.IGNORECASE,
)
#: A lead-in line that announces the answer ("Here is what I found:", "Summary:").
META_LEADIN = re.compile(r"^(?:here(?:'s| is| are)\b.*:|(?:in )?summary:?)$", re.IGNORECASE)
#: A sentence that only announces what follows: "Here is how returns work.", "Here's what you
#: need to know." (a lead-in, set aside; with a number it is judged).
_ANNOUNCE = re.compile(
    r"^(?:so,? )?here(?:'s| is| are) (?:how|what|why|where|when|which|who)\b[^:;]*[.!]?$|"
    r"^(?:so,? )?here(?:'s| is| are) (?:an? |the |some |my )?(?:quick |short |brief )?"
    r"(?:overview|summary|rundown|breakdown|answer|explanation|details)\b[^:;]*[.!]?$",
    re.IGNORECASE)
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
#: Where a sentence may hold a non-assertive clause beside an assertive one: a semicolon, a
#: colon, a dash, "but", "however", or before an offer of help ("..., let me know if ...").
CLAUSE_BOUNDARY = re.compile(
    r"\s*;\s*|:\s+|\s+[-\u2013\u2014]+\s+|\s*[\u2013\u2014]+\s*|,?\s+but\s+|,\s*however,?\s+|"
    r"(?<!\bi)(?:,\s*|\s+)(?:and |so )?(?=(?:please )?(?:let me know|let us know|feel free|"
    r"don'?t hesitate|(?:i )?hope (?:this|that|it) helps|is there anything else)\b)",
    re.IGNORECASE,
)
#: A comma and a word that opens a clause of its own: where a non-assertive frame ("You asked
#: whether X", "The documents don't mention it", "Let me know if ...") may carry a fact after it.
CONJUNCT = re.compile(
    r",\s*(?:(?:and|yet|so|because|since|although|though)\s+|(?=(?:which|who)\s))", re.IGNORECASE)
#: Words of a clause that talks about the answer itself ("..., which the documents cover").
META_CLAUSE = re.compile(r"\b(?:summary|answer|response|reply|passages?|documents?|context)\b",
                         re.IGNORECASE)
#: Number words (besides digits) that make a frame factual; "one" is left out ("find one").
#: Not ``language.lexicon.NUMBER_WORDS``: it leaves out "one", "once", "single", the ordinals
#: and most teens and tens, and has "half", "million", "billion"; a frame is judged factual by
#: it, and the lexicon's list would change which frames count.
_FACT_NUMBER_WORDS = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|hundred|thousand|million|billion|dozen|half|twice|double|triple)\b",
    re.IGNORECASE)
#: The own vocabulary of offers of help and pleasantries; any other verb, participle or
#: predicative adjective in one ("Happy to help with sale items being refundable") is a fact.
FRAME_WORDS = frozenset((
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


def clause_reason(text: str, first: bool = True) -> str | None:
    """Why one clause (no opener split off yet) is non-assertive as a whole, or ``None``.

    A clause after the first that is a bare interjection ("Free plan: no", "HDR: yes") is a
    value, not an interjection.
    """
    plain = LEAD_CONJ.sub("", text.strip().strip("\"'\u201c\u201d")).strip()
    if not first and re.fullmatch(rf"(?:{_INTERJECTION})\W*", plain, re.IGNORECASE):
        return None
    if _OTHER_PLEASANTRY.match(plain):
        return "greeting or pleasantry"
    while True:
        m = OPENER.match(plain)
        if not m or not m.end():
            break
        if META_LEADIN.match(plain):
            return "lead-in"
        plain = plain[m.end():].lstrip()
    if not WORD.search(plain) or OPENER_ALONE.match(plain):
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
    if META_LEADIN.match(plain) or (_ANNOUNCE.match(plain) and not has_number(plain)):
        return "lead-in"
    if _REFUSAL.match(plain):
        return "refusal"
    if _APOLOGY.match(plain):
        return "greeting or pleasantry"
    if _OFFER.match(plain):
        return "offer of help"
    return None


def has_number(text: str) -> bool:
    """A number as a quantity: digits not inside a name (``K7``, ``A320`` are names), or a
    number word."""
    return bool(re.search(r"(?<![^\W\d_])\d", text) or _FACT_NUMBER_WORDS.search(text))


def _carries_fact(plain: str, reason: str) -> bool:
    """True when a clause with a non-assertive frame says something factual besides it: a
    number (digits or a number word), or, in an offer of help or a pleasantry, a verb,
    participle or predicative adjective outside the frame's own vocabulary ("Happy to help
    with sale items being refundable", "Feel free to return sale items at any store").
    Refusals, restatements and questions may name their topic ("You asked whether sale items
    can be refunded"); only a number or a clause of its own (see ``CONJUNCT``) makes them
    factual."""
    if has_number(plain):
        return True
    if reason not in {"offer of help", "greeting or pleasantry"}:
        return False
    for token in re.findall(r"[\w'\u2019-]+", plain.lower().replace("\u2019", "'")):
        if token in FRAME_WORDS:
            continue
        if is_verb(token) or PREDICATE_WORD.match(token):
            return True
    return False
