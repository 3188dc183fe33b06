"""Does the coverage guard cry wolf? Every English answer and claim of the shared data
(``/work/shared/data``: the development set and the training files), held to the offline
judge's and the LLM judges' coverage (``judges.coverage``) as the pipeline holds an answer:
how many would be ``unverified``, and why; and the guard's time per answer (the profile and
the language identification; the identifier's import and model load counted apart).

Run: ``python benchmarks/coverage_guard.py`` (writes
``benchmarks/results/coverage_guard.json``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
from collections import Counter
from pathlib import Path

from pytest_faithfulness.inputs import to_passages
from pytest_faithfulness.judges.coverage import LLM_COVERAGE, OFFLINE_COVERAGE, uncovered
from pytest_faithfulness.language.content import identify_language, profile

DATA = Path("/work/shared/data")


def records() -> list[tuple[str, str, list]]:
    """``(file, text, passages)`` for every answer and claim of the shared data."""
    out = []
    files = [DATA / "answers.jsonl", DATA / "claims.jsonl",
             *sorted((DATA / "train").glob("*.jsonl")),
             *sorted((DATA / "train").glob("*.jsonl.gz"))]
    for path in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                text = row.get("answer") or row.get("claim")
                if isinstance(text, str) and text.strip():
                    out.append((path.name, text, row.get("passages") or []))
    return out


def main() -> None:
    """Count, time, print and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/results/coverage_guard.json")
    args = parser.parse_args()
    rows = records()
    start = time.perf_counter()
    identify_language("a first call loads the model")
    load_s = time.perf_counter() - start
    found = {}
    start = time.perf_counter()
    profiles = [profile(text) for _, text, _ in rows]
    per_answer_ms = (time.perf_counter() - start) / len(rows) * 1000
    for name, coverage in (("offline", OFFLINE_COVERAGE), ("llm", LLM_COVERAGE)):
        reasons: Counter[str] = Counter()
        examples = []
        for (file, text, passages), prof in zip(rows, profiles):
            reason = uncovered(text, to_passages(passages), coverage, None, found=prof)
            if reason is not None:
                reasons[reason.split(";")[0].split(" (")[0]] += 1
                examples.append({"file": file, "text": text[:200], "reason": reason})
        found[name] = {"unverified": len(examples), "reasons": dict(reasons),
                       "examples": examples[:20]}
    languages = Counter(p.language or "none (too short or not confident)" for p in profiles)
    kinds = Counter(k for p in profiles for k in p.kinds)
    result = {"records": len(rows), "identifier_load_s": round(load_s, 3),
              "guard_ms_per_answer": round(per_answer_ms, 3), "languages": dict(languages),
              "kinds": dict(kinds), "coverage": found}
    print(json.dumps({k: v for k, v in result.items()}, indent=1)[:3000])
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
