"""Build ``benchmarks/evidence_gold.jsonl``: the evidence a careful reader would quote for every
supported claim of the development data, frozen before the evidence check changes (issue 20,
item 6).

Usage::

    python benchmarks/make_evidence_gold.py [--data-dir ../shared/data] [--out benchmarks/evidence_gold.jsonl]

Two runs give byte-identical files. The rule below never calls the project's evidence check
(``trust.quote_check``) nor any of its helpers: it is written here, once, on purpose.

Claims (``source`` field of each row)
    * ``claims``: every ``claims.jsonl`` record labelled ``supported`` (the claim as given).
    * ``answers``: every sentence of every ``answers.jsonl`` answer labelled ``faithful``.
    * ``train-sample``: a seeded sample (by a hash of the record id, seed ``SEED``) of at most
      ``SAMPLE_PER_SOURCE`` records per source among ``train/*_claims`` records labelled
      ``supported`` (DialFact, FactCG, SummEdits consistent edits); one claim per sentence.
    * ``train-twin``: the sentences of every summary that a real edit was made from (SummEdits
      ``*_og`` seed summaries, BUMP reference summaries): the benchmark's real edits are judged
      with the evidence of their twin sentence.

Evidence rule (at most three passage sentences per claim, never the check)
    1. Passages are cut into sentences at ``.``, ``!`` or ``?`` (closing quotes/brackets kept)
       followed by a space and a letter (either case: some sources are lower-cased), a digit or
       an opening quote; a few abbreviations
       (Mr., Dr., U.S., a single capital letter, No., etc.) do not end a sentence. A sentence
       longer than ``MAX_SENTENCE`` characters is cut further at ``;`` or `` -- ``.
    2. The claim's *terms*: lower-cased word tokens minus a stop list, stemmed by a light suffix
       rule; numbers with thousands commas removed. Each sentence gets the same terms.
    3. Greedy: take the sentence covering the most claim terms (ties: the one whose terms are
       the larger share of the sentence, then the earlier); then keep adding the sentence that
       adds the most claim terms not yet covered, while it adds a number or a name term (a term
       from a capitalised or alphanumeric claim token), or at least two new terms, or (a sentence
       next to one already chosen, in the same passage) one new term; at most three.
    4. Each item is ``{passage_id, quote, start, end}`` with ``quote == passage_text[start:end]``.
       A claim none of whose terms occurs in any sentence gets no evidence and is out of the
       denominator.

Denominator (``in_denominator``, decided here once)
    A claim is in the denominator when it has evidence and every *number* of the claim (a token
    with a digit; thousands commas removed; a trailing ``%`` or unit letters kept apart) and every
    *name* (a capitalised word not at the start of the claim and not a stop word, or a token
    mixing letters and digits such as ``S3``) occurs, case-folded, somewhere in the text of the
    record's passages (titles included). ``denominator_reason`` names the first missing item.

Licences
    No row holds text of the data: FaithBench (``faithbench-*``) is CC-BY-NC-SA, and the other
    sources' passages are web pages, news and transcripts whose own copyright their dataset
    licences do not settle (data READMEs). Every row holds ids and offsets only (``claim`` and
    ``quote`` are ``null``; ``claim_span``, or the whole record's claim when it is ``null``, and
    ``start``/``end`` rebuild them from the data dir at run time).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
from pathlib import Path

SEED = "evidence-gold-20261202"
SAMPLE_PER_SOURCE = 80
MAX_SENTENCE = 600
MAX_ITEMS = 3

STOP = frozenset("""
a an the and or but if then than that this these those there here of in on at to for from by with
without about into onto over under as is are was were be been being am do does did doing have has had
having it its it's he she they them their theirs his her hers him we us our you your i me my mine
who whom whose which what when where why how not no nor so such too very can could will would shall
should may might must also just only own same other some any each few more most both all s t
said says say one also after before while during up down out off again further once
""".split())

_ABBREV = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|No|vs|etc|Inc|Ltd|Co|Corp|Gen|Gov|Sen|Rep|"
                     r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|approx|e\.g|i\.e)"
                     r"|\b[A-Z]|\b(?:[A-Za-z]\.){1,3}[A-Za-z])\.$")
_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Za-z0-9])")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’.,%$-]*[A-Za-z0-9%]|[A-Za-z0-9]")


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of ``text``'s sentences, stripped of outer whitespace."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        if _ABBREV.search(text[max(0, m.start() - 12):m.start() + 1]):
            continue
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        for s2, e2 in _cut_long(text, s, e):
            while s2 < e2 and text[s2].isspace():
                s2 += 1
            while e2 > s2 and text[e2 - 1].isspace():
                e2 -= 1
            if e2 > s2 and re.search(r"[A-Za-z0-9]", text[s2:e2]):
                out.append((s2, e2))
    return out


def _cut_long(text: str, s: int, e: int) -> list[tuple[int, int]]:
    if e - s <= MAX_SENTENCE:
        return [(s, e)]
    pieces, cur = [], s
    for m in re.finditer(r";\s|\s--\s|\s-\s", text[s:e]):
        cut = s + m.end()
        if cut - cur >= 80:
            pieces.append((cur, cut))
            cur = cut
    pieces.append((cur, e))
    return pieces


def stem(word: str) -> str:
    """A light suffix-stripping stem (enough to match plural/tense variants)."""
    w = word
    for suf, rep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("ly", ""),
                     ("s", "")):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: len(w) - len(suf)] + rep
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


def _norm_token(tok: str) -> str:
    tok = tok.replace("’", "'").strip(".,'")
    if tok.endswith("'s"):
        tok = tok[:-2]
    return tok


def is_number(tok: str) -> bool:
    return bool(re.fullmatch(r"[$€£]?\d[\d,]*(?:\.\d+)?%?", tok))


def number_key(tok: str) -> str:
    return tok.lstrip("$€£").replace(",", "").rstrip("%")


def terms(text: str) -> dict[str, str]:
    """Claim/sentence terms: ``{term: kind}`` with kind ``number``, ``name`` or ``word``."""
    out: dict[str, str] = {}
    toks = [_norm_token(t) for t in _TOKEN.findall(text)]
    for i, tok in enumerate(t for t in toks if t):
        low = tok.lower()
        if is_number(tok):
            out[number_key(tok)] = "number"
            continue
        if low in STOP:
            continue
        for part in re.split(r"[-.,]", low) if "-" in low or "." in low else [low]:
            if not part or part in STOP:
                continue
            key = part if any(c.isdigit() for c in part) else stem(part)
            if len(key) < 2 and not key.isdigit():
                continue
            name = (tok[0].isupper() and i > 0) or (any(c.isdigit() for c in tok)
                                                    and any(c.isalpha() for c in tok))
            kind = "number" if key.isdigit() else ("name" if name else "word")
            if out.get(key) not in ("number", "name"):
                out[key] = kind
    return out


def choose_evidence(claim: str, passages: list[dict]) -> list[dict]:
    """The careful reader's evidence for ``claim``: see the module docstring, steps 1-4."""
    want = terms(claim)
    if not want:
        return []
    cands = []
    order = 0
    for p in passages:
        for s, e in sentences(p["text"]):
            t = terms(p["text"][s:e])
            cands.append((order, p["id"], s, e, p["text"][s:e], set(t)))
            order += 1
    covered: set[str] = set()
    chosen: list[tuple] = []
    while len(chosen) < MAX_ITEMS:
        best, best_key = None, None
        for c in cands:
            if c in chosen:
                continue
            new = (c[5] & set(want)) - covered
            if not new:
                continue
            key = (len(new), len(new) / max(1, len(c[5])), -c[0])
            if best_key is None or key > best_key:
                best, best_key = c, key
        if best is None:
            break
        new = (best[5] & set(want)) - covered
        adjacent = any(c[1] == best[1] and abs(c[0] - best[0]) == 1 for c in chosen)
        if chosen and not (len(new) >= 2 or adjacent or any(want[k] in ("number", "name") for k in new)):
            break
        chosen.append(best)
        covered |= new
    chosen.sort(key=lambda c: c[0])
    return [{"passage_id": c[1], "quote": c[4], "start": c[2], "end": c[3]} for c in chosen]


