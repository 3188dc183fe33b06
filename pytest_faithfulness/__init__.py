"""pytest-faithfulness: gate CI on the faithfulness of RAG answers to their retrieved passages.

Faithfulness = supported claims / claims decomposed from the answer. Use it from pytest through
the ``assert_faithful`` fixture, or from a script::

    from pytest_faithfulness import evaluate, make_judge
    result = evaluate(answer, passages, make_judge("offline"))
    result.score, [(c.text, c.label) for c in result.claims]

Importing this package never imports litellm; the LLM judge imports it on its first call.
"""

from .judges import Judge, JudgeError, LiteLLMJudge, OfflineJudge, make_judge
from .pipeline import aevaluate, evaluate
from .records import (
    AnswerResult,
    ClaimResult,
    Decomposition,
    Passage,
    SessionSummary,
    Verdict,
    to_passages,
)

__version__ = "0.1.0"

__all__ = [
    "AnswerResult",
    "ClaimResult",
    "Decomposition",
    "Judge",
    "JudgeError",
    "LiteLLMJudge",
    "OfflineJudge",
    "Passage",
    "SessionSummary",
    "Verdict",
    "aevaluate",
    "evaluate",
    "make_judge",
    "to_passages",
]
