"""GitHub Actions (issue 23): error annotations for the worst failing answers at their tests'
file and line, one notice for the rest, printed once per run (the xdist controller, and
``pytest-faithfulness merge``); the job summary kept under GitHub's 1 MiB; and the plugin's
lines in pytest's header."""

from __future__ import annotations

import json
import re

import pytest
from judges import QUOTING_CONFTEST

from pytest_faithfulness.reports.annotations import escape_data, escape_property, repo_path

PASSAGES = ["The sky is blue. The sea is deep. Snow is white."]

#: Four failing answers (an error, 0.0, 0.5, 0.67), one that passes, one of an xfail test.
SUITE = f'''
import pytest

PASSAGES = {PASSAGES!r}


def test_passes(assert_faithful):
    assert_faithful("The sky is blue.", PASSAGES)


def test_third(assert_faithful):
    assert_faithful("The sky is blue. The sea is deep. The grass is 100% red, surely.", PASSAGES)


def test_zero(assert_faithful):
    assert_faithful("The grass is red.", PASSAGES)


def test_half(assert_faithful):
    assert_faithful("The sky is blue. The moon is green.", PASSAGES)


def test_error(assert_faithful):
    assert_faithful(None, PASSAGES)


@pytest.mark.xfail(reason="a known miss")
def test_expected(assert_faithful):
    assert_faithful("The sun is cold.", PASSAGES)
'''


def _suite(pytester: pytest.Pytester) -> dict[str, int]:
    """Write the suite; returns each test's 1-based line."""
    pytester.makeconftest(QUOTING_CONFTEST)
    path = pytester.makepyfile(test_answers=SUITE)
    return {m.group(1): n for n, line in enumerate(path.read_text().splitlines(), start=1)
            if (m := re.match(r"def (test_\w+)", line))}


def _commands(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("::")]


def test_error_annotations_for_the_failing_answers_worst_first_at_their_tests(pytester,
                                                                              monkeypatch):
    lines = _suite(pytester)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=4, xfailed=1)
    commands = _commands(result.stdout.str())
    # worst first: the errored answer, then faithfulness 0.00, 0.50, 0.67; the passing answer
    # and the xfail test's expected miss are not annotated; no notice (nothing left over)
    assert [re.match(r"::error file=test_answers.py,line=(\d+),", c).group(1)
            for c in commands] == [str(lines[t]) for t in ("test_error", "test_zero",
                                                          "test_half", "test_third")]
    error, zero, _, third = commands
    assert error.startswith(f"::error file=test_answers.py,line={lines['test_error']},"
                            "title=faithfulness%3A judge error (input)::")
    assert zero.startswith(f"::error file=test_answers.py,line={lines['test_zero']},"
                           "title=faithfulness%3A 1 claim(s) not supported > max_unsupported "
                           "0::test_answers.py::test_zero: faithfulness 0.00")
    # the message is one line: its newlines and % escaped; the claim is quoted
    assert "%0A  [1] UNSUPPORTED: The grass is red." in zero
    assert "The grass is 100%25 red%2C surely." not in third  # commas are data in a message
    assert "The grass is 100%25 red, surely." in third
    # the annotations come before pytest's own summary, each on a line of its own
    assert all(c.startswith(("::error file=", "::notice ")) for c in commands)


def test_at_most_ten_annotations_then_one_notice_with_the_rest(pytester, monkeypatch):
    pytester.makeconftest(QUOTING_CONFTEST)
    pytester.makepyfile(test_many=f'''
        import pytest

        @pytest.mark.parametrize("n", range(13))
        def test_answer(assert_faithful, n):
            supported = " ".join(["The sky is blue."] * (n % 5))
            assert_faithful(supported + " The moon is green.", {PASSAGES!r})
    ''')
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(failed=13)
    commands = _commands(result.stdout.str())
    errors = [c for c in commands if c.startswith("::error ")]
    # pytest's line of a test is its first decorator's
    assert len(errors) == 10 and all(c.startswith("::error file=test_many.py,line=3,")
                                     for c in errors)
    # lowest faithfulness first: the three answers at 0.00 first (n = 0, 5, 10)
    scores = [float(re.search(r"faithfulness (\d\.\d\d) \(", c).group(1)) for c in errors]
    assert scores == sorted(scores) and scores[:3] == [0.0] * 3
    assert commands[10:] == [
        "::notice title=faithfulness::3 more answer(s) failed their own thresholds and are not "
        "annotated (at most 10 are): see the job summary or the faithfulness report"]


