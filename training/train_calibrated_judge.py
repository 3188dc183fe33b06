"""Train the calibrated offline judge (``pytest_faithfulness.judges.offline.calibrated``).

    python training/train_calibrated_judge.py [--data-dir ../shared/data] [--nli 6000]

Writes ``pytest_faithfulness/models/calibrated.json`` (weights, thresholds, dev figures) and
``pytest_faithfulness/models/idf.json.gz`` (inverse document frequency of content words,
counted over the sentences of the training passages). numpy is needed here only; the judge
itself runs in pure Python.

Data (training only; see the READMEs in ``--data-dir``):

* ``train/*_claims.jsonl[.gz]``: claims against document-level passages (WiCE train
  sub-claims, SummEdits, BUMP, DialFact, FactCG; FactCG is machine-labelled, weight 0.5);
* ``train/*_answers.jsonl``: answers, decomposed by the ``RuleDecomposer`` as at run time.
  Every claim of a faithful answer is a supported example; the one claim of a hallucinated
  single-claim answer is a not-supported example; answers count whole for the threshold;
* ``nli/*``: a seeded sample of ``--nli`` sentence pairs (entailment = supported).

``claims.jsonl`` and ``answers.jsonl`` of ``--data-dir`` (the evaluation files) are never read.

Split: a seeded hash of each record's passages sends 20% of the groups to a held-out split.
The support threshold maximises, on that split, the mean balanced accuracy over its sources
(claim-level for claim files and NLI, answer-level for answer files), counting a supported
verdict only when no hard rule vetoes it (``judges.offline.calibrated.vetoes``) and its quote passes
``trust.quote_check.check_verdict``, as at run time. The contradiction model is
fitted on the not-supported examples of the sources that label contradiction.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import pickle
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_faithfulness.inputs import to_passages
from pytest_faithfulness.judges.offline.calibrated import vetoes
from pytest_faithfulness.judges.offline.decomposer import RuleDecomposer
from pytest_faithfulness.judges.offline.window_features import (
    FEATURE_NAMES,
    best_window,
)
from pytest_faithfulness.language.features import text_features
from pytest_faithfulness.language.text import passage_sentence_spans
from pytest_faithfulness.records import Verdict
from pytest_faithfulness.trust.quote_check import check_verdict

SEED = 20261201
MODELS = ROOT / "pytest_faithfulness" / "models"
DEFAULT_DATA = ROOT.parent / "shared" / "data"
CONTRA_SOURCES = {"bump", "dialfact", "snli", "mnli", "mnli_dev_annotator2", "fever"}


def _open(path: Path):
    return gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(
        path, encoding="utf-8")


def _group(passages) -> bool:
    h = hashlib.sha256(("\n".join(p["text"] for p in passages)).encode()).digest()
    return h[0] < 52  # about 20% held out


def load(data_dir: Path, n_nli: int):
    rng = random.Random(SEED)
    claims, answers = [], []
    for path in sorted((data_dir / "train").glob("*_claims.jsonl*")):
        src = path.name.split("_")[0]
        for line in _open(path):
            r = json.loads(line)
            claims.append({"claim": r["claim"], "passages": r["passages"], "label": r["label"],
                           "source": src})
    for path in sorted((data_dir / "train").glob("*_answers.jsonl*")):
        src = path.name.split("_")[0]
        for line in _open(path):
            r = json.loads(line)
            answers.append({"answer": r["answer"], "passages": r["passages"],
                            "label": r["label"], "source": src})
    nli = []
    for path in sorted((data_dir / "nli").glob("*.jsonl*")):
        src = path.name.split(".")[0]
        for line in _open(path):
            r = json.loads(line)
            nli.append(r | {"file": src})
    rng.shuffle(nli)
    for r in nli[:n_nli]:
        label = {"entailment": "supported", "contradiction": "contradicted"}.get(
            r["label"], "unsupported")
        claims.append({"claim": r["hypothesis"], "passages": [{"id": "p1", "text": r["premise"]}],
                       "label": label, "source": "nli-" + r["file"]})
    return claims, answers


def idf_table(claims, answers):
    df: Counter[str] = Counter()
    seen = set()
    n = 0
    for rec in claims + answers:
        for p in rec["passages"]:
            key = hash(p["text"])
            if key in seen:
                continue
            seen.add(key)
            text = p["text"]
            for s, e in passage_sentence_spans(text):
                df.update(text_features(text[s:e], sentence_start_exempt=False).content)
                n += 1
    default = math.log((n + 1) / 1) + 1
    idf = {w: round(math.log((n + 1) / (c + 1)) + 1, 2) for w, c in df.items() if c >= 3}
    return idf, round(default, 2), n


def featurize(rec_claim, passages, idf, default):
    ps = to_passages(passages)
    al = best_window(rec_claim, ps, idf, default)
    ok = False
    if al.quote is not None and vetoes(al) is None:
        v = Verdict("supported", passage_ids=[al.passage_id], quote=al.quote)
        ok = check_verdict(v, ps, rec_claim)[1] is None
    return al.features, ok


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def fit_lr(X, y, w, l2=1e-2, iters=400):
    """Weighted, L2-regularised logistic regression by Newton's method; X standardised."""
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
    beta = np.zeros(Z.shape[1])
    reg = l2 * np.eye(Z.shape[1])
    reg[0, 0] = 0
    for _ in range(iters):
        p = sigmoid(Z @ beta)
        g = Z.T @ (w * (p - y)) + reg @ beta
        H = (Z * (w * p * (1 - p))[:, None]).T @ Z + reg
        step = np.linalg.solve(H, g)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta, mu, sd


