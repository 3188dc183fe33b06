"""Measure the offline verifiers on the development evaluation set (MEASUREMENT ONLY).

    python benchmarks/measure_offline_verifier.py [--data-dir ../shared/data] [--only calibrated|heuristic|embedding] [--json]

For the calibrated verifier (``judges.offline.calibrated``, the ``offline`` judge), the
``HeuristicVerifier`` and the model-based ``nli.EmbeddingVerifier`` it prints:

* claims (``claims.jsonl``): binary balanced accuracy, supported vs not supported (contradicted
  + unsupported), per source and overall; recall of ``contradicted`` (claims labelled
  contradicted that the verifier calls contradicted);
* answers (``answers.jsonl``): answer-level balanced accuracy, faithful vs hallucinated, per
  source and overall; an answer is predicted hallucinated when at least one of its claims is
  not supported (``pytest_faithfulness.evaluate`` with the ``RuleDecomposer`` and the verifier);
  an answer with no claims is predicted faithful;
* word overlap, the baseline: the share of the claim's (answer's) content words found in its
  passages, with the best single threshold chosen on each file itself (flattering it);
* the quote check's ceiling: how many claims (answers) have a best window that passes the
  quote check as ``supported``, and the balanced accuracy a verifier would reach supporting
  exactly the quotable positives;
* milliseconds per claim (sequential ``verify`` calls over ``claims.jsonl``, this process;
  wall clock and CPU time of all threads, the latter less sensitive to other load) and
  load time (imports + construction, measured in a fresh subprocess).

Nothing here is tuned: these files are for measurement only and must never feed training or
threshold choice.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_DATA = ROOT.parent / "shared" / "data"

LOAD_SNIPPETS = {
    "heuristic": "from pytest_faithfulness.judges.offline.heuristic import HeuristicVerifier as V; v = V()",
    "embedding": "from pytest_faithfulness.judges.offline.nli import EmbeddingVerifier as V; v = V()",
    "calibrated": ("from pytest_faithfulness.judges.offline.calibrated import CalibratedVerifier as V; "
                   "v = V()"),
}


CANDIDATES = None  # --candidates: windows scored per claim by the embedding verifier


def make_verifier(kind: str):
    if kind == "heuristic":
        from pytest_faithfulness.judges.offline.heuristic import HeuristicVerifier
        return HeuristicVerifier()
    if kind == "calibrated":
        from pytest_faithfulness.judges.offline.calibrated import CalibratedVerifier
        return CalibratedVerifier()
    from pytest_faithfulness.judges.offline.nli import EmbeddingVerifier
    return EmbeddingVerifier() if CANDIDATES is None else EmbeddingVerifier(candidates=CANDIDATES)


def load_time(kind: str) -> float:
    code = ("import time; t0 = time.perf_counter(); " + LOAD_SNIPPETS[kind] +
            "; print(time.perf_counter() - t0)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def bacc(pairs):
    """Balanced accuracy of (gold_positive, predicted_positive) pairs."""
    pos = [p for g, p in pairs if g]
    neg = [p for g, p in pairs if not g]
    if not pos or not neg:
        return float("nan")
    return 0.5 * (sum(pos) / len(pos) + sum(1 - p for p in neg) / len(neg))


def _recall(pairs, cls):
    hits = [p == cls for g, p in pairs if g == cls]
    return round(sum(hits) / len(hits), 4) if hits else None


def word_overlap(data_dir: Path) -> dict:
    """The baseline: share of the claim's (answer's) content words found anywhere in its
    passages, with ONE threshold per file chosen on the file itself (an oracle choice, which
    flatters the baseline), and the balanced accuracy that threshold gives per source."""
    from pytest_faithfulness.language.features import text_features
    out = {}
    for name, text_key, gold_key, positive in (("claims", "claim", "human_label", "supported"),
                                               ("answers", "answer", "human_label", "faithful")):
        rows = []
        lines = (data_dir / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        for line in filter(None, lines):
            rec = json.loads(line)
            cf = text_features(rec[text_key]).content
            pf = set()
            for p in rec["passages"]:
                pf |= text_features(p["text"], sentence_start_exempt=False).content
            share = len(cf & pf) / len(cf) if cf else 1.0
            rows.append((rec["source_dataset"], rec[gold_key] == positive, share))
        best = max(((bacc([(g, s >= t) for _, g, s in rows]), t)
                    for t in sorted({s for *_, s in rows})), key=lambda x: x[0])
        t = best[1]
        res = {"overall": round(best[0], 4), "threshold": round(t, 3)}
        for src in sorted({r[0] for r in rows}):
            res[src] = round(bacc([(g, s >= t) for r_src, g, s in rows if r_src == src]), 4)
        out[name] = res
    return out


def quote_ceiling(data_dir: Path) -> dict:
    """How far any verifier can go whose ``supported`` verdicts quote one window of the
    passages (the quote check, ``trust.quote_check.check_verdict``, applies to every judge): the
    share of claims (answers: all of their claims) whose best-aligned window
    (``judges.offline.window_features.best_window``) passes the check as a ``supported`` quote,
    per gold class, and the balanced accuracy a verifier would reach that supported exactly those quotable
    supported claims and nothing else (an upper bound for this window choice)."""
    from pytest_faithfulness.inputs import to_passages
    from pytest_faithfulness.judges.offline.calibrated import load_model
    from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer
    from pytest_faithfulness.judges.offline.window_features import best_window
    from pytest_faithfulness.records import Verdict
    from pytest_faithfulness.trust.quote_check import check_verdict

    model, idf = load_model()

    def quotable(claim, passages):
        al = best_window(claim, passages, idf, float(model["default_idf"]))
        verdict = Verdict("supported", passage_ids=[al.passage_id or "-"], quote=al.quote)
        return al.quote is not None and check_verdict(verdict, passages, claim)[1] is None

    decomposer = RuleDecomposer()
    out = {}
    for name, text_key, positive in (("claims", "claim", "supported"),
                                      ("answers", "answer", "faithful")):
        pos = neg = pos_ok = neg_ok = 0
        for line in filter(None, (data_dir / f"{name}.jsonl").read_text(
                encoding="utf-8").splitlines()):
            rec = json.loads(line)
            passages = to_passages(rec["passages"])
            texts = ([rec[text_key]] if name == "claims"
                     else decomposer.decompose(rec[text_key]).claims)
            ok = all(quotable(t, passages) for t in texts)
            if rec["human_label"] == positive:
                pos, pos_ok = pos + 1, pos_ok + ok
            else:
                neg, neg_ok = neg + 1, neg_ok + ok
        out[name] = {"positive_quotable": f"{pos_ok}/{pos}", "negative_quotable": f"{neg_ok}/{neg}",
                     "ceiling_balanced_accuracy": round(0.5 * (pos_ok / pos + 1.0), 4)}
    return out


class _Judge:
    """RuleDecomposer + the verifier under test."""

    def __init__(self, verifier):
        from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer
        self._decomposer = RuleDecomposer()
        self._verifier = verifier

    def decompose(self, answer):
        return self._decomposer.decompose(answer)

    def verify(self, claim, passages):
        return self._verifier.verify(claim, passages)


def measure(kind: str, data_dir: Path) -> dict:
    from pytest_faithfulness import evaluate
    from pytest_faithfulness.inputs import to_passages

    verifier = make_verifier(kind)
    claims = [json.loads(line) for line in open(data_dir / "claims.jsonl", encoding="utf-8")]
    answers = [json.loads(line) for line in open(data_dir / "answers.jsonl", encoding="utf-8")]

    from pytest_faithfulness.language.features import evidence_spans
    evidence_spans.cache_clear()  # each verifier pays for sentence segmentation itself
    per_source = defaultdict(list)
    contra = []
    confusion = defaultdict(int)  # (gold label, predicted label) -> count
    times = []
    elapsed = cpu = 0.0
    for rec in claims:
        passages = to_passages(rec["passages"])
        t0, c0 = time.perf_counter(), time.process_time()
        verdict = verifier.verify(rec["claim"], passages)
        times.append(time.perf_counter() - t0)
        elapsed += times[-1]
        cpu += time.process_time() - c0
        confusion[(rec["human_label"], verdict.label)] += 1
        gold = rec["human_label"] == "supported"
        pred = verdict.label == "supported"
        per_source[rec["source_dataset"]].append((gold, pred))
        per_source["overall"].append((gold, pred))
        if rec["human_label"] == "contradicted":
            contra.append(verdict.label == "contradicted")
    result = {"claims": {k: round(bacc(v), 4) for k, v in per_source.items()},
              "contradicted_recall": round(sum(contra) / len(contra), 4) if contra else None,
              "ms_per_claim": round(1000 * elapsed / len(claims), 2),
              "median_ms_per_claim": round(1000 * sorted(times)[len(times) // 2], 2),
              "confusion": {f"{g}->{p}": n for (g, p), n in sorted(confusion.items())},
              "supported_recall": _recall(per_source["overall"], True),
              "not_supported_recall": _recall(per_source["overall"], False),
              "cpu_ms_per_claim": round(1000 * cpu / len(claims), 2)}

    judge = _Judge(verifier)
    per_source = defaultdict(list)
    n_claims = 0
    t0 = time.perf_counter()
    for rec in answers:
        res = evaluate(rec["answer"], rec["passages"], judge)
        n_claims += len(res.claims)
        gold = rec["human_label"] == "faithful"
        pred = res.status != "error" and res.not_supported == 0
        per_source[rec["source_dataset"]].append((gold, pred))
        per_source["overall"].append((gold, pred))
    result["answers"] = {k: round(bacc(v), 4) for k, v in per_source.items()}
    result["faithful_recall"] = _recall(per_source["overall"], True)
    result["hallucinated_recall"] = _recall(per_source["overall"], False)
    result["answers_ms_per_claim"] = round(1000 * (time.perf_counter() - t0) / max(n_claims, 1), 2)
    result["load_s"] = round(load_time(kind), 3)
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description="Measure the offline verifiers (measurement only).")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--only", choices=sorted(LOAD_SNIPPETS))
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--candidates", type=int, help="windows per claim (embedding verifier)")
    args = ap.parse_args(argv)
    global CANDIDATES
    CANDIDATES = args.candidates
    kinds = [args.only] if args.only else ["calibrated", "heuristic", "embedding"]
    results = {kind: measure(kind, args.data_dir) for kind in kinds}
    overlap = word_overlap(args.data_dir)
    ceiling = quote_ceiling(args.data_dir)
    if args.json:
        print(json.dumps({"verifiers": results, "word_overlap": overlap,
                          "quote_ceiling": ceiling}, indent=1))
        return
    for name in ("claims", "answers"):
        c = ceiling[name]
        print(f"== quote check ceiling ({name}): best window passes as a supported quote for "
              f"{c['positive_quotable']} positives, {c['negative_quotable']} negatives; "
              f"balanced accuracy at most {c['ceiling_balanced_accuracy']:.3f}")
    for name in ("claims", "answers"):
        o = overlap[name]
        print(f"== word overlap ({name}, best single threshold {o['threshold']} chosen on the "
              "file itself): " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(o.items())
                                            if k != "threshold"))
    for kind, r in results.items():
        print(f"== {kind}")
        print("  claims  balanced acc (supported vs not): " +
              ", ".join(f"{k} {v:.3f}" for k, v in sorted(r["claims"].items())))
        print(f"  claims  contradicted recall: {r['contradicted_recall']:.3f}; recall supported "
              f"{r['supported_recall']:.3f}, not supported {r['not_supported_recall']:.3f}")
        print("  claims  confusion (gold->predicted): " +
              ", ".join(f"{k} {v}" for k, v in r["confusion"].items()))
        print(f"  answers recall faithful {r['faithful_recall']:.3f}, hallucinated "
              f"{r['hallucinated_recall']:.3f}")
        print("  answers balanced acc (faithful vs hallucinated): " +
              ", ".join(f"{k} {v:.3f}" for k, v in sorted(r["answers"].items())))
        print(f"  median ms per claim: {r['median_ms_per_claim']:.1f} wall")
        print(f"  ms per claim: {r['ms_per_claim']:.1f} wall / {r['cpu_ms_per_claim']:.1f} CPU "
              "(claims.jsonl, sequential, incl. sentence segmentation), "
              f"{r['answers_ms_per_claim']:.1f} (answers.jsonl, incl. decomposition)")
        print(f"  load time: {r['load_s']:.2f} s (fresh process: imports + construction)")


if __name__ == "__main__":
    main()
