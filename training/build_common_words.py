"""Build the common-word list the evidence check reads (``pytest_faithfulness.lexicon``).

    python training/build_common_words.py [--data-dir ../shared/data]

Writes ``pytest_faithfulness/models/common_words.txt.gz``: one lower-case word per line,
sorted. A word is common when, in the sentences of the NLI training pairs (``nli/*`` of
``--data-dir``: SNLI, MultiNLI, FEVER, SciTail; licences and attributions in that folder's
README and in ``pytest_faithfulness/models/NOTICE``), it occurs written in lower case away from a
sentence start at least ``MIN_LOWER`` times and at least as often as capitalised there. Only
counts leave this script: no sentence of the data is shipped. The evaluation files
(``claims.jsonl``, ``answers.jsonl``) are never read.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "pytest_faithfulness" / "models" / "common_words.txt.gz"
DEFAULT_DATA = ROOT.parent / "shared" / "data"
MIN_LOWER = 2
WORD = re.compile(r"[A-Za-z][a-z]+(?:'[a-z]+)?|[.!?:;\"]")
SOURCES = ("snli.jsonl.gz", "mnli.jsonl", "mnli_dev_annotator2.jsonl.gz", "fever_nli.jsonl.gz",
           "scitail.jsonl")


def _lines(path: Path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            yield rec["premise"]
            yield rec["hypothesis"]


def count(data_dir: Path) -> tuple[Counter, Counter]:
    """Lower-case and capitalised counts of each word away from sentence starts."""
    lower, upper = Counter(), Counter()
    seen: set[str] = set()
    for name in SOURCES:
        for text in _lines(data_dir / "nli" / name):
            if text in seen:
                continue
            seen.add(text)
            start = True
            for tok in WORD.findall(text):
                if not tok[0].isalpha():
                    start = tok in ".!?:\""
                    continue
                if not start:
                    (lower if tok.islower() else upper)[tok.lower()] += 1
                start = False
    return lower, upper


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    lower, upper = count(args.data_dir)
    words = sorted(w for w, n in lower.items() if n >= MIN_LOWER and n >= upper[w])
    with gzip.GzipFile(OUT, "wb", mtime=0) as fh:
        fh.write(("\n".join(words) + "\n").encode())
    print(f"{len(words)} common words -> {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
