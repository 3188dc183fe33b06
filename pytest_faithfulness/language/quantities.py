"""Quantities: numbers as written to numbers as read, with units, ranges, rates and clock times.

``surface_form`` rewrites a text so that every quantity reads one way ("two-thirds", "1,200",
"$5", "5 p.m.", "2024-03-01" each to one canonical spelling); ``read_ranges``,
``read_rates`` and ``read_clock_ranges`` read ranges, rates and clock ranges from its lower-cased
form; ``unit_value`` and ``same_amount`` compare amounts across units of one dimension.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache

from .lexicon import NUMBER_WORDS, RATE, STOP_WORDS, UNITS
from .text import fold_superscripts
from .words import (
    TOKEN_PATTERN,
    canonical_number,
    fold_phrases,
    is_content,
    is_number_token,
    is_plain_number,
    stem_word,
)


def looks_like_year(number: str) -> bool:
    """Whether ``number`` (digits as ``text_features`` reads them) may be a year: 1800..2100."""
    return number.isdigit() and 1800 <= int(number) <= 2100


#: unit (as ``text_features`` reads it) -> (dimension, factor to the dimension's base unit).
#: Units of different systems (kg / lb) and currencies are different dimensions: never
#: converted into each other.
DIMENSIONS = {
    "mg": ("mass", 0.001), "g": ("mass", 1.0), "kg": ("mass", 1000.0),
    "lb": ("mass-lb", 1.0), "pound": ("mass-lb", 1.0), "oz": ("mass-lb", 1 / 16),
    "ml": ("volume", 1.0), "cl": ("volume", 10.0), "l": ("volume", 1000.0),
    "mm": ("length", 1.0), "cm": ("length", 10.0), "m": ("length", 1000.0),
    "km": ("length", 1e6), "inch": ("length-in", 1.0), "foot": ("length-in", 12.0),
    "feet": ("length-in", 12.0),
    "second": ("time", 1.0), "minute": ("time", 60.0), "minut": ("time", 60.0),
    "hour": ("time", 3600.0),
    "day": ("time", 86400.0), "week": ("time", 604800.0), "fortnight": ("time", 1209600.0),
    "month": ("months", 1.0), "year": ("months", 12.0),
    "mb": ("data", 1.0), "gb": ("data", 1e3), "tb": ("data", 1e6),
    "w": ("power", 1.0), "kw": ("power", 1e3), "wh": ("energy", 1.0), "kwh": ("energy", 1e3),
    "usd": ("usd", 1.0), "dollar": ("usd", 1.0), "eur": ("eur", 1.0), "euro": ("eur", 1.0),
}


def unit_value(number: str, unit: str) -> tuple[str, float]:
    """``(dimension, value in its base unit)`` of a number with its unit."""
    dim, factor = DIMENSIONS.get(unit, (unit, 1.0))
    if not is_plain_number(number):
        return dim, math.nan  # a version, date, ordinal or power: equal only as written
    return dim, float(number) * factor


def same_amount(a: float, b: float) -> bool:
    """Whether two amounts in one base unit (``unit_value``) are equal up to float rounding."""
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def thirds(a: float, b: float, dim: str) -> bool:
    """Whether two percentages are a third (two thirds) and its rounding: "a third" (33.3)
    is "33%" and "33.33%"."""
    return dim == "percent" and any(abs(a - t) < 0.05 or abs(b - t) < 0.05 for t in _THIRDS) \
        and abs(a - b) < 0.5


def clock_said(number: str, unit: str, labels: frozenset[tuple[str, str]]) -> bool:
    """Whether ``labels`` state the clock time ``number unit``: "9 oclock" (a "9:00" without
    am/pm) is "9 am" or "9 pm", and either states it."""
    if unit == "oclock":
        return bool({(number, "am"), (number, "pm")} & labels)
    return unit in ("am", "pm") and (number, "oclock") in labels


_THOUSANDS_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")

#: A decimal comma before a unit: "1,5 l", "2,5 kg" read "1.5 l", "2.5 kg".
_DECIMAL_COMMA = re.compile(
    r"(?<![\d.,])(\d+),(\d{1,2})(?=\s?(?:kg|g|mg|l|ml|cl|km|m|cm|mm|%|percent|lit(?:re|er)s?|"
    r"grams?|kilo(?:gram)?s?|met(?:re|er)s?|euros?|eur|lb|lbs|oz|h|hours?)\b)", re.IGNORECASE)

#: A key and its number, in a key/value or labelled passage (``"max_users": 25``, "Price:
#: $20"): the colon is no clause break there, so the key is the number's label.
_KEY_VALUE = re.compile(r'(?<=[A-Za-z])"?\s*[:=]\s*(?=[$\u20ac\u00a3]?\d)')

#: "10+ users" reads "at least 10 users".
_AT_LEAST = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\+(?![\d+])")

#: "non-refundable" and "non refundable" read as one word "nonrefundable", negated inside.
_NON = re.compile(r"\b(non)[-\u2010\u2011 ](?=[A-Za-z])", re.IGNORECASE)  # NON-REFUNDABLE too

_TOKEN_BREAKERS = re.compile(r"[_=]")

_DIGIT = re.compile(r"\d")


_MAGNITUDE = re.compile(r"(\d+(?:\.\d+)?)\s*(thousand|million|billion|trillion|k|mn|bn)\b",
                        re.IGNORECASE)

_SCALE = {"thousand": 3, "k": 3, "million": 6, "mn": 6, "billion": 9, "bn": 9, "trillion": 12,
          "m": 6, "b": 9}

#: "1M", "2.5B" (a capital letter right after the digits), "$1.2m", "$3 bn": a magnitude too
#: ("10 m" is ten metres; "Section 4B", after a capitalised word, is left alone).
_MAGNITUDE_LETTER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([MB])\b"
                               r"|(?<=[$\u20ac\u00a3\u00a5])(\d+(?:\.\d+)?)\s?([mbMB])\b")

#: Thousands grouped with a space (a narrow or no-break space reads as one after NFKC) or an
#: apostrophe ("10 000", "1'000'000"), or in the Indian way ("1,00,000"): one number. Only
#: groups of exactly three digits (two in the Indian pattern), the first of one to three.
_GROUPED = re.compile(r"(?<![\w.,'\u2024/:-])\d{1,3}(?:([ '])\d{3})(?:\1\d{3})*"
                      r"(?![\w\u2024/]|[.,:']\d)"
                      r"|(?<![\w.,'\u2024/:-])\d{1,2}(?:,\d{2})+,\d{3}(?![\w\u2024/]|[.,]\d)")

#: A sign said in words: "minus 20", "negative 4.5" (not "50 minus 20", a difference: no
#: number just before), and "20 degrees below zero": part of the number.
_SIGN_WORD = re.compile(r"\b(?:minus|negative)\s+(?=\d)", re.IGNORECASE)

_BELOW_ZERO = re.compile(r"(?<![\w.-])(\d+(?:\.\d+)?)(\s*(?:\u00b0\s?[CcFf]\b|degrees?(?:\s+(?:"
                         r"celsius|centigrade|fahrenheit|[CcFf])\b)?)?)\s+below\s+(?:zero|0)\b",
                         re.IGNORECASE)

#: "2 and a half", "two and a half": the number and .5; "an hour and a half": 1.5 hours.
_AND_A_HALF = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
                         r"twelve)\s+and\s+a\s+half\b", re.IGNORECASE)

_UNIT_AND_A_HALF = re.compile(r"\b(?:an?|one)\s+(minute|hour|day|week|month|year)\s+and\s+a\s+"
                              r"half\b", re.IGNORECASE)

#: An ISO date ("2024-03-04": year, month, day, never read otherwise) as the day, the month
#: name and the year a sentence writes ("4 march 2024").
_ISO_DATE = re.compile(r"(?<![\w.\u2024/-])(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
                       r"(?![\w\u2024/]|[.-]\d)")

#: A fraction of a whole ("half of the users", "half the users", "a quarter of", "two thirds
#: of", "one in five users"): a percentage ("50 percent of"), compared with the evidence's.
_FRACTION = re.compile(
    r"\b(?:(?:a|one)[- ])?(half)(?: of\b|(?= (?:the|all|our|their|its|his|her|your|these|those)\b))"
    r"|\b(a|one|two|three|four)[- ](third|quarter|fifth|tenth)s? of\b"
    r"|\bone (?:in|out of) (two|three|four|five|ten|2|3|4|5|10|20|100)\b(?! (?:and|or|to|-)\b)",
    re.IGNORECASE)

_PARTS = {"half": 2, "third": 3, "quarter": 4, "fifth": 5, "tenth": 10, "two": 2, "three": 3,
          "four": 4, "five": 5, "ten": 10}

#: Percentages a fraction of thirds is written as ("a third": 33.3), and "33%" rounds to.
_THIRDS = (100 / 3, 200 / 3)


def _fraction(match: re.Match[str]) -> str:
    """"half of" -> "50 percent of", "two thirds of" -> "66.7 percent of", "one in five" ->
    "20 percent" (``_FRACTION``)."""
    if match.group(1):
        return "50 percent of"
    if match.group(2):
        count = 1 if match.group(2).lower() in ("a", "one") else _PARTS[match.group(2).lower()]
        return f"{100 * count / _PARTS[match.group(3).lower()]:.3g} percent of"
    whole = match.group(4).lower()
    return f"{100 / int(_PARTS.get(whole, whole)):.3g} percent"


#: A slash after a number (or a number and a short unit) before a word is "per": "$10/user",
#: "20 GB/month" read "10 usd per user", "20 GB per month" ("km/h" is left to ``PHRASES``).
_SLASH_RATE = re.compile(r"(?<=\d)((?:\s?[A-Za-z]{1,4})?)\s?/\s?(?=[A-Za-z]{3,})")

#: "24/7" is "24 hours a day, 7 days a week".
_ALL_HOURS = re.compile(r"(?<![\w./])24\s?/\s?7(?:\s?/\s?365)?(?![\w/]|\.\d)")

#: "1st" and "2nd" standing alone are the words "first" and "second" (not "21st", "May 1st").
_FIRST_SECOND = re.compile(r"(?<![\w.\u2024-])(1st|2nd)\b", re.IGNORECASE)

_CURRENCY = re.compile(r"([$\u20ac\u00a3\u00a5])\s*(\d+(?:\.\d+)?)")

_CURRENCY_UNIT = {"$": "usd", "\u20ac": "eur", "\u00a3": "gbp", "\u00a5": "jpy"}


def _scaled(match: re.Match[str]) -> str:
    """``50 million`` -> ``50000000``: a magnitude word is part of the number it follows."""
    if match.re is _MAGNITUDE_LETTER:
        if match.group(1) and NAME_BEFORE.search(match.string, max(0, match.start() - 40),
                                                 match.start()):
            return match.group(0)  # "Section 4B", "Model 3M": a name
        number, scale = (match.group(1), match.group(2)) if match.group(1) else \
            (match.group(3), match.group(4))
    else:
        number, scale = match.group(1), match.group(2)
    whole, _, frac = number.partition(".")
    digits = _SCALE[scale.lower()]
    frac = frac.ljust(digits, "0")
    value = (whole + frac[:digits]).lstrip("0") or "0"
    rest = frac[digits:].rstrip("0")
    return value + ("." + rest if rest else "")


#: Unicode format characters (category Cf: soft hyphen, zero-width space and joiners, word
#: joiner, bidi marks, BOM, tags). They are invisible and split no word, so the verifier drops
#: them before it tokenises ("re\u200bfunded" is "refunded").
FORMAT_CHARS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]")

#: Month names and their abbreviations, capitalised as dates write them.
_MONTH = (r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?")

_DAY = r"(\d{1,2}|\d{4})(?:st|nd|rd|th)?\b"

#: A month before or after a day number (or a year) is that number's unit: "May 3" and
#: "3rd of May" both read "3 may", so "May 3" is not "March 3".
_MONTH_BEFORE = re.compile(rf"\b{_MONTH}\s*{_DAY}(?![.:]\d)")

_MONTH_AFTER = re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}")

_MONTHS = {name[:3]: name for name in ("january", "february", "march", "april", "may", "june",
                                       "july", "august", "september", "october", "november",
                                       "december")}


def _month(name: str) -> str:
    return _MONTHS[name[:3].lower()]


#: Cyrillic and Greek letters drawn like Latin ones (Unicode's confusables, the common few).
_LOOKALIKES = str.maketrans("аеорсухіјѕԁАВЕКМНОРСТХІЈЅοΟαΑΒΕΗΙΚΜΝΡΤΧΥΖνρ",
                            "aeopcyxijsdABEKMHOPCTXIJSoOaABEHIKMNPTXYZvp")

_WORD = re.compile(r"\w+")

#: Marks written for an apostrophe ("isn`t", "isn´t", "isnʼt").
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'", "\u00b4": "'",
                              "\u02bc": "'"})


def _unmasked(word: re.Match[str]) -> str:
    """A word that mixes Latin letters with Cyrillic or Greek look-alikes ("n\u043et") read as
    the Latin word it is drawn as; a word wholly in another script is left alone."""
    w = word.group(0)
    if w.isascii() or not any(c.isascii() and c.isalpha() for c in w):
        return w
    latin = w.translate(_LOOKALIKES)
    return latin if latin.isascii() else w


#: A unit with an exponent ("m^2" from "m\u00b2"): read as one token, "m2".
_UNIT_POWER = re.compile(r"(?<=[^\W\d_])\^(\d+)")

#: A minus sign before a number ("\u221220"), and a hyphen spaced from the number before it
#: and not from the one after ("3 -5": a range, not -5).
_SIGNED = re.compile(r"\u2212(?=\d)|(?<=\d)\s+-(?=\d)")

#: Numbers joined by a hyphen right after a capitalised word inside a sentence ("the Boeing
#: 737-800"): a model number, not a range (``_RANGE`` does not read U+2011).
_MODEL_NUMBER = re.compile(r"(?<=[^\s.!?:;] )([A-Z][\w]*\s+\d+)-(?=\d)")

#: A version number: compared as text, "2.10" is not "2.1".
_VERSION = re.compile(r"\b(version|ver\.?|release|build|firmware|patch|update|v)(\s?)"
                      r"(\d+(?:\.\d+)+)\b", re.IGNORECASE)

#: A date written with numbers only ("03/04/2025", "2025-03-04", "3.4.25"): one token, compared
#: as written (03/04 may be 3 April or 4 March).
_DATE_NUMBERS = re.compile(r"(?<![\w.\u2024/-])(?:\d{1,2}([/.-])\d{1,2}\1(?:\d{4}|\d{2})"
                           r"|\d{4}([/.-])\d{1,2}\2\d{1,2})(?![\w\u2024/]|[.-]\d)")


_JOINERS = re.compile(r"[./-]")


#: A currency code before its number ("USD 49", "EUR 1,200") is that number's unit, as a
#: sign is ("$49" -> "49 usd").
_CODE_BEFORE = re.compile(r"\b(USD|EUR|GBP|JPY)\s?(\d+(?:\.\d+)?)(?!\d|\.\d)", re.IGNORECASE)

_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")

_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")

_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")

_SPELLED = {w: i + 1 for i, w in enumerate(_ONES)} | {w: i + 10 for i, w in enumerate(_TEENS)} \
    | {w: 20 + 10 * i for i, w in enumerate(_TENS)}

#: A number word of tens and units ("forty-nine", "twenty one"): one number.
_TENS_UNITS = re.compile(rf"\b({'|'.join(_TENS)})(?:[-\u2010\u2011]|\s(?=\w+\b(?!-)))"
                         rf"({'|'.join(_ONES)})\b", re.IGNORECASE)

#: "one hundred and twenty", "a hundred and 5" (after ``_TENS_UNITS``): one number.
_HUNDREDS = re.compile(
    rf"\b({'|'.join(_ONES)}|a)\s+hundred(?:\s+(?:and\s+)?("
    rf"{'|'.join(_TENS + _TEENS + _ONES)}|\d{{1,2}}))?\b(?!\s+(?:hundred|thousand))",
    re.IGNORECASE)

#: A clock time ("9:00", "17:30", "9:30 a.m."): read as hours and a unit, "9 am", "5.5 pm";
#: an hour of 1 to 11 written without a leading zero and without am/pm is either
#: ("9:00": "9 oclock", stated by "9 am" or "9 pm": ``clock_said``).
_CLOCK = re.compile(r"(?<![\w.:\u2024])(\d{1,2}):([0-5]\d)(?::[0-5]\d)?"
                    r"(?:\s*([AaPp])\.?\s?[Mm]\b\.?)?(?![\d:])")

#: A dash between two clock times ("9 am-5 pm", "9am\u20135pm"): "to", no minus sign.
_CLOCK_DASH = re.compile(r"(\d\s*[ap]\.?m\.?)\s*[-\u2010\u2011\u2013\u2014]\s*(?=\d)",
                         re.IGNORECASE)


def _spelled_number(match: re.Match[str]) -> str:
    """"forty-nine" -> "49"; "one hundred and twenty" -> "120" (``_TENS_UNITS``,
    ``_HUNDREDS``)."""
    if match.re is _TENS_UNITS:
        return str(_SPELLED[match.group(1).lower()] + _SPELLED[match.group(2).lower()])
    hundreds = 1 if match.group(1).lower() == "a" else _SPELLED[match.group(1).lower()]
    rest = match.group(2)
    rest = 0 if rest is None else int(rest) if rest.isdigit() else _SPELLED[rest.lower()]
    return str(100 * hundreds + rest)


def _clock(match: re.Match[str]) -> str:
    """A clock time as hours and a unit (``_CLOCK``): "17:00" -> "5 pm", "9:30" -> "9.5
    oclock"; an hour over 23 is left as written."""
    hour, minute, marker = int(match.group(1)), int(match.group(2)), match.group(3)
    if hour > 23 or marker and not 1 <= hour <= 12:
        return match.group(0)
    if marker:
        unit = marker.lower() + "m"
    elif hour == 0 or hour == 12 or hour > 12 or match.group(1).startswith("0"):
        unit = "am" if hour < 12 else "pm"
        hour = hour % 12 or 12
    else:
        unit = "oclock"
    value = hour + minute / 60
    return f"{value:.6g} {unit}"


