"""One copy of each word list the language layer, the quote check and the offline judges read.

Plain data (frozensets, dicts, tuples of lower-cased words or stems), no functions: stop words,
fillers, negations, number words, units, bound and scope words, claim openers, discourse words,
quantifiers, modals, determiners and noun-phrase openers, opposite-word pairs and families,
synonyms. A list that changes here changes verdicts: bump
``judges.offline.heuristic.HEURISTIC_VERSION`` with it.
"""

from __future__ import annotations

import re

#: Prepositions that open a phrase a claim may add to what its evidence says ("in cash",
#: "with free return shipping"); the phrase runs to the next one, or to a clause or part break.
RIDER_OPENERS = frozenset({"in", "with", "plus"})

#: Prepositions that end such a phrase.
PREPOSITIONS = frozenset({"in", "with", "by", "via", "through", "without", "using", "for",
                          "at", "on", "from", "to", "during", "after", "before", "under",
                          "over", "within", "including", "plus", "of"})

#: Words that end a phrase (``unsaid_phrase``) besides the openers.
RIDER_ENDS = frozenset({"and", "or", "but", "that", "which", "who", "whom", "whose", "where",
                        "when", "while", "because", "if", "as", "than", "so"})

#: Nouns of set phrases that add no fact: "in order to", "in addition", "in terms of".
IDIOMS = frozenset({"order", "addition", "term", "respons", "fact", "particular", "general",
                    "part", "turn", "cas", "short", "total", "plac", "front", "favor",
                    "favour", "lin", "detail", "effect", "practic", "principl"})

COORDINATORS = frozenset({"and", "or", "&", ",", "/"})

#: Articles and possessives: the words before a name that are no part of it ("the Pro plan",
#: "its Vela lamp"; ``trust.name_rules`` skips them). Not ``NOUN_PHRASE_OPENERS``, the
#: decomposer's wider list (demonstratives and quantifiers too, no "my"): the two were tuned
#: on their own rules' cases, and one list for both would change verdicts.
DETERMINERS = frozenset({"a", "an", "the", "its", "his", "her", "their", "our", "my", "your"})

#: Words that open a noun phrase ("the", "its", "every"): how the decomposer tells a noun
#: phrase (an appositive, a subject carried to the next clause) from a clause
#: (``judges.offline.decomposer.embedded`` and ``.coordination``). Not ``DETERMINERS``: it
#: holds the demonstratives and quantifiers that open a subject ("this", "those", "each",
#: "most", "both") and no "my"; one list for both would change verdicts.
NOUN_PHRASE_OPENERS = frozenset({"the", "a", "an", "its", "their", "our", "your", "his", "her",
                                 "this", "these", "those", "each", "every", "all", "some",
                                 "most", "many", "both"})

AFTER_SUBJECT = frozenset({"is", "was", "will", "has", "had", "and", "or", "to", "of"})


#: Words that frame or join a statement and carry no fact of their own (the coverage rule
#: skips them, as it skips ``FILLERS``).
DISCOURSE = frozenset({"additionally", "furthermore", "moreover", "however", "therefor",
                       "thus", "sadly", "unfortunately", "fortunately", "interestingly",
                       "notably", "finally", "lastly", "mention", "discuss", "conversation",
                       "speaker", "convey", "describ", "explain", "highlight", "emphasiz",
                       "includ", "featur", "provid", "offer", "report", "say", "said",
                       "tell", "told", "stat", "claim", "summary", "articl", "email"})


#: Stems that say "not" in a word of their own ("forbidden from eating": "not allowed to eat"):
#: they count as a negation in the evidence of a negated claim.
NEGATIVE_WORDS = frozenset({"forbid", "forbidden", "prohibit", "ban", "bann", "refus", "fail",
                            "lack", "deni", "reject", "unabl", "absent", "miss", "exclud",
                            "avoid", "declin", "stopp", "ceas", "unfit", "dash", "los", "lost",
                            "without", "neither", "nor", "barr", "block", "halt"})


