"""Input tokens of the LLM judge's prompts, raw and cache-adjusted, without the timed suites.

    python benchmarks/prompt_tokens.py                    # prints the figures
    python benchmarks/prompt_tokens.py --out benchmarks/results/prompt_tokens.json

The fourth measure of ``run_benchmarks.py`` (``tokens_per_answer``), alone: one 5-claim
answer with 881 passage tokens judged through the loopback server (no latency), its input
tokens counted with the gpt-4o-mini tokenizer, against the natural floor (the answer once,
then 5 x (passages + claim): 4,555 tokens). Cache-adjusted figures bill the requests as a
provider's prompt-prefix cache would (``run_benchmarks.PRICE_MODELS``: OpenAI's automatic
cache at 50% from 1,024 tokens; Anthropic's marked cache read at 10%, written at 125%).
Targets: raw overhead <= 35%, cache-adjusted overhead <= 15%.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from run_benchmarks import ScriptedChatServer, handler_for, tokens_per_answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--label", default="this tree")
    args = parser.parse_args()
    with ScriptedChatServer(handler_for(0.0)) as server:
        row = tokens_per_answer(server)
    row["label"] = args.label
    print(json.dumps(row, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
