"""The README's worked example: what the intervals and the smallest detectable drop say for a
suite of 40 answers.

    python benchmarks/worked_example_40.py [--data ../shared/data/answers.jsonl]

The suite: the first 40 records of the development set's ``answers.jsonl`` (22 BEGIN dialogue
answers, 18 FaithBench summaries; 25 labelled faithful, 15 hallucinated), judged by the
offline judge (deterministic, so anyone gets the same figures). Printed: the terminal
summary's figures, and how many scored answers a paired comparison would need to detect a
drop of 0.02, 0.05 and 0.10 in each figure (alpha 0.05, power 0.8; ``runs.statistics``).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    found = [base / "shared/data/answers.jsonl" for base in (ROOT.parent, ROOT.parent.parent)]
    parser.add_argument("--data", type=Path,
                        default=next((p for p in found if p.exists()), found[0]))
    args = parser.parse_args()

    from pytest_faithfulness import evaluate
    from pytest_faithfulness.judges import OfflineJudge
    from pytest_faithfulness.runs.statistics import ALPHA, POWER, answer_figures, planning_sd
    from pytest_faithfulness.reports.terminal import outcome_lines
    from pytest_faithfulness.run.finish import new_outcome
    from pytest_faithfulness.run.gate import GateConfig
    from pytest_faithfulness.run.results import ResultStore
    from statistics import NormalDist

    with args.data.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line, _ in zip(fh, range(40))]
    store, judge = ResultStore(), OfflineJudge()
    for row in rows:
        result = evaluate(row["answer"], row["passages"], judge)
        result.test_id = row["id"]
        store.record(result, judge)
    print("\n".join(line for line in outcome_lines(new_outcome(store, GateConfig())) if line.strip())
          .split("\nanswers with claims that are not supported")[0])
    z = NormalDist().inv_cdf(1 - ALPHA / 2) + NormalDist().inv_cdf(POWER)
    for name, values in zip(("mean faithfulness", "answers with a claim not supported"),
                            answer_figures(store.results)):
        sd = planning_sd(values)
        needed = {d: math.ceil((z * math.sqrt(2) * sd / d) ** 2) for d in (0.02, 0.05, 0.10)}
        print(f"{name}: scored answers needed to detect a drop of "
              + ", ".join(f"{d:g}: {n}" for d, n in needed.items()))


if __name__ == "__main__":
    main()
