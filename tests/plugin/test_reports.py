"""Reports people read: JUnit properties, the Markdown summary ($GITHUB_STEP_SUMMARY), the
HTML report (checked in a real headless Chromium when one is installed) and live progress."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from faithfulness_ci_suite import (
    ANSWERS_V2,
    CHARGE,
    SPEED_32,
    VERDICTS_V2,
    to_v2,
    write_suite,
)
from repo_paths import ROOT

EXAMPLES = ROOT / "conftest_examples"
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                    "(apt-get install -y chromium)")


# JUnit --------------------------------------------------------------------------------------

def test_junit_xml_carries_score_claim_counts_and_judge_as_properties(suite):
    suite.makepyfile(test_two='''
        def test_two_answers(assert_faithful):
            assert_faithful("The Kestrel weighs 23 kg.", ["The Kestrel e-bike weighs 23 kg."])
            assert_faithful("The bell is loud.", ["The Kestrel e-bike weighs 23 kg."], min_score=0)
    ''')
    result = suite.runpytest("--junitxml=junit.xml")
    result.assert_outcomes(passed=5)
    root = ET.parse(suite.path / "junit.xml").getroot()
    props = {case.get("name"): {p.get("name"): p.get("value")
                                for p in case.iter("property")}
             for case in root.iter("testcase")}
    assert props["test_answer[battery]"] == {
        "faithfulness_score": "0.500", "faithfulness_status": "scored",
        "faithfulness_claims": "2", "faithfulness_supported": "1",
        "faithfulness_contradicted": "0", "faithfulness_unsupported": "1",
        "faithfulness_passed": "true", "faithfulness_judge": "scripted judge scripted-1",
    }
    two = props["test_two_answers"]
    assert two["faithfulness_score"] == "1.000" and two["faithfulness_score_2"] == "0.000"
    assert two["faithfulness_unsupported_2"] == "1"


# Markdown -----------------------------------------------------------------------------------

def test_markdown_summary_file_and_github_step_summary(suite, monkeypatch):
    suite.runpytest("--faithfulness-save", "main").assert_outcomes(passed=4)
    to_v2(suite)
    step = suite.path / "step_summary.md"
    step.write_text("# an earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    result = suite.runpytest("--faithfulness-compare", "--faithfulness-compare-fail", "mean:0.02",
                             "--faithfulness-markdown", "out/summary.md")
    assert result.ret == 10  # regressed
    result.stdout.fnmatch_lines(["Markdown summary: out/summary.md"])
    md = (suite.path / "out" / "summary.md").read_text(encoding="utf-8")
    assert md.startswith("## Faithfulness: ❌ gate failed\n")
    assert "| **0.62** | 4 | 4 | 0 | 0 | 50.0% | 6 | 4 | 1 | 1 |" in md
    assert "- regression against main: mean faithfulness dropped by 0.250 (0.875 -&gt; 0.625) " \
           "&gt; 0.02 allowed (mean:0.02)" in md
    assert "### Compared with main (saved " in md
    assert "| mean faithfulness | 0.875 | 0.625 | **-0.250** 🔻 |" in md
    # battery's answer, passages and judge did not change: its new verdict is listed as the
    # judge's instability, apart from the regressions
    assert "Claims that became unsupported or contradicted: **2**; recovered: **0**." in md
    assert f"| 1.000 → 0.500 | contradicted (was absent): {SPEED_32} |  |" in md
    assert "**JUDGE INSTABILITY: 1 answer(s) got different verdicts on identical inputs" in md
    assert f"- unsupported -&gt; supported: {CHARGE}" in md
    assert "Added: test\\_answers.py::test\\_answer\\[bell\\]" in md
    assert "Removed: test\\_answers.py::test\\_answer\\[frame\\]" in md
    assert "### Claims that are not supported (2)" in md
    assert (f"| test\\_answers.py::test\\_answer\\[kestrel\\] | 0.50 | **contradicted** | "
            f"{SPEED_32} | p1 | Its top assisted speed is 25 km/h. |") in md
    assert "| test\\_answers.py::test\\_answer\\[bell\\] | 0.00 | unsupported | " \
           "The bell is loud. |  |  |" in md
    assert step.read_text(encoding="utf-8") == "# an earlier step\n\n" + md


def test_markdown_escapes_untrusted_text(suite):
    evil = "Pipes | and <script>alert(1)</script> and **bold** and [link](http://x)"
    (suite.path / "answers.json").write_text(json.dumps({"evil": evil}), encoding="utf-8")
    suite.runpytest("--faithfulness-markdown", "s.md").assert_outcomes(passed=1)
    md = (suite.path / "s.md").read_text(encoding="utf-8")
    assert "<script>" not in md and "**bold**" not in md and "[link]" not in md
    row = next(line for line in md.splitlines() if "Pipes" in line)
    assert "Pipes \\| and &lt;script&gt;alert(1)&lt;/script&gt; and \\*\\*bold\\*\\* and " \
           "\\[link\\](http\u200b://x)" in row  # no live link either
    assert len(re.findall(r"(?<!\\)\|", row)) == 8  # seven cells: the pipe in the text is escaped


def test_no_step_summary_without_the_variable(suite):
    result = suite.runpytest()
    assert "Markdown summary" not in result.stdout.str()
    assert not list(suite.path.glob("*.md"))


# HTML ---------------------------------------------------------------------------------------

EVIL_TEST = '''
EVIL_PASSAGES = [{"id": "e1",
                  "text": "Tags like <b>bold</b> & <script>document.title='pwned'</script> "
                          "are shown as text."}]

def test_evil(assert_faithful):
    assert_faithful("Tags are shown as text. <img src=x onerror=\\"document.title='pwned'\\">",
                    EVIL_PASSAGES, min_score=0)
'''
EVIL_QUOTE = "<b>bold</b> & <script>document.title='pwned'</script> are shown as text"


def _html_suite(suite: pytest.Pytester) -> pytest.Pytester:
    verdicts = {**VERDICTS_V2, "Tags are shown as text.": ["supported", "e1", EVIL_QUOTE]}
    write_suite(suite, ANSWERS_V2, verdicts)
    suite.makepyfile(test_evil=EVIL_TEST)
    return suite


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.data: dict[str, str] = {}
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open = tag

    def handle_data(self, data):
        if self._open in ("style", "script"):
            self.data[self._open] = self.data.get(self._open, "") + data


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_html_report_is_self_contained_and_escapes_everything(suite):
    _html_suite(suite)
    result = suite.runpytest("--faithfulness-html", "report/faithfulness.html")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["HTML report: report/faithfulness.html"])
    page = (suite.path / "report" / "faithfulness.html").read_text(encoding="utf-8")
    parser = _Tags()
    parser.feed(page)
    tags = [t for t, _ in parser.tags]
    assert tags.count("script") == 1 and tags.count("style") == 1
    assert "img" not in tags and "b" not in tags and "link" not in tags
    assert all(a.get("href", "#").startswith("#") for _, a in parser.tags)
    assert not any("src" in a for _, a in parser.tags)
    csp = next(a["content"] for t, a in parser.tags if a.get("http-equiv") ==
               "Content-Security-Policy")
    assert "default-src 'none'" in csp
    assert f"script-src {_sha(parser.data['script'])}" in csp
    assert f"style-src {_sha(parser.data['style'])}" in csp
    assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in page
    assert '<svg id="distribution-chart"' in page
    assert 'data-filter="contradicted">Contradicted (1)</button>' in page


def _chromium(profile: Path, *args: str) -> subprocess.CompletedProcess:
    profile.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--hide-scrollbars", f"--user-data-dir={profile}", *args],
        capture_output=True, text=True, timeout=180, check=False)


def _screenshot_dir(tmp_path: Path) -> Path:
    """Where screenshots go: ``$FAITHFULNESS_SCREENSHOT_DIR`` if set (to keep them), else tmp."""
    out = Path(os.environ.get("FAITHFULNESS_SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _articles(dom: str) -> dict[str, bool]:
    """``{answer test id: hidden}`` from a dumped DOM."""
    out = {}
    for match in re.finditer(r'<article ([^>]*)>.*?<h3>(.*?)</h3>', dom, flags=re.S):
        out[match.group(2)] = "hidden" in match.group(1)
    return out


@needs_chromium
def test_html_report_in_headless_chromium(suite, tmp_path):
    _html_suite(suite)
    suite.runpytest("--faithfulness-html", "report.html").assert_outcomes(passed=5)
    page = suite.path / "report.html"
    dom = _chromium(tmp_path / "p1", "--dump-dom", page.as_uri()).stdout
    assert "<title>Faithfulness report</title>" in dom  # no injected script changed it
    assert "pwned" not in re.sub(r"&lt;.*?&gt;|document\.title=&#x27;pwned&#x27;|"
                                 r"document\.title='pwned'", "", dom)
    assert "<img" not in dom
    assert dom.count("<script") == 1
    assert 'id="shown">showing 5 of 5</span>' in dom  # the filter script ran
    assert 'aria-pressed="true" data-filter="all"' in dom or \
        'data-filter="all" aria-pressed="true"' in dom
    assert "mean faithfulness" in dom and ">0.60<" in dom  # (0.5 + 1 + 0 + 1 + 0.5) / 5
    assert dom.count('class="claim v-contradicted"') == 1
    assert f"{SPEED_32}" in dom
    # the quote is highlighted in its passage, as text
    assert ('<mark class="m-contradicted" title="claim 2: contradicted">Its top assisted speed '
            'is 25 km/h.</mark>') in dom
    assert ('<mark class="m-supported" title="claim 1: supported">&lt;b&gt;bold&lt;/b&gt; &amp; '
            '&lt;script&gt;document.title=\'pwned\'&lt;/script&gt; are shown as text</mark>') in dom
    assert re.search(r'<rect class="bar"[^>]*data-count="2"', dom)  # two answers at 1.0

    for name, expected in (("contradicted", {"kestrel"}), ("unsupported", {"bell", "evil"}),
                           ("failing", {"kestrel", "bell", "evil"})):
        filtered = _chromium(tmp_path / f"p-{name}", "--dump-dom",
                             page.as_uri() + f"#filter={name}").stdout
        shown = {tid.split("[")[-1].rstrip("]").replace("test_evil.py::test_", "")
                 for tid, hidden in _articles(filtered).items() if not hidden}
        assert shown == expected, name
        assert f'id="shown">showing {len(expected)} of 5</span>' in filtered

    shot = _screenshot_dir(tmp_path) / "report-suite.png"
    done = _chromium(tmp_path / "p2", f"--screenshot={shot}", "--window-size=1280,1800",
                     page.as_uri())
    assert shot.exists(), done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


@needs_chromium
def test_html_report_of_the_shipped_examples_in_headless_chromium(pytester, tmp_path):
    shutil.copytree(EXAMPLES, pytester.path / "conftest_examples")
    result = pytester.runpytest("conftest_examples", "-p", "no:cacheprovider",
                                "--faithfulness-html", "examples.html")
    traced = importlib.util.find_spec("opentelemetry.sdk") is not None  # test_trace_app.py
    result.assert_outcomes(passed=33 + traced, xfailed=2, skipped=1 - traced)
    page = pytester.path / "examples.html"
    dom = _chromium(tmp_path / "p1", "--dump-dom", page.as_uri()).stdout
    assert f'id="shown">showing {35 + traced} of {35 + traced}</span>' in dom
    assert "test_audit_log_answer_scores_three_of_five" in dom
    assert re.search(r'<mark class="m-supported" title="claim 1: supported[^"]*">Audit log export '
                     r'is available on the Business and Enterprise plans\.', dom)
    # the audit-log answer's unsupported claims are marked in the answer, with their verdict
    assert re.search(r'<mark class="m-unsupported" tabindex="0" title="claim 4: unsupported: '
                     r'Exports run hourly\.[^"]*citation: unsupported \(p-2071, p-2072\)">'
                     r'Exports run hourly and<sup><a href="#a\d+-c4">4</a></sup></mark>', dom)
    assert 'cites doc-12: MISATTRIBUTED' in dom and 'id="fig-citation-precision"' in dom
    shot = _screenshot_dir(tmp_path) / "report-examples.png"
    done = _chromium(tmp_path / "p2", f"--screenshot={shot}", "--window-size=1280,2400",
                     page.as_uri())
    assert shot.exists(), done.stderr[-2000:]
    assert shot.stat().st_size > 50_000


# Progress -----------------------------------------------------------------------------------

def test_verbose_run_prints_each_verdict_as_it_arrives(suite):
    verdicts = {**VERDICTS_V2, CHARGE: ["supported", "p2", "not in the passage"]}
    write_suite(suite, ANSWERS_V2, verdicts)
    result = suite.runpytest("-v", "-k", "battery or kestrel")
    result.assert_outcomes(passed=2)
    lines = result.stdout.lines
    passed = lines.index(next(x for x in lines if "test_answer[battery] PASSED" in x))
    battery = lines[:passed]  # verdicts of one answer arrive concurrently, in any order
    assert "    decomposed into 2 claim(s)" in battery
    assert "    [supported] The battery lasts 80 km. (p2)" in battery
    assert ("    [UNSUPPORTED] It charges in 2 hours. -- judge said supported: supported "
            "verdict's quote does not occur in passage(s) p2") in battery
    assert "    [CONTRADICTED] Its top speed is 32 km/h. (p1)" in lines[passed:]
    quiet = suite.runpytest("-k", "battery or kestrel")
    assert "decomposed into" not in quiet.stdout.str()
    assert "[supported]" not in quiet.stdout.str()


def test_verbose_progress_with_an_async_judge(pytester):
    pytester.makeconftest('''
import pytest
from pytest_faithfulness import Verdict

class AsyncJudge:
    async def adecompose(self, answer):
        return [answer]
    async def averify(self, claim, passages):
        return Verdict("supported", passage_ids=["p1"], quote=claim)
    def decompose(self, answer):
        raise AssertionError("the pipeline must use adecompose")
    def verify(self, claim, passages):
        raise AssertionError("the pipeline must use averify")

@pytest.fixture(scope="session")
def faithfulness_judge():
    return AsyncJudge()
''')
    pytester.makepyfile('''
def test_it(assert_faithful):
    assert assert_faithful("The lamp is red.", ["The lamp is red."]).score == 1.0
''')
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["    decomposed into 1 claim(s)",
                                 "    [[]supported] The lamp is red. (p1)",
                                 "judge: AsyncJudge"])


FAILING_ANSWER = ("Refunds are issued within 30 days of a return being received [1]. "
                  "Gift cards never expire [2]. "
                  "Items bought on sale can be exchanged but not refunded [2].")
FAILING_PASSAGES = [
    {"id": "kb-1", "text": "Refunds are issued within 14 days of a return being received."},
    {"id": "kb-2", "text": "Items bought on sale can be exchanged but not refunded."},
]


@needs_chromium
def test_failing_answer_is_marked_in_its_text_in_headless_chromium(pytester, tmp_path):
    """The answer itself shows where it fails: the contradicted claim's text in red, the
    unsupported one's in amber, each mark titled with the verdict, quote and rationale; the
    answer's text is escaped (tests/test_claim_spans.py). The screenshot is docs/usage.md's
    (docs/img/failing-answer.png, taken with FAITHFULNESS_SCREENSHOT_DIR=docs/img)."""
    pytester.makepyfile(f'''
        def test_refund_answer(assert_faithful):
            assert_faithful({FAILING_ANSWER!r}, {FAILING_PASSAGES!r}, record_only=True)
    ''')
    pytester.runpytest("-p", "no:cacheprovider", "--faithfulness-html", "failing.html"
                       ).assert_outcomes(passed=1)
    page = pytester.path / "failing.html"
    dom = _chromium(tmp_path / "p1", "--dump-dom", page.as_uri()).stdout
    assert dom.count("<script") == 1
    assert re.search(r'<mark class="m-contradicted" tabindex="0" title="claim 1: contradicted: '
                     r'Refunds are issued within 30 days of a return being received\.\n'
                     r'quote \(kb-1\): Refunds are issued within 14 days[^"]*">Refunds are issued '
                     r'within 30 days of a return being received \[1\]\.'
                     r'<sup><a href="#a1-c1">1</a></sup></mark>', dom)
    assert re.search(r'<mark class="m-unsupported" tabindex="0" title="claim 2: unsupported: '
                     r'Gift cards never expire\.[^"]*citation: unsupported \(kb-2\)">Gift '
                     r'cards never expire \[2\]\.<sup><a href="#a1-c2">2</a></sup></mark>', dom)
    assert dom.count('tabindex="0"') == 2  # the supported claim is not marked in the answer
    assert 'id="a1-c1"' in dom and 'id="a1-c2"' in dom  # a click on a number shows its claim
    shot = _screenshot_dir(tmp_path) / "failing-answer.png"
    done = _chromium(tmp_path / "p2", f"--screenshot={shot}", "--window-size=1100,1250",
                     page.as_uri() + "#filter=failing")
    assert shot.exists(), done.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


# issue 21 item 18: once, in words that match the exit status, warned, in test-id order -------

ORDERED_SUITE = '''
import pytest

PASSAGES = [{"id": "p1", "text": "The Vela lamp has three brightness levels. It weighs 2 kg."}]


def test_zeta(assert_faithful):
    assert_faithful("The Vela lamp weighs 9 kg.", PASSAGES)


@pytest.mark.parametrize("n", [10, 2])
def test_alpha(assert_faithful, n):
    assert_faithful(f"The Vela lamp has {n} brightness levels.", PASSAGES)


WHOLE = "The Vela lamp weighs 2 kg and has three brightness levels."


def test_whole(assert_faithful):  # the harness bug: the answer passed as its own passage
    assert_faithful(WHOLE, [{"id": "p9", "text": WHOLE}])


def test_other():
    assert 1 == 2
'''
ORDER = ["test_alpha[2]", "test_alpha[10]", "test_zeta"]  # natural test-id order


def _order(text: str, names: list[str]) -> list[int]:
    return [text.index(n) for n in names]


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist"])
def test_a_red_run_reads_failed_lists_answers_in_test_id_order_and_each_claim_once(
        pytester, workers):
    """A run whose answers fail their tests (and another test fails) while the session gate
    passes: every output says the run failed (no "session gate passed" anywhere), each
    failing claim is in the terminal once (its test's failure; the faithfulness section
    names the answer and points there), the "passage contains the whole answer" warning of
    an answer that passed reaches the terminal, and every output lists the answers in
    test-id order, under -n 2 too."""
    pytester.makepyfile(test_order=ORDERED_SUITE)
    result = pytester.runpytest(*workers, "-p", "no:cacheprovider", "--faithfulness-report",
                                "r.json", "--faithfulness-markdown", "m.md",
                                "--faithfulness-html", "r.html", "--faithfulness-pr-comment",
                                "c.md")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    outputs = {name: (pytester.path / name).read_text(encoding="utf-8")
               for name in ("r.json", "m.md", "r.html", "c.md")}
    outputs["terminal"] = out
    for name, text in outputs.items():
        assert "session gate passed" not in text, name
        assert "run failed: " in text, name
    result.stdout.fnmatch_lines(["*= faithfulness: run failed: 3 answers failed their own "
                                 "thresholds; the session gate itself passed =*"])
    assert json.loads(outputs["r.json"])["gate"]["run_status"] == "failed"
    assert outputs["c.md"].splitlines()[1].startswith("## Faithfulness: ❌ run failed: ")
    # each failing claim once in the terminal: in its test's failure, not again below (pytest's
    # own short test summary repeats a failure's whole message when $CI is set: not ours)
    ours = re.sub(r"=+ short test summary info =+\n.*?(?=\n=)", "", out, flags=re.S)
    assert ours.count("CONTRADICTED: The Vela lamp weighs 9 kg.") == 1
    assert ours.count("CONTRADICTED: The Vela lamp has 10 brightness levels.") == 1
    section = out[out.index("answers with claims that are not supported"):]
    assert "(every claim: in the failure of test_order.py::test_zeta above)" in section
    assert "FAILED: 1 claim(s) not supported > max_unsupported 0" in section
    # the warning about an answer that passed
    result.stdout.fnmatch_lines(["answer warnings (they do not change the score):",
                                 "test_order.py::test_whole:",
                                 "  warning: passage(s) p9 contain the whole answer*"])
    # test-id order everywhere
    ids = [a["test_id"] for a in json.loads(outputs["r.json"])["answers"]]
    assert ids == [f"test_order.py::{n}" for n in [*ORDER[:2], "test_whole", "test_zeta"]]
    assert _order(section, ORDER) == sorted(_order(section, ORDER))
    for name in ("m.md", "r.html", "c.md"):
        text = outputs[name].replace("\\[", "[").replace("\\]", "]").replace("\\_", "_")
        assert _order(text, ORDER) == sorted(_order(text, ORDER)), name
