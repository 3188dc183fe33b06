"""Judge canaries in a run (issue 23): judged by the run's own judge at the end of the session,
reported everywhere, holding the run unmeasurable when the judge can no longer say no (or yes);
the answers' figures untouched; replayed from the cache; added up by ``merge``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from repo_paths import ROOT
from scripted_model import MODEL, judge_model, parse_request, supports_verbatim, unsupported

from pytest_faithfulness.cli import main as cli_main
from pytest_faithfulness.runs.saved import list_runs

REFUNDS = [
    {"id": "r1", "text": "Refunds are issued within 14 days of a return being received. Items "
                         "bought on sale can be exchanged but not refunded. If the parcel is "
                         "lost, the courier refunds the full price."},
    {"id": "r2", "text": "Standard shipping takes 3 to 5 business days within Canada. "
                         "Customers purchased 300 parcels from the Halden depot in 2023."},
]
BIKES = [
    {"id": "b1", "text": "The Kestrel e-bike weighs 23 kg and folds in half. Its battery lasts "
                         "80 km on eco mode. A full charge takes 2 hours at home. The frame is "
                         "made of aluminium and carries a five year warranty."},
]
TESTS = f'''
REFUNDS = {REFUNDS!r}
BIKES = {BIKES!r}


def test_refunds(assert_faithful):
    assert_faithful("Refunds are issued within 14 days of a return being received.", REFUNDS,
                    min_score=0)


def test_refunds_again(assert_faithful):
    assert_faithful("Standard shipping takes 3 to 5 business days within Canada.", REFUNDS,
                    min_score=0)


def test_bikes(assert_faithful):
    assert_faithful("The Kestrel e-bike weighs 23 kg and folds in half.", BIKES, min_score=0)
'''


def _first_sentence(passages: list[dict]) -> tuple[str, str]:
    first = passages[0]
    return first["id"], first["text"].split(". ")[0]


def says_supported(passages: list[dict], claim: str) -> dict:
    """A judge that says ``supported`` to everything (quoting the claim when a passage holds
    it, else the first passage's first sentence)."""
    found = supports_verbatim(passages, claim)
    if found["label"] == "supported":
        return found
    pid, quote = _first_sentence(passages)
    return {"label": "supported", "passage_ids": [pid], "quote": quote, "rationale": "yes"}


def says_unsupported(passages: list[dict], claim: str) -> dict:
    return unsupported()


def _one_claim(answer: str) -> dict:
    return {"claims": [answer], "dropped": []}


def _judge_args(server, *extra: str) -> list[str]:
    return ["--faithfulness-judge", MODEL, "--faithfulness-api-base", server.base_url,
            "--faithfulness-cache-dir", "cache", "-p", "no:cacheprovider", *extra]


def _verify_claims(server) -> list[str]:
    return [parse_request(r)[2] for r in server.requests if parse_request(r)[0] == "verify"]


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_suite=TESTS)
    return pytester


def test_a_judge_that_says_supported_to_everything_makes_the_run_unmeasurable(suite, chat_server):
    chat_server.handler = judge_model(_one_claim, says_supported)
    result = suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "10",
                                          "--faithfulness-report", "r.json",
                                          "--faithfulness-markdown", "r.md",
                                          "--faithfulness-html", "r.html",
                                          "--faithfulness-pr-comment", "pr.md"))
    assert result.ret == 12  # unmeasurable: the tests passed; the gate cannot measure
    result.assert_outcomes(passed=3)
    report = json.loads((suite.path / "r.json").read_text())
    canaries = report["canaries"]
    assert canaries["built"] == 10 and canaries["asked"] == 10
    assert canaries["recall"]["correct"] == 0 and canaries["recall"]["total"] == 5
    assert canaries["keep_rate"]["correct"] == 5  # every control kept
    assert canaries["recall"]["interval"][1] < 0.9
    missed = [m for m in canaries["missed"] if m["role"] == "mutant"]
    assert len(missed) == 5
    for m in missed:  # claim, kind, expected, the judge's verdict and its evidence, passage
        assert m["claim"] and m["kind"] and m["expected"] == "not supported"
        assert m["judge_label"] == "supported" and m["evidence"] and m["passage_id"]
    # reworded controls it "supported" with a quote that does not state them: kept by the
    # judge's own verdict, refused by the evidence check (listed, not counted by the bound)
    after_check = [m for m in canaries["missed"] if m["role"] == "control"]
    assert all(m["judge_label"] == "supported" and m["label"] != "supported"
               for m in after_check)
    assert canaries["keep_rate_checked"]["correct"] == 5 - len(after_check)
    reason = next(f for f in report["gate"]["failures"] if "canary recall" in f)
    assert "0.000 (0/5; 95% CI 0.000-0.434)" in reason
    assert "--faithfulness-min-canary-recall 0.9" in reason
    out = result.stdout.str()
    assert ("judge canaries: 10 of 10 asked (5 controls, 5 mutants), 5 missed by the "
            "judge's own verdicts") in out
    assert f"GATE FAILED: {reason}" in out
    assert out.count("[mutant ") == 5  # every missed canary listed in the terminal
    for name in ("r.md", "r.html", "pr.md"):
        text = (suite.path / name).read_text()
        assert "Judge canaries" in text and "canary recall" in text, name
        assert f"Missed canaries ({len(canaries['missed'])})" in text, name
    # the answers' own figures hold no canary
    assert report["summary"]["answers"] == 3 and report["summary"]["claims"] == 3