#: Words that open a sentence and are no name.
CLAIM_OPENERS = frozenset({
    "after", "before", "since", "however", "although", "despite", "during", "following",
    "because", "while", "unlike", "like", "besides", "meanwhile", "instead", "still", "later",
    "earlier", "finally", "first", "next", "sure", "well", "overall", "according", "among",
    "along", "without", "until", "upon", "between", "across", "through", "throughout",
    "whether", "though", "therefore", "thus", "hence", "indeed", "perhaps", "maybe", "today",
    "now", "recently", "previously", "currently", "initially", "eventually", "click", "many",
    "several", "both", "every", "each", "another", "one", "two", "three", "people", "users",
    "customers", "researchers", "scientists", "experts", "officials", "police",
    # words that say a figure is computed ("Together, A and B cost $30")
    "together", "altogether", "combined", "collectively", "jointly", "cumulatively", "total",
    "in",
})


#: Words that say the same thing for the coverage rule (stems, one way: claim word -> the
#: evidence words that state it).
SYNONYMS = {
    "cost": {"price", "fee", "charg", "pay", "usd", "eur", "gbp"},
    "price": {"cost", "fee", "charg", "usd", "eur", "gbp"}, "fee": {"cost", "price", "charg"},
    "buy": {"purchas"}, "purchas": {"buy"}, "allow": {"permit", "let"},
    "permit": {"allow"}, "get": {"receiv"}, "receiv": {"get"}, "offer": {"provid", "includ"},
    "includ": {"offer", "come", "contain", "provid"}, "provid": {"offer", "includ"},
    "take": {"last"}, "last": {"take"}, "user": {"seat"}, "seat": {"user"},
    "start": {"begin"}, "begin": {"start"}, "end": {"finish", "expir"}, "expir": {"end"},
    "weigh": {"weight", "kg", "g", "lb"}, "weight": {"weigh"}, "hold": {"capacity", "l", "ml"},
    "capacity": {"hold"}, "requir": {"need"}, "need": {"requir"},
}


#: Words by which a claim bounds a number it states apart from them ("the maximum speed is
#: 3,200 rpm", "limited to ... 25 users").
BOUND_NOUNS = {"<=": frozenset({"maximum", "limit", "cap", "peak"}),
               ">=": frozenset({"minimum"})}


#: Words by which a claim says a clock time opens (starts) or closes (ends) a span.
CLOCK_OPENING_WORDS = frozenset({"open", "start", "begin", "from", "since", "commenc"})  # stems

CLOCK_CLOSING_WORDS = frozenset({"clos", "end", "finish", "until", "till", "to", "by", "shut",
                                 "stop"})


#: Prefixes that negate the word they are put before (on a rest of at least four letters).
NEGATING_PREFIXES = ("non", "un", "in", "im", "ir", "il", "dis", "dys")

#: ``de-`` negates a verb with one of these endings ("deactivate", "decentralise",
#: "declassify"); before any other word it is too often the word's own start ("design").
DE_VERB_ENDS = ("at", "iz", "is", "ifi", "ify", "regist", "select", "compress", "install")

#: Stems that begin like a negating prefix and negate nothing.
NOT_NEGATED = frozenset({
    "inform", "install", "instal", "income", "increas", "import", "impress", "impact",
    "improv", "impos", "invest", "involv", "insur", "intend", "interest", "internal",
    "indicat", "insid", "includ", "instanc", "instant", "insight", "input", "invit", "invoic",
    "inventory", "discount", "discover", "display", "discharg", "dismiss", "dispos",
    "distanc", "distribut", "discuss", "dispatch", "district", "unit", "under", "unless",
    "until", "uniqu", "univers", "union", "illustrat", "imag", "immediat", "irrigat",
    "inch", "index", "industry", "infant", "ingredient", "initial", "inner", "innovat",
    "inquir", "inspect", "insert", "inspir", "instruct", "integrat", "interact", "interval",
    "introduc", "invent", "island", "issu", "disput", "dispens", "distinct",
})

