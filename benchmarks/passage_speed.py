"""Seconds per MB of passages for a one-claim answer with the offline judge.

    python benchmarks/passage_speed.py                      # 1, 5 and 10 MB, three answers
    python benchmarks/passage_speed.py --src DIR --answers 1  # another tree, first answer

What is timed: ``pytest_faithfulness.evaluate(answer, passages, make_judge("offline"))`` for a
one-claim answer against N MB of passages (N x 10**6 characters), each (size, answer) in a
fresh subprocess so no cache carries over; imports and building the passage list are not
timed. Wall and CPU seconds (``time.process_time``, less sensitive to other load on the
machine) are divided by the megabytes. Target: about 1 s/MB on 2 cores.

The passages are real retrieved text: every distinct passage of the evaluation data
(``answers.jsonl``, ``claims.jsonl`` and ``train/*.jsonl[.gz]`` under ``--data-dir``: web
pages, news, dialogue knowledge; about 6.5 MB in all) in file order, one passage per record
passage, repeated with a ``Copy k.`` prefix once they run out. The answers (one claim each)
range from rare words to words found on most news pages; the result is the same verdict
whatever the speed (checked: the verdicts are written to the results file).

Results: ``benchmarks/results/passage_speed.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANSWERS = (
    "The Eiffel Tower was completed in 1889.",
    "The company said its revenue rose 12 percent in 2019.",
    "The film was released in the United States in 2015.",
)


def default_data_dir() -> Path:
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared" / "data" / "claims.jsonl").exists():
            return base / "shared" / "data"
    return ROOT.parent / "shared" / "data"


def build_passages(data_dir: Path, megabytes: float) -> list[dict]:
    """Passages totalling at least ``megabytes`` x 10**6 characters (see the docstring)."""
    files = [data_dir / "claims.jsonl", data_dir / "answers.jsonl",
             *sorted((data_dir / "train").glob("*.jsonl*"))]
    texts, seen = [], set()
    for path in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                for passage in json.loads(line).get("passages", []):
                    if passage["text"] not in seen:
                        seen.add(passage["text"])
                        texts.append(passage["text"])
    passages, chars, k = [], 0, 0
    while chars < megabytes * 1e6:
        text = texts[k % len(texts)]
        if k >= len(texts):
            text = f"Copy {k // len(texts)}. {text}"
        passages.append({"id": f"p{k}", "text": text})
        chars += len(text)
        k += 1
    return passages


def measure_one(data_dir: Path, megabytes: float, answer: str) -> dict:
    """Runs in the child process: one timed ``evaluate`` call."""
    import time

    from pytest_faithfulness import evaluate
    from pytest_faithfulness.judges import make_judge

    passages = build_passages(data_dir, megabytes)
    chars = sum(len(p["text"]) for p in passages)
    judge = make_judge("offline")
    t0, c0 = time.perf_counter(), time.process_time()
    result = evaluate(answer, passages, judge)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    mb = chars / 1e6
    return {"answer": answer, "megabytes": round(mb, 3), "passages": len(passages),
            "claims": len(result.claims), "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
            "wall_s_per_mb": round(wall / mb, 3), "cpu_s_per_mb": round(cpu / mb, 3),
            "verdicts": [[c.verdict.label, c.verdict.passage_ids] for c in result.claims]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 10], help="megabytes")
    ap.add_argument("--data-dir", type=Path, default=default_data_dir())
    ap.add_argument("--src", type=Path, default=ROOT,
                    help="tree whose pytest_faithfulness is measured (default: this one)")
    ap.add_argument("--out", type=Path,
                    default=ROOT / "benchmarks" / "results" / "passage_speed.json")
    ap.add_argument("--answers", type=int, default=len(ANSWERS), help="the first N answers")
    ap.add_argument("--child", nargs=2, metavar=("MB", "ANSWER"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(measure_one(args.data_dir, float(args.child[0]), args.child[1])))
        return
    runs = []
    for size in args.sizes:
        for answer in ANSWERS[:args.answers]:
            out = subprocess.run(
                [sys.executable, __file__, "--data-dir", str(args.data_dir),
                 "--child", str(size), answer],
                cwd=args.src, env={**os.environ, "PYTHONPATH": str(args.src.resolve())},
                capture_output=True, text=True, check=True)
            run = json.loads(out.stdout.strip().splitlines()[-1])
            runs.append(run)
            print(f"{run['megabytes']:6.2f} MB  {run['wall_s_per_mb']:6.2f} s/MB wall  "
                  f"{run['cpu_s_per_mb']:6.2f} s/MB CPU  {run['verdicts']}  {answer}", flush=True)
    report = {"src": str(args.src.resolve()), "python": platform.python_version(),
              "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
              "target_s_per_mb": 1.0,
              "max_wall_s_per_mb": max(r["wall_s_per_mb"] for r in runs),
              "max_cpu_s_per_mb": max(r["cpu_s_per_mb"] for r in runs), "runs": runs}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"max {report['max_wall_s_per_mb']:.2f} s/MB wall, {report['max_cpu_s_per_mb']:.2f} "
          f"s/MB CPU (target about {report['target_s_per_mb']}); written to {args.out}")


if __name__ == "__main__":
    main()
