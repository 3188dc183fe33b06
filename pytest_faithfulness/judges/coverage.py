"""What a judge has been checked on, and the guard that keeps answers outside it unverified.

A judge declares its coverage as a ``JudgeCoverage`` (its ``coverage`` attribute; read it
through ``protocol.coverage_of``): the languages its verdicts were checked in, the content
kinds it reads, and the longest passage set it sees whole in one call. Before an answer is
judged, ``uncovered(answer, passages, coverage, budget)`` reads the answer
(``language.content.profile``: its language, a code block, JSON or a tool's output as the
answer) and the passage set's size; an answer outside the coverage is recorded as
``unverified`` with the reason (``pipeline``), never scored and never a confident pass.

Passages in tables or ``key: value`` form are no reason to refuse (they are evidence, and the
quote check reads them); a table in the answer is in every built-in judge's coverage.

Declarations:

* the offline judges (``OFFLINE_COVERAGE``): English, prose and tables; no limit on the
  passage set (they read every passage sentence);
* the LLM judges (``LLM_COVERAGE``): English, prose and tables, and passage sets up to
  ``LLM_MAX_PASSAGE_CHARS`` characters in one call; a larger set is split across calls by
  ``--faithfulness-context-budget`` (each claim then judged against parts, said on the claim);
* a judge that declares nothing (a third-party judge): ``DEFAULT_COVERAGE``, the same as the
  LLM judges' (English, prose and tables, passage sets up to ``LLM_MAX_PASSAGE_CHARS``);
* the user widens any of them with ``--faithfulness-judge-covers`` (ini
  ``faithfulness_judge_covers``): ISO 639-1 codes (``"*"``: every language) and kinds
  (``code``, ``json``, ``tool_output``), comma-separated (``parse_covers``), after a
  calibration run in that language or on that kind (``calibration``: per-language and
  per-kind rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..language.content import CONTENT_KINDS, AnswerProfile, profile
from ..records import Passage

#: Every language (``JudgeCoverage.languages``).
ANY_LANGUAGE = "*"
#: The longest passage set, in characters, an LLM judge (and a judge that declares nothing)
#: is taken to see whole in one call: about 12,000 tokens of English, the size the LLM judge
#: prompts were checked at; over it, set ``--faithfulness-context-budget`` (split across
#: calls) or declare more.
LLM_MAX_PASSAGE_CHARS = 48_000


class JudgeCoverage(BaseModel):
    """What a judge has been checked on.

    Args:
        languages: ISO 639-1 codes of the answer languages its verdicts were checked in
            (``("en",)``), or ``("*",)`` for every language. Lower-cased.
        kinds: the answer content kinds it reads (``language.content.CONTENT_KINDS``);
            ``"prose"`` is always included.
        max_passage_chars: the longest passage set (characters of passage text and titles)
            it sees whole in one call; ``None``: no limit.
        source: where the declaration comes from, in words (``"offline rules (English
            lexicon)"``, ``"documented default"``, ``"declared: --faithfulness-judge-covers
            fr"``), for the reports.

    Raises:
        pydantic.ValidationError: an unknown kind, an empty language code, a
            ``max_passage_chars`` below 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    languages: tuple[str, ...] = ("en",)
    kinds: tuple[str, ...] = ("prose", "table")
    max_passage_chars: int | None = Field(default=None, ge=1)
    source: str = ""

    @field_validator("languages", mode="before")
    @classmethod
    def _languages(cls, value: object) -> object:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, Iterable):
            codes = [str(v).strip().lower() for v in value]
            if any(not c for c in codes):
                raise ValueError("a language code is empty")
            return tuple(dict.fromkeys(codes))
        return value

    @field_validator("kinds", mode="before")
    @classmethod
    def _kinds(cls, value: object) -> object:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, Iterable):
            kinds = ["prose", *(str(v).strip().lower() for v in value)]
            unknown = [k for k in kinds if k not in CONTENT_KINDS]
            if unknown:
                raise ValueError(f"unknown content kind(s) {', '.join(unknown)}; the kinds "
                                 f"are {', '.join(CONTENT_KINDS)}")
            return tuple(k for k in CONTENT_KINDS if k in kinds)
        return value

    def covers_language(self, language: str) -> bool:
        """Whether answers in ``language`` (a code) are covered."""
        return ANY_LANGUAGE in self.languages or language.lower() in self.languages

    def widened(self, languages: Sequence[str] = (), kinds: Sequence[str] = (),
                source: str = "") -> JudgeCoverage:
        """This coverage with more languages and kinds declared (``source`` appended to the
        source, when given)."""
        if not languages and not kinds:
            return self
        return JudgeCoverage(languages=(*self.languages, *languages),
                             kinds=(*self.kinds, *kinds),
                             max_passage_chars=self.max_passage_chars,
                             source="; ".join(s for s in (self.source, source) if s))

    def describe(self) -> str:
        """One line for reports: ``languages en; kinds prose, table; passage sets up to
        48,000 characters whole (documented default)``."""
        languages = "every language" if ANY_LANGUAGE in self.languages else \
            "languages " + ", ".join(self.languages)
        size = "any passage set" if self.max_passage_chars is None else \
            f"passage sets up to {self.max_passage_chars:,} characters whole"
        source = f" ({self.source})" if self.source else ""
        return f"{languages}; kinds {', '.join(self.kinds)}; {size}{source}"


#: The offline judges' coverage: their rules and word lists are English.
OFFLINE_COVERAGE = JudgeCoverage(languages=("en",), kinds=("prose", "table"),
                                 max_passage_chars=None,
                                 source="offline rules and lexicon: English")
