"""The evidence-check benchmark (issue 20, item 6): how often ``trust.quote_check.check_verdict``
keeps a correct verdict, and how often it refuses a lying one.

Usage::

    python benchmarks/evidence_check.py [--data-dir ../shared/data] [--limit N] [--json PATH]

Figures (every one a share; the denominators are printed beside them):

(a) **perfect judge, kept**: for each claim of ``benchmarks/evidence_gold.jsonl`` with
    ``in_denominator`` true, a judge says ``supported`` with the frozen careful-reader evidence
    (one item per quoted sentence); the share that ``check_verdict`` keeps. Overall and per
    source (``claims``/``answers``/``train-sample``/``train-twin``, and per dataset).
    Target >= 0.95.
(b) **lying judge, refused**: for the same claims, every mutant that
    ``pytest_faithfulness.mutants.mutate`` could build; the judge says ``supported`` to the
    mutant with the ORIGINAL claim's evidence; the share ``check_verdict`` refuses, per kind.
    Targets >= 0.95 (number, unit, negation, negation_in_word, foreign_name, appended_clause),
    >= 0.90 (swap), >= 0.80 (antonym, quantifier).
    **Real edits**: SummEdits and BUMP inconsistent summaries (``train/``). Each sentence of an
    edited summary that is not a sentence of its source summary (SummEdits ``<doc>_og``, BUMP
    the reference summary with the same article) is matched to the source sentence it shares
    the most words with, and judged ``supported`` with that sentence's frozen evidence (source
    sentence in the denominator only). An edit is refused when any changed sentence is. Per
    edit type (SummEdits' GPT-4-typed ``edit_types``, an edit counting under each of its
    types; BUMP's human error types). Target >= 0.80.
(c) **cases**: the issue's false alarms (a correct verdict, must be kept) and opposite pairs
    (a lying verdict, must be refused), each run through ``pytest_faithfulness.evaluate()``
    with a scripted judge; pass/fail per case. Target: all pass.

A table goes to stdout and JSON to ``benchmarks/results/evidence_check.json`` (``--json``).
``--limit N`` takes the first N gold claims and N edits per source (a quick look).
Runs on one core in a few minutes.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from make_evidence_gold import default_data_dir, sentences  # noqa: E402

from pytest_faithfulness import evaluate  # noqa: E402
from pytest_faithfulness.mutants import KINDS, mutate, names_in  # noqa: E402
from pytest_faithfulness.records import Passage, Verdict  # noqa: E402
from pytest_faithfulness.trust.quote_check import check_verdict  # noqa: E402

TARGETS_B = {"number": 0.95, "unit": 0.95, "negation": 0.95, "negation_in_word": 0.95,
             "foreign_name": 0.95, "appended_clause": 0.95, "swap": 0.90, "antonym": 0.80,
             "quantifier": 0.80}


def _read(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_gold(data_dir: Path, gold_path: Path) -> tuple[list[dict], dict[tuple[str, str], dict]]:
    """Gold rows with ``claim`` and quotes rebuilt (rows store ids and offsets only), and
    the records they come from, by ``(record_file, record_id)``."""
    rows = [r for r in _read(gold_path) if not r.get("header")]
    records: dict[tuple[str, str], dict] = {}
    for name in sorted({r["record_file"] for r in rows}):
        for rec in _read(data_dir / name):
            records[(name, rec["id"])] = rec
    for row in rows:
        rec = records[(row["record_file"], row["record_id"])]
        if row["claim"] is None:
            text = rec.get("answer") if "answer" in rec else rec["claim"]
            if row["claim_span"] is None:
                row["claim"] = text
            else:
                s, e = row["claim_span"]
                row["claim"] = text[s:e]
        by_id = {p["id"]: p for p in rec["passages"]}
        for item in row["evidence"]:
            if item["quote"] is None:
                item["quote"] = by_id[item["passage_id"]]["text"][item["start"]:item["end"]]
    return rows, records


def passages_of(rec: dict) -> list[Passage]:
    return [Passage(id=p["id"], text=p["text"], title=p.get("title")) for p in rec["passages"]]


def supported_with(evidence: list[dict]) -> Verdict:
    return Verdict(label="supported", evidence=[{"passage_id": e["passage_id"], "quote": e["quote"]}
                                                for e in evidence][:4])


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def perfect_judge(rows: list[dict], records: dict) -> dict[str, Any]:
    """(a): share of in-denominator gold claims kept; the refusal reasons, counted."""
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    reasons: collections.Counter[str] = collections.Counter()
    examples: list[dict] = []
    kept_ids: set[str] = set()
    for row in rows:
        if not row["in_denominator"]:
            continue
        rec = records[(row["record_file"], row["record_id"])]
        _, reason = check_verdict(supported_with(row["evidence"]), passages_of(rec), row["claim"])
        if reason is None:
            kept_ids.add(row["id"])
        n_items = "evidence: 1 sentence" if len(row["evidence"]) == 1 else "evidence: 2-3 sentences"
        for key in ("all", row["source"], f"{row['source']}/{row['dataset']}", n_items):
            per[key][1] += 1
            per[key][0] += reason is None
        if reason is not None:
            reasons[re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", reason)[:90]] += 1
            if len(examples) < 15:  # ids only: no text of the data in the results file
                examples.append({"id": row["id"], "reason": reason})
    return {"kept": {k: {"kept": v[0], "of": v[1], "share": _share(*v)} for k, v in sorted(per.items())},
            "refusal_reasons": reasons.most_common(12), "examples": examples,
            "kept_ids": sorted(kept_ids)}


def lying_judge(rows: list[dict], records: dict, kept_ids: set[str]) -> dict[str, Any]:
    """(b) mutants: share of built mutants refused per kind (``share``), and among the mutants
    of claims whose original verdict the check kept (``share_given_kept``: a check that refuses
    the original evidence refuses its mutants for free); missed examples per kind."""
    eligible = [r for r in rows if r["in_denominator"]]
    # a name from another record: the next record (in file order) with a name
    names_by_row = [names_in(r["claim"]) for r in eligible]
    per = {k: [0, 0] for k in KINDS}
    per_kept = {k: [0, 0] for k in KINDS}
    not_built = collections.Counter()
    missed: dict[str, list[dict]] = collections.defaultdict(list)
    for i, row in enumerate(eligible):
        rec = records[(row["record_file"], row["record_id"])]
        passages = passages_of(rec)
        other: list[str] = []
        for j in range(1, len(eligible)):
            cand = eligible[(i + j) % len(eligible)]
            if cand["record_id"] != row["record_id"] and names_by_row[(i + j) % len(eligible)]:
                other = names_by_row[(i + j) % len(eligible)]
                break
        verdict = supported_with(row["evidence"])
        for m in mutate(row["claim"], passages, other_names=other):
            if not m.built:
                not_built[m.kind] += 1
                continue
            _, reason = check_verdict(verdict, passages, m.claim)
            per[m.kind][1] += 1
            per[m.kind][0] += reason is not None
            if row["id"] in kept_ids:
                per_kept[m.kind][1] += 1
                per_kept[m.kind][0] += reason is not None
            if reason is None and len(missed[m.kind]) < 8:
                missed[m.kind].append({"id": row["id"], "kind": m.kind})
    return {"refused": {k: {"refused": v[0], "of": v[1], "share": _share(*v), "target": TARGETS_B[k],
                            "share_given_kept": _share(*per_kept[k]), "of_given_kept": per_kept[k][1]}
                        for k, v in per.items()},
            "not_built": dict(not_built), "missed_examples": dict(missed)}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def real_edits(rows: list[dict], records: dict, data_dir: Path, limit: int | None,
               kept_ids: set[str]) -> dict[str, Any]:
    """(b) real edits: SummEdits and BUMP inconsistent summaries with their source sentence's evidence."""
    gold_by_id = {r["id"]: r for r in rows}
    per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    per_kept: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    skipped = collections.Counter()
    missed: list[dict] = []
    for name, dataset in (("train/summedits_claims.jsonl.gz", "summedits"), ("train/bump_claims.jsonl", "bump")):
        recs = _read(data_dir / name)
        if dataset == "summedits":
            twin_of = {r["id"]: r["id"].rsplit("_", 1)[0] + "_og" for r in recs}
        else:
            ref_by_passages = {tuple(p["id"] for p in r["passages"]): r["id"] for r in recs
                               if r["source_label"] == "reference_summary"}
            twin_of = {r["id"]: ref_by_passages.get(tuple(p["id"] for p in r["passages"])) for r in recs}
        by_id = {r["id"]: r for r in recs}
        edits = [r for r in recs if r["label"] != "supported"]
        if limit:
            edits = edits[:limit]
        for r in edits:
            twin = by_id.get(twin_of.get(r["id"]) or "")
            if twin is None:
                skipped["no source summary"] += 1
                continue
            twin_sents = [twin["claim"][s:e] for s, e in sentences(twin["claim"])]
            changed = [r["claim"][s:e] for s, e in sentences(r["claim"])]
            changed = [c for c in changed if c not in twin_sents]
            if not changed:
                skipped["no changed sentence"] += 1
                continue
            verdicts = []
            ok = True
            for c in changed:
                k = max(range(len(twin_sents)), key=lambda i: (len(_words(c) & _words(twin_sents[i])), -i))
                g = gold_by_id.get(f"{twin['id']}#s{k}")
                if g is None or not g["in_denominator"]:
                    ok = False
                    break
                verdicts.append((c, g))
            if not ok:
                skipped["source sentence out of the denominator"] += 1
                continue
            passages = passages_of(r)
            refused = any(check_verdict(supported_with(g["evidence"]), passages, c)[1] is not None
                          for c, g in verdicts)
            if dataset == "summedits":
                types = r["source_label"].split("edit_types=")[1].split(",") if "edit_types=" in r["source_label"] else ["untyped"]
            else:
                types = [r["source_label"].split("error_type=")[1].replace(" Error", "")]
            twin_kept = all(g["id"] in kept_ids for _, g in verdicts)
            for t in ["all", f"{dataset}/all"] + [f"{dataset}/{t}" for t in types]:
                per[t][1] += 1
                per[t][0] += refused
                if twin_kept:
                    per_kept[t][1] += 1
                    per_kept[t][0] += refused
            if not refused and len(missed) < 10:
                missed.append({"id": r["id"]})  # ids only: no text of the data
    return {"refused": {k: {"refused": v[0], "of": v[1], "share": _share(*v),
                            "share_given_kept": _share(*per_kept[k]), "of_given_kept": per_kept[k][1]}
                        for k, v in sorted(per.items())},
            "skipped": dict(skipped), "missed_examples": missed}


