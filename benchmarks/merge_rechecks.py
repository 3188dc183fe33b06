"""Both sides of the re-checks ``pytest-faithfulness merge`` applies to a saved run (MEASUREMENT).

    python benchmarks/merge_rechecks.py [--data-dir ../shared] [--judge offline] [--json]

Judges every answer of ``data/answers.jsonl`` and ``cases/cases.jsonl`` under ``--data-dir`` (the
pipeline's ``evaluate`` with the named judge, default the offline one), then:

* false alarms: the honest results held to merge's re-checks (``runs.merge.recheck_supported``,
  the quote check of every supported verdict; ``runs.merge.recheck_coverage``, the coverage of
  the answer by its claims): every flag is a false alarm;
* catches: each answer edited as in issue 21 item 6, its parts kept consistent, and held to the
  coverage re-check: (a) every claim that is not supported removed, (b) every claim removed and
  the status set to ``unscored``. An answer caught is one the re-check flags.

Nothing here changes a rule: it reports what the rules do.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


class _Session:
    """What the re-checks read of a merged session: its results."""

    def __init__(self, results):
        self.results = results


def _records(data_dir: Path) -> list[dict]:
    out = []
    for path in (data_dir / "data" / "answers.jsonl", data_dir / "cases" / "cases.jsonl"):
        if path.is_file():
            out += [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return out


def measure(data_dir: Path, judge_name: str) -> dict:
    from pytest_faithfulness.judges import make_judge
    from pytest_faithfulness.pipeline import evaluate
    from pytest_faithfulness.runs.merge import recheck_coverage, recheck_supported

    judge = make_judge(judge_name)
    results = [evaluate(r["answer"], r["passages"], judge) for r in _records(data_dir)]
    honest = [r.model_copy(deep=True) for r in results]
    false_supported = recheck_supported(_Session(honest))
    false_coverage = recheck_coverage(_Session(honest))
    tried = caught = emptied = emptied_caught = 0
    for result in results:
        if result.status != "scored":
            continue
        if any(c.label != "supported" for c in result.claims):
            edited = result.model_copy(deep=True)
            edited.claims = [c for c in edited.claims if c.label == "supported"]
            if not edited.claims:
                edited.status = "unscored"
            tried += 1
            caught += bool(recheck_coverage(_Session([edited])))
        edited = result.model_copy(deep=True)
        edited.claims, edited.status = [], "unscored"
        emptied += 1
        emptied_caught += bool(recheck_coverage(_Session([edited])))
    return {"answers": len(results), "judge": judge_name,
            "false_alarms": {"supported_quote": len(false_supported),
                             "coverage": len(false_coverage)},
            "failing_claims_removed": {"answers": tried, "caught": caught},
            "all_claims_removed_unscored": {"answers": emptied, "caught": emptied_caught}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared", type=Path)
    parser.add_argument("--judge", default="offline")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    found = measure(args.data_dir, args.judge)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    print(f"{found['answers']} answers, judge {found['judge']}")
    print(f"false alarms on honest results: {found['false_alarms']['supported_quote']} (quote "
          f"re-check), {found['false_alarms']['coverage']} (coverage re-check)")
    a, b = found["failing_claims_removed"], found["all_claims_removed_unscored"]
    print(f"every failing claim removed: {a['caught']} of {a['answers']} answers caught")
    print(f"every claim removed, status unscored: {b['caught']} of {b['answers']} caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
