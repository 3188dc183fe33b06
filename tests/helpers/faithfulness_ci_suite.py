"""A small scripted suite for the CI features (baselines, reports, hooks), written into a
``pytester`` directory as real files.

* ``conftest.py``: a ``ScriptedJudge`` (sentences are claims; each claim's verdict is read from
  ``verdicts.json`` at call time, unknown claims are ``unsupported``; its fingerprint's prompt
  version comes from ``judge_version.txt``) provided through the ``faithfulness_judge`` fixture.
* ``test_answers.py``: one test per entry of ``answers.json``, all against the same passages.

Rewrite ``answers.json`` / ``verdicts.json`` between runs to make a later run differ.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

CONFTEST = '''
import json
import pathlib

import pytest
from pytest_faithfulness import Decomposition, Verdict

HERE = pathlib.Path(__file__).parent


class ScriptedJudge:
    """Sentences are claims; verdicts come from verdicts.json ({claim: [label, id, quote]})."""

    def decompose(self, answer):
        return Decomposition(claims=[s.strip().rstrip(".") + "." for s in answer.split(". ")
                                     if s.strip(". ")])

    def verify(self, claim, passages):
        table = json.loads((HERE / "verdicts.json").read_text(encoding="utf-8"))
        entry = table.get(claim)
        if entry is None:
            return Verdict("unsupported")
        label, pid, quote = entry
        return Verdict(label, passage_ids=[pid], quote=quote)

    def fingerprint(self):
        version = HERE / "judge_version.txt"
        prompts = version.read_text().strip() if version.exists() else "scripted-1"
        return {"kind": "scripted", "prompts": prompts}

    def describe(self):
        return "scripted judge " + self.fingerprint()["prompts"]


@pytest.fixture(scope="session")
def faithfulness_judge():
    return ScriptedJudge()
'''

TEST_FILE = '''
import json
import pathlib

import pytest

HERE = pathlib.Path(__file__).parent
CASES = json.loads((HERE / "answers.json").read_text(encoding="utf-8"))
PASSAGES = [
    {"id": "p1", "text": "The Kestrel e-bike weighs 23 kg. Its top assisted speed is 25 km/h."},
    {"id": "p2", "text": "The battery lasts 80 km on eco mode. A full charge takes 2 hours."},
]


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer(name, assert_faithful, pytestconfig):
    # record only (the session gate judges), unless the command line bounds each answer
    bounded = any(pytestconfig.getoption(f"faithfulness_{o}") is not None
                  for o in ("min_score", "max_unsupported"))
    assert_faithful(CASES[name], PASSAGES, **({} if bounded else {"min_score": 0}))
'''

W = "The Kestrel weighs 23 kg."
SPEED = "Its top speed is 25 km/h."
SPEED_32 = "Its top speed is 32 km/h."
BATTERY = "The battery lasts 80 km."
CHARGE = "It charges in 2 hours."

#: Baseline: kestrel 1.0, battery 0.5 (CHARGE unsupported), frame 1.0, stable 1.0 -> mean 0.875,
#: one answer in four with a claim not supported.
ANSWERS_V1 = {
    "kestrel": f"{W} {SPEED}",
    "battery": f"{BATTERY} {CHARGE}",
    "frame": "The Kestrel e-bike weighs 23 kg.",
    "stable": W,
}
VERDICTS_V1 = {
    W: ["supported", "p1", "The Kestrel e-bike weighs 23 kg."],
    SPEED: ["supported", "p1", "Its top assisted speed is 25 km/h."],
    BATTERY: ["supported", "p2", "The battery lasts 80 km on eco mode."],
    "The Kestrel e-bike weighs 23 kg.": ["supported", "p1", "The Kestrel e-bike weighs 23 kg."],
}

#: Branch: kestrel now claims 32 km/h (contradicted) -> 0.5; battery's CHARGE recovers -> 1.0;
#: frame removed; bell added (unsupported) -> 0.0; stable 1.0. Mean 0.625 (drop 0.25); two
#: answers in four with a claim not supported (rise 0.25).
ANSWERS_V2 = {
    "kestrel": f"{W} {SPEED_32}",
    "battery": f"{BATTERY} {CHARGE}",
    "bell": "The bell is loud.",
    "stable": W,
}
VERDICTS_V2 = {
    **VERDICTS_V1,
    SPEED_32: ["contradicted", "p1", "Its top assisted speed is 25 km/h."],
    CHARGE: ["supported", "p2", "A full charge takes 2 hours."],
}


def write_suite(pytester: pytest.Pytester, answers: dict[str, str] | None = None,
                verdicts: dict[str, Any] | None = None, *, judge_version: str | None = None,
                conftest_extra: str = "") -> pytest.Pytester:
    """Write (or rewrite) the suite's files into ``pytester.path``."""
    pytester.makeconftest(CONFTEST + conftest_extra)
    pytester.makepyfile(test_answers=TEST_FILE)
    path = pytester.path
    (path / "answers.json").write_text(json.dumps(answers or ANSWERS_V1), encoding="utf-8")
    (path / "verdicts.json").write_text(json.dumps(verdicts or VERDICTS_V1), encoding="utf-8")
    version = path / "judge_version.txt"
    if judge_version is None:
        version.unlink(missing_ok=True)
    else:
        version.write_text(judge_version, encoding="utf-8")
    return pytester


def to_v2(pytester: pytest.Pytester) -> None:
    """Turn the baseline suite into the branch suite (answers and verdicts change)."""
    (pytester.path / "answers.json").write_text(json.dumps(ANSWERS_V2), encoding="utf-8")
    (pytester.path / "verdicts.json").write_text(json.dumps(VERDICTS_V2), encoding="utf-8")
