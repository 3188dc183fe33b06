"""The offline judge's rule-based decomposer: an answer -> atomic, self-contained claims, plus
the text set aside (see ``rules`` for the rules, in order).

The public names are re-exported here; import them from this package.
"""

from __future__ import annotations

from .frames import RECAP_OPENER
from .markdown import is_topic_label, reads_as_code
from .markup import BOOLEAN_ATTRIBUTES, HTML_ELEMENTS, VISIBLE_ATTRIBUTES, markup_spans
from .questions import answered_question, elliptical_claim, is_bare_reply
from .rules import RULES_VERSION, RuleDecomposer
from .sentence import non_assertive_reason, set_aside_parts

__all__ = [
    "BOOLEAN_ATTRIBUTES",
    "HTML_ELEMENTS",
    "RECAP_OPENER",
    "RULES_VERSION",
    "VISIBLE_ATTRIBUTES",
    "RuleDecomposer",
    "answered_question",
    "elliptical_claim",
    "is_bare_reply",
    "is_topic_label",
    "markup_spans",
    "non_assertive_reason",
    "reads_as_code",
    "set_aside_parts",
]
