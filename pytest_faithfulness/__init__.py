"""pytest-faithfulness: gate CI on the faithfulness of RAG answers to their retrieved passages.

Faithfulness = supported claims / claims decomposed from the answer. Use it from pytest through
the ``assert_faithful`` fixture, or from a script::

    from pytest_faithfulness import evaluate, make_judge
    result = evaluate(answer, passages, make_judge("offline"))
    result.score, [(c.text, c.label) for c in result.claims]

Importing this package never imports litellm; the LLM judge imports it on its first call.
"""

from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Public names are imported on first use (PEP 562), so ``import pytest_faithfulness`` and
# pytest start-up with the plugin installed stay cheap (pydantic loads only when needed).
_EXPORTS = {
    "AnswerResult": "records", "ClaimResult": "records", "Decomposition": "records",
    "DroppedText": "records",
    "Passage": "records", "SessionSummary": "records", "Verdict": "records",
    "to_passages": "inputs", "Judge": "judges", "JudgeError": "judges",
    "LiteLLMJudge": "judges", "OfflineJudge": "judges", "make_judge": "judges",
    "aevaluate": "pipeline", "evaluate": "pipeline", "aevaluate_many": "pipeline",
    "evaluate_many": "pipeline", "Usage": "records",
    "evaluate_conversation": "conversation", "aevaluate_conversation": "conversation",
    "FaithfulnessError": "errors",
}

__all__ = [
    "AnswerResult", "ClaimResult", "Decomposition", "DroppedText", "Judge", "JudgeError",
    "LiteLLMJudge",
    "OfflineJudge", "Passage", "SessionSummary", "Usage", "Verdict", "aevaluate",
    "aevaluate_many", "evaluate", "evaluate_many", "make_judge", "to_passages",
    "evaluate_conversation", "aevaluate_conversation", "FaithfulnessError",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_faithfulness' has no attribute {name!r}")
    from importlib import import_module

    # Not cached in globals(): the submodule in sys.modules stays the one source of truth.
    return getattr(import_module(f".{module}", __name__), name)


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)


if TYPE_CHECKING:  # pragma: no cover
    from .conversation import aevaluate_conversation, evaluate_conversation
    from .errors import FaithfulnessError
    from .inputs import to_passages
    from .judges import Judge, JudgeError, LiteLLMJudge, OfflineJudge, make_judge
    from .pipeline import aevaluate, aevaluate_many, evaluate, evaluate_many
    from .records import (
        AnswerResult,
        ClaimResult,
        Decomposition,
        DroppedText,
        Passage,
        SessionSummary,
        Usage,
        Verdict,
    )