def _half(match: re.Match[str]) -> str:
    """"2 and a half" -> "2.5", "an hour and a half" -> "1.5 hours" (``_AND_A_HALF``)."""
    if match.re is _UNIT_AND_A_HALF:
        return f"1.5 {match.group(1)}s"
    whole = match.group(1)
    return f"{whole if whole.isdigit() else _SPELLED[whole.lower()]}.5"


def _signed_word(match: re.Match[str]) -> str:
    """"minus 20" -> "-20" unless a number comes just before ("50 minus 20": a difference)."""
    before = match.string[max(0, match.start() - 24):match.start()].split()[-2:]
    if any(any(c.isdigit() for c in t) for t in before):
        return match.group(0)
    return "-"


def _iso_date(match: re.Match[str]) -> str:
    """"2024-03-04" -> "4 march 2024" (``_ISO_DATE``)."""
    month = list(_MONTHS.values())[int(match.group(2)) - 1]
    return f"{int(match.group(3))} {month} {match.group(1)}"


def _marked(match: re.Match[str]) -> str:
    """Digits joined by dots, slashes or hyphens, joined by U+2024 (one token,
    ``canonical_number``)."""
    return _JOINERS.sub("\u2024", match.group(0))


def _version(match: re.Match[str]) -> str:
    """"version 2.10" -> "version 2\u202410", "v2.10" -> "v 2\u202410" (``_marked``)."""
    return f"{match.group(1)} {_JOINERS.sub(chr(0x2024), match.group(3))}"