# --- (c) the issue's cases through evaluate() ----------------------------------------------------

class ScriptedJudge:
    """A judge that decomposes into the given claims and answers each with the given verdict."""

    runs_inline = True
    deterministic = True

    def __init__(self, claims: list[str], verdicts: list[Verdict]) -> None:
        self._claims = claims
        self._verdicts = dict(zip(claims, verdicts))

    def decompose(self, answer: str) -> list[str]:
        return list(self._claims)

    def verify(self, claim: str, passages: list[Passage]) -> Verdict:
        return self._verdicts[claim]


def _sup(*items: tuple[str, str]) -> Verdict:
    return Verdict(label="supported", evidence=[{"passage_id": p, "quote": q} for p, q in items])


AUDIT_PASSAGES = [
    {"id": "p-2071", "text": "Audit log export is available on the Business and Enterprise plans. "
                             "Exports are delivered to a customer-owned S3 bucket."},
    {"id": "p-2072", "text": "Configure the destination bucket under Settings > Security > Audit Log "
                             "Export. The bucket policy must allow s3:PutObject for our export role."},
]

# (name, claim, passages, verdict): a correct verdict that must be kept
FALSE_ALARMS: list[tuple[str, str, list[Any], Verdict]] = [
    ("vela: name in the sentence around the quote", "The Vela lamp has three brightness levels.",
     [{"id": "p1", "text": "The Vela lamp has three brightness levels and a USB-C port."}],
     _sup(("p1", "three brightness levels"))),
    ("typography: straight quotes and hyphens for curly quotes and dashes", "The Pro plan includes SSO.",
     [{"id": "p1", "text": "The \u201cPro\u201d plan \u2014 launched in 2021 \u2014 includes SSO."}],
     _sup(("p1", 'The "Pro" plan - launched in 2021 - includes SSO.'))),
    ("unit: 1.5 litres as 1500 ml", "The Aqua bottle holds 1.5 litres.",
     [{"id": "p1", "text": "The Aqua bottle holds 1500 ml."}], _sup(("p1", "The Aqua bottle holds 1500 ml."))),
    ("decimal comma: 2,5 kg", "The Trek bag weighs 2.5 kg.",
     [{"id": "p1", "text": "The Trek bag weighs 2,5 kg."}], _sup(("p1", "The Trek bag weighs 2,5 kg."))),
    ("key/value passage", "The Team plan allows up to 25 users.",
     [{"id": "p1", "text": '{"plan": "Team", "max_users": 25}'}],
     _sup(("p1", '"plan": "Team"'), ("p1", '"max_users": 25'))),
    ("question-and-answer passage with a bare Yes.", "You can cancel the subscription at any time.",
     [{"id": "p1", "text": "Q: Can I cancel the subscription at any time? A: Yes."}],
     _sup(("p1", "Can I cancel the subscription at any time?"), ("p1", "Yes."))),
    ("name in the passage title", "The Orbit X2 headphones' battery lasts 12 hours.",
     [{"id": "p1", "title": "Orbit X2 headphones", "text": "The battery lasts 12 hours."}],
     _sup(("p1", "Orbit X2 headphones"), ("p1", "The battery lasts 12 hours."))),
    ("a total computed from two passages", "The starter kit and the add-on pack cost $50 together.",
     [{"id": "p1", "text": "The starter kit costs $30."}, {"id": "p2", "text": "The add-on pack costs $20."}],
     _sup(("p1", "The starter kit costs $30."), ("p2", "The add-on pack costs $20."))),
    ("a difference computed from two passages", "The Pro plan costs $15 more per month than the Basic plan.",
     [{"id": "p1", "text": "The Basic plan costs $10 per month."}, {"id": "p2", "text": "The Pro plan costs $25 per month."}],
     _sup(("p1", "The Basic plan costs $10 per month."), ("p2", "The Pro plan costs $25 per month."))),
    ("unit: 680 g as 680 grams", "The jar holds 680 grams of honey.",
     [{"id": "p1", "text": "Honey jar. Net weight: 680 g."}], _sup(("p1", "Honey jar."), ("p1", "Net weight: 680 g."))),
    ("thousands separator: 1,200 as 1200", "The venue seats 1200 people.",
     [{"id": "p1", "text": "The venue seats 1,200 people."}], _sup(("p1", "The venue seats 1,200 people."))),
    ("two sentences of one passage", "The Nova router supports Wi-Fi 6 and has four Ethernet ports.",
     [{"id": "p1", "text": "The Nova router supports Wi-Fi 6. It has four Ethernet ports."}],
     _sup(("p1", "The Nova router supports Wi-Fi 6."), ("p1", "It has four Ethernet ports."))),
    ("negation in another clause", "Items bought on sale cannot be refunded.",
     [{"id": "p1", "text": "Items bought on sale can be exchanged but not refunded."}],
     _sup(("p1", "Items bought on sale can be exchanged but not refunded."))),
    ("no credit card is required", "No credit card is required to start the trial.",
     [{"id": "p1", "text": "Start your 14-day trial today: no credit card is required."}],
     _sup(("p1", "Start your 14-day trial today: no credit card is required."))),
    ("a Price: label", "The Basic plan costs $49 per month.",
     [{"id": "p1", "text": "Basic plan. Price: $49 per month."}],
     _sup(("p1", "Basic plan."), ("p1", "Price: $49 per month."))),
    ("a Markdown table row", "The Team plan allows 25 users.",
     [{"id": "p1", "text": "| Plan | Users |\n|---|---|\n| Team | 25 |"}], _sup(("p1", "| Team | 25 |"))),
]

