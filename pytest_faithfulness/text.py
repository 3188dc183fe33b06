"""Temporary: the names ``decomposition.py`` imports from the old ``text`` module path.

``text.py`` moved to ``language/text.py``; ``decomposition.py`` is being moved by another branch,
which imports from the new path. Delete this file when that branch merges.
"""

from .language.text import (  # noqa: F401
    MD_BULLET,
    MD_FENCE,
    MD_HEADING,
    MD_TABLE_SEP,
    citation_spans,
    has_cjk,
    is_source_line,
    sentence_spans,
)