def surface_form(text: str) -> str:
    """The text ``text_features`` tokenises: NFKC, one apostrophe, no thousands commas, no ``_=``,
    magnitudes folded into their number (``$50 million`` -> ``$50000000``, ``50k`` ->
    ``50000``) and a currency sign written as a unit after its number (``$5`` -> ``5 usd``);
    superscripts an exponent ("10\u00b2" -> "10^2", "m\u00b2" -> "m2"), a minus sign a
    hyphen, versions and numeric dates one token each (``_marked``), and a model number's
    hyphen ("Boeing 737-800") no range."""
    if not text.isascii():
        text = _WORD.sub(_unmasked, FORMAT_CHARS.sub("", text))
    norm = unicodedata.normalize("NFKC", fold_superscripts(text.translate(_APOSTROPHES)))
    if "^" in norm:
        norm = _UNIT_POWER.sub(r"\1", norm)  # "m^2" reads "m2", as before
    if any(c in norm for c in " '"):
        norm = _GROUPED.sub(lambda m: re.sub(r"[ ',]", "", m.group(0)), norm)
    elif "," in norm:
        norm = _GROUPED.sub(lambda m: m.group(0).replace(",", ""), norm)
    if "-" in norm:
        norm = _ISO_DATE.sub(_iso_date, norm)
    if "/" in norm:
        norm = _ALL_HOURS.sub("24 hours a day, 7 days a week", norm)
    # Each rewrite below needs a digit where it matches (``_DIGIT``), but for the spelled-out
    # ones ("and a half", "non-", the fractions, tens and hundreds): without a digit in the text
    # at that point, those that need one are skipped (the same result, without the scans).
    if _DIGIT.search(norm):
        norm = _BELOW_ZERO.sub(r"-\1\2", _SIGN_WORD.sub(_signed_word, norm))
    if "half" in norm.lower():
        norm = _UNIT_AND_A_HALF.sub(_half, _AND_A_HALF.sub(_half, norm))
    if "alf" in norm or " of" in norm or "one " in norm.lower():
        norm = _FRACTION.sub(_fraction, norm)
    digits = _DIGIT.search(norm) is not None
    if digits:
        norm = _SIGNED.sub("-", _DATE_NUMBERS.sub(_marked, _VERSION.sub(_version, norm)))
        if ":" in norm:
            norm = _CLOCK.sub(_clock, norm)
        norm = _CLOCK_DASH.sub(r"\1 to ", norm)
    norm = _HUNDREDS.sub(_spelled_number, _TENS_UNITS.sub(_spelled_number, norm))
    if "-" in norm:  # "Boeing 737-800" is a model, not a range: a non-breaking hyphen
        norm = _MODEL_NUMBER.sub("\\1\u2011", norm)
    digits = digits or _DIGIT.search(norm) is not None  # spelled numbers are digits now
    if digits:
        norm = _MONTH_AFTER.sub(lambda m: f"{m.group(1)} {_month(m.group(2))}", norm)
        norm = _MONTH_BEFORE.sub(lambda m: f"{m.group(2)} {_month(m.group(1))}", norm)
        norm = _FIRST_SECOND.sub(lambda m: "first" if m.group(1)[0] == "1" else "second", norm)
        norm = _KEY_VALUE.sub(" ", norm)
        norm = _AT_LEAST.sub(r"at least \1", _DECIMAL_COMMA.sub(r"\1.\2", norm))
    if "non" in norm.lower():
        norm = _NON.sub(r"\1", norm)
    if digits:
        norm = _MAGNITUDE.sub(_scaled, _THOUSANDS_COMMA.sub("", norm))
        norm = _MAGNITUDE_LETTER.sub(_scaled, norm)
        norm = _CURRENCY.sub(lambda m: f"{m.group(2)} {_CURRENCY_UNIT[m.group(1)]}", norm)
        norm = _CODE_BEFORE.sub(lambda m: f"{m.group(2)} {m.group(1).lower()}", norm)
    if "/" in norm:
        norm = _SLASH_RATE.sub(r"\1 per ", norm)
    return _TOKEN_BREAKERS.sub(" ", norm)