def predict(beta, mu, sd, X):
    return sigmoid(beta[0] + ((X - mu) / sd) @ beta[1:])


def bacc(gold, pred):
    gold, pred = np.asarray(gold, bool), np.asarray(pred, bool)
    if gold.all() or (~gold).all():
        return float("nan")
    return 0.5 * (pred[gold].mean() + (~pred[~gold]).mean())


def balanced_weights(rows):
    """Each source weighs the same in total (FactCG half, all NLI together one), and within a
    source the two classes weigh the same."""
    w = np.zeros(len(rows))
    by = defaultdict(list)
    for i, r in enumerate(rows):
        by[(r["source"].split("-")[0], r["y"])].append(i)
    for (src, _), idx in by.items():
        share = 0.5 if src == "factcg" else 1.0
        w[idx] = share / len(idx)
    return w * len(rows) / w.sum()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--nli", type=int, default=6000, help="NLI pairs sampled (seeded)")
    ap.add_argument("--reuse-features", action="store_true",
                    help="reuse training/.cache's features (only after no feature changed)")
    args = ap.parse_args(argv)
    t0 = time.time()
    claims, answers = load(args.data_dir, args.nli)
    print(f"{len(claims)} claims, {len(answers)} answers", flush=True)
    idf, default, n_sent = idf_table(claims, answers)
    print(f"idf: {len(idf)} words from {n_sent} sentences ({time.time() - t0:.0f} s)", flush=True)

    cache = ROOT / "training" / ".cache" / f"calibrated-rows-{args.nli}.pkl"
    if args.reuse_features and cache.exists():
        rows, answer_rows = pickle.loads(cache.read_bytes())
    else:
        rows, answer_rows = build_rows(claims, answers, idf, default, t0)
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(pickle.dumps((rows, answer_rows)))
    print(f"features done ({time.time() - t0:.0f} s)", flush=True)
    fit_and_save(args, claims, answers, idf, default, rows, answer_rows, t0)


def build_rows(claims, answers, idf, default, t0):
    rows = []
    for i, rec in enumerate(claims):
        x, ok = featurize(rec["claim"], rec["passages"], idf, default)
        rows.append({"x": x, "ok": ok, "y": rec["label"] == "supported",
                     "contra": rec["label"] == "contradicted", "source": rec["source"],
                     "held": _group(rec["passages"]), "answer": None})
        if i % 2000 == 0:
            print(f"  claims {i} ({time.time() - t0:.0f} s)", flush=True)
    decomposer = RuleDecomposer()
    answer_rows = []
    for a_i, rec in enumerate(answers):
        held = _group(rec["passages"])
        parts = decomposer.decompose(rec["answer"]).claims
        faithful = rec["label"] == "faithful"
        idx = []
        for c in parts:
            x, ok = featurize(c, rec["passages"], idf, default)
            fit = faithful or len(parts) == 1
            rows.append({"x": x, "ok": ok, "y": faithful, "contra": False,
                         "source": rec["source"], "held": held, "answer": a_i, "fit": fit})
            idx.append(len(rows) - 1)
        answer_rows.append({"rows": idx, "y": faithful, "source": rec["source"], "held": held})
    return rows, answer_rows