#: Opposite words (stems), both ways: asserting one is negating the other.
ANTONYM_PAIRS = (
    ("enabl", "disabl"), ("accept", "reject"), ("accept", "declin"), ("issu", "deni"),
    ("issu", "deny"), ("grant", "deni"), ("grant", "deny"), ("approv", "reject"),
    ("approv", "deni"), ("includ", "exclud"), ("incur", "avoid"), ("qualify", "exclud"),
    ("qualifi", "exclud"), ("allow", "prohibit"), ("allow", "forbid"), ("allow", "block"),
    ("permit", "prohibit"), ("requir", "optional"), ("mandatory", "optional"),
    ("public", "privat"), ("increas", "decreas"), ("higher", "lower"), ("open", "clos"),
    ("online", "offlin"), ("internal", "external"), ("automatic", "manual"),
    ("automatically", "manually"), ("free", "paid"), ("same", "different"), ("pass", "fail"),
    ("success", "failur"), ("add", "remov"), ("keep", "delet"), ("retain", "delet"),
    ("earlier", "later"), ("minimum", "maximum"), ("faster", "slower"),
    ("cheaper", "expensiv"), ("larger", "smaller"), ("bigger", "smaller"), ("less", "more"),
    ("lock", "unlock"), ("upload", "download"), ("gain", "loss"), ("profit", "loss"),
    ("rise", "fall"), ("refundabl", "forfeit"), ("win", "lose"), ("won", "lost"),
    ("suppli", "withh"), ("wireless", "wired"), ("first", "last"), ("before", "after"),
)

#: Everyday opposites, as words (stemmed when the table is built): direction, size, age,
#: time, quality, outcome, relation.
OPPOSITE_WORDS = (
    "new old", "young old", "younger older", "youngest oldest", "high low", "higher lower",
    "highest lowest", "large small", "big small", "larger smaller", "largest smallest",
    "long short", "longer shorter", "heavy light", "upper lower", "top bottom", "above below",
    "inside outside", "north south", "northern southern", "east west", "eastern western",
    "inbound outbound", "input output", "early late", "earliest latest", "morning evening",
    "summer winter", "day night", "ancient modern", "urban rural", "domestic foreign",
    "alive dead", "died survived", "live die", "male female", "men women", "man woman",
    "boy girl", "boys girls", "hot cold", "wet dry", "rich poor", "wealthy poor", "cheap expensive",
    "easy difficult", "easy hard", "fast slow", "best worst", "better worse", "major minor",
    "full empty", "true false", "positive negative", "strong weak", "stronger weaker",
    "similar different", "expand shrink", "expanded shrank", "ascending descending",
    "buy sell", "bought sold", "buys sells", "support oppose", "supports opposes",
    "supported opposed", "won lost", "win lose", "wins loses", "gained lost", "gain lose",
    "victory defeat", "succeeded failed", "success failure", "arrived departed",
    "arrive depart", "entered left", "joined left", "hired fired", "agreed refused",
    "accepted refused", "guilty innocent", "ally enemy", "friend enemy", "friends enemies",
    "love hate", "loved hated", "loves hates", "allowed banned", "allow ban", "push pull",
    "attack defend", "attacked defended", "began ended", "started ended", "start end",
    "begins ends", "opened closed", "opens closes", "rose fell", "rises falls", "risen fallen",
    "increased decreased", "increases decreases", "increasing decreasing", "raised lowered",
    "left right", "lead trail", "led trailed", "leading trailing", "remove add",
    "removed added", "import export", "imports exports", "win's loss's", "maximum minimum",
    "first last", "before after", "more fewer", "most least", "always never", "always rarely",
    "always sometimes", "often rarely", "usually rarely",
    # roles: who is on which side of a deal or a contest (not family words: a text about a
    # mother often names the father too)
    "buyer seller", "buyers sellers", "landlord tenant", "landlords tenants",
    "employer employee", "employers employees", "lender borrower", "lenders borrowers",
    "lend borrow", "lent borrowed", "winner loser", "winners losers", "creditor debtor",
    "sender recipient", "sender receiver", "host guest", "hosts guests",
    "plaintiff defendant", "predecessor successor", "importer exporter", "majority minority",
    "inflow outflow", "incoming outgoing", "upstream downstream",
    "upgrade downgrade", "upgraded downgraded", "credit debit", "arrival departure",
    "entrance exit", "promoted demoted", "acquitted convicted", "friend foe", "friends foes",
    # directions, outcomes and qualities the list above lacks
    "good bad", "improve worsen", "improves worsens", "improved worsened",
    "strengthen weaken", "strengthened weakened", "strengthening weakening",
    "explicit implicit", "encoder decoder", "encoding decoding", "encode decode",
    "encrypt decrypt", "encrypted decrypted", "distant nearby", "ahead behind",
    "shut opened", "reveal hide", "revealed hidden", "visible hidden", "help hinder",
    # "at no cost" reads "free" (``PHRASES``): "at some cost" is its opposite
    "free cost",
)

