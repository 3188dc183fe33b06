"""Temporary: the names ``decomposition.py`` imports from the old ``text`` module path.

``text.py`` moved to ``language/text.py``; ``decomposition.py`` is being moved by another branch,
which imports from the new path. Delete this file when that branch merges.
"""

from .language.text import MD_BULLET, MD_FENCE, MD_HEADING, MD_TABLE_SEP, has_cjk, sentence_spans  # noqa: F401
from .language.markers import citation_spans, is_source_line  # noqa: F401
