"""``pytest-faithfulness rejudge RUN`` (issue 25, item 1): re-judge a saved run with the judge
the flags or the ini keys configure, save it as ``<name>@judge-<key>``, reuse it; and a pytest
run under ``--faithfulness-compare-rejudge`` reuses what the command saved (the same judge
fingerprint). The judges are scripted at the loopback server (``judge_swap``)."""

from __future__ import annotations

import json

import pytest
from conftest import INI
from judge_swap import ANSWERS_V1, ANSWERS_V2, NEW_MODEL, OLD_MODEL, handler, judge_args, write

from pytest_faithfulness.cli import main as cli_main
from pytest_faithfulness.runs.rejudge import rejudge_info
from pytest_faithfulness.runs.saved import list_runs, load_run


@pytest.fixture
def saved(pytester: pytest.Pytester, chat_server) -> pytest.Pytester:
    chat_server.handler = handler
    write(pytester, ANSWERS_V1)
    base = pytester.runpytest(*judge_args(chat_server, OLD_MODEL, "--faithfulness-save", "main"))
    assert base.ret == 0, base.stdout.str()
    return pytester


def _judge_flags(server) -> list[str]:
    return ["--judge", NEW_MODEL, "--api-base", server.base_url, "--first-filter", "off",
            "--faithfulness-cache-dir", "cache"]


def test_rejudge_saves_the_derived_run_then_reuses_it(saved, chat_server, capsys):
    assert cli_main(["rejudge", "main", *_judge_flags(chat_server)]) == 0
    out = capsys.readouterr().out
    assert "as main@judge-" in out and "re-judged baseline saved: " in out
    assert "mean faithfulness: 1.000 (old judge) -> 0.700 (this judge)" in out
    assert "DECOMPOSITION DIFFERS: the current judge splits 1 of 10" in out
    runs = list_runs(saved.path / ".faithfulness")
    assert [p.name.split("_", 1)[1].split("-judge-")[0] for p in runs] == ["main.json", "main"]
    derived = load_run(runs[1])
    assert derived.name.startswith("main@judge-") and rejudge_info(derived).baseline_name == "main"
    chat_server.clear()
    assert cli_main(["rejudge", "main", *_judge_flags(chat_server)]) == 0
    assert "(reused)" in capsys.readouterr().out and chat_server.requests == []
    assert len(list_runs(saved.path / ".faithfulness")) == 2


def test_rejudge_reads_the_judge_and_the_storage_from_the_ini(saved, chat_server, capsys):
    (saved.path / ".faithfulness").rename(saved.path / "runs")
    saved.makeini(INI + f"faithfulness_judge = {NEW_MODEL}\n"
                  f"faithfulness_api_base = {chat_server.base_url}\n"
                  "faithfulness_storage = runs\nfaithfulness_no_cache = true\n"
                  "faithfulness_first_filter = off\n")
    assert cli_main(["rejudge", "main", "--no-split-check"]) == 0
    out = capsys.readouterr().out
    assert f"litellm judge {NEW_MODEL}" in out and "DECOMPOSITION" not in out
    assert len(list_runs(saved.path / "runs")) == 2


def test_rejudge_refuses_what_it_cannot_do_with_one_error_line(saved, chat_server, capsys):
    assert cli_main(["rejudge", "nope", *_judge_flags(chat_server)]) == 4
    assert capsys.readouterr().err.startswith("ERROR: no saved run matches 'nope'")
    assert cli_main(["rejudge", "main", "--judge", NEW_MODEL, "--timeout", "x"]) == 4
    assert "--faithfulness-timeout (ini faithfulness_timeout)" in capsys.readouterr().err
    path = list_runs(saved.path / ".faithfulness")[0]
    data = json.loads(path.read_text())
    data["results"] = []
    path.write_text(json.dumps(data))
    assert cli_main(["rejudge", "main", *_judge_flags(chat_server)]) == 4
    assert "no full answer records" in capsys.readouterr().err


def test_a_pytest_run_reuses_what_the_command_saved(saved, chat_server, capsys):
    assert cli_main(["rejudge", "main", *_judge_flags(chat_server)]) == 0
    capsys.readouterr()
    write(saved, ANSWERS_V2)
    result = saved.runpytest(*judge_args(chat_server, NEW_MODEL, "--faithfulness-compare", "main",
                                         "--faithfulness-compare-rejudge"))
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines(["*re-judged baseline reused: *main-judge-*",
                                 "ANSWER EFFECT (gated)*", "JUDGE EFFECT*"])
    assert len(list_runs(saved.path / ".faithfulness")) == 2


def test_a_saved_run_whose_stored_passage_was_edited_is_refused_by_both_paths(
        saved, chat_server, capsys):
    """attack 25, finding 13: a re-judge verifies the stored claims against the stored
    passages; one edited on disk (the answer list and its inputs digests left alone) would be
    judged as if the run had seen it. Both the command and the pytest option refuse the run,
    naming it, the test and "edited or corrupt"; nothing is judged or saved."""
    path = list_runs(saved.path / ".faithfulness")[0]
    data = json.loads(path.read_text())
    record = next(r for r in data["results"] if r["test_id"].endswith("[a3]"))
    record["passages"][0]["text"] = "Something else entirely."
    path.write_text(json.dumps(data))
    chat_server.clear()
    assert cli_main(["rejudge", "main", *_judge_flags(chat_server)]) == 4
    err = capsys.readouterr().err
    assert err.startswith(f"ERROR: saved run main ({path}) is edited or corrupt: "), err
    assert "test_answers.py::test_answer[a3]" in err and err.count("\n") == 1
    result = saved.runpytest(*judge_args(chat_server, NEW_MODEL, "--faithfulness-compare", "main",
                                         "--faithfulness-compare-rejudge"))
    assert result.ret == 4  # as a baseline whose signature does not match: never skipped
    result.stderr.fnmatch_lines(["*--faithfulness-compare (ini faithfulness_compare): saved run "
                                 "main (*0001_main.json) is edited or corrupt: *"
                                 "test_answers.py::test_answer[[]a3[]]*"])
    assert chat_server.requests == [] and len(list_runs(saved.path / ".faithfulness")) == 1


def test_a_saved_run_without_inputs_digests_is_rejudged_with_a_note(saved, chat_server, capsys):
    path = list_runs(saved.path / ".faithfulness")[0]
    data = json.loads(path.read_text())
    for answer in data["answers"]:
        del answer["inputs_digest"]
    data["suite_digest"] = None
    path.write_text(json.dumps(data))
    assert cli_main(["rejudge", "main", "--no-split-check", *_judge_flags(chat_server)]) == 0
    out = capsys.readouterr().out
    assert f"note: saved run main ({path}) recorded no inputs digest for its answer(s)" in out
    assert "could not be checked" in out and "re-judged baseline saved: " in out
