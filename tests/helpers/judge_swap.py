"""A judge swap with planted effects, for the re-judge tests (issue 25, item 1): two LLM
judges behind one loopback server (``chat_server``), told apart by the model the request
names, and two versions of ten answers.

* ``OLD_MODEL`` supports every claim a passage states (quoting it); ``NEW_MODEL`` is stricter:
  it refuses the claims of ``STRICT`` (3 of 10 answers). On the old answers the judge effect
  is a drop of mean faithfulness of ``JUDGE_EFFECT`` = 0.3 (and a rise of the unsupported-answer
  rate of 0.3).
* ``ANSWERS_V2`` changes ``WORSE`` (2 of 10 answers) into claims no passage states: judged by
  the new judge, the answer effect is a drop of ``ANSWER_EFFECT`` = 0.2.
* The new judge's decomposer splits ``SPLIT`` ("... and is blue.") into two claims where the
  old one kept one: one old answer in ten is split differently.

Every answer is one test (``TESTS``: ``test_answers.py``, reading ``answers.json``), against
its own passage.
"""

from __future__ import annotations

import json
from typing import Any

from scripted_model import parse_request, unsupported

OLD_MODEL = "openai/judge-old"
NEW_MODEL = "openai/judge-new"
N = 10
STRICT = (0, 1, 2)
WORSE = (7, 8)
SPLIT = 5
JUDGE_EFFECT = -len(STRICT) / N
ANSWER_EFFECT = -len(WORSE) / N


def passage(i: int) -> str:
    if i == SPLIT:
        return f"The widget {i} weighs {10 + i} kg. The widget {i} is blue."
    return f"The widget {i} weighs {10 + i} kg. It ships in a box."


def answer_v1(i: int) -> str:
    if i == SPLIT:
        return f"The widget {i} weighs {10 + i} kg and is blue."
    return f"The widget {i} weighs {10 + i} kg."


def answer_v2(i: int) -> str:
    return f"The widget {i} weighs {90 + i} kg." if i in WORSE else answer_v1(i)


PASSAGES = {f"a{i}": [{"id": f"p{i}", "text": passage(i)}] for i in range(N)}
ANSWERS_V1 = {f"a{i}": answer_v1(i) for i in range(N)}
ANSWERS_V2 = {f"a{i}": answer_v2(i) for i in range(N)}

TESTS = f'''
import json
import pathlib

import pytest

PASSAGES = {PASSAGES!r}
ANSWERS = json.loads((pathlib.Path(__file__).parent / "answers.json").read_text())


@pytest.mark.parametrize("name", sorted(PASSAGES))
def test_answer(name, assert_faithful):
    assert_faithful(ANSWERS[name], PASSAGES[name], min_score=0)
'''


def _decompose(model: str, answer: str) -> dict:
    if model == NEW_MODEL.split("/", 1)[1] and " and is blue" in answer:
        head = answer.split(" and is blue", 1)[0]
        subject = " ".join(head.split()[:3])  # "The widget 5"
        return {"claims": [head + ".", f"{subject} is blue."], "dropped": []}
    return {"claims": [answer], "dropped": []}


def _index(claim: str) -> int:
    return int(claim.split()[2])


def _verify(model: str, passages: list[dict], claim: str) -> dict:
    i = _index(claim)
    if model == NEW_MODEL.split("/", 1)[1] and i in STRICT:
        return unsupported("the new judge is stricter")
    text = passages[0]["text"]
    if claim == answer_v1(i) and i == SPLIT:
        return {"label": "supported", "passage_ids": [passages[0]["id"]], "quote": text,
                "rationale": "stated"}
    if claim in text:
        return {"label": "supported", "passage_ids": [passages[0]["id"]], "quote": claim,
                "rationale": "stated verbatim"}
    return unsupported()


def handler(request: dict) -> Any:
    """The two judges: routed by the request's model."""
    model = request["model"]
    op, first, second = parse_request(request)
    if op == "decompose":
        return _decompose(model, first)
    return _verify(model, first, second)


def write(pytester: Any, answers: dict[str, str]) -> None:
    """Write the suite (``test_answers.py``) and ``answers.json`` into ``pytester.path``."""
    pytester.makepyfile(test_answers=TESTS)
    (pytester.path / "answers.json").write_text(json.dumps(answers), encoding="utf-8")


def judge_args(server: Any, model: str, *extra: str) -> list[str]:
    """The command line of a run judged by ``model`` at ``server``: no first filter (each
    claim goes to the judge), no canaries, a verdict cache under the test's folder."""
    return ["--faithfulness-judge", model, "--faithfulness-api-base", server.base_url,
            "--faithfulness-first-filter", "off", "--faithfulness-canaries", "0",
            "--faithfulness-cache-dir", "cache", "-p", "no:cacheprovider", *extra]
