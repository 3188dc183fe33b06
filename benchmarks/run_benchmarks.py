"""Speed, cost and memory of the plugin, measured as ratios so a noisy machine does not matter.

    python benchmarks/run_benchmarks.py                 # the full run (about 12 minutes here)
    python benchmarks/run_benchmarks.py --answers 60    # a quick look

A loopback chat-completions server (``tests/chat_server.py``) with a fixed latency per reply
stands in for the provider; the suites under test are real pytest runs in subprocesses.
Results go to ``benchmarks/results/benchmarks.json`` and a table is printed.

1. judged suite: N answers x 5 claims, one ``assert_faithful`` per test, at concurrency 8
   and 32, single process and ``-n 2``: wall time / ideal time, where the ideal is the
   critical path of each answer (a decompose round trip, then ceil(5 / concurrency) verify
   round trips) times the answers, divided by the workers. Target <= 1.15.
2. cached suite: the same suite again, every verdict from the cache, / the same tests with
   the plugin disabled and ``assert_faithful`` replaced by a function returning stored
   results. Target <= 1.5, and litellm never imported.
3. collection: ``pytest --co -q`` of a 1,000-test suite with the plugin / with
   ``-p no:faithfulness`` (median of 7 alternating runs). Target <= 1.05.
4. tokens per answer for a 5-claim answer with about 900 tokens of passages, against the
   natural floor (the answer once, then 5 x (passages + claim)). Target overhead <= 25%.
5. peak memory (max RSS) of the judged suite's pytest process(es).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map
os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark-dummy")  # the loopback server ignores it
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the loopback server the tests use

from chat_server import Reply, ScriptedChatServer  # noqa: E402

from pytest_faithfulness.judges.prompts import DECOMPOSE_SYSTEM  # noqa: E402

MODEL = "openai/gpt-4o-mini"
CLAIMS_PER_ANSWER = 5
PASSAGE_SENTENCE = ("Store policy {i}.{j}: orders placed before 14:00 on a working day are "
                    "packed the same day and handed to the carrier, who delivers within two to "
                    "four working days to addresses on the mainland. ")


def make_answers(n: int) -> list[dict]:
    """n distinct answers of 5 claims, each with about 900 tokens of passages."""
    answers = []
    for i in range(n):
        facts = [f"Item {i}-{k} ships from warehouse {k} within {k + 1} days." for k in range(5)]
        filler = "".join(PASSAGE_SENTENCE.format(i=i, j=j) for j in range(24))
        passages = [{"id": f"p{k + 1}", "text": fact + " " + filler[k * 700:(k + 1) * 700]}
                    for k, fact in enumerate(facts)]
        answers.append({"answer": " ".join(facts), "passages": passages, "claims": facts})
    return answers


def handler_for(latency: float):
    def handler(request: dict) -> Reply:
        system, user = (m["content"] for m in request["messages"])
        if system == DECOMPOSE_SYSTEM:
            answer = json.loads(user.split("\n", 1)[1])
            claims = [s.strip() + "." for s in answer.split(".") if s.strip()]
            return Reply.json({"claims": claims, "dropped": []}, delay=latency)
        block, claim = user.split("\n", 1)[1].rsplit("\n\nCLAIM (JSON string):\n", 1)
        claim = json.loads(claim)
        for p in json.loads(block):
            if claim.rstrip(".") in p["text"]:
                return Reply.json({"label": "supported", "passage_ids": [p["id"]],
                                   "quote": claim.rstrip("."), "rationale": "stated"},
                                  delay=latency)
        return Reply.json({"label": "unsupported", "passage_ids": [], "quote": None},
                          delay=latency)
    return handler


SUITE = '''
import json, sys
from pathlib import Path
import pytest
ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text())

@pytest.mark.parametrize("i", range(len(ANSWERS)))
def test_answer(assert_faithful, i):
    case = ANSWERS[i]
    assert_faithful(case["answer"], case["passages"], min_score=1.0)
'''

PLUGIN_CONFTEST = '''
import sys
from pathlib import Path

def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        Path(__file__).with_name("litellm_imported.txt").write_text(str("litellm" in sys.modules))
'''

STORED_CONFTEST = '''
import json
from pathlib import Path
import pytest
from pytest_faithfulness.records import AnswerResult

STORED = {a["answer"]: a for a in json.loads(
    (Path(__file__).parent / "stored.json").read_text())["answers"]}

@pytest.fixture
def assert_faithful():
    def stored(answer, passages, *, min_score=None, max_unsupported=None):
        data = dict(STORED[answer])
        for key in ("score", "supported", "contradicted", "unsupported", "passed",
                    "threshold_failures"):
            data.pop(key, None)
        result = AnswerResult.model_validate(data)
        assert result.passed
        return result
    return stored
'''


def run(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, int, str]:
    """Run ``cmd``; return (wall seconds, peak RSS in MiB of it and its children, output)."""
    wrapper = textwrap.dedent('''
        import json, resource, subprocess, sys, time
        t = time.perf_counter()
        p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
        wall = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(json.dumps({"wall": wall, "rss": rss, "rc": p.returncode,
                          "out": (p.stdout + p.stderr)[-3000:]}))
    ''')
    proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **(env or {})})
    data = json.loads(proc.stdout)
    if data["rc"] not in (0,):
        raise RuntimeError(f"{' '.join(cmd)} exited {data['rc']}:\n{data['out']}")
    return data["wall"], data["rss"], data["out"]


def pytest_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
            *args]


def judged_suite(workdir: Path, answers: list[dict], server, concurrency: int, workers: int,
                 latency: float) -> dict:
    suite = workdir / f"judged_c{concurrency}_n{workers}"
    suite.mkdir()
    (suite / "answers.json").write_text(json.dumps(answers))
    (suite / "test_suite.py").write_text(SUITE)
    (suite / "conftest.py").write_text(PLUGIN_CONFTEST)
    args = ["--faithfulness-judge", MODEL, "--faithfulness-api-base", server.base_url,
            "--faithfulness-cache-dir", str(suite / "cache"), "--faithfulness-concurrency",
            str(concurrency), "--faithfulness-report", str(suite / "report.json")]
    if workers > 1:
        args += ["-n", str(workers)]
    before = len(server.requests)
    wall, rss, _ = run(pytest_cmd(*args), cwd=suite)
    calls = len(server.requests) - before
    per_answer = 1 + math.ceil(CLAIMS_PER_ANSWER / concurrency)
    ideal = len(answers) * per_answer * latency / workers
    return {"concurrency": concurrency, "workers": workers, "answers": len(answers),
            "wall_s": round(wall, 2), "ideal_s": round(ideal, 2),
            "ratio": round(wall / ideal, 3), "judge_requests": calls,
            "peak_rss_mib": round(rss, 1), "suite": suite, "args": args}


def cached_suite(first: dict) -> dict:
    suite: Path = first["suite"]
    cached_wall, _, _ = run(pytest_cmd(*[a for a in first["args"] if a not in ("-n", "2")]),
                            cwd=suite)
    imported = (suite / "litellm_imported.txt").read_text()
    stored_dir = suite.parent / "stored"
    stored_dir.mkdir()
    (stored_dir / "answers.json").write_text((suite / "answers.json").read_text())
    (stored_dir / "stored.json").write_text((suite / "report.json").read_text())
    (stored_dir / "test_suite.py").write_text(SUITE)
    (stored_dir / "conftest.py").write_text(STORED_CONFTEST)
    stored_wall, _, _ = run(pytest_cmd("-p", "no:faithfulness"), cwd=stored_dir)
    return {"cached_wall_s": round(cached_wall, 2), "stored_wall_s": round(stored_wall, 2),
            "ratio": round(cached_wall / stored_wall, 3),
            "litellm_imported": imported == "True"}


def collection(workdir: Path, repeats: int = 7) -> dict:
    suite = workdir / "collect"
    suite.mkdir()
    for k in range(10):
        (suite / f"test_mod{k}.py").write_text(
            "import pytest\n\n@pytest.mark.parametrize('i', range(100))\n"
            "def test_it(i):\n    assert i >= 0\n")
    with_plugin, without = [], []
    for _ in range(repeats):
        without.append(run(pytest_cmd("--co", "-p", "no:faithfulness"), cwd=suite)[0])
        with_plugin.append(run(pytest_cmd("--co"), cwd=suite)[0])
    a, b = statistics.median(with_plugin), statistics.median(without)
    return {"tests": 1000, "with_plugin_s": round(a, 3), "without_s": round(b, 3),
            "ratio": round(a / b, 3)}


def tokens_per_answer(server, latency: float) -> dict:
    import litellm

    from pytest_faithfulness import LiteLLMJudge, evaluate

    case = make_answers(1)[0]
    server.clear()
    result = evaluate(case["answer"], case["passages"], LiteLLMJudge(MODEL, api_base=server.base_url))
    assert result.status == "scored" and len(result.claims) == CLAIMS_PER_ANSWER
    sent = sum(litellm.token_counter(model="gpt-4o-mini", messages=r["messages"])
               for r in server.requests)
    count = lambda text: litellm.token_counter(model="gpt-4o-mini", text=text)  # noqa: E731
    passages = sum(count(p["text"]) for p in case["passages"])
    floor = count(case["answer"]) + sum(passages + count(c) for c in case["claims"])
    return {"passage_tokens": passages, "calls": len(server.requests), "input_tokens": sent,
            "floor_tokens": floor, "overhead_pct": round(100 * (sent - floor) / floor, 1),
            "reported_input_tokens": result.usage.input_tokens}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "benchmarks.json")
    args = parser.parse_args()
    answers = make_answers(args.answers)
    results: dict = {"answers": args.answers, "latency_s": args.latency, "machine": os.uname().machine,
                     "cpus": os.cpu_count(), "when": time.strftime("%Y-%m-%d %H:%M:%S")}
    # The stand-in provider shares this machine's 2 cores with the suite under test: it
    # estimates usage from characters instead of tokenising (item 4 counts real tokens).
    with ScriptedChatServer(handler_for(args.latency), count_tokens=False) as server, \
            tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        judged = []
        for concurrency in (8, 32):
            for workers in (1, 2):
                row = judged_suite(workdir, answers, server, concurrency, workers, args.latency)
                print(f"judged c={concurrency} n={workers}: {row['wall_s']} s "
                      f"(ideal {row['ideal_s']} s, ratio {row['ratio']})", flush=True)
                judged.append(row)
        results["cached"] = cached_suite(judged[0])
        print(f"cached: {results['cached']}", flush=True)
        for row in judged:
            row.pop("suite"), row.pop("args")
        results["judged"] = judged
        results["collection"] = collection(workdir)
        print(f"collection: {results['collection']}", flush=True)
        results["tokens"] = tokens_per_answer(server, args.latency)
        print(f"tokens: {results['tokens']}", flush=True)
    results["peak_rss_mib"] = max(r["peak_rss_mib"] for r in results["judged"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    print_table(results)


def print_table(r: dict) -> None:
    print("\n| measure | value | target |\n| --- | --- | --- |")
    for row in r["judged"]:
        print(f"| judged suite, {r['answers']} answers, concurrency {row['concurrency']}, "
              f"{'-n ' + str(row['workers']) if row['workers'] > 1 else 'single process'} | "
              f"{row['wall_s']} s / ideal {row['ideal_s']} s = **{row['ratio']}** | <= 1.15 |")
    c = r["cached"]
    print(f"| fully cached / stored results, plugin disabled | {c['cached_wall_s']} s / "
          f"{c['stored_wall_s']} s = **{c['ratio']}**; litellm imported: {c['litellm_imported']} "
          "| <= 1.5, no import |")
    k = r["collection"]
    print(f"| `pytest --co -q`, 1,000 tests, plugin / `-p no:faithfulness` | {k['with_plugin_s']} s "
          f"/ {k['without_s']} s = **{k['ratio']}** | <= 1.05 |")
    t = r["tokens"]
    print(f"| input tokens per 5-claim answer, {t['passage_tokens']} passage tokens | "
          f"{t['input_tokens']} vs floor {t['floor_tokens']}: **+{t['overhead_pct']}%** | <= 25% |")
    print(f"| peak memory (max RSS) of the judged suite | **{r['peak_rss_mib']} MiB** | - |")


if __name__ == "__main__":
    main()