@pytest.mark.parametrize("value", [None, "false", "1"])
def test_no_annotations_outside_github_actions(pytester, monkeypatch, value):
    _suite(pytester)
    if value is not None:
        monkeypatch.setenv("GITHUB_ACTIONS", value)
    result = pytester.runpytest("-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=4, xfailed=1)
    assert _commands(result.stdout.str()) == []


def test_paths_are_relative_to_the_github_workspace(pytester, monkeypatch):
    """The repository root is ``$GITHUB_WORKSPACE`` (here the pytester folder's parent): the
    file is named from there, not from the rootdir."""
    lines = _suite(pytester)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path.parent))
    result = pytester.runpytest("-p", "no:xdist", "-k", "zero")
    assert _commands(result.stdout.str())[0].startswith(
        f"::error file={pytester.path.name}/test_answers.py,line={lines['test_zero']},")


def test_under_xdist_the_controller_prints_the_annotations_once(pytester, monkeypatch):
    lines = _suite(pytester)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = pytester.runpytest_subprocess("-n", "2")
    result.assert_outcomes(passed=1, failed=4, xfailed=1)
    commands = _commands(result.stdout.str())
    assert [re.match(r"::error file=test_answers.py,line=(\d+),", c).group(1)
            for c in commands] == [str(lines[t]) for t in ("test_error", "test_zero",
                                                          "test_half", "test_third")]


def _shards(pytester: pytest.Pytester) -> list[str]:
    from pytest_faithfulness.runs.saved import list_runs

    _suite(pytester)
    for n, key in enumerate(("zero or passes", "half or error"), start=1):
        pytester.runpytest("-p", "no:xdist", "-k", key, "--faithfulness-storage", "shards",
                           "--faithfulness-save", f"shard{n}")
    return [str(p) for p in list_runs(pytester.path / "shards")]


def _merge(pytester, capsys, shards: list[str]) -> tuple[int, list[str]]:
    from pytest_faithfulness.cli import main as cli_main

    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(pytester.path)
        status = cli_main(["merge", *shards, "--expect", "2"])
    return status, _commands(capsys.readouterr().out)


def test_merge_prints_the_annotations_from_the_shards_locations(pytester, monkeypatch, capsys):
    lines = _suite(pytester)
    shards = _shards(pytester)
    status, commands = _merge(pytester, capsys, shards)
    assert status == 12 and commands == []  # not in GitHub Actions
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    status, commands = _merge(pytester, capsys, shards)
    assert status == 12  # unmeasurable: an answer errored
    assert [c.split(",title=")[0] for c in commands] == [
        f"::error file=test_answers.py,line={lines['test_error']}",
        f"::error file=test_answers.py,line={lines['test_zero']}",
        f"::error file=test_answers.py,line={lines['test_half']}"]


def test_merge_of_runs_saved_without_locations_names_the_file_of_the_test_id(pytester,
                                                                              monkeypatch,
                                                                              capsys):
    """A saved run from before the answers carried their test's file and line still loads;
    its annotations name the file of the test id, with no line."""
    shards = _shards(pytester)
    for shard in shards:
        with open(shard, encoding="utf-8") as fh:
            data = json.load(fh)
        found = 0
        for result in data["results"]:
            found += result.pop("test_file", None) is not None
            result.pop("test_line", None)
        assert found
        with open(shard, "w", encoding="utf-8") as fh:
            json.dump(data, fh)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    status, commands = _merge(pytester, capsys, shards)
    assert status == 12
    unsupported = "title=faithfulness%3A 1 claim(s) not supported > max_unsupported 0"
    assert [c.split("::")[1] for c in commands] == [
        "error file=test_answers.py,title=faithfulness%3A judge error (input)",
        f"error file=test_answers.py,{unsupported}", f"error file=test_answers.py,{unsupported}"]