def test_a_judge_that_says_unsupported_to_everything_refuses_its_controls(suite, chat_server):
    chat_server.handler = judge_model(_one_claim, says_unsupported)
    result = suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "10",
                                          "--faithfulness-report", "r.json"))
    assert result.ret == 12  # unmeasurable
    canaries = json.loads((suite.path / "r.json").read_text())["canaries"]
    assert canaries["keep_rate"]["correct"] == 0 and canaries["keep_rate"]["total"] == 5
    assert canaries["recall"]["correct"] == 5
    assert {m["role"] for m in canaries["missed"]} == {"control"}
    result.stdout.fnmatch_lines(["*GATE FAILED: the judge cannot measure this run: control "
                                 "keep-rate 0.000 (0/5*--faithfulness-min-control-keep 0.8*"])


def test_a_judge_error_on_a_canary_is_a_miss_never_dropped(suite, chat_server):
    answers = {"Refunds are issued within 14 days of a return being received.",
               "Standard shipping takes 3 to 5 business days within Canada.",
               "The Kestrel e-bike weighs 23 kg and folds in half."}

    def verify(passages, claim):
        if claim not in answers and len(claim) % 2 == 0:  # some canaries, never an answer
            return {"label": "perhaps", "rationale": "a reply no parser accepts"}
        return supports_verbatim(passages, claim)

    chat_server.handler = judge_model(_one_claim, verify)
    result = suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "10",
                                          "--faithfulness-report", "r.json"))
    canaries = json.loads((suite.path / "r.json").read_text())["canaries"]
    assert canaries["errors"] > 0
    errored = [m for m in canaries["missed"] if m["error"]]
    assert len(errored) == canaries["errors"]
    # every canary stays in its denominator
    assert canaries["recall"]["total"] + canaries["keep_rate"]["total"] == canaries["built"] == 10
    assert result.ret in (0, 12)  # passed, or unmeasurable by the misses


def test_canaries_never_change_the_answers_figures(suite, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "0",
                                 "--faithfulness-report", "off.json", "--faithfulness-no-cache"))
    suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "12",
                                 "--faithfulness-report", "on.json", "--faithfulness-no-cache"))
    off = json.loads((suite.path / "off.json").read_text())
    on = json.loads((suite.path / "on.json").read_text())
    assert "canaries" not in off and on["canaries"]["built"] == 12
    assert on["summary"] == off["summary"]
    strip = [{k: v for k, v in a.items() if k != "usage"} for a in on["answers"]]
    assert strip == [{k: v for k, v in a.items() if k != "usage"} for a in off["answers"]]


def test_the_same_passages_give_the_same_canaries_whatever_k_selects(suite, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    seen = []
    for selected, answer in (
            ("test_refunds and not again",
             "Refunds are issued within 14 days of a return being received."),
            ("test_refunds_again", "Standard shipping takes 3 to 5 business days within Canada.")):
        chat_server.clear()
        suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "6",
                                     "--faithfulness-no-cache", "-k", selected,
                                     # the answer's own claim asked too: subtracted below
                                     "--faithfulness-first-filter", "off"))
        canaries = Counter(_verify_claims(chat_server)) - Counter([answer])
        seen.append(sorted(canaries.elements()))
    assert len(seen[0]) == 6 and seen[0] == seen[1]