# (assertion, opposite): the passage states one, the judge claims the other with the passage sentence
_OPPOSITES = [
    ("Deposits are non-refundable.", "Deposits are refundable."),
    ("Two-factor authentication is disabled by default.", "Two-factor authentication is enabled by default."),
    ("Backups are unencrypted at rest.", "Backups are encrypted at rest."),
    ("The water is unsafe to drink.", "The water is safe to drink."),
    ("Contractors are ineligible for the bonus.", "Contractors are eligible for the bonus."),
    ("The charger is incompatible with the Zeta phone.", "The charger is compatible with the Zeta phone."),
    ("Late applications are rejected.", "Late applications are accepted."),
    ("Refunds are denied after 30 days.", "Refunds are issued after 30 days."),
    ("Customers on annual billing avoid the setup fee.", "Customers on annual billing incur the setup fee."),
    ("Trial accounts are inactive after 14 days.", "Trial accounts are active after 14 days."),
    ("Coupons are invalid on sale items.", "Coupons are valid on sale items."),
    ("Students are excluded from the discount.", "Students qualify for the discount."),
    ("The service is rarely available on weekends.", "The service is always available on weekends."),
    ("The Team plan supports 10+ users.", "The Team plan supports 10 users."),
    ("Refunds take 14 days.", "Refunds take 14 weeks."),
    ("The battery charges in 12 hours.", "The battery charges in 12 minutes."),
    ("The tent weighs 1.5 kg.", "The tent weighs 1.5 lb."),
    ("The plan costs $20 per month.", "The plan costs \u20ac20 per month."),
    ("The licence costs $300 per year.", "The licence costs $300 per month."),
]
OPPOSITES: list[tuple[str, str, list[Any], Verdict]] = []
for _a, _b in _OPPOSITES:
    for _said, _claimed in ((_a, _b), (_b, _a)):
        OPPOSITES.append((f"{_claimed!r} from {_said!r}", _claimed, [{"id": "p1", "text": _said}],
                          _sup(("p1", _said))))