@lru_cache(maxsize=16384)
def name_parts(lowered: str) -> tuple[str, ...]:
    """The content words of one capitalised token (lower-cased), phrases folded, stemmed: what
    it makes mandatory for ``text_features``."""
    return tuple(stem_word(part) if not part[0].isdigit() else part
                 for part in (NUMBER_WORDS.get(t, t)
                              for t in TOKEN_PATTERN.findall(fold_phrases(lowered)))
                 if part not in STOP_WORDS)


_CLOCK_TIME = r"(\d+(?:\.\d+)?)\s*(am|pm|oclock)\b"

#: Two clock times joined by "to", "until", "till" or a dash (``_CLOCK_DASH`` wrote "to").
_CLOCK_RANGE = re.compile(rf"{_CLOCK_TIME}\s*(?:to|until|till|through|[-\u2013\u2014])\s*"
                          rf"{_CLOCK_TIME}")

_CLOCK_ANY = re.compile(_CLOCK_TIME)


def read_clock_ranges(lower: str) -> tuple[frozenset, frozenset]:
    """``TextFeatures.clock_ranges`` and ``loose_clocks`` of the folded text ``lower``."""
    if "am" not in lower and "pm" not in lower and "oclock" not in lower:
        return frozenset(), frozenset()
    ranges = frozenset(((canonical_number(m.group(1)), m.group(2)),
                        (canonical_number(m.group(3)), m.group(4)))
                       for m in _CLOCK_RANGE.finditer(lower))
    rest = _CLOCK_RANGE.sub(" ", lower) if ranges else lower
    return ranges, frozenset((canonical_number(m.group(1)), m.group(2))
                             for m in _CLOCK_ANY.finditer(rest))