def claim_numbers_and_names(claim: str) -> list[tuple[str, str]]:
    """(kind, text) of every number and name of ``claim`` (see the denominator rule)."""
    items = []
    toks = [_norm_token(t) for t in _TOKEN.findall(claim)]
    toks = [t for t in toks if t]
    for i, tok in enumerate(toks):
        if is_number(tok):
            items.append(("number", number_key(tok)))
        elif any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok):
            items.append(("name", tok.lower()))
        elif tok[0].isupper() and i > 0 and tok.lower() not in STOP:
            items.append(("name", tok.lower()))
    return items


def denominator(claim: str, passages: list[dict], evidence: list[dict]) -> tuple[bool, str]:
    """(in_denominator, reason): see the module docstring."""
    if not evidence:
        return False, "no passage sentence shares a term with the claim"
    hay = " ".join((p.get("title") or "") + " " + p["text"] for p in passages).lower()
    hay_numbers = hay.replace(",", "")
    for kind, item in claim_numbers_and_names(claim):
        if kind == "number":
            if not re.search(r"(?<![\d.])" + re.escape(item) + r"(?![\d]|\.\d)", hay_numbers):
                return False, f"number {item!r} not in the passages"
        elif not re.search(r"(?<![a-z0-9])" + re.escape(item) + r"(?![a-z0-9])", hay):
            return False, f"name {item!r} not in the passages"
    return True, "every number and name of the claim occurs in the passages"


