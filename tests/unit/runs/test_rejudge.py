"""Re-judging a saved run (``runs.rejudge``): the claims kept, the pipeline's checks applied
to every verdict, fail closed, the derived run named and reused by baseline content and judge
fingerprint, splits counted; with litellm's real client at the loopback server
(``judge_swap``: two judges told apart by model)."""

from __future__ import annotations

import json

import pytest
from chat_server import Reply
from judge_swap import ANSWERS_V1, NEW_MODEL, OLD_MODEL, PASSAGES, SPLIT, STRICT, handler
from scripted_model import make_judge, ops, parse_request

from pytest_faithfulness import evaluate
from pytest_faithfulness.errors import BaselineError, FaithfulnessError, RunEditedError
from pytest_faithfulness.records import Passage, SessionSummary
from pytest_faithfulness.runs.baseline_identity import inputs_digest, suite_digest
from pytest_faithfulness.runs.effects import compare_rejudged
from pytest_faithfulness.runs.rejudge import (
    derived_name,
    judge_info,
    judge_key,
    rejudge_info,
    rejudge_run,
    rejudged_baseline,
    run_digest,
)
from pytest_faithfulness.runs.saved import SavedRun, list_runs, load_run, resolve_run, save_run


def _baseline(server, answers=ANSWERS_V1, name="main") -> SavedRun:
    judge = make_judge(server, OLD_MODEL)
    results = []
    for test_id in sorted(answers):
        result = evaluate(answers[test_id], PASSAGES[test_id], judge)
        result.test_id = test_id
        results.append(result)
    return SavedRun.of(results, SessionSummary.of(results), name=name,
                       judges=[judge_info(judge)])


@pytest.fixture
def server(chat_server):
    chat_server.handler = handler
    return chat_server


def test_the_claims_are_kept_and_verified_by_the_new_judge_without_a_decompose_call(server):
    baseline = _baseline(server)
    server.clear()
    derived = rejudge_run(baseline, make_judge(server, NEW_MODEL), check_splits=False)
    assert set(ops(server)) == {"verify"}  # no decompose call for scoring
    assert len(ops(server)) == 10  # one per kept claim
    split = next(a for a in derived.answers if a.test_id == f"a{SPLIT}")
    assert [c.text for c in split.claims] == [ANSWERS_V1[f"a{SPLIT}"]]  # one claim, as kept
    scores = {a.test_id: a.score for a in derived.answers}
    assert scores == {f"a{i}": 0.0 if i in STRICT else 1.0 for i in range(10)}
    assert derived.figures.mean_faithfulness == pytest.approx(0.7)
    key = judge_key(judge_info(make_judge(server, NEW_MODEL)))
    assert derived.name == f"main@judge-{key}" and len(key) == 12
    assert derived.judges[0].fingerprint["model"] == NEW_MODEL
    info = rejudge_info(derived)
    assert info.baseline_name == "main" and info.baseline_digest == run_digest(baseline)
    assert (info.answers, info.kept, info.decomposed_anew) == (10, 10, 0)


def test_the_splits_of_the_new_decomposer_are_counted_not_hidden(server):
    baseline = _baseline(server)
    server.clear()
    derived = rejudge_run(baseline, make_judge(server, NEW_MODEL))
    assert ops(server).count("decompose") == 10
    info = rejudge_info(derived)
    assert (info.split_checked, info.split_differently, info.split_unchecked) == (10, 1, 0)
    assert info.split_examples == [f"a{SPLIT}"]


def test_a_verdict_whose_quote_is_not_in_the_passage_is_refused_as_in_a_run(server):
    baseline = _baseline(server)

    def invents(request):
        op, first, second = parse_request(request)
        if op == "verify":
            return {"label": "supported", "passage_ids": [first[0]["id"]],
                    "quote": "The widget weighs nothing at all.", "rationale": "made up"}
        return handler(request)

    server.handler = invents
    derived = rejudge_run(baseline, make_judge(server, NEW_MODEL), check_splits=False)
    assert derived.figures.supported == 0  # every invented quote refused by the quote check
    assert derived.figures.mean_faithfulness == 0.0