#: The LLM judges' documented default (widen it with --faithfulness-judge-covers after a
#: calibration run).
LLM_COVERAGE = JudgeCoverage(languages=("en",), kinds=("prose", "table"),
                             max_passage_chars=LLM_MAX_PASSAGE_CHARS,
                             source="documented default of the LLM judge")
#: A judge that declares no coverage (a third-party judge): the LLM judges' default.
DEFAULT_COVERAGE = JudgeCoverage(languages=("en",), kinds=("prose", "table"),
                                 max_passage_chars=LLM_MAX_PASSAGE_CHARS,
                                 source="default for a judge that declares no coverage")
#: Coverage of everything: what a calibration run judges with (it measures coverage).
EVERYTHING = JudgeCoverage(languages=(ANY_LANGUAGE,), kinds=CONTENT_KINDS,
                           max_passage_chars=None, source="everything (no guard)")

#: How to widen a coverage, named in every reason.
DECLARE_HINT = ("declare it with --faithfulness-judge-covers (ini faithfulness_judge_covers) "
                "once a calibration run shows the judge agrees there")

_KIND_NAMES = {"code": "a code block", "json": "JSON", "tool_output": "a tool's output"}


#: The kinds ``--faithfulness-judge-covers`` may add (prose and tables are always covered).
DECLARABLE_KINDS = ("table", "code", "json", "tool_output")


def parse_covers(raw: object) -> tuple[str, ...]:
    """``--faithfulness-judge-covers``: comma-separated ISO 639-1 language codes (two or three
    letters; ``*`` for every language) and content kinds (``DECLARABLE_KINDS``), each once,
    lower-cased, in the order given: ``"fr, DE,code"`` -> ``("fr", "de", "code")``.

    Raises:
        ValueError: an empty list, or an item that is neither a code nor a kind.
    """
    found = tuple(dict.fromkeys(i.strip().lower() for i in str(raw).split(",") if i.strip()))
    bad = [i for i in found if i not in DECLARABLE_KINDS
           and not (i == ANY_LANGUAGE or (i.isascii() and i.isalpha() and 2 <= len(i) <= 3))]
    if bad or not found:
        raise ValueError(f"must be comma-separated ISO 639-1 language codes (* for every "
                         f"language) and answer kinds ({', '.join(DECLARABLE_KINDS)}), e.g. "
                         f"fr,de,code; got {raw!r}")
    return found


def declared(coverage: JudgeCoverage, covers: Sequence[str]) -> JudgeCoverage:
    """``coverage`` widened by the items of ``--faithfulness-judge-covers`` (``parse_covers``:
    kinds and language codes), its source naming the option."""
    kinds = [c for c in covers if c in DECLARABLE_KINDS]
    languages = [c for c in covers if c not in DECLARABLE_KINDS]
    return coverage.widened(languages, kinds,
                            source=f"declared: --faithfulness-judge-covers {','.join(covers)}")


def passage_chars(passages: Sequence[Passage]) -> int:
    """Characters of passage text and titles."""
    return sum(len(p.text) + len(p.title or "") for p in passages)


def uncovered(answer: str, passages: Sequence[Passage], coverage: JudgeCoverage,
              budget: int | None = None, *, found: AnswerProfile | None = None) -> str | None:
    """Why the answer lies outside ``coverage`` (one reason, worded for people), or ``None``
    when it lies inside.

    Args:
        answer: the answer text.
        passages: its passages.
        coverage: the judge's coverage.
        budget: the context budget in force (characters per verify call; ``None``: none):
            with one, the passages are split across calls and the size is not refused.
        found: the answer's profile when already known (else ``profile(answer)``).

    Reasons, in order: a content kind outside the coverage (the answer is JSON, a tool's
    output, or mostly a code block), a language outside it (identified only above
    ``MIN_LANGUAGE_LETTERS`` letters and ``LANGUAGE_CONFIDENCE``), a language that could not
    be identified (the identifier failed: fails closed), a passage set over
    ``max_passage_chars`` with no context budget to split it.
    """
    found = found if found is not None else profile(
        answer, identify=ANY_LANGUAGE not in coverage.languages)  # "*": no need to ask
    outside = [k for k in found.kinds if k not in coverage.kinds]
    if outside:
        kind = outside[0]
        what = f"{_KIND_NAMES.get(kind, kind)} ({found.code_share:.0%} of its text)" \
            if kind == "code" and found.code_share else _KIND_NAMES.get(kind, kind)
        return (f"the answer is {what}, not a kind the judge covers ({', '.join(coverage.kinds)});"
                f" {DECLARE_HINT}")
    if found.language is not None and not coverage.covers_language(found.language):
        return (f"the answer's language is {found.language!r} (probability "
                f"{found.language_probability or 0:.2f}), not one the judge covers "
                f"({', '.join(coverage.languages)}); {DECLARE_HINT}")
    if found.language_error is not None and ANY_LANGUAGE not in coverage.languages:
        return f"the answer's language could not be identified: {found.language_error}"
    size = passage_chars(passages)
    limit = coverage.max_passage_chars
    if not budget and limit is not None and size > limit:
        return (f"the passages hold {size:,} characters, more than the {limit:,} the judge sees "
                "whole in one call; set --faithfulness-context-budget to split them across "
                "calls (each claim is then judged against parts), or declare a larger "
                "max_passage_chars in the judge's coverage")
    return None