def read_rates(tokens: list[str]) -> frozenset[tuple[str, str]]:
    """``TextFeatures.rates`` of the folded tokens."""
    out = set()
    for i, tok in enumerate(tokens):
        if not is_number_token(tok):
            continue
        j = i + 1
        unit = j < len(tokens) and tokens[j] in UNITS
        if j < len(tokens) and is_content(tokens[j]) and not is_number_token(tokens[j]) \
                and tokens[j] not in RATE:
            j += 1  # "$10 per user" reads "10 usd per user"; "5 seats per team"
        while j + 1 < len(tokens) and tokens[j] in RATE \
                and (j == i + 1 or unit or tokens[j] not in ("a", "an")) \
                and not is_number_token(tokens[j + 1]) and is_content(tokens[j + 1]):
            out.add((canonical_number(tok), stem_word(tokens[j + 1])))
            j += 2
    return frozenset(out)


#: Two numbers joined by a hyphen or dash, not inside a date, version or longer chain:
#: ``TextFeatures.pairs``.
PAIR = re.compile(r"(?<![\w.\u2024\u2011-])(\d+(?:\.\d+)?)\s?[-\u2011\u2013\u2014]\s?"
                  r"(\d+(?:\.\d+)?)(?![\w\u2024\u2011]|[.-]\d)")