#: Families of opposites: every word of one side is the opposite of every word of the other
#: (stemmed when the table is built), and the words of one side say the same thing, so that
#: evidence stating one of them with the claim's polarity agrees with a claim saying another
#: ("dropped" for "fell") even where it also states the other side ("rose, then fell").
OPPOSITE_FAMILIES = (
    # the direction of a quantity
    ("rise rises rose risen rising climb climbed grow grows grew grown growing increase "
     "increased increases gain gained gains jump jumped jumps soar soared surge surged "
     "rocket rocketed skyrocket skyrocketed",
     "drop dropped drops fall falls fell fallen falling decline declined decrease decreased "
     "decreases shrink shrank shrunk slump slumped plunge plunged dip dipped slide slid sink "
     "sank sunk tumble tumbled plummet plummeted"),
    ("accelerate accelerated spur spurred",
     "decelerate decelerated hinder hindered hamper hampered impede impeded"),
    ("wide wider broad broader", "narrow narrower"),
    ("specific", "generic"),
    ("thrive thrives thrived thriving", "struggle struggles struggled struggling"),
    ("endorse endorsed endorsing", "ban banned banning"),
    ("reveal revealed unveil unveiled disclose disclosed", "hide hid hidden conceal concealed"),
)

#: Stop words that are opposites after the same verb (the coverage rules skip stop words):
#: "Sales went up" is not "Sales went down"; "turned on" is not "turned off".
STOP_OPPOSITES = {"up": "down", "down": "up", "on": "off", "off": "on"}


#: Quantifiers and frequency words, by what they claim: a claim's quantifier must be the
#: evidence's ("all" is not "some", "always" is not "rarely").
QUANTIFIERS = {
    "all": "all", "every": "all", "each": "all", "always": "always", "most": "most",
    "mostly": "most", "majority": "most", "usually": "usually", "generally": "usually",
    "typically": "usually", "often": "often", "frequently": "often", "some": "some",
    "several": "some", "sometimes": "sometimes", "occasionally": "sometimes", "few": "few",
    "rarely": "rarely", "seldom": "rarely", "only": "only", "exclusively": "only",
    "solely": "only", "never": "never", "none": "none", "many": "many", "exactly": "exactly",
    "precisely": "exactly", "also": "also", "both": "both", "neither": "neither",
    "entire": "all", "whole": "all", "partial": "partial", "partly": "partial",
}

#: Quantifiers a claim may not state unless its evidence does ("all", "only", ...); a weaker
#: one ("some", "often") is refused only when the quotes state another.
STRONG_QUANTIFIERS = frozenset({"all", "always", "only", "never", "none", "most", "exactly",
                                "neither"})


#: Modal verbs: how strongly a sentence asserts ("may" is not "must"); stop words elsewhere.
MODALS = frozenset({"may", "might", "must", "can", "could", "will", "would", "should",
                    "shall", "cannot"})


