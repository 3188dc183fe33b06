"""The HTML report of thousands of answers stays usable: one page of answers is laid out at a
time, and the filters still work, in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_faithfulness.records import AnswerResult, ClaimResult, Passage, Verdict
from pytest_faithfulness.reports.html import PAGE_SIZE
from pytest_faithfulness.run.finish import apply_thresholds, new_outcome
from pytest_faithfulness.run.gate import GateConfig
from pytest_faithfulness.run.outputs import write_html
from pytest_faithfulness.run.results import ResultStore

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

N = 1_250
LABELS = ("supported", "contradicted", "unsupported", "supported", "supported")


def _result(i: int) -> AnswerResult:
    passage = Passage(id="p1", text=f"Fact {i} holds. Fact {i} is true.")
    label = LABELS[i % len(LABELS)]
    verdict = Verdict(label=label, passage_ids=["p1"] if label != "unsupported" else [],
                      quote=f"Fact {i} holds." if label != "unsupported" else None)
    return AnswerResult(answer=f"Fact {i} holds.", passages=[passage], status="scored",
                        claims=[ClaimResult(text=f"Fact {i} holds.", verdict=verdict)],
                        test_id=f"tests/test_big.py::test_answer[{i}]", max_unsupported=0)


def _dom(page: Path, profile: Path, fragment: str = "") -> str:
    profile.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", f"--user-data-dir={profile}", "--dump-dom",
         page.as_uri() + fragment], capture_output=True, text=True, timeout=300,
        check=False).stdout


def _visible(dom: str) -> list[int]:
    """Test numbers of the articles shown (lazy blocks not yet made articles left out)."""
    dom = re.sub(r'<script type="text/x-faithfulness-answer".*?</script>', "", dom, flags=re.S)
    return [int(m.group(2)) for m in re.finditer(
        r'<article ([^>]*)>.*?<h3>[^<]*test_answer\[(\d+)\]</h3>', dom, flags=re.S)
        if "hidden" not in m.group(1)]


@pytest.fixture(scope="module")
def big_report(tmp_path_factory) -> Path:
    store = ResultStore()
    for i in range(N):
        store.record(_result(i))
    outcome = new_outcome(store, GateConfig())
    apply_thresholds(outcome, GateConfig())
    return write_html(outcome, tmp_path_factory.mktemp("html") / "big.html")


def test_a_big_report_shows_one_page_of_answers_and_pages_through_them(big_report, tmp_path):
    dom = _dom(big_report, tmp_path / "p1")
    assert _visible(dom) == list(range(PAGE_SIZE))
    assert f'id="shown">showing 1–{PAGE_SIZE} of {N} (page 1 of 13; {N} answers in all)' in dom
    assert re.search(r'<button type="button" data-page="prev" disabled="">', dom)
    last = _dom(big_report, tmp_path / "p2", "#filter=all&page=13")
    assert _visible(last) == list(range(1200, N))
    assert re.search(r'<button type="button" data-page="next" disabled="">', last)


@pytest.mark.parametrize("name, label", [("contradicted", "contradicted"),
                                         ("unsupported", "unsupported")])
def test_filters_still_work_across_pages(big_report, tmp_path, name, label):
    matching = [i for i in range(N) if LABELS[i % len(LABELS)] == label]
    dom = _dom(big_report, tmp_path / name, f"#filter={name}&page=2")
    assert _visible(dom) == matching[PAGE_SIZE:2 * PAGE_SIZE]
    assert (f'id="shown">showing {PAGE_SIZE + 1}–{2 * PAGE_SIZE} of {len(matching)} (page 2 '
            f'of {-(-len(matching) // PAGE_SIZE)}; {N} answers in all)') in dom


def test_a_small_report_shows_everything_without_a_pager(tmp_path):
    store = ResultStore()
    for i in range(7):
        store.record(_result(i))
    page = write_html(new_outcome(store, GateConfig()), tmp_path / "small.html")
    dom = _dom(page, tmp_path / "p")
    assert _visible(dom) == list(range(7))
    assert 'id="shown">showing 7 of 7</span>' in dom
    assert re.search(r'<button type="button" data-page="next" hidden=""', dom)


def test_answers_past_the_first_page_are_inert_until_shown(big_report, tmp_path):
    page = big_report.read_text(encoding="utf-8")
    lazy = re.findall(r'<script type="text/x-faithfulness-answer" ([^>]*)>', page)
    assert len(lazy) == N - PAGE_SIZE
    assert page.count('<article class="answer') == N  # each answer written once, in order
    dom = _dom(big_report, tmp_path / "p3", "#filter=all&page=3")
    assert _visible(dom) == list(range(200, 300))
    # pages 1 and 3 were made articles; the other pages are still inert blocks
    made = re.findall(r'<article class="answer[^"]*" id="answer-(\d+)"',
                      re.sub(r'<script type="text/x-faithfulness-answer".*?</script>', "", dom,
                             flags=re.S))
    assert sorted(int(i) for i in made) == list(range(1, 101)) + list(range(201, 301))
    assert re.search(r'data-rendered-ms="\d+"', dom)


def test_a_lazy_answer_cannot_close_its_block(tmp_path):
    store = ResultStore()
    for i in range(PAGE_SIZE):
        store.record(_result(i))
    hostile = "</script><script>alert(1)</script><!-- </SCRIPT >"
    store.record(AnswerResult(answer=hostile, passages=[Passage(id="p1", text=hostile)],
                                status="scored", claims=[ClaimResult(
                                    text=hostile, verdict=Verdict(label="unsupported"))],
                                test_id=f"t::x[{hostile}]"))
    page = write_html(new_outcome(store, GateConfig()),
                      tmp_path / "hostile.html").read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="text/x-faithfulness-answer"[^>]*>(.*?)</script>', page,
                        flags=re.S)
    assert len(blocks) == 1 and "alert(1)" in blocks[0]
    assert "<script" not in blocks[0].lower() and "<!--" not in blocks[0]
    dom = _dom(tmp_path / "hostile.html", tmp_path / "ph", "#filter=all&page=2")
    assert _visible(dom) == [] and "alert(1)" in dom
    assert '<h3>t::x[&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;' in dom