#: Two words joined by a hyphen ("water-proof"): ``TextFeatures.joined``.
HYPHENATED = re.compile(r"\b([a-z]{2,})-([a-z]{2,})\b")

#: Units a word between them and their number qualifies ("14 business days", "2 full hours").
QUALIFIED_UNITS = frozenset(DIMENSIONS) - {"usd", "eur"} | {"people", "person", "page",
                                                               "seat", "mile"}


_CARDINALS = [w for w, d in NUMBER_WORDS.items() if d.isdigit()
              and w not in ("once", "twice", "single", "double", "triple")]

_RANGE_END = rf"\d+(?:\.\d+)?|{'|'.join(sorted(_CARDINALS, key=len, reverse=True))}"

#: A range of two numbers: "3-5", "3\u20135 days", "$3-$5", "3 to 5", "between 3 and 5"
#: ("from 3 to 5" is matched to be set aside: a change, not a range).
_RANGE = re.compile(rf"(?<![\w.\u2024-])(?:(between|from)\s+)?({_RANGE_END})"
                    r"(?:\s?(?:usd|eur|gbp|jpy|percent))?(\s?[-\u2013\u2014]\s?|\s+to\s+|\s+and\s+)"
                    rf"({_RANGE_END})(?![\w\u2024]|\.\d)")