def _hash_rank(record_id: str) -> str:
    return hashlib.sha256((SEED + ":" + record_id).encode()).hexdigest()


def _read(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _row(gold_id: str, source: str, dataset: str, record_file: str, record: dict, claim: str,
         claim_span: list[int] | None) -> dict:
    evidence = choose_evidence(claim, record["passages"])
    inside, reason = denominator(claim, record["passages"], evidence)
    return {
        "id": gold_id, "source": source, "dataset": dataset, "record_file": record_file,
        "record_id": record["id"], "claim": None, "claim_span": claim_span,
        "evidence": [dict(item, quote=None) for item in evidence],
        "in_denominator": inside, "denominator_reason": reason,
    }


def _sentence_rows(source: str, dataset: str, record_file: str, record: dict, text: str) -> list[dict]:
    rows = []
    for k, (s, e) in enumerate(sentences(text)):
        rows.append(_row(f"{record['id']}#s{k}", source, dataset, record_file, record, text[s:e], [s, e]))
    return rows


def build(data_dir: Path) -> list[dict]:
    """Every gold row, in a fixed order (file order; sample by hash rank)."""
    rows: list[dict] = []
    for r in _read(data_dir / "claims.jsonl"):
        if r["human_label"] == "supported":
            rows.append(_row(r["id"], "claims", r["source_dataset"], "claims.jsonl", r, r["claim"], None))
    for r in _read(data_dir / "answers.jsonl"):
        if r["human_label"] == "faithful":
            rows += _sentence_rows("answers", r["source_dataset"], "answers.jsonl", r, r["answer"])
    train = data_dir / "train"
    twins: set[str] = set()
    for name in ("summedits_claims.jsonl.gz", "bump_claims.jsonl"):
        for r in _read(train / name):
            if r["id"].endswith("_og") or r["source_label"] == "reference_summary":
                twins.add(r["id"])
                rows += _sentence_rows("train-twin", r["source"].split("/")[0], f"train/{name}", r, r["claim"])
    for name in ("dialfact_claims.jsonl", "factcg_synthetic_claims.jsonl", "summedits_claims.jsonl.gz"):
        pool = [r for r in _read(train / name) if r["label"] == "supported" and r["id"] not in twins]
        pool.sort(key=lambda r: _hash_rank(r["id"]))
        for r in pool[:SAMPLE_PER_SOURCE]:
            rows += _sentence_rows("train-sample", r["source"].split("/")[0], f"train/{name}", r, r["claim"])
    return rows


def default_data_dir(root: Path) -> Path:
    """``../shared/data`` relative to the repository root (a worktree one level deeper: ``../../``)."""
    for up in (root.parent, root.parent.parent):
        if (up / "shared" / "data" / "claims.jsonl").exists():
            return up / "shared" / "data"
    return root.parent / "shared" / "data"


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=default_data_dir(root))
    ap.add_argument("--out", type=Path, default=root / "benchmarks" / "evidence_gold.jsonl")
    args = ap.parse_args(argv)
    rows = build(args.data_dir)
    header = {"header": True, "what": "frozen careful-reader evidence for supported claims (issue 20 item 6)",
              "made_by": "benchmarks/make_evidence_gold.py", "seed": SEED,
              "rules": "see the docstring of benchmarks/make_evidence_gold.py (evidence rule, denominator rule)",
              "rows": len(rows), "in_denominator": sum(r["in_denominator"] for r in rows)}
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(header, ensure_ascii=False) + "\n")
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} rows, {header['in_denominator']} in the denominator -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