def test_replay_finds_the_canaries_in_the_cache(suite, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    first = suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "8",
                                         "--faithfulness-report", "first.json"))
    calls = len(chat_server.requests)
    usage = json.loads((suite.path / "first.json").read_text())["canaries"]["usage"]
    # a canary that is also an answer's claim (a verbatim control) is a cache hit already
    assert usage["calls"] + usage["cache_hits"] == 8 and usage["calls"] >= 6
    replay = suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "8",
                                          "--faithfulness-cache-mode", "replay",
                                          "--faithfulness-report", "replay.json"))
    assert len(chat_server.requests) == calls  # nothing new asked: the CI run paid once
    canaries = json.loads((suite.path / "replay.json").read_text())["canaries"]
    assert canaries["usage"]["cache_hits"] == 8 and canaries["usage"]["calls"] == 0
    assert canaries["errors"] == 0 and replay.ret == first.ret


def test_under_xdist_the_controller_judges_the_canaries_once(suite, chat_server):
    chat_server.handler = judge_model(_one_claim, supports_verbatim)
    result = suite.runpytest_subprocess(*_judge_args(chat_server, "-n", "2",
                                                     "--faithfulness-canaries", "6",
                                                     "--faithfulness-no-cache",
                                                     "--faithfulness-report", "r.json"))
    canaries = json.loads((suite.path / "r.json").read_text())["canaries"]
    assert canaries["built"] == 6, result.stdout.str()
    claims = _verify_claims(chat_server)
    # the three answers are passage sentences: the first filter (on by default for a model
    # judge) settles two of them with no call (the refunds sentence is followed by one with a
    # negation, "... but not refunded.", so it goes to the judge, once); the six canaries
    # never go through the filter, each asked once
    assert len(claims) == 7
    assert Counter(claims)["Refunds are issued within 14 days of a return being received."] == 1


def test_merge_adds_the_shards_canaries_up(suite, chat_server, capsys):
    chat_server.handler = judge_model(_one_claim, says_supported)
    for n, selected in enumerate(("test_refunds", "test_bikes"), start=1):
        suite.runpytest(*_judge_args(chat_server, "--faithfulness-canaries", "6", "-k",
                                     selected, "--faithfulness-storage", "shards",
                                     "--faithfulness-save", f"shard{n}"))
    shards = [str(p) for p in list_runs(suite.path / "shards")]
    saved = [json.loads(Path(p).read_text())["canaries"] for p in shards]
    assert all(s["built"] == 6 for s in saved)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(suite.path)
        status = cli_main(["merge", *shards, "--faithfulness-report", "merged.json"])
    printed = capsys.readouterr().out
    assert status == 12, printed
    merged = json.loads((suite.path / "merged.json").read_text())["canaries"]
    assert merged["shards"] == 2 and merged["built"] == 12 and merged["asked"] == 12
    assert merged["recall"]["total"] == sum(s["recall"]["total"] for s in saved) == 6
    assert merged["recall"]["correct"] == 0
    assert merged["recall"]["interval"][1] < min(s["recall"]["interval"][1] for s in saved)
    assert len(merged["missed"]) == sum(len(s["missed"]) for s in saved)
    assert "canary recall 0.000 (0/6" in printed and "judge canaries: 12 of 12" in printed


def test_the_offline_judge_keeps_the_example_suite_green_with_canaries_on(tmp_path):
    """The example suite as shipped (the default 40 canaries, the default offline judge)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "conftest_examples", "-p", "no:cacheprovider",
         "-p", "no:xdist", "--faithfulness-report", str(tmp_path / "r.json")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    canaries = json.loads((tmp_path / "r.json").read_text())["canaries"]
    assert canaries["built"] == 40 and canaries["errors"] == 0
    assert canaries["keep_rate"]["correct"] == 20  # every control kept
    assert canaries["recall"]["interval"][1] >= 0.9
    assert canaries["smoke_test"] is True
    assert "a smoke test, not a measurement" in done.stdout


def test_a_conftest_judge_judges_its_own_canaries(suite):
    """Without xdist the fixture's own instance judges them (a conftest's judge included);
    under xdist the controller does not have it, and the report says so."""
    from judges import QUOTING_CONFTEST

    suite.makeconftest(QUOTING_CONFTEST)
    suite.runpytest("-p", "no:cacheprovider", "--faithfulness-canaries", "6",
                    "--faithfulness-report", "r.json")
    canaries = json.loads((suite.path / "r.json").read_text())["canaries"]
    assert canaries["judge"] == "quoting judge" and canaries["built"] == 6
    assert canaries["errors"] == 0
    suite.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--faithfulness-canaries",
                               "6", "--faithfulness-report", "x.json")
    canaries = json.loads((suite.path / "x.json").read_text())["canaries"]
    assert canaries["built"] == 0
    assert "canaries not judged: the answers were judged by a judge this process does not " \
           "have (quoting judge)" in canaries["notes"][0]
