"""The judge canaries (issue 23): what they cost a run, and what the offline judge makes of the
example suite's.

    python benchmarks/canaries_cost.py                    # 400 answers, N = 20; about 2 minutes
    python benchmarks/canaries_cost.py --answers 100 --canaries 20 40

1. **Cost.** ``--answers`` answers of 5 claims with about 900 tokens of passages each (the
   suite of ``run_benchmarks.py``: ``make_answers``), judged by ``LiteLLMJudge`` through
   litellm's real client and the loopback chat-completions server of the tests
   (``tests/helpers/chat_server.py``, the careful stand-in of ``run_benchmarks.handler_for``,
   no latency), then the run's canaries built from those passages and judged by the same judge
   (``run.canaries.run_canaries``, what the plugin runs at the end of a session). Counted:
   judge calls and input/output tokens of the answers, and the canaries' extra calls and tokens,
   per run and as a share of the answers'. No cache: a CI run with a restored cache pays for
   the canaries once (they are keyed by passage content, see ``canaries``).
2. **The example suite with the offline judge** (the default judge, ``conftest_examples``): the
   canaries the plugin builds from its passages (the default 40, and more), judged by
   ``OfflineJudge``: recall and keep-rate with their Wilson 95% intervals, per kind, and the
   missed canaries. A smoke test, not a measurement: the offline judge's rules were fitted
   against the same mutant generator.

No timing is asserted anywhere. Results: ``benchmarks/results/canaries.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "helpers"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))

from chat_server import ScriptedChatServer  # noqa: E402
from run_benchmarks import MODEL, handler_for, make_answers  # noqa: E402

from pytest_faithfulness import LiteLLMJudge, evaluate_many  # noqa: E402
from pytest_faithfulness.records import Usage  # noqa: E402
from pytest_faithfulness.reports.canaries import canary_lines  # noqa: E402
from pytest_faithfulness.run.canaries import run_canaries  # noqa: E402


def cost(n_answers: int, sizes: list[int]) -> dict:
    """Calls and tokens of ``n_answers`` answers, and of the canaries for each N in ``sizes``."""
    answers = make_answers(n_answers)
    with ScriptedChatServer(handler_for(0.0)) as server:
        judge = LiteLLMJudge(MODEL, api_base=server.base_url, timeout=30)
        results = evaluate_many([(a["answer"], a["passages"]) for a in answers], judge,
                                concurrency=32)
        spent = Usage()
        for r in results:
            for name in type(spent).model_fields:
                setattr(spent, name, getattr(spent, name) + getattr(r.usage, name))
        rows = []
        for n in sizes:
            before = len(server.requests)
            report = run_canaries([a["passages"] for a in answers], n, judge, concurrency=32)
            assert report is not None
            u = report.usage
            rows.append({
                "canaries": n, "built": report.built, "calls": u.calls,
                "requests_seen_by_server": len(server.requests) - before,
                "input_tokens": u.input_tokens, "output_tokens": u.output_tokens,
                "calls_share_of_answers": round(u.calls / spent.calls, 4),
                "input_tokens_share_of_answers": round(u.input_tokens / spent.input_tokens, 4),
                "input_tokens_per_canary": round(u.input_tokens / max(1, u.calls), 1),
                "errors": report.errors,
            })
    return {"answers": n_answers, "claims_per_answer": 5,
            "answers_calls": spent.calls, "answers_input_tokens": spent.input_tokens,
            "answers_output_tokens": spent.output_tokens,
            "answers_scored": sum(r.status == "scored" for r in results),
            "canaries": rows}


def examples(sizes: list[int]) -> dict:
    """The example suite run as a user runs it (``pytest conftest_examples``, the default
    offline judge) with ``--faithfulness-canaries N`` for each N in ``sizes``: the plugin's
    own canary report (from the JSON report) and its exit status."""
    import os
    import subprocess
    import tempfile

    from pytest_faithfulness.canary_report import CanaryReport

    out = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_ADDOPTS", None)
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            report_path = Path(tmp) / "r.json"
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "conftest_examples", "-q", "-p",
                 "no:cacheprovider", "-p", "no:xdist", f"--faithfulness-canaries={n}",
                 f"--faithfulness-report={report_path}"],
                cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
            data = json.loads(report_path.read_text(encoding="utf-8"))
        report = CanaryReport.model_validate(data["canaries"])
        out[str(n)] = {"exit_status": done.returncode,
                       "gate_failures": data["gate"]["failures"],
                       "report": report.model_dump(mode="json"),
                       "lines": canary_lines(report)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=400)
    parser.add_argument("--canaries", type=int, nargs="+", default=[20, 40])
    parser.add_argument("--examples", type=int, nargs="+", default=[40, 200])
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "canaries.json"))
    args = parser.parse_args()
    found = {"cost": cost(args.answers, args.canaries), "examples": examples(args.examples)}
    Path(args.out).write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")
    c = found["cost"]
    print(f"{c['answers']} answers x 5 claims: {c['answers_calls']} judge calls, "
          f"{c['answers_input_tokens']} input / {c['answers_output_tokens']} output tokens")
    for row in c["canaries"]:
        print(f"  N={row['canaries']}: +{row['calls']} calls "
              f"({row['calls_share_of_answers']:.2%}), +{row['input_tokens']} input tokens "
              f"({row['input_tokens_share_of_answers']:.2%}), +{row['output_tokens']} output")
    for n, ex in found["examples"].items():
        print(f"example suite, offline judge, N={n}:")
        for line in ex["lines"]:
            print(f"  {line}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
