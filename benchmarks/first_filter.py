"""The first filter's benchmark (issue 24, part 1): what ``trust.first_filter.settle`` settles
without a judge call, whether it ever settles what it must not, and the calls it saves.

Usage::

    python benchmarks/first_filter.py [--data-dir ../shared/data] [--json PATH]

Figures (denominators printed beside them):

(a) **development data.** ``claims.jsonl``: each claim against all its passages; per source
    (``factcheck_gpt``: one retrieved evidence snippet, RAG-style; ``wice``: the whole cited
    web page in chunks, not RAG-style) and gold label, how many are settled; every settled
    claim whose gold label is not ``supported`` is listed (target 0); the share of
    ``supported`` claims settled per source. ``answers.jsonl``: each answer decomposed by the
    offline decomposer and run through ``evaluate()`` with the filter on in front of a judge
    that only counts its calls; per source (``begin``: knowledge-grounded dialogue over a
    retrieved Wikipedia snippet, RAG-style; ``faithbench``: summaries) and answer label, the
    claims settled of the claims judged; every settled claim of a ``hallucinated`` answer is
    listed with its evidence sentence (to be read: is it stated in the snippet?).
(b) **lying-judge perturbations.** For every claim the filter settles in (a) and every
    in-denominator claim of ``benchmarks/evidence_gold.jsonl`` (loaded as
    ``evidence_check.load_gold`` does), every mutant ``mutants.mutate`` builds (number, unit,
    negation, negation_in_word, antonym, foreign_name, swap, quantifier, appended_clause),
    with the claim's passages: how many the filter settles, per kind (target 0; each listed).
    Also how many evidence-gold claims themselves are settled.
(c) **written swaps.** ``SWAPS``: attribute-binding, role, date, bound and quantifier swaps
    written for this benchmark, each a claim that its sentence does not support: how many are
    settled (target 0); and ``STATED``: their true twins, how many are settled.
(d) **calls saved.** The example suite (``conftest_examples/records.jsonl``, answers and claim
    records) and the loopback benchmark's answers (``run_benchmarks.make_answers``: 5 claims
    each, every claim a passage sentence) judged by ``LiteLLMJudge`` against the loopback
    chat-completions server (``run_benchmarks.handler_for``: the stand-in decomposer returns
    the answer's sentences), filter off then on: calls per answer and input/output tokens per
    answer as the server and litellm count them, beside the seed's 6 calls per 5-claim answer.
    And the example suite's answers decomposed by the offline decomposer: calls per answer
    (1 decompose + the claims not settled), filter off and on.

A table goes to stdout (with the text of every listed claim) and JSON to
``benchmarks/results/first_filter.json`` (ids, kinds and counts only: no text of the data).
One core, about a minute.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from evidence_check import load_gold, passages_of  # noqa: E402
from make_evidence_gold import default_data_dir  # noqa: E402

from pytest_faithfulness import evaluate  # noqa: E402
from pytest_faithfulness.judges.first_filter import is_settled, with_first_filter  # noqa: E402
from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer  # noqa: E402
from pytest_faithfulness.mutants import mutate, names_in  # noqa: E402
from pytest_faithfulness.records import Passage, Verdict  # noqa: E402
from pytest_faithfulness.trust.first_filter import settle  # noqa: E402

#: (claim, sentence): the sentence does NOT support the claim. Attribute binding, roles,
#: dates bound to events, bounds and quantifiers: one list, shared with the unit tests.
SWAPS: list[tuple[str, str]] = [
    (row["claim"], row["sentence"]) for row in json.loads(
        (ROOT / "tests" / "unit" / "trust" / "first_filter_swaps.json").read_text(
            encoding="utf-8"))["swaps"]]

#: (claim, sentence): the sentence states the claim; the filter may settle these.
STATED: list[tuple[str, str]] = [
    ("The Basic plan costs $20 per month.", "The Pro plan costs $10 per month, and the Basic "
                                            "plan costs $20 per month."),
    ("Acme acquired Globex in 2019.", "Acme acquired Globex in 2019."),
    ("Acme acquired Globex in 2019.", "In 2019, Acme acquired Globex."),
    ("Acme acquired Globex.", "In 2019, Acme acquired Globex."),
    ("Brazil beat Germany 7-1 in the semi-final.", "Brazil beat Germany 7-1 in the semi-final."),
    ("The bridge opened in 1937.", "The tunnel opened in 1932; the bridge opened in 1937."),
    ("Refunds are issued within 14 days.", "Refunds are issued within 14 days."),
    ("Marie Curie won the Nobel Prize in Physics in 1903.",
     "Marie Curie won the Nobel Prize in Physics in 1903, and she won the Nobel Prize in "
     "Chemistry in 1911."),
]


def _read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


class CountingJudge:
    """Decomposes with the offline decomposer; every verify is counted and answered
    ``unsupported`` (a verdict the filter never gives)."""

    cacheable = True
    runs_inline = True
    accounts_usage = False

    def __init__(self) -> None:
        self.decomposer = RuleDecomposer()
        self.verifies = 0

    def decompose(self, answer: str) -> Any:
        return self.decomposer.decompose(answer)

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        self.verifies += 1
        return Verdict(label="unsupported", rationale="counted")


def _p(rec: dict) -> list[Passage]:
    return [Passage(id=p["id"], text=p["text"], title=p.get("title")) for p in rec["passages"]]


def _evidence(v: Verdict) -> str:
    return v.evidence[0].quote if v.evidence else ""


def dev_claims(data_dir: Path) -> tuple[dict, list[tuple[str, list[Passage], str]]]:
    """(a) claims.jsonl: settled per source and label; false settles listed."""
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    false_settles, settled = [], []
    for rec in _read(data_dir / "claims.jsonl"):
        passages = _p(rec)
        v = settle(rec["claim"], passages)
        key = f"{rec['source_dataset']}/{rec['human_label']}"
        per[key][1] += 1
        per[key][0] += v is not None
        if v is not None:
            settled.append((rec["claim"], passages, rec["id"]))
            if rec["human_label"] != "supported":
                false_settles.append({"id": rec["id"], "claim": rec["claim"],
                                      "label": rec["human_label"], "evidence": _evidence(v)})
    return ({"settled": {k: {"settled": s, "of": n} for k, (s, n) in sorted(per.items())},
             "false_settles": false_settles}, settled)


def dev_answers(data_dir: Path) -> tuple[dict, list[tuple[str, list[Passage], str]]]:
    """(a) answers.jsonl through evaluate() with the offline decomposer, filter on."""
    judge = CountingJudge()
    filtered = with_first_filter(judge, "on")
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    listed, settled = [], []
    for rec in _read(data_dir / "answers.jsonl"):
        passages = _p(rec)
        result = evaluate(rec["answer"], passages, filtered)
        key = f"{rec['source_dataset']}/{rec['human_label']}"
        per[key][2] += 1
        for c in result.claims:
            per[key][1] += 1
            if is_settled(c.verdict):
                per[key][0] += 1
                settled.append((c.text, passages, rec["id"]))
                if rec["human_label"] != "faithful":
                    listed.append({"id": rec["id"], "claim": c.text,
                                   "evidence": _evidence(c.verdict), "answer": rec["answer"]})
    return ({"settled": {k: {"settled": s, "of_claims": n, "answers": a}
                         for k, (s, n, a) in sorted(per.items())},
             "settled_in_hallucinated_answers": listed}, settled)


def perturbations(settled: list[tuple[str, list[Passage], str]], data_dir: Path) -> dict:
    """(b) every mutant of every settled claim and of every evidence-gold claim."""
    rows, records = load_gold(data_dir, ROOT / "benchmarks" / "evidence_gold.jsonl")
    gold = [(r["claim"], passages_of(records[(r["record_file"], r["record_id"])]), r["id"])
            for r in rows if r["in_denominator"]]
    gold_settled = sum(1 for claim, passages, _ in gold if settle(claim, passages) is not None)
    out: dict[str, Any] = {"evidence_gold_claims": len(gold),
                           "evidence_gold_settled": gold_settled}
    for name, claims in (("settled_dev_claims", settled), ("evidence_gold", gold)):
        per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        wrong = []
        names = [names_in(c) for c, _, _ in claims]
        for i, (claim, passages, rid) in enumerate(claims):
            other = next((names[(i + j) % len(claims)] for j in range(1, len(claims))
                          if names[(i + j) % len(claims)]), [])
            for m in mutate(claim, passages, other_names=other):
                if not m.built:
                    continue
                per[m.kind][1] += 1
                v = settle(m.claim, passages)
                if v is not None:
                    per[m.kind][0] += 1
                    wrong.append({"id": rid, "kind": m.kind, "claim": claim,
                                  "mutant": m.claim, "evidence": _evidence(v)})
        out[name] = {"claims": len(claims),
                     "settled_mutants": {k: {"settled": s, "of": n}
                                         for k, (s, n) in sorted(per.items())},
                     "listed": wrong}
    return out


def swaps() -> dict:
    """(c) the written swaps (never settled) and their true twins."""
    wrong = [{"claim": c, "sentence": s} for c, s in SWAPS
             if settle(c, [Passage(id="p1", text=s)]) is not None]
    stated = sum(settle(c, [Passage(id="p1", text=s)]) is not None for c, s in STATED)
    return {"swaps": len(SWAPS), "swaps_settled": len(wrong), "listed": wrong,
            "stated": len(STATED), "stated_settled": stated}


def offline_calls(records: list[dict]) -> dict:
    """(d) the example suite's answers (and claim records, judged as one-claim answers, as
    the suite does), offline decomposer: calls per answer off and on."""
    out = {}
    for mode in ("off", "on"):
        judge = CountingJudge()
        answers = records
        claims = 0
        for rec in answers:
            result = evaluate(rec["answer"], _p(rec), with_first_filter(judge, mode))
            claims += len(result.claims)
        out[mode] = {"answers": len(answers), "claims": claims, "verify_calls": judge.verifies,
                     "calls_per_answer": round((len(answers) + judge.verifies) / len(answers), 3)}
    return out


def loopback_calls(cases: list[tuple[str, list[dict]]]) -> dict:
    """(d) ``LiteLLMJudge`` against the loopback server, filter off then on: calls and tokens
    per answer."""
    from run_benchmarks import MODEL, ScriptedChatServer, handler_for

    from pytest_faithfulness import LiteLLMJudge

    out = {}
    with ScriptedChatServer(handler_for(0.0)) as server:
        for mode in ("off", "on"):
            judge = with_first_filter(LiteLLMJudge(MODEL, api_base=server.base_url), mode)
            calls = inp = outp = claims = settled = 0
            statuses: collections.Counter[str] = collections.Counter()
            for answer, passages in cases:
                r = evaluate(answer, passages, judge)
                statuses[r.status] += 1
                calls += r.usage.calls
                inp += r.usage.input_tokens
                outp += r.usage.output_tokens
                claims += len(r.claims)
                settled += sum(is_settled(c.verdict) for c in r.claims)
            n = len(cases)
            out[mode] = {"answers": n, "claims": claims, "settled": settled,
                         "statuses": dict(statuses), "calls_per_answer": round(calls / n, 3),
                         "input_tokens_per_answer": round(inp / n, 1),
                         "output_tokens_per_answer": round(outp / n, 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" /
                        "first_filter.json")
    args = parser.parse_args()
    data_dir = args.data_dir or default_data_dir(ROOT)
    results: dict[str, Any] = {}
    results["claims"], settled_claims = dev_claims(data_dir)
    results["answers"], settled_answers = dev_answers(data_dir)
    results["perturbations"] = perturbations(settled_claims + settled_answers, data_dir)
    results["swaps"] = swaps()
    examples = _read(ROOT / "conftest_examples" / "records.jsonl")
    results["example_suite_offline_decomposer"] = offline_calls(examples)
    from run_benchmarks import make_answers

    results["example_suite_loopback"] = loopback_calls(
        [(r["answer"], r["passages"]) for r in examples])
    results["loopback_benchmark"] = loopback_calls(
        [(a["answer"], a["passages"]) for a in make_answers(50)])
    _print(results)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(_ids_only(results), indent=2, ensure_ascii=False) + "\n")


#: Keys that hold text of the data: printed, never written to the results file.
_TEXT_KEYS = frozenset({"claim", "evidence", "answer", "mutant"})


def _ids_only(value: Any) -> Any:
    """``value`` without the data's text (ids, kinds and counts only), as evidence_check.py
    writes its results; the written swaps are this script's own and kept."""
    if isinstance(value, dict):
        keep = "sentence" in value  # a written swap: ours
        return {k: _ids_only(v) for k, v in value.items() if keep or k not in _TEXT_KEYS}
    if isinstance(value, list):
        return [_ids_only(v) for v in value]
    return value