STOP_WORDS = frozenset(
    ["a", "an", "the", "and", "or", "but", "if", "then", "than", "of", "to", "in", "on", "at", "by",
     "for", "from", "with", "within", "into", "onto", "over", "under", "about", "as", "is", "are",
     "was", "were", "be", "been", "being", "am", "do", "does", "did", "has", "have", "had",
     "having", "it", "its", "it's", "this", "that", "these", "those", "there", "here", "their",
     "they", "them", "he", "she", "his", "her", "we", "our", "you", "your", "i", "me", "my", "us",
     "which", "who", "whom", "whose", "what", "when", "where", "why", "how", "all", "any", "both",
     "each", "few", "more", "most", "other", "some", "such", "only", "own", "same", "so", "too",
     "very", "can", "could", "will", "would", "may", "might", "must", "should", "shall", "also",
     "just", "not", "no", "nor", "yet", "up", "out", "down", "off", "again", "further", "once", "s",
     "t", "ll", "re", "ve", "d", "m", "also", "currently", "typically", "usually", "generally",
     "normally", "often", "always", "sometimes", "around", "approximately", "about", "roughly",
     "nearly", "almost", "make", "sure", "please", "note", "ensure", "remember", "want", "need",
     "per", "via", "one's", "yes"]
)

#: Words a claim may hold that its passage need not (at most ``MAX_MISSING_FILLERS`` of them):
#: they add emphasis or frame the statement, never a fact of their own.
FILLERS = frozenset({"actually", "really", "indeed", "specifically", "particularly", "overall",
                     "clearly", "certainly", "definitely", "simply", "basically", "essentially",
                     "explicitly", "mention", "state", "say", "according", "passag", "document",
                     "text", "context", "provid", "information"})

NEGATIONS = frozenset({"not", "no", "never", "n't", "without", "cannot", "none", "neither",
                       "nor", "nothing", "nobody", "unavailable", "doesn't", "isn't", "aren't",
                       "don't", "won't", "can't", "wasn't", "weren't", "didn't", "hasn't",
                       "haven't", "shouldn't", "mustn't",
                       # the same written without the apostrophe (or with one the Markdown
                       # reader took for a code mark: "isn`t"); "cant" and "wont" are also
                       # rare words of their own: read as negations, the side that fails closed
                       "doesnt", "isnt", "arent", "dont", "wont", "cant", "wasnt", "werent",
                       "didnt", "hasnt", "havent", "shouldnt", "mustnt", "couldnt", "wouldnt",
                       # German, French (``n'`` is read as ``ne``), Spanish
                       "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie",
                       "niemals", "ohne", "ne", "pas", "jamais", "aucun", "aucune", "sans",
                       "nunca", "jamás", "ningún", "ninguno", "ninguna", "sin", "tampoco",
                       # "it is not true that P" (``PHRASES``): negates the whole of P
                       "notthat"})

#: Negation inside a run of Chinese or Japanese text (不可以, 没有, 無料 is read as negated
#: too: a cheap rule), and Japanese negative verb endings (できません, ない).
CJK_NEGATION = re.compile("[\u4e0d\u6ca1\u6c92\u65e0\u7121\u672a\u975e\u522b]|"
                          "\u306a\u3044|\u307e\u305b\u3093|\u306a\u3057")

NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
    "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
    "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30", "forty": "40",
    "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80", "ninety": "90",
    "hundred": "100", "thousand": "1000", "once": "1", "twice": "2", "single": "1",
    "double": "2", "triple": "3", "dozen": "12",
    # ordinals are numbers of their own ("third" is "3rd", never "3"); "first" and "second"
    # (a unit) stay words
    "third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th", "seventh": "7th",
    "eighth": "8th", "ninth": "9th", "tenth": "10th", "eleventh": "11th", "twelfth": "12th",
    "thirteenth": "13th", "fourteenth": "14th", "fifteenth": "15th", "sixteenth": "16th",
    "seventeenth": "17th", "eighteenth": "18th", "nineteenth": "19th", "twentieth": "20th",
}

