"""``--faithfulness-first-filter`` (ini ``faithfulness_first_filter``): on by default for a model
judge (a claim a passage states word for word costs no judge call), off on request; the saved
runs and the comparison tell a run with the filter from one without; a bad value is a usage
error; the offline judge is left alone."""

from __future__ import annotations

import json

from conftest import INI
from scripted_model import MODEL, judge_model, parse_request, supports_verbatim

from pytest_faithfulness.runs.saved import list_runs, load_run
from pytest_faithfulness.trust.first_filter import RULES_VERSION

PASSAGES = [{"id": "p1", "text": "Refunds are issued within 14 days. Standard shipping takes "
                                 "3 to 5 business days within Canada."}]
TESTS = f'''
PASSAGES = {PASSAGES!r}


def test_refunds(assert_faithful):
    assert_faithful("Refunds are issued within 14 days.", PASSAGES)


def test_shipping(assert_faithful):
    assert_faithful("Shipping takes 3 to 5 business days in Canada.", PASSAGES, min_score=0)
'''


def _one_claim(answer: str) -> dict:
    return {"claims": [answer], "dropped": []}


def _args(server, *extra: str) -> list[str]:
    return ["--faithfulness-judge", MODEL, "--faithfulness-api-base", server.base_url,
            "--faithfulness-no-cache", "-p", "no:cacheprovider", *extra]


def _verified(server) -> list[str]:
    return [parse_request(r)[2] for r in server.requests if parse_request(r)[0] == "verify"]


def test_on_by_default_for_a_model_judge_off_on_request(pytester, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    pytester.makepyfile(test_filtered=TESTS)
    pytester.runpytest(*_args(chat_server, "--faithfulness-report", "on.json")
                       ).assert_outcomes(passed=2)
    # the verbatim claim is settled; the paraphrase goes to the judge
    assert _verified(chat_server) == ["Shipping takes 3 to 5 business days in Canada."]
    report = json.loads((pytester.path / "on.json").read_text())
    claims = {c["text"]: c for a in report["answers"] for c in a["claims"]}
    verdict = claims["Refunds are issued within 14 days."]["verdict"]
    assert verdict["label"] == "supported"
    assert verdict["rationale"].startswith("settled by the first filter")
    assert verdict["evidence"] == [{"passage_id": "p1",
                                    "quote": "Refunds are issued within 14 days."}]

    chat_server.clear()
    pytester.runpytest(*_args(chat_server, "--faithfulness-first-filter", "off")
                       ).assert_outcomes(passed=2)
    assert sorted(_verified(chat_server)) == ["Refunds are issued within 14 days.",
                                              "Shipping takes 3 to 5 business days in Canada."]


def test_the_ini_key_turns_it_off(pytester, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    pytester.makeini(INI + "faithfulness_first_filter = false\n")
    pytester.makepyfile(test_filtered=TESTS)
    pytester.runpytest(*_args(chat_server)).assert_outcomes(passed=2)
    assert len(_verified(chat_server)) == 2


def test_saved_runs_and_the_comparison_tell_the_two_apart(pytester, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    pytester.makepyfile(test_filtered=TESTS)
    pytester.runpytest(*_args(chat_server, "--faithfulness-first-filter", "off",
                              "--faithfulness-save", "off")).assert_outcomes(passed=2)
    result = pytester.runpytest(*_args(chat_server, "--faithfulness-save", "on",
                                       "--faithfulness-compare", "off"))
    result.assert_outcomes(passed=2)
    runs = {load_run(p).name: load_run(p) for p in list_runs(pytester.path / ".faithfulness")}
    off, on = runs["off"].judges[0], runs["on"].judges[0]
    assert on.fingerprint == {**off.fingerprint, "first_filter": RULES_VERSION}
    assert on.identity() != off.identity()
    assert on.description.endswith("; first filter on")
    assert "judge differs" in result.stdout.str()


def test_a_bad_value_is_a_usage_error(pytester):
    pytester.makepyfile(test_filtered=TESTS)
    result = pytester.runpytest("--faithfulness-first-filter", "sometimes")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*--faithfulness-first-filter (ini faithfulness_first_filter)*"
                                 "must be auto, on or off*"])


def test_the_offline_judge_is_not_filtered_by_default(pytester):
    pytester.makepyfile(test_filtered=TESTS)
    pytester.runpytest("--faithfulness-report", "r.json", "-p", "no:cacheprovider")
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["judges"] and not any("first filter on" in j for j in report["judges"])
    rationales = [c["verdict"]["rationale"] or "" for a in report["answers"]
                  for c in a["claims"]]
    assert not any(r.startswith("settled by the first filter") for r in rationales)