def _print(r: dict) -> None:
    print("(a) claims.jsonl: settled / claims, per source and gold label")
    for k, v in r["claims"]["settled"].items():
        print(f"    {k:28} {v['settled']:4} / {v['of']}")
    print(f"    settled, gold not supported: {len(r['claims']['false_settles'])}")
    for row in r["claims"]["false_settles"]:
        print(f"      {row['id']} [{row['label']}] {row['claim']!r}")
    print("(a) answers.jsonl (offline decomposer): settled / claims (answers)")
    for k, v in r["answers"]["settled"].items():
        print(f"    {k:28} {v['settled']:4} / {v['of_claims']} ({v['answers']} answers)")
    for row in r["answers"]["settled_in_hallucinated_answers"]:
        print(f"      {row['id']}: {row['claim']!r} <- {row['evidence']!r}")
    p = r["perturbations"]
    print(f"(b) evidence-gold claims settled: {p['evidence_gold_settled']} / "
          f"{p['evidence_gold_claims']}")
    for name in ("settled_dev_claims", "evidence_gold"):
        total = sum(v["settled"] for v in p[name]["settled_mutants"].values())
        of = sum(v["of"] for v in p[name]["settled_mutants"].values())
        print(f"    mutants of {name} ({p[name]['claims']} claims): settled {total} / {of}")
        for k, v in p[name]["settled_mutants"].items():
            print(f"      {k:18} {v['settled']} / {v['of']}")
        for row in p[name]["listed"]:
            print(f"      SETTLED {row['kind']}: {row['mutant']!r} <- {row['evidence']!r}")
    s = r["swaps"]
    print(f"(c) written swaps settled: {s['swaps_settled']} / {s['swaps']} (target 0); "
          f"true twins settled: {s['stated_settled']} / {s['stated']}")
    for row in s["listed"]:
        print(f"      SETTLED {row['claim']!r} <- {row['sentence']!r}")
    print("(d) calls per answer (seed: 6 per 5-claim answer)")
    for name in ("example_suite_offline_decomposer", "example_suite_loopback",
                 "loopback_benchmark"):
        for mode, v in r[name].items():
            extra = (f", input tokens/answer {v['input_tokens_per_answer']}, output "
                     f"{v['output_tokens_per_answer']}" if "input_tokens_per_answer" in v else "")
            print(f"    {name:34} filter {mode:3}: {v['calls_per_answer']} calls/answer "
                  f"({v['answers']} answers, {v['claims']} claims){extra}")


if __name__ == "__main__":
    main()