def cases() -> dict[str, Any]:
    """(c): each case through ``evaluate()``; ``passed`` when the check did what it must."""
    out = []
    # the audit-log answer: 3 of 5 claims supported, the first resting on both p-2071 sentences
    claims = ["Audit log export to S3 is available on the Business plan.",
              "Configure the destination under Settings > Security > Audit Log Export.",
              "The bucket policy must allow s3:PutObject for our export role.",
              "Exports run hourly.", "Exports are retained in your bucket indefinitely."]
    verdicts = [_sup(("p-2071", "Audit log export is available on the Business and Enterprise plans."),
                     ("p-2071", "Exports are delivered to a customer-owned S3 bucket.")),
                _sup(("p-2072", "Configure the destination bucket under Settings > Security > Audit Log Export.")),
                _sup(("p-2072", "The bucket policy must allow s3:PutObject for our export role.")),
                Verdict(label="unsupported"), Verdict(label="unsupported")]
    res = evaluate(" ".join(claims), AUDIT_PASSAGES, ScriptedJudge(claims, verdicts))
    out.append({"group": "false alarm", "case": "audit-log answer scores 0.60",
                "passed": res.score is not None and abs(res.score - 0.6) < 1e-9,
                "got": f"score {res.score}", "notes": [c.note for c in res.claims if getattr(c, "note", None)]})
    for group, table, want_kept in (("false alarm", FALSE_ALARMS, True), ("opposite", OPPOSITES, False)):
        for name, claim, passages, verdict in table:
            res = evaluate(claim, passages, ScriptedJudge([claim], [verdict]))
            kept = bool(res.claims) and res.claims[0].supported
            out.append({"group": group, "case": name, "passed": kept == want_kept,
                        "got": "kept" if kept else "refused",
                        "reason": (res.claims[0].verdict.rationale if res.claims and not kept else None)})
    return {"cases": out, "passed": sum(c["passed"] for c in out), "of": len(out)}


