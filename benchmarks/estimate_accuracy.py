"""How close ``pytest-faithfulness estimate`` comes to the run it estimates (issue 25, item 5).

    python benchmarks/estimate_accuracy.py                  # both suites, about 4 minutes here
    python benchmarks/estimate_accuracy.py --answers 100    # the loopback benchmark's size

The stand-in provider is the loopback chat server of the tests (``tests/helpers/chat_server.py``)
with the benchmarks' careful scripted judge (``run_benchmarks.handler_for``: claims are the
answer's sentences, ``supported`` when a passage holds the claim) and a fixed latency per reply.
The model is ``openai/gpt-4o-mini`` (priced in litellm's map). For each case the estimate is
made first, from a saved run, then the real run it estimates is made, and the two are set side
by side:

* **calls**: requests the stand-in server received (answers and canaries);
* **input tokens**: counted by the server on every request it received, as litellm reads
  them from its ``usage`` block (``chat_server.count_prompt_tokens``);
* **output tokens**: the run's saved usage (answers and canaries);
* **wall**: the run's wall time less the wall time of the same run fully cached (pytest's
  start-up and the tests' own work), against the estimate's wall time of the judge calls.

Cases:

1. ``example, offline -> LLM``: the example suite (``conftest_examples``) saved with the
   offline judge (0 paid calls), estimated for the LLM judge with a fresh cache, then run so.
   The claims come from another decomposer than the one that will run: the hardest case.
2. ``example, LLM -> LLM cold``: the LLM run of case 1 estimated for the same judge with
   another fresh cache, then run so.
3. ``example, warm cache``: the same, with the cache case 1 filled.
4. ``loopback benchmark``: ``run_benchmarks``' judged suite (N answers x 5 claims,
   concurrency 8, 40 canaries) saved once, estimated for a fresh cache, then run so.

Results go to ``benchmarks/results/estimate_accuracy.json`` and a table is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark-dummy")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_benchmarks as rb  # noqa: E402  (puts tests/helpers on sys.path)
from chat_server import ScriptedChatServer, count_prompt_tokens  # noqa: E402

from pytest_faithfulness.runs.saved import list_runs, load_run  # noqa: E402

ROOT = rb.ROOT
MODEL = rb.MODEL


def pytest_run(args: list[str], cwd: Path) -> float:
    """Run pytest (any exit status); its wall seconds."""
    start = time.perf_counter()
    subprocess.run(rb.pytest_cmd(*args), cwd=cwd, capture_output=True, text=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - start


def estimate(storage: Path, run: str, cwd: Path, *args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "pytest_faithfulness", "estimate", run,
                          "--storage", str(storage), "--json", *args], cwd=cwd,
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    if out.returncode != 0:
        raise RuntimeError(out.stdout + out.stderr)
    return json.loads(out.stdout)


def actual(server: ScriptedChatServer, before: int, storage: Path, wall: float,
           floor: float) -> dict:
    """What the run did: calls and input tokens at the server, output tokens saved."""
    received = server.requests[before:]
    run = load_run(list_runs(storage)[-1])
    output = run.figures.usage.output_tokens + (run.canaries.usage.output_tokens
                                                if run.canaries is not None else 0)
    return {"calls": len(received),
            "input_tokens": sum(count_prompt_tokens(r) for r in received),
            "output_tokens": output, "wall_s": round(wall, 2),
            "judge_wall_s": round(max(0.0, wall - floor), 2)}


def row(name: str, est: dict, act: dict) -> dict:
    return {"case": name,
            "estimated": {"calls": est["calls"], "cache_hits": est["cache_hits"],
                          "settled": est["settled"], "input_tokens": est["input_tokens"],
                          "output_tokens": est["output_tokens"], "cost_usd": est["cost_usd"],
                          "wall_s": est["wall_s"]},
            "actual": act}


def example_suite(server: ScriptedChatServer, work: Path, latency: float) -> list[dict]:
    storage, c1, c2 = work / "runs", work / "cache1", work / "cache2"
    common = ["conftest_examples", "--faithfulness-storage", str(storage)]
    llm = ["--faithfulness-judge", MODEL, "--faithfulness-api-base", server.base_url]
    pytest_run([*common, "--faithfulness-save", "offline"], ROOT)
    flags = ["--latency", str(latency), "--judge", MODEL, "--api-base", server.base_url]
    rows = []
    est = estimate(storage, "offline", ROOT, *flags, "--cache-dir", str(c1))
    before = len(server.requests)
    wall = pytest_run([*common, *llm, "--faithfulness-cache-dir", str(c1),
                       "--faithfulness-save", "llm"], ROOT)
    floor = pytest_run([*common, *llm, "--faithfulness-cache-dir", str(c1)], ROOT)  # cached
    rows.append(row("example, offline -> LLM", est, actual(server, before, storage, wall,
                                                          floor)))
    est = estimate(storage, "llm", ROOT, *flags, "--cache-dir", str(c2))
    before = len(server.requests)
    wall = pytest_run([*common, *llm, "--faithfulness-cache-dir", str(c2),
                       "--faithfulness-save", "llm2"], ROOT)
    rows.append(row("example, LLM -> LLM cold", est, actual(server, before, storage, wall,
                                                           floor)))
    est = estimate(storage, "llm", ROOT, *flags, "--cache-dir", str(c1))
    before = len(server.requests)
    wall = pytest_run([*common, *llm, "--faithfulness-cache-dir", str(c1),
                       "--faithfulness-save", "llm3"], ROOT)
    rows.append(row("example, warm cache", est, actual(server, before, storage, wall, floor)))
    return rows


def loopback_benchmark(server: ScriptedChatServer, work: Path, answers: int,
                       latency: float) -> dict:
    suite = work / "bench"
    suite.mkdir()
    (suite / "answers.json").write_text(json.dumps(rb.make_answers(answers)))
    (suite / "test_suite.py").write_text(rb.SUITE)
    storage = suite / "runs"
    args = ["--faithfulness-judge", MODEL, "--faithfulness-api-base", server.base_url,
            "--faithfulness-concurrency", "8", "--faithfulness-storage", str(storage)]
    pytest_run([*args, "--faithfulness-cache-dir", str(suite / "c0"),
                "--faithfulness-save", "first"], suite)
    est = estimate(storage, "first", suite, "--latency", str(latency), "--judge", MODEL,
                   "--api-base", server.base_url, "--concurrency", "8", "--cache-dir",
                   str(suite / "c1"))
    before = len(server.requests)
    wall = pytest_run([*args, "--faithfulness-cache-dir", str(suite / "c1"),
                       "--faithfulness-save", "second"], suite)
    floor = pytest_run([*args, "--faithfulness-cache-dir", str(suite / "c1")], suite)
    return row(f"loopback benchmark, {answers} x 5", est,
               actual(server, before, storage, wall, floor))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--out", type=Path,
                        default=HERE / "results" / "estimate_accuracy.json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, \
            ScriptedChatServer(rb.handler_for(args.latency)) as server:
        work = Path(tmp)
        os.environ["XDG_CACHE_HOME"] = str(work / "xdg")  # the checks' memo key: not $HOME
        rows += example_suite(server, work, args.latency)
        rows.append(loopback_benchmark(server, work, args.answers, args.latency))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=2) + "\n")
    print("| case | calls est / actual | input tokens est / actual | output tokens est / "
          "actual | judge wall s est / actual (run wall) |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        e, a = r["estimated"], r["actual"]
        print(f"| {r['case']} | {e['calls']} / {a['calls']} | {e['input_tokens']:,} / "
              f"{a['input_tokens']:,} | {e['output_tokens']:,} / {a['output_tokens']:,} | "
              f"{e['wall_s']:.1f} / {a['judge_wall_s']:.1f} ({a['wall_s']:.1f}) |")


if __name__ == "__main__":
    main()