def read_ranges(lower: str) -> tuple[frozenset[tuple[str, str]], frozenset[str] | None]:
    """The ranges of ``lower`` (``TextFeatures.ranges``: a low end below its high end, not two
    years, "and" only after "between", "to" not after "from") and the numbers stated outside
    them (``None``: no range, every number)."""
    if not any(c.isdigit() for c in lower) and " to " not in lower and "between" not in lower:
        return frozenset(), None
    ranges, spans = set(), []
    for m in _RANGE.finditer(lower):
        lead, sep = m.group(1), m.group(3).strip()
        if (sep == "and") != (lead == "between") or sep == "to" and (
                lead == "from" or not m.group(2)[-1:].isalnum() or m.end(2) != m.start(3)):
            continue
        lo, hi = (canonical_number(NUMBER_WORDS.get(g, g)) for g in (m.group(2), m.group(4)))
        if not float(lo) < float(hi) or looks_like_year(lo) and looks_like_year(hi):
            continue
        ranges.add((lo, hi))
        spans.append(m.span())
    if not ranges:
        return frozenset(), None
    rest, last = [], 0
    for start, end in spans:
        rest.append(lower[last:start])
        last = end
    rest.append(lower[last:])
    loose = {canonical_number(t)
             for t in (NUMBER_WORDS.get(t, t) for t in TOKEN_PATTERN.findall(" ".join(rest)))
             if is_number_token(t)}
    return frozenset(ranges), frozenset(loose)