def _fmt(share: float | None) -> str:
    return "  -  " if share is None else f"{share:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="evidence-check benchmark (issue 20, item 6)")
    ap.add_argument("--data-dir", type=Path, default=default_data_dir(ROOT))
    ap.add_argument("--gold", type=Path, default=ROOT / "benchmarks" / "evidence_gold.jsonl")
    ap.add_argument("--limit", type=int, default=None, help="first N gold claims and N edits per source")
    ap.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / "evidence_check.json")
    args = ap.parse_args(argv)
    if not (args.data_dir / "claims.jsonl").exists():
        ap.error(f"--data-dir {args.data_dir}: no claims.jsonl there (the development data dir)")
    t0 = time.monotonic()
    rows, records = load_gold(args.data_dir, args.gold)
    if args.limit:
        rows = rows[: args.limit]
    a = perfect_judge(rows, records)
    kept_ids = set(a["kept_ids"])
    b = lying_judge(rows, records, kept_ids)
    rows_all, _ = load_gold(args.data_dir, args.gold)  # real edits need every twin sentence
    if args.limit:  # the twins' perfect-judge verdicts, for share_given_kept
        kept_ids |= set(perfect_judge([r for r in rows_all if r["source"] == "train-twin"], records)["kept_ids"])
    e = real_edits(rows_all, records, args.data_dir, args.limit, kept_ids)
    c = cases()
    a = {k: v for k, v in a.items() if k != "kept_ids"}
    result = {"perfect_judge": a, "lying_judge": b, "real_edits": e, "cases": c,
              "seconds": round(time.monotonic() - t0, 1)}
    print("(a) perfect judge: share of supported claims kept (target >= 0.95)")
    for k, v in a["kept"].items():
        print(f"    {k:36s} {_fmt(v['share'])}  ({v['kept']}/{v['of']})")
    print("    top refusal reasons:")
    for reason, n in a["refusal_reasons"][:6]:
        print(f"      {n:5d}  {reason}")
    print("(b) lying judge: share of mutants refused, per kind (and among mutants whose original verdict was kept)")
    for k, v in b["refused"].items():
        flag = "n/a" if v["share"] is None else ("ok " if v["share"] >= v["target"] else "MISS")
        print(f"    {k:36s} {_fmt(v['share'])}  ({v['refused']}/{v['of']})  target {v['target']:.2f} {flag}"
              f"   original kept: {_fmt(v['share_given_kept'])} of {v['of_given_kept']}")
    print("    real edits: share refused (target >= 0.80)")
    for k, v in e["refused"].items():
        print(f"    {k:36s} {_fmt(v['share'])}  ({v['refused']}/{v['of']})"
              f"   source kept: {_fmt(v['share_given_kept'])} of {v['of_given_kept']}")
    print(f"    skipped: {e['skipped']}")
    print(f"(c) cases through evaluate(): {c['passed']}/{c['of']} pass")
    for case in c["cases"]:
        print(f"    {'pass' if case['passed'] else 'FAIL'}  [{case['group']}] {case['case']}: {case['got']}")
    print(f"({result['seconds']} s)")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"JSON -> {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
