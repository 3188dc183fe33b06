"""Scale: N answers x 5 claims as 3 shards of ``-n 2``, merged by ``pytest-faithfulness merge``.

    python benchmarks/scale.py --answers 1000 3000 10000 --latency 0.02

For each N: the suite (``scale_answers``: distinct answers of 5 claims, about 900 tokens of
passages each; one answer in ``UNFAITHFUL`` has an unsupported claim and an ``xfail`` test) is
split into 3 test files, one per shard; each shard runs as
``pytest FILE -n 2`` against the loopback chat-completions server (``tests/helpers/chat_server.py``,
a fixed latency per reply) with ``--faithfulness-save``; then ``merge`` writes the JSON and
HTML reports. The shards run one after another here (on CI they are parallel jobs), so each
shard's wall time is compared with its own latency-bound ideal: its answers x (a decompose
round trip + ceil(5 / concurrency) verify round trips) x latency / 2 workers; also with the
start-up of a shard (the wall time of a 2-answer shard) taken off, since on a small or busy
machine start-up dominates.

Measured: wall / ideal per shard, peak RSS of the largest process of each shard (the xdist
controller or a worker) and of the merge, the merge's wall time, the sizes of the saved runs
and of the JSON and HTML reports, the JSON's parse time, and how headless Chromium opens the
HTML report (``_chromium_load``: load and first paint, the page script's own time, a filter's
second page), when ``/usr/bin/chromium`` is there. Results go to ``benchmarks/results/scale.json`` and a table is printed.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_benchmarks import (  # noqa: E402
    CLAIMS_PER_ANSWER,
    MODEL,
    ROOT,
    ScriptedChatServer,
    handler_for,
    make_answers,
    pytest_cmd,
    run,
)

SHARDS = 3
WORKERS = 2
#: Every UNFAITHFUL-th answer has one claim no passage holds (judged ``unsupported``); its
#: test is ``xfail(strict=True)``, so the run and the merged gate pass, and the report's
#: filters have failing answers to show.
UNFAITHFUL = 5
SCALE_SUITE = '''
import json
from pathlib import Path
import pytest
ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())
CASES = [pytest.param(i, marks=pytest.mark.xfail(strict=True, reason="an unsupported claim"))
         if case.get("unfaithful") else i for i, case in enumerate(ANSWERS)]

@pytest.mark.parametrize("i", CASES)
def test_answer(assert_faithful, i):
    case = ANSWERS[i]
    assert_faithful(case["answer"], case["passages"], min_score=1.0)
'''


def scale_answers(n: int) -> list[dict]:
    """``make_answers(n)``, every ``UNFAITHFUL``-th with its last claim changed to one that
    no passage holds."""
    answers = make_answers(n)
    for i in range(0, n, UNFAITHFUL):
        case = answers[i]
        wrong = f"Item {i}-4 ships from warehouse 9 within 30 days."
        case["answer"] = case["answer"].replace(case["claims"][-1], wrong)
        case["claims"][-1] = wrong
        case["unfaithful"] = True
    return answers
CONCURRENCY = 8
CHROMIUM = "/usr/bin/chromium"


def _chromium(path: Path, *args: str, fragment: str = "") -> tuple[float, str]:
    """Run headless Chromium on ``path``; (wall seconds, standard output)."""
    with tempfile.TemporaryDirectory() as profile:
        start = time.perf_counter()
        proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                               "--no-first-run", f"--user-data-dir={profile}", *args,
                               path.as_uri() + fragment],
                              capture_output=True, text=True, timeout=600, check=False)
        return time.perf_counter() - start, proc.stdout


def _chromium_load(path: Path, shard_dir: Path) -> dict | None:
    """How the HTML report behaves in headless Chromium, when ``/usr/bin/chromium`` is there:

    - ``html_chromium_s``: wall time of ``--screenshot`` (start the browser, load the report,
      lay out and paint the first screen, write the PNG), the median of 3;
      ``blank_chromium_s``: the same for an empty page (the browser's own start and exit);
    - ``html_script_ms``: the page's own ``data-rendered-ms`` (``performance.now()`` when its
      script has read every answer and shown the first page), from ``--dump-dom``;
    - ``html_filter_ok``: the ``unsupported`` filter's second page, opened by its URL
      fragment, shows 100 answers that all have an unsupported claim and says so.
    """
    if not Path(CHROMIUM).exists():
        return None
    blank = statistics.median(
        _chromium(Path("/dev/null"), "--screenshot=" + str(shard_dir / "blank.png"))[0]
        for _ in range(3))
    wall = statistics.median(
        _chromium(path, "--screenshot=" + str(shard_dir / "report.png"),
                  "--window-size=1200,900")[0] for _ in range(3))
    _, dom = _chromium(path, "--dump-dom")
    rendered = re.search(r'data-rendered-ms="(\d+)"', dom)
    _, filtered = _chromium(path, "--dump-dom", fragment="#filter=unsupported&page=2")
    shown = re.sub(r'<script type="text/x-faithfulness-answer".*?</script>', "", filtered,
                   flags=re.S)
    articles = re.findall(r"<article ([^>]*)>", shown)
    visible = [a for a in articles if "hidden" not in a]
    return {"html_chromium_s": round(wall, 2), "blank_chromium_s": round(blank, 2),
            "html_script_ms": int(rendered.group(1)) if rendered else None,
            "html_filter_ok": len(visible) == 100
            and all('data-unsupported="1"' in a for a in visible)
            and "(page 2 of" in filtered}


def scale_row(workdir: Path, n: int, server: ScriptedChatServer, latency: float) -> dict:
    suite = workdir / f"scale_{n}"
    suite.mkdir()
    answers = scale_answers(n)
    size = math.ceil(n / SHARDS)
    for k in range(SHARDS):
        part = answers[k * size:(k + 1) * size]
        (suite / f"answers_{k + 1}.json").write_text(json.dumps(part))
        (suite / f"test_shard{k + 1}.py").write_text(
            SCALE_SUITE.replace('"answers.json"', f'"answers_{k + 1}.json"'))
    # the fixed start-up of a shard (pytest, 2 xdist workers, litellm's import): 2 answers
    (suite / "answers_0.json").write_text(json.dumps(answers[:2]))
    (suite / "test_startup.py").write_text(
        SCALE_SUITE.replace('"answers.json"', '"answers_0.json"'))
    startup, _, _ = run(pytest_cmd(
        "test_startup.py", "-n", str(WORKERS), "--faithfulness-judge", MODEL,
        "--faithfulness-api-base", server.base_url, "--faithfulness-no-cache"), cwd=suite)
    shards = []
    per_answer = 1 + math.ceil(CLAIMS_PER_ANSWER / CONCURRENCY)
    for k in range(SHARDS):
        count = len(answers[k * size:(k + 1) * size])
        before = len(server.requests)
        wall, rss, _ = run(pytest_cmd(
            f"test_shard{k + 1}.py", "-n", str(WORKERS), "--faithfulness-judge", MODEL,
            "--faithfulness-api-base", server.base_url, "--faithfulness-no-cache",
            "--faithfulness-concurrency", str(CONCURRENCY), "--faithfulness-storage", "runs",
            "--faithfulness-save", f"shard{k + 1}"), cwd=suite)
        ideal = count * per_answer * latency / WORKERS
        shards.append({"answers": count, "wall_s": round(wall, 2), "ideal_s": round(ideal, 2),
                       "ratio": round(wall / ideal, 3),
                       "ratio_less_startup": round((wall - startup) / ideal, 3),
                       "peak_rss_mib": round(rss, 1),
                       "judge_requests": len(server.requests) - before})
    wall, rss, out = run([sys.executable, "-m", "pytest_faithfulness", "merge", "runs",
                          "--expect", str(SHARDS), "--faithfulness-report", "merged.json",
                          "--faithfulness-html", "merged.html", "--faithfulness-pr-comment",
                          "comment.md", "--faithfulness-save", "merged"], cwd=suite)
    start = time.perf_counter()
    merged = json.loads((suite / "merged.json").read_text())
    json_load = time.perf_counter() - start
    assert merged["summary"]["answers"] == n, out
    saved = sorted((suite / "runs").glob("*.json"))
    return {"answers": n, "claims": n * CLAIMS_PER_ANSWER, "shards": shards,
            "startup_s": round(startup, 2),
            "worst_shard_ratio": max(s["ratio"] for s in shards),
            "worst_ratio_less_startup": max(s["ratio_less_startup"] for s in shards),
            "merge_s": round(wall, 2), "merge_peak_rss_mib": round(rss, 1),
            "shard_runs_mib": round(sum(p.stat().st_size for p in saved[:SHARDS]) / 2**20, 2),
            "json_mib": round((suite / "merged.json").stat().st_size / 2**20, 2),
            "json_load_s": round(json_load, 2),
            "html_mib": round((suite / "merged.html").stat().st_size / 2**20, 2),
            **(_chromium_load(suite / "merged.html", suite) or {"html_chromium_s": None}),
            "comment_chars": len((suite / "comment.md").read_text(encoding="utf-8"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per reply")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "scale.json"))
    parser.add_argument("--keep", action="store_true",
                        help="keep the work folder (shard runs, reports) and print its path")
    args = parser.parse_args()
    rows = []
    workdir = Path(tempfile.mkdtemp(prefix="faithfulness-scale-"))
    try:
        with ScriptedChatServer(handler_for(args.latency), count_tokens=False) as server:
            for n in args.answers:
                rows.append(scale_row(workdir, n, server, args.latency))
                print(json.dumps(rows[-1]), flush=True)
    finally:
        if args.keep:
            print(f"work folder kept: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    Path(args.out).write_text(json.dumps({"latency_s": args.latency, "rows": rows}, indent=2))
    print(f"{'answers':>8} {'worst wall/ideal':>17} {'less start-up':>13} "
          f"{'shard RSS MiB':>14} {'merge s':>8} "
          f"{'merge RSS':>9} {'JSON MiB':>9} {'HTML MiB':>9} {'HTML load s':>11} "
          f"{'script ms':>9} {'filter':>6}")
    for r in rows:
        print(f"{r['answers']:>8} {r['worst_shard_ratio']:>17.3f} "
              f"{r['worst_ratio_less_startup']:>13.3f} "
              f"{max(s['peak_rss_mib'] for s in r['shards']):>14.1f} {r['merge_s']:>8.2f} "
              f"{r['merge_peak_rss_mib']:>9.1f} {r['json_mib']:>9.2f} {r['html_mib']:>9.2f} "
              f"{r['html_chromium_s'] if r['html_chromium_s'] is not None else 'n/a':>11} "
              f"{r.get('html_script_ms', 'n/a')!s:>9} {r.get('html_filter_ok', 'n/a')!s:>6}")


if __name__ == "__main__":
    main()
