"""The cost of votes: judge calls per claim and per answer at ``--faithfulness-votes 3``.

    python benchmarks/votes_cost.py                 # 50 answers x 5 claims
    python benchmarks/votes_cost.py --answers 200 --votes 3 5

The suite: ``--answers`` answers of 5 claims each against two passages, judged by
``LiteLLMJudge`` through litellm's real client and the loopback chat-completions server of
the tests (``tests/helpers/chat_server.py``). Four claims of each answer are supported by every vote;
one claim in five (20%) is doubtful, and what the scripted model says about it (first at
temperature 0, then at the vote temperature with the passages rotated) makes the mix:

* ``steady``: every vote says unsupported;
* ``half-recovers``: half the answers ``steady``, half ``recovers`` (first unsupported, every
  later vote supported);
* ``flips``: first unsupported, then supported when p2 leads the rotated list (vote 2),
  unsupported when p1 does (vote 3);
* ``falls``: first supported, every later vote unsupported (the first verdict was a lucky
  sample: a procedure that never questions a ``supported`` first verdict passes it).

Counted: HTTP requests the server received (one decomposition per answer, the rest verify
calls), per answer and, for verify calls, per claim, with ``votes = 1`` and each ``--votes``
(no cache); and the claims supported and unstable. No timing is asserted anywhere. The same
script run on another version of the package (a ``git archive`` of it, with this file copied
in) measures that version's procedure: benchmarks/README.md gives both.

Results: ``benchmarks/results/votes_cost.json`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "helpers"))
sys.path.insert(0, str(ROOT))

PASSAGES = [
    {"id": "p1", "text": "The Vela desk lamp has three brightness levels. The Vela desk lamp "
                         "weighs 1.2 kg. The arm of the Vela desk lamp is 45 cm long."},
    {"id": "p2", "text": "The Vela desk lamp charges through a USB-C port. A full charge of "
                         "the Vela desk lamp takes two hours."},
]
CLAIMS = [("The Vela desk lamp has three brightness levels.", "p1"),
          ("The Vela desk lamp weighs 1.2 kg.", "p1"),
          ("The arm of the Vela desk lamp is 45 cm long.", "p1"),
          ("The Vela desk lamp charges through a USB-C port.", "p2"),
          ("A full charge of the Vela desk lamp takes two hours.", "p2")]


def run(answers: int, votes: int, mix: str) -> dict:
    """Judge the suite once; the server's request count and the claims' verdicts.

    Answer ``i`` has the five claims of ``CLAIMS``; its passages are ``PASSAGES`` plus a
    third one, ``doc-i``, that tells the scripted model which answer a verify request is
    for. Claim ``i % 5`` of answer ``i`` is the one first judged not supported.
    """
    from chat_server import ScriptedChatServer
    from scripted_model import make_judge, parse_request, unsupported

    import pytest_faithfulness
    from pytest_faithfulness.judges.votes import VotingJudge

    text = " ".join(c for c, _ in CLAIMS)
    kinds = [mix if mix != "half-recovers" else ("steady", "recovers")[i % 2]
             for i in range(answers)]

    def handle(request: dict):
        op, first, second = parse_request(request)
        if op == "decompose":
            return {"claims": [c for c, _ in CLAIMS], "dropped": []}
        index = next(int(p["id"][4:]) for p in first if p["id"].startswith("doc-"))
        position = [c for c, _ in CLAIMS].index(second)
        verdict = {"label": "supported", "passage_ids": [CLAIMS[position][1]], "quote": second}
        if position != index % 5:
            return verdict
        sampled, kind = (request.get("temperature") or 0) > 0, kinds[index]
        if kind == "falls":
            return unsupported() if sampled else verdict
        if sampled and (kind == "recovers" or (kind == "flips" and first[0]["id"] == "p2")):
            return verdict
        return unsupported()

    cases = [(text, [*PASSAGES, {"id": f"doc-{i}", "text": f"Answer {i}."}])
             for i in range(answers)]
    with ScriptedChatServer(handle) as server:
        judge = make_judge(server)
        if votes > 1:
            judge = VotingJudge(judge, votes)
        results = pytest_faithfulness.evaluate_many(cases, judge)
        requests = len(server.requests)
    claims = [c for r in results for c in r.claims]
    assert all(r.status == "scored" for r in results), [r.error for r in results]
    return {"requests": requests, "per_answer": requests / answers, "claims": len(claims),
            "verify_per_claim": round((requests - answers) / len(claims), 3),
            "supported": sum(1 for c in claims if c.supported),
            "unstable": sum(1 for c in claims if c.unstable)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=50)
    parser.add_argument("--votes", type=int, nargs="+", default=[3])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/votes_cost.json")
    args = parser.parse_args()
    import os

    os.environ.setdefault("OPENAI_API_KEY", "sk-loopback")  # the loopback server ignores it
    import litellm  # noqa: F401 - imported once, outside the counts

    import pytest_faithfulness

    print(f"package: {Path(pytest_faithfulness.__file__).parent}")
    out = {"answers": args.answers, "claims_per_answer": 5, "doubtful_claim_share": 0.2,
           "mixes": {}}
    for mix in ("steady", "half-recovers", "flips", "falls"):
        one = run(args.answers, 1, mix)
        row = out["mixes"][mix] = {"votes_1": one}
        for votes in args.votes:
            many = run(args.answers, votes, mix)
            extra = many["per_answer"] - one["per_answer"]
            row[f"votes_{votes}"] = many
            row[f"extra_calls_per_answer_{votes}"] = round(extra, 3)
            row[f"extra_share_{votes}"] = round(extra / one["per_answer"], 3)
            print(f"{mix:>14}: N=1 {one['verify_per_claim']:.2f} verify calls/claim "
                  f"({one['per_answer']:.2f}/answer), N={votes} "
                  f"{many['verify_per_claim']:.2f}/claim ({many['per_answer']:.2f}/answer, "
                  f"+{extra / one['per_answer']:.0%}); supported claims {one['supported']} -> "
                  f"{many['supported']}, unstable {many['unstable']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2) + "\n")
    print(f"written: {args.out}")


if __name__ == "__main__":
    main()