# Escaping and paths, on their own ----------------------------------------------------------

def test_workflow_command_escaping_follows_githubs_rules():
    assert escape_data("50% sure\r\nnext: a, b") == "50%25 sure%0D%0Anext: a, b"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    assert escape_data("%0A") == "%250A"  # a literal escape is not read as a newline


def test_repo_path_prefers_the_workspace_then_the_rootdir(tmp_path):
    root = tmp_path / "repo" / "python"
    assert repo_path(root / "tests" / "t.py", root, tmp_path / "repo") == "python/tests/t.py"
    assert repo_path(root / "tests" / "t.py", root) == "tests/t.py"
    assert repo_path("tests/t.py", root, tmp_path / "elsewhere") == "tests/t.py"
    assert repo_path(tmp_path / "x" / "t.py", root) == (tmp_path / "x" / "t.py").as_posix()


# The header ----------------------------------------------------------------------------------

def test_the_header_names_the_judge_prompts_cache_thresholds_and_canaries(pytester):
    pytester.makepyfile("def test_it():\n    pass\n")
    result = pytester.runpytest("-p", "no:xdist")
    result.stdout.fnmatch_lines([
        "faithfulness: judge offline (built in, calibrated verifier); fingerprint *; prompts "
        "not used (offline judge)",
        "faithfulness: cache not used (offline judge); session thresholds none; canaries off"])
    result = pytester.runpytest("-p", "no:xdist", "--faithfulness-judge", "openai/gpt-4o-mini",
                                "--faithfulness-cache-mode", "replay", "--faithfulness-min-mean",
                                "0.8", "--faithfulness-max-unsupported-rate", "0.1",
                                "--faithfulness-votes", "3")
    result.stdout.fnmatch_lines([
        "faithfulness: judge openai/gpt-4o-mini, 3 votes; fingerprint *; prompts 20*:*",
        "faithfulness: cache replay at *.faithfulness_cache; session thresholds min-mean 0.8, "
        "max-unsupported-rate 0.1; canaries off"])


def test_the_header_fingerprint_changes_with_what_decides_the_verdicts(tmp_path):
    from pytest_faithfulness.plugin.header import header_lines, settings_fingerprint
    from pytest_faithfulness.settings import Settings

    def fingerprint(**raw: object) -> str:
        return settings_fingerprint(Settings.from_mapping(raw, rootdir=tmp_path))

    base = fingerprint(judge="openai/gpt-4o-mini")
    assert fingerprint(judge="openai/gpt-4o-mini") == base and re.fullmatch("[0-9a-f]{12}", base)
    assert fingerprint(judge="openai/gpt-4o-mini", min_mean="0.8") == base  # not a verdict's
    for change in ({"judge": "openai/gpt-4o"}, {"temperature": "0.5"},
                   {"api_base": "http://127.0.0.1:8080/v1"}, {"votes": "3"},
                   {"panel": "ollama/llama3"}):
        assert fingerprint(**{"judge": "openai/gpt-4o-mini", **change}) != base, change
    assert fingerprint(judge="OFFLINE") == fingerprint(judge="offline")

    class WithCanaries:  # the canaries option of issue 23, read defensively
        def __init__(self, settings: Settings, canaries: object) -> None:
            self.settings, self.canaries = settings, canaries

        def __getattr__(self, name: str) -> object:
            return getattr(self.settings, name)

    settings = Settings.from_mapping({}, rootdir=tmp_path)
    assert header_lines(WithCanaries(settings, 40))[1].endswith("; canaries 40")
    assert header_lines(WithCanaries(settings, 0))[1].endswith("; canaries off")