def test_a_judge_failure_is_an_error_never_a_pass_and_is_not_cached(server, tmp_path):
    baseline = _baseline(server)

    def broken(request):
        op, first, second = parse_request(request)
        if op == "verify" and second.startswith("The widget 4 "):
            return Reply(body="not json at all")
        return handler(request)

    server.handler = broken
    found = rejudged_baseline(baseline, make_judge(server, NEW_MODEL, max_retries=0),
                              tmp_path, check_splits=False)
    errored = [a for a in found.run.answers if a.status == "error"]
    assert [a.test_id for a in errored] == ["a4"] and errored[0].score is None
    assert found.run.figures.scored == 9  # the denominator never shrinks silently: errored
    assert found.path is None and list_runs(tmp_path) == []
    assert any("errored on 1 answer(s) more" in n for n in found.notes)


def test_the_derived_run_is_saved_and_reused_for_the_same_baseline_and_judge(server, tmp_path):
    baseline = _baseline(server)
    path = save_run(baseline, tmp_path, signing_key=None)
    baseline = load_run(path, signing_key=None)
    first = rejudged_baseline(baseline, make_judge(server, NEW_MODEL), tmp_path,
                              baseline_path=path, check_splits=False)
    assert not first.reused and first.path is not None
    assert first.path.name == f"0002_{derived_name(baseline, judge_key(first.run.judges[0]))}" \
        .replace("@", "-") + ".json"
    server.clear()
    again = rejudged_baseline(baseline, make_judge(server, NEW_MODEL), tmp_path,
                              check_splits=False)
    assert again.reused and again.path == first.path and server.requests == []
    # the latest baseline is never the re-judged copy; its name finds it
    assert resolve_run(tmp_path)[0] == path
    assert resolve_run(tmp_path, first.run.name)[0] == first.path
    # another judge (an alias that moved: another fingerprint) is judged anew
    other = rejudged_baseline(baseline, make_judge(server, "openai/judge-newer"), tmp_path,
                              check_splits=False)
    assert not other.reused and other.run.name != first.run.name
    # a baseline whose content changed under the same name is judged anew
    changed = baseline.model_copy(deep=True)
    changed.results[0]["answer"] = "The widget 0 weighs 10 kg today."
    changed.answers[0].answer = "The widget 0 weighs 10 kg today."
    changed.answers[0].inputs_digest = inputs_digest(  # as saving it again would record
        changed.answers[0].answer, [Passage.model_validate(p)
                                    for p in changed.results[0]["passages"]])
    changed.suite_digest = suite_digest(changed.answers)
    assert run_digest(changed) != run_digest(baseline)
    fresh = rejudged_baseline(changed, make_judge(server, NEW_MODEL), tmp_path,
                              check_splits=False)
    assert not fresh.reused and fresh.path != first.path


