"""Rebuild records.jsonl from ../shared/data (run from the repository root or this folder).

Only permissively licensed sources are taken: BEGIN records on Wizard of Wikipedia and CMU-DoG
(CC-BY-4.0) and Factcheck-GPT claims (Apache-2.0). FaithBench (CC-BY-NC-SA-4.0), BEGIN's
Topical-Chat part (CDLA-Sharing-1.0) and WiCE (CC-BY-SA claims) are never shipped.
Selection is the first records of each label in file order: no record was chosen by hand.
"""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"


def main() -> None:
    answers = [json.loads(x) for x in (DATA / "answers.jsonl").read_text().splitlines() if x]
    claims = [json.loads(x) for x in (DATA / "claims.jsonl").read_text().splitlines() if x]
    out = []
    begin = [r for r in answers if r["source_dataset"] == "begin" and r["license"].startswith("CC-BY-4.0")]
    for label, n in (("faithful", 8), ("hallucinated", 8)):
        for r in [r for r in begin if r["human_label"] == label][:n]:
            out.append({"id": r["id"], "source_dataset": "begin", "kind": "answer",
                        "question": r["question"], "answer": r["answer"], "passages": r["passages"],
                        "human_label": label, "license": r["license"]})
    factcheck = [r for r in claims if r["source_dataset"] == "factcheck_gpt"]
    for label, n in (("supported", 6), ("contradicted", 3), ("unsupported", 3)):
        for r in [r for r in factcheck if r["human_label"] == label][:n]:
            out.append({"id": r["id"], "source_dataset": "factcheck_gpt", "kind": "claim",
                        "question": "", "answer": r["claim"], "passages": r["passages"],
                        "human_label": "faithful" if label == "supported" else "hallucinated",
                        "claim_label": label, "license": r["license"]})
    (HERE / "records.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out))
    print(f"wrote {len(out)} records to {HERE / 'records.jsonl'}")
    # The same records in the calibration formats (claim level and answer level).
    labels = []
    for r in out:
        common = {"id": r["id"], "passages": r["passages"], "source_dataset": r["source_dataset"],
                  "license": r["license"]}
        if r["kind"] == "claim":
            labels.append({**common, "claim": r["answer"], "human_label": r["claim_label"]})
        else:
            labels.append({**common, "answer": r["answer"], "human_label": r["human_label"]})
    (HERE / "labels.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in labels))
    print(f"wrote {len(labels)} labelled records to {HERE / 'labels.jsonl'}")


if __name__ == "__main__":
    main()