#: "an hour", "a week", "half an hour", "a half day": a quantity of one (or half a) unit,
#: unless a rate ("$20 a month", "twice a week", "3 meals a day": a number or a frequency
#: word just before). "a second" is left alone ("a second time").
_SPELLED_UNIT = re.compile(r"\b(half an?|an? half|an?)\s+(minute|hour|day|week|fortnight|"
                           r"month|year)\b(?![-\w])")

_RATE_WORDS = frozenset({"once", "twice", "thrice", "times", "time", "per", "every", "each"})


def spelled_units(lower: str) -> str:
    """``lower`` with "an hour" read "1 hour", "half an hour" "0.5 hour" (``_SPELLED_UNIT``)."""
    if " a" not in lower and not lower.startswith("a"):
        return lower

    def quantity(m: re.Match[str]) -> str:
        before = re.findall(r"[\w.]+", lower[max(0, m.start() - 40):m.start()])[-3:]
        if any(t[0].isdigit() or t in _RATE_WORDS or t in NUMBER_WORDS for t in before):
            return m.group(0)
        return f"{'0.5' if 'half' in m.group(1) else '1'} {m.group(2)}"
    return _SPELLED_UNIT.sub(quantity, lower)


NAME_BEFORE = re.compile(r"\b[A-Z][\w-]*\s*\Z")
