"""Scale: N answers x 5 claims as 3 shards of ``-n 2``, merged by ``pytest-faithfulness merge``.

    python benchmarks/scale.py --answers 1000 3000 10000 --latency 0.02

For each N: the suite (``run_benchmarks.make_answers``: distinct answers of 5 claims, about 900
tokens of passages each) is split into 3 test files, one per shard; each shard runs as
``pytest FILE -n 2`` against the loopback chat-completions server (``tests/chat_server.py``,
a fixed latency per reply) with ``--faithfulness-save``; then ``merge`` writes the JSON and
HTML reports. The shards run one after another here (on CI they are parallel jobs), so each
shard's wall time is compared with its own latency-bound ideal: its answers x (a decompose
round trip + ceil(5 / concurrency) verify round trips) x latency / 2 workers; also with the
start-up of a shard (the wall time of a 2-answer shard) taken off, since on a small or busy
machine start-up dominates.

Measured: wall / ideal per shard, peak RSS of the largest process of each shard (the xdist
controller or a worker) and of the merge, the merge's wall time, the sizes of the saved runs
and of the JSON and HTML reports, the JSON's parse time, and the time headless Chromium takes
to load the HTML report and run its script (``--dump-dom``), when ``/usr/bin/chromium`` is
there. Results go to ``benchmarks/results/scale.json`` and a table is printed.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
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
    SUITE,
    ScriptedChatServer,
    handler_for,
    make_answers,
    pytest_cmd,
    run,
)

SHARDS = 3
WORKERS = 2
CONCURRENCY = 8
CHROMIUM = "/usr/bin/chromium"


def _chromium_load(path: Path) -> float | None:
    """Seconds headless Chromium takes to load ``path`` and print its DOM (scripts run)."""
    if not Path(CHROMIUM).exists():
        return None
    start = time.perf_counter()
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                    path.as_uri()], capture_output=True, timeout=600, check=False)
    return round(time.perf_counter() - start, 2)


def scale_row(workdir: Path, n: int, server: ScriptedChatServer, latency: float) -> dict:
    suite = workdir / f"scale_{n}"
    suite.mkdir()
    answers = make_answers(n)
    size = math.ceil(n / SHARDS)
    for k in range(SHARDS):
        part = answers[k * size:(k + 1) * size]
        (suite / f"answers_{k + 1}.json").write_text(json.dumps(part))
        (suite / f"test_shard{k + 1}.py").write_text(
            SUITE.replace('"answers.json"', f'"answers_{k + 1}.json"'))
    # the fixed start-up of a shard (pytest, 2 xdist workers, litellm's import): 2 answers
    (suite / "answers_0.json").write_text(json.dumps(answers[:2]))
    (suite / "test_startup.py").write_text(SUITE.replace('"answers.json"', '"answers_0.json"'))
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
            "html_chromium_s": _chromium_load(suite / "merged.html"),
            "comment_chars": len((suite / "comment.md").read_text(encoding="utf-8"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, nargs="+", default=[1000, 3000, 10000])
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per reply")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "scale.json"))
    args = parser.parse_args()
    rows = []
    workdir = Path(tempfile.mkdtemp(prefix="faithfulness-scale-"))
    try:
        with ScriptedChatServer(handler_for(args.latency), count_tokens=False) as server:
            for n in args.answers:
                rows.append(scale_row(workdir, n, server, args.latency))
                print(json.dumps(rows[-1]), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    Path(args.out).write_text(json.dumps({"latency_s": args.latency, "rows": rows}, indent=2))
    print(f"{'answers':>8} {'worst wall/ideal':>17} {'less start-up':>13} "
          f"{'shard RSS MiB':>14} {'merge s':>8} "
          f"{'merge RSS':>9} {'JSON MiB':>9} {'HTML MiB':>9} {'HTML load s':>11}")
    for r in rows:
        print(f"{r['answers']:>8} {r['worst_shard_ratio']:>17.3f} "
              f"{r['worst_ratio_less_startup']:>13.3f} "
              f"{max(s['peak_rss_mib'] for s in r['shards']):>14.1f} {r['merge_s']:>8.2f} "
              f"{r['merge_peak_rss_mib']:>9.1f} {r['json_mib']:>9.2f} {r['html_mib']:>9.2f} "
              f"{r['html_chromium_s'] if r['html_chromium_s'] is not None else 'n/a':>11}")


if __name__ == "__main__":
    main()