UNITS = frozenset({"percent", "rpm", "kmh", "mph", "kg", "g", "mm", "cm", "km", "m", "l", "ml",
                   "db", "w", "wh", "kwh", "v", "hour", "minute", "minut", "second", "day", "week",
                   "month", "year", "gb", "mb", "tb", "ghz", "mhz", "hz", "lumen", "inch", "foot",
                   "feet", "lb", "pound", "mg", "oz", "dollar", "euro", "usd", "eur", "point",
                   "fortnight", "time", "people", "person", "page", "mile", "seat", "port", "level",
                   "gbp", "jpy", "am", "pm", "january", "february", "march", "april", "may", "june",
                   "july", "august", "september", "october", "november", "december", "oclock",
                   "celsius", "fahrenheit"})


#: Words between a number and the unit of a rate ("$20 per month", "3 days a week"), which also
#: open a rate's denominator after a number and one word ("5 seats per team": ``read_rates``).
RATE = frozenset({"per", "a", "an", "each", "every"})


#: A quantity's unit names the quantity ("3200 rpm" is a speed), so a passage that gives only
#: the unit still speaks to a claim that names the quantity.
UNIT_IMPLIES = {"rpm": "speed", "kmh": "speed", "mph": "speed", "kg": "weigh", "db": "noise",
                "w": "power", "wh": "capacity", "kwh": "capacity", "lumen": "brightness",
                "g": "weigh"}

#: Stems read as one word: a label and the verb a sentence says it with ("Price: $12" /
#: "costs $12", "Weight: 680 g" / "weighs 680 grams").
SAME_STEM = {"pric": "cost", "weight": "weigh"}


#: British spellings written the American way, so that both read as one stem ("colours" /
#: "colors", "organised" / "organized", "centre" / "center", "licence" / "license").
BRITISH = (
    (re.compile(r"(?<=[a-z]{3})our(s|ed|ing|ful|ite|ites)?$"), r"or\1"),
    (re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|ation|ations|er|ers)$"), r"iz\1"),
    (re.compile(r"(?<=[a-z]{3})tre(s|d)?$"), r"ter\1"),
    (re.compile(r"^(lic|def|off|pret)ence(s)?$"), r"\1ense\2"),
)

UPPER_BOUND = frozenset({"within", "under", "below", "maximum", "less than", "fewer than",
                         "up to", "at most", "no more than", "not more than", "before",
                         "maximum of", "a maximum of", "limit of", "a limit of", "limited to",
                         "as much as", "as many as", "as high as",
                         # an approximation from below: "nearly 100", "almost 100", "close
                         # to 100" is not 100 ("just under" is "under")
                         "nearly", "almost", "close to"})

#: Bound words that approximate: an evidence's bound the claim must state, while a claim's
#: needs only no other bound in its evidence ("close to \u00a362m" / "(\u00a362m)").
APPROXIMATE = frozenset({"nearly", "almost", "close to"})

LOWER_BOUND = frozenset({"over", "above", "minimum", "more than", "greater than", "at least",
                         "exceeding", "exceeds", "beyond", "after", "no less than",
                         "minimum of", "a minimum of", "as little as", "as few as",
                         "as low as"})


#: Words that may stand between a bound and its number: "within the next 10 days".
BOUND_GAP = frozenset({"the", "next", "first", "a", "an", "last", "coming", "following"})


#: English negation words whose scope runs forward (``scoped_polarity``); the others
#: (German, French, Spanish, CJK runs) negate their whole clause part, as they may follow
#: the verb they negate ("funktioniert nicht").
FORWARD_NEGATIONS = frozenset(
    t for t in NEGATIONS if t.isascii() and t not in {
        "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
        "ohne", "ne", "pas", "jamais", "aucun", "aucune", "sans", "nunca", "sin", "tampoco"})

#: Words that end a forward negation's scope once it governs two words: the adjunct that
#: follows says where or when, it is not what is negated ("no credit card is required |
#: for the free trial"; "we do not answer phone calls | on weekends"); after one word the
#: phrase is still the negated one ("no option for renewal"). The scope also ends after
#: ``NEGATION_SCOPE`` content words.
SCOPE_ENDS = frozenset({"for", "on", "in", "at", "with", "within", "during", "after", "before",
                        "from", "to", "by", "under", "over", "until", "via", "per", "when",
                        "if", "because", "since", "unless", "where", "and", "or"})