def test_a_baseline_whose_stored_passage_was_edited_is_refused_not_rejudged(server, tmp_path):
    """attack 25, finding 13: the stored passages are what a re-judge verifies against; an
    edit there (the answer list and its inputs digests untouched) could make the re-judged
    baseline worse and hide a regression. They are checked against the digests first."""
    path = save_run(_baseline(server), tmp_path, signing_key=None)
    data = json.loads(path.read_text())
    data["results"][3]["passages"][0]["text"] = "Something else entirely."
    path.write_text(json.dumps(data))
    edited = load_run(path, signing_key=None)
    server.clear()
    for call in (lambda: rejudge_run(edited, make_judge(server, NEW_MODEL), baseline_path=path),
                 lambda: rejudged_baseline(edited, make_judge(server, NEW_MODEL), tmp_path,
                                           baseline_path=path)):
        with pytest.raises(RunEditedError, match=r"saved run main \(.*0001_main.json\) is "
                           r"edited or corrupt: .* of 1 answer\(s\) .*: a3;") as caught:
            call()
        assert isinstance(caught.value, BaselineError)
    assert server.requests == [] and len(list_runs(tmp_path)) == 1  # nothing judged or saved
    # the answer text, a record's test id, a lost record, the suite digest: each refused
    clean = _saved_data(server)
    for edit in (lambda d: d["results"][0].update(answer="Edited."),
                 lambda d: d["results"][0]["passages"][0].update(title="A title"),
                 lambda d: d["results"][0].update(test_id="a9"),
                 lambda d: d["results"].pop(),
                 lambda d: d.update(suite_digest="0" * 64)):
        data = json.loads(json.dumps(clean))
        edit(data)
        path.write_text(json.dumps(data))
        with pytest.raises(RunEditedError, match="edited or corrupt"):
            rejudge_run(load_run(path, signing_key=None), make_judge(server, NEW_MODEL))
    path.write_text(json.dumps(clean))  # the file as saved: re-judged
    assert rejudge_run(load_run(path, signing_key=None), make_judge(server, NEW_MODEL),
                       check_splits=False).figures.mean_faithfulness == pytest.approx(0.7)


def test_a_run_saved_before_inputs_digests_is_rejudged_with_a_note(server, tmp_path):
    data = _saved_data(server)
    for answer in data["answers"]:
        answer.pop("inputs_digest")
    data["suite_digest"] = None
    path = tmp_path / "0001_main.json"
    path.write_text(json.dumps(data))
    found = rejudged_baseline(load_run(path, signing_key=None), make_judge(server, NEW_MODEL),
                              tmp_path, baseline_path=path, check_splits=False)
    assert found.run.figures.mean_faithfulness == pytest.approx(0.7)
    assert found.notes[0].startswith("note: saved run main (") and "recorded no inputs " \
        "digest for its answer(s)" in found.notes[0] and "could not be checked" in found.notes[0]
    # a run saved with them: no note, no false alarm
    clean = rejudged_baseline(_baseline(server, name="other"), make_judge(server, NEW_MODEL),
                              tmp_path, check_splits=False)
    assert not any("inputs digest" in n for n in clean.notes)


def _saved_data(server) -> dict:
    return json.loads(json.dumps(_baseline(server).model_dump(mode="json")))


def test_a_run_saved_without_full_records_cannot_be_rejudged(server):
    baseline = _baseline(server)
    baseline.results = []
    with pytest.raises(BaselineError, match="no full answer records") as caught:
        rejudge_run(baseline, make_judge(server, NEW_MODEL))
    assert isinstance(caught.value, FaithfulnessError)


def test_the_comparison_splits_into_the_answer_and_the_judge_effects(server):
    from judge_swap import ANSWERS_V2

    baseline = _baseline(server)
    derived = rejudge_run(baseline, make_judge(server, NEW_MODEL), check_splits=False)
    current = _baseline(server, ANSWERS_V2, name="current")
    current.judges = derived.judges
    judge = make_judge(server, NEW_MODEL)
    results = [evaluate(ANSWERS_V2[t], PASSAGES[t], judge) for t in sorted(ANSWERS_V2)]
    for test_id, result in zip(sorted(ANSWERS_V2), results):
        result.test_id = test_id
    current = SavedRun.of(results, SessionSummary.of(results), name="current",
                          judges=derived.judges)
    comparison = compare_rejudged(baseline, derived, current)
    answer = comparison.answer_effect.figure("mean_faithfulness")
    judged = comparison.judge_effect.figure("mean_faithfulness")
    assert answer.paired_delta == pytest.approx(-0.2) and answer.pairs == 10
    assert judged.paired_delta == pytest.approx(-0.3) and judged.pairs == 10
    assert comparison.figure("mean_faithfulness").paired_delta == pytest.approx(-0.2)
    assert comparison.warnings == []  # same judge on both sides of the gated comparison
    data = json.loads(comparison.model_dump_json())
    assert data["answer_effect"]["kind"] == "answer" and data["judge_effect"]["kind"] == "judge"