def fit_and_save(args, claims, answers, idf, default, rows, answer_rows, t0):

    X = np.array([r["x"] for r in rows], float)
    y = np.array([r["y"] for r in rows], float)
    ok = np.array([r["ok"] for r in rows], bool)
    held = np.array([r["held"] for r in rows], bool)
    fit = np.array([r.get("fit", True) for r in rows], bool)
    train = ~held & fit
    w = balanced_weights([r for r, t in zip(rows, train) if t])
    beta, mu, sd = fit_lr(X[train], y[train], w)
    p = predict(beta, mu, sd, X)

    def split_scores(t, mask_held=True):
        scores = {}
        sel = held if mask_held else ~held
        for src in sorted({r["source"] for r in rows if r["answer"] is None}):
            m = sel & np.array([r["source"] == src and r["answer"] is None for r in rows])
            if m.sum():
                scores[src] = bacc(y[m], (p[m] >= t) & ok[m])
        for src in sorted({a["source"] for a in answer_rows}):
            gold, pred = [], []
            for a in answer_rows:
                if a["source"] == src and a["held"] == mask_held:
                    gold.append(a["y"])
                    pred.append(all(p[i] >= t and ok[i] for i in a["rows"]))
            scores[src + " (answers)"] = bacc(gold, pred)
        return scores

    # Calibration on the held-out split (claim rows, the class-balanced prior the model was
    # fitted under): expected calibration error over ten equal-width bins, and Brier score.
    hm = held & np.array([r["answer"] is None for r in rows])
    wh = balanced_weights([r for r, m in zip(rows, hm) if m])
    bins = np.minimum((p[hm] * 10).astype(int), 9)
    ece = sum(abs(np.average(y[hm][bins == b], weights=wh[bins == b])
                  - np.average(p[hm][bins == b], weights=wh[bins == b])) * wh[bins == b].sum()
              for b in range(10) if (bins == b).any()) / wh.sum()
    brier = float(np.average((p[hm] - y[hm]) ** 2, weights=wh))
    print(f"held-out calibration (class-balanced): ECE {ece:.3f}, Brier {brier:.3f}")

    grid = np.round(np.arange(0.20, 0.81, 0.01), 2)
    best_t, best_s = 0.5, -1.0
    for t in grid:
        s = split_scores(t)
        m = float(np.nanmean([v for k, v in s.items() if not k.startswith("nli-")] +
                             [np.nanmean([v for k, v in s.items() if k.startswith("nli-")])]))
        if m > best_s:
            best_t, best_s = float(t), m
    held_scores = {k: round(float(v), 3) for k, v in split_scores(best_t).items()
                   if not math.isnan(v)}  # WiCE train holds one class only
    pos = held & (y == 1)
    print(f"held-out supported rows: {pos.sum()}, quote check passes {ok[pos].mean():.3f}, "
          f"p >= t {(p[pos] >= best_t).mean():.3f}, both {((p[pos] >= best_t) & ok[pos]).mean():.3f}")
    neg = held & (y == 0)
    print(f"held-out not-supported rows: {neg.sum()}, quote check passes {ok[neg].mean():.3f}, "
          f"p >= t {(p[neg] >= best_t).mean():.3f}, both {((p[neg] >= best_t) & ok[neg]).mean():.3f}")
    print(f"support threshold {best_t:.2f}; held-out mean balanced accuracy {best_s:.3f}")
    for k, v in held_scores.items():
        print(f"  {k}: {v:.3f}")

    # Contradiction among the not-supported examples of sources that label it.
    cmask = np.array([r["source"].split("-")[-1] in CONTRA_SOURCES and not r["y"]
                      and r["answer"] is None for r in rows])
    yc = np.array([r["contra"] for r in rows], float)
    ctrain = cmask & ~held
    wc = balanced_weights([{"source": r["source"], "y": r["contra"]}
                           for r, t in zip(rows, ctrain) if t])
    cbeta, cmu, csd = fit_lr(X[ctrain], yc[ctrain], wc)
    pc = predict(cbeta, cmu, csd, X)
    cheld = cmask & held
    best_tc, best_c = 0.5, -1.0
    for t in grid:
        s = bacc(yc[cheld], pc[cheld] >= t)
        if s > best_c:
            best_tc, best_c = float(t), s
    print(f"contradiction threshold {best_tc:.2f}; held-out balanced accuracy {best_c:.3f}")

    model = {
        "version": "calibrated-2026.12-2",
        "features": list(FEATURE_NAMES),
        "support": {"bias": round(float(beta[0]), 6),
                    "weights": [round(float(b), 6) for b in beta[1:]],
                    "mean": [round(float(m), 6) for m in mu], "scale": [round(float(s), 6) for s in sd],
                    "threshold": best_t},
        "contradiction": {"bias": round(float(cbeta[0]), 6),
                          "weights": [round(float(b), 6) for b in cbeta[1:]],
                          "mean": [round(float(m), 6) for m in cmu],
                          "scale": [round(float(s), 6) for s in csd], "threshold": best_tc},
        "default_idf": default,
        "held_out": {"support": held_scores, "contradiction": round(float(best_c), 3),
                     "ece": round(float(ece), 3), "brier": round(brier, 3)},
        "trained_on": {"claims": len(claims) - args.nli, "answers": len(answers),
                       "nli_pairs": args.nli,
                       "seed": SEED},
    }
    MODELS.mkdir(exist_ok=True)
    (MODELS / "calibrated.json").write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    with gzip.GzipFile(MODELS / "idf.json.gz", "wb", mtime=0) as fh:
        fh.write(json.dumps(idf, sort_keys=True, separators=(",", ":")).encode())
    print("weights:")
    for name, b in zip(FEATURE_NAMES, beta[1:]):
        print(f"  {name:24s} {b:+.3f}")
    print(f"done in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
