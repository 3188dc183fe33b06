"""Where saved runs land (issue 21, item 20; docs/ci.md's "Where files land"): under pytest's
rootdir, which with no ini file is the common ancestor of the current directory and the
paths given (pytest 9), not the test folder; with an ini file, the ini file's folder."""

from __future__ import annotations

import pytest

TEST = '''
def test_answer(assert_faithful):
    assert_faithful("Refunds take 5 days.", ["Refunds take 5 days."])
'''


@pytest.mark.parametrize("ini", [None, "tests/rag/pytest.ini"])
def test_saved_runs_and_the_cache_land_under_the_rootdir(pytester, ini):
    rag = pytester.mkdir("tests").joinpath("rag")
    rag.mkdir()
    (rag / "test_answers.py").write_text(TEST)
    if ini:
        (pytester.path / ini).write_text("[pytest]\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "tests/rag",
                                "--faithfulness-save", "first")
    result.assert_outcomes(passed=1)
    rootdir = rag if ini else pytester.path
    result.stdout.fnmatch_lines([f"rootdir: {rootdir}*"])
    assert (rootdir / ".faithfulness" / "0001_first.json").is_file()
    if not ini:  # the README once said tests/rag/: not with pytest 9
        assert not (rag / ".faithfulness").exists()
