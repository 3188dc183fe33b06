"""Judge calls and input tokens per answer: pytest-faithfulness vs DeepEval vs RAGAS.

    python benchmarks/compare_tools.py --setup   # once: benchmarks/.venv-compare (pinned)
    python benchmarks/compare_tools.py           # measure; writes benchmarks/results/

Run it with the project's venv active (``. .venv/bin/activate``). ``--setup`` creates
``benchmarks/.venv-compare`` and installs DeepEval and RAGAS there from
``benchmarks/requirements-compare.txt`` (top-level pins) and
``benchmarks/constraints-compare.txt`` (the full resolved set); neither tool is ever a
dependency of the project.

What is measured: the same 20 answers (``build_answers``: deterministic, synthetic, five
claims each, about 900 tokens of passages in five passages) judged by

* pytest-faithfulness: ``evaluate`` with ``LiteLLMJudge("openai/gpt-4o-mini", api_base=...)``,
  in this process;
* DeepEval: ``FaithfulnessMetric`` (defaults) with ``GPTModel("gpt-4o-mini", base_url=...)``;
* RAGAS: ``ragas.metrics.collections.Faithfulness`` with ``llm_factory("gpt-4o-mini",
  client=AsyncOpenAI(base_url=...))``;

the last two in ``benchmarks/.venv-compare`` through ``benchmarks/_compare_runner.py``. Every
call goes to one scripted OpenAI-compatible server on 127.0.0.1 (``tests/helpers/chat_server.py``)
that recognises each tool's prompts by their wording and answers them in the shape the tool
expects: every claim is supported, so each tool runs its full pipeline to completion.

Calls and input tokens are counted from the requests the server recorded, all with one
tokenizer (``litellm.token_counter`` for gpt-4o-mini: tiktoken ``o200k_base``, with OpenAI's
per-message overhead; a request's ``tools`` count too). A JSON schema sent in
``response_format`` is counted separately (``schema_tokens``), not in ``input_tokens``.
Output tokens are the tokens of the scripted replies, so they show what each tool asks the
model to write back, with replies kept as short as each tool's format allows.

Nothing leaves 127.0.0.1: the tools get a dummy API key and their telemetry opt-outs, and
every process refuses (and records) any connect to a non-loopback address.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = HERE / ".venv-compare"
VENV_PYTHON = VENV / "bin" / "python"
RUNNER = HERE / "_compare_runner.py"
REQUIREMENTS = HERE / "requirements-compare.txt"
CONSTRAINTS = HERE / "constraints-compare.txt"
RESULTS = HERE / "results"

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))

N_ANSWERS = 20
SEED = 20261130
OUR_MODEL = "openai/gpt-4o-mini"

# ------------------------------------------------------------------------------------------
# Loopback only, in this process too (the child processes guard themselves the same way).

BLOCKED: list[str] = []


def _refuse(address: object) -> ConnectionRefusedError:
    BLOCKED.append(repr(address))
    return ConnectionRefusedError(f"benchmark: connect to {address!r} refused (loopback only)")


def _install_guard() -> None:
    from loopback_guard import install

    install(_refuse)
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    os.environ["LITELLM_TELEMETRY"] = "False"
    os.environ["OPENAI_API_KEY"] = "sk-dummy-loopback-only"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        os.environ.pop(name, None)
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"


# ------------------------------------------------------------------------------------------
# The 20 answers: synthetic support-KB passages, each answer five verbatim passage sentences.

PRODUCTS = [
    ("Halden", "air purifier"), ("Corvo", "robot vacuum"), ("Miravel", "smart thermostat"),
    ("Ostrava", "video doorbell"), ("Quillon", "e-reader"), ("Brenna", "espresso machine"),
    ("Tessaly", "fitness tracker"), ("Varn", "mesh Wi-Fi router"), ("Lumeo", "desk lamp"),
    ("Petrel", "electric toothbrush"), ("Solvik", "portable power station"),
    ("Dunmore", "smart lock"), ("Aurel", "baby monitor"), ("Kestrel", "action camera"),
    ("Ferrow", "cordless drill"), ("Nimbra", "dehumidifier"), ("Callio", "soundbar"),
    ("Rhodon", "induction hob"), ("Sable", "wireless earbuds"), ("Ivra", "label printer"),
]

ASPECTS = {
    "Setup": [
        "The {p} ships with a wall bracket, two anchor screws and a {a}-metre USB-C cable.",
        "Setting up the {p} through the companion app takes about {b} minutes on a 2.4 GHz "
        "Wi-Fi network.",
        "The {p} cannot join 5 GHz-only networks or networks that need a captive-portal login.",
        "While the {p} is pairing its status light blinks blue, and it turns solid white once "
        "the device is online.",
        "If pairing fails, hold the reset button of the {p} for {c} seconds until the light "
        "flashes amber, then start again.",
        "The {p} downloads a firmware update during setup, which can take up to {d} minutes.",
        "The companion app for the {p} needs iOS {e} or later, or Android {f} or later.",
    ],
    "Power and battery": [
        "On a full charge the {p} runs for about {a} hours in its standard mode.",
        "A full recharge of the {p} takes {b} hours with the supplied {c} W adapter.",
        "The {p} enters a low-power standby after {d} minutes without use.",
        "In standby the {p} draws less than {e} watts.",
        "The battery of the {p} keeps at least {f} percent of its capacity after {g} charge "
        "cycles.",
        "The battery of the {p} is not user-replaceable and must be exchanged by an authorised "
        "service centre.",
        "When the battery of the {p} falls below {h} percent, the app sends a reminder to "
        "recharge it.",
    ],
    "Warranty and returns": [
        "The {p} comes with a {a}-year limited warranty from the date of purchase.",
        "Registering the {p} in the app within {b} days extends the warranty by one year.",
        "The warranty of the {p} does not cover water damage, drops or cosmetic wear.",
        "An unopened {p} can be returned within {c} days for a full refund.",
        "An opened {p} can be returned within {d} days, less a restocking fee of {e} percent.",
        "Warranty repairs of the {p} are usually completed within {f} working days of receipt.",
        "A proof of purchase is required for every warranty claim on the {p}.",
    ],
    "Pricing and plans": [
        "The {p} costs {a} dollars in the base configuration.",
        "The optional cloud plan for the {p} costs {b} dollars a month or {c} dollars a year.",
        "The cloud plan of the {p} keeps {d} days of history, against {e} days on the free tier.",
        "Students get {f} percent off the {p} with a verified university email address.",
        "Replacement parts for the {p} are sold in packs of {g}.",
        "The {p} is available in {h} colours, and the colour does not change the price.",
        "Trade-in of an older model gives a credit of up to {i} dollars towards the {p}.",
    ],
    "Troubleshooting": [
        "If the {p} shows error E{a}, the sensor needs cleaning with a dry cloth.",
        "A red light on the {p} means the device has lost its network connection.",
        "Restarting the {p} clears most connection problems; unplug it for {b} seconds.",
        "If the app cannot find the {p}, move the device within {c} metres of the router.",
        "A factory reset erases all settings of the {p} and takes about {d} minutes.",
        "Logs of the {p} can be sent to support from the app's Help menu.",
        "If the {p} overheats it shuts down and restarts after {e} minutes.",
    ],
}


def build_answers(n: int = N_ANSWERS, seed: int = SEED) -> list[dict]:
    """``n`` deterministic answers: five passages (one per aspect, seven sentences each, about
    900 tokens in all) about a product with a unique code, and an answer made of five
    sentences copied verbatim from them, one per passage: five claims, all supported."""
    rng = random.Random(seed)
    answers = []
    for i in range(n):
        brand, kind = PRODUCTS[i % len(PRODUCTS)]
        code = f"{brand[:2].upper()}-{1100 + 37 * i}"
        product = f"{brand} {kind} {code}"
        passages, claims, passage_of, truths = [], [], {}, []
        for j, (aspect, templates) in enumerate(ASPECTS.items()):
            values = {k: rng.randint(2, 60) for k in "abcdefghij"}
            sentences = [t.format(p=product, **values) for t in templates]
            pid = f"kb-{code.lower()}-{j + 1}"
            passages.append({"id": pid, "text": f"{aspect}. " + " ".join(sentences)})
            truths += sentences
            claim = sentences[rng.randrange(len(sentences))]
            claims.append(claim)
            passage_of[claim] = pid
        answers.append({
            "id": code,
            "question": f"What should I know before buying the {brand} {kind}?",
            "answer": " ".join(claims),
            "claims": claims,
            "claim_passage": passage_of,
            "passages": passages,
            "truths": truths,  # DeepEval's truth extraction: every fact, restated
        })
    return answers


# ------------------------------------------------------------------------------------------
# The scripted model: recognises each tool's prompts by their wording.

CODE = re.compile(r"\b[A-Z]{2}-\d{4}\b")

# (tool, step, phrase that identifies the prompt); the first match wins. Our own prompts are
# recognised by their system prompts, imported, so an edit of prompts.py needs no edit here.
PROMPTS = [
    ("deepeval", "truths", "please generate a comprehensive list of"),
    ("deepeval", "claims", "that can inferred from the provided actual AI output"),
    ("deepeval", "verdicts", "indicate whether EACH claim contradicts any facts"),
    ("deepeval", "reason", "Below is a list of Contradictions"),
    ("ragas", "statements", "Break down each sentence into one or more fully understandable"),
    ("ragas", "nli", "judge the faithfulness of a series of statements"),
]


class ScriptedModel:
    """The handler of the loopback server; logs (tool, step, reply) for every call."""

    def __init__(self, answers: list[dict]) -> None:
        self.by_code = {a["id"]: a for a in answers}
        self.log: list[dict] = []
        self._lock = threading.Lock()

    def __call__(self, request: dict):
        from chat_server import Reply

        text = _request_text(request)
        tool, step = _classify(text)
        answer = None if step == "reason" else self._answer_in(text)  # reason: score only
        value = self._reply(tool, step, answer, text)
        content = json.dumps(value, ensure_ascii=False)
        with self._lock:
            self.log.append({"tool": tool, "step": step, "content": content})
        if request.get("tools"):  # a client in function-calling mode: answer with a tool call
            return Reply(body=_tool_call_completion(request, content))
        return Reply(content=content)

    def _answer_in(self, text: str) -> dict:
        # the prompts' examples hold no code; the answer's own code is the most frequent one
        counts: dict[str, int] = defaultdict(int)
        for code in CODE.findall(text):
            if code in self.by_code:
                counts[code] += 1
        if not counts:
            raise ValueError("no benchmark answer code in the prompt: " + text[:200])
        return self.by_code[max(counts, key=counts.get)]

    @staticmethod
    def _reply(tool: str, step: str, answer: dict | None, text: str) -> dict:
        if step == "reason":
            return {"reason": "The score is 1.00 because every claim agrees with the retrieval "
                              "context."}
        claims = answer["claims"]
        if step == "decompose":
            return {"claims": claims, "dropped": []}
        if step == "verify":
            # the claim under test comes after the passages (which hold it verbatim too)
            claim = max(claims, key=text.rfind)
            return {"label": "supported", "passage_ids": [answer["claim_passage"][claim]],
                    "quote": claim, "rationale": "The passage states this directly."}
        if step == "truths":
            return {"truths": answer["truths"]}
        if step in ("claims", "statements"):
            return {step: claims}
        if step == "verdicts":
            return {"verdicts": [{"verdict": "yes", "reason": None} for _ in claims]}
        if step == "nli":
            return {"statements": [{"statement": c, "reason": "The context states this directly.",
                                    "verdict": 1} for c in claims]}
        raise AssertionError(step)


def _step_of(request: dict) -> str:
    try:
        return _classify(_request_text(request))[1]
    except ValueError:
        return "unknown"


def _request_text(request: dict) -> str:
    return "\n".join(_content_text(m.get("content")) for m in request.get("messages") or [])


def _classify(text: str) -> tuple[str, str]:
    from pytest_faithfulness.judges.prompts import DECOMPOSE_SYSTEM, VERIFY_SYSTEM

    if text.startswith(DECOMPOSE_SYSTEM):
        return "pytest-faithfulness", "decompose"
    if text.startswith(VERIFY_SYSTEM):
        return "pytest-faithfulness", "verify"
    for tool, step, phrase in PROMPTS:
        if phrase in text:
            return tool, step
    raise ValueError("prompt of no known tool: " + text[:300])


def _content_text(content) -> str:
    if isinstance(content, list):  # content parts
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _tool_call_completion(request: dict, arguments: str) -> dict:
    from chat_server import count_prompt_tokens, count_text_tokens

    name = request["tools"][0]["function"]["name"]
    prompt, completion = count_prompt_tokens(request), count_text_tokens(arguments)
    return {
        "id": f"chatcmpl-bench-{time.monotonic_ns()}", "object": "chat.completion",
        "created": int(time.time()), "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": name, "arguments": arguments}}]}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                  "total_tokens": prompt + completion},
    }


# ------------------------------------------------------------------------------------------
# Measuring.

def measure(records: list, log: list[dict], n_answers: int) -> dict:
    """Calls and tokens of one tool's run, from the server's recorded requests."""
    from chat_server import count_prompt_tokens, count_text_tokens

    calls = len(records)
    input_tokens = sum(count_prompt_tokens(r.json) for r in records)
    schema_tokens = sum(_schema_tokens(r.json) for r in records)
    output_tokens = sum(count_text_tokens(e["content"]) for e in log)
    steps: dict[str, dict] = {}
    for r in records:
        step = _step_of(r.json)
        s = steps.setdefault(step, {"calls": 0, "input_tokens": 0})
        s["calls"] += 1
        s["input_tokens"] += count_prompt_tokens(r.json)
    for e in log:
        s = steps.setdefault(e["step"], {"calls": 0, "input_tokens": 0})
        s["output_tokens"] = s.get("output_tokens", 0) + count_text_tokens(e["content"])
    formats = sorted({_format(r.json) for r in records})
    return {
        "calls": calls, "input_tokens": input_tokens, "output_tokens": output_tokens,
        "schema_tokens": schema_tokens,
        "per_answer": {"calls": calls / n_answers, "input_tokens": input_tokens / n_answers,
                       "output_tokens": output_tokens / n_answers,
                       "schema_tokens": schema_tokens / n_answers},
        "steps_per_answer": {k: {m: v / n_answers for m, v in s.items()}
                             for k, s in steps.items()},
        "response_format": formats,
    }


def _schema_tokens(request: dict) -> int:
    from chat_server import count_text_tokens

    rf = request.get("response_format")
    if isinstance(rf, dict) and rf.get("type") == "json_schema":
        return count_text_tokens(json.dumps(rf.get("json_schema", {}).get("schema", {})))
    if isinstance(rf, dict) and "schema" in rf:
        return count_text_tokens(json.dumps(rf["schema"]))
    return 0


def _format(request: dict) -> str:
    if request.get("tools"):
        return "tools"
    rf = request.get("response_format")
    return rf.get("type", "?") if isinstance(rf, dict) else "none"


def run_ours(server, answers: list[dict]) -> dict:
    from importlib.metadata import version

    import pytest_faithfulness
    from pytest_faithfulness import LiteLLMJudge

    judge = LiteLLMJudge(OUR_MODEL, api_base=server.base_url)
    started = time.monotonic()
    results = [pytest_faithfulness.evaluate(a["answer"], a["passages"], judge) for a in answers]
    bad = [(a["id"], r.status, r.error) for a, r in zip(answers, results)
           if r.status != "scored" or r.score != 1.0]
    from pytest_faithfulness.judges.prompts import prompt_fingerprint

    return {"tool": "pytest-faithfulness", "version": version("pytest-faithfulness"),
            "prompts": prompt_fingerprint(), "ok": not bad, "error": f"unexpected results: {bad}" if bad else None,
            "scores": [r.score for r in results], "seconds": round(time.monotonic() - started, 2),
            "blocked_connections": list(BLOCKED)}


def run_other(tool: str, server, answers_file: Path, timeout: float) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"compare-{tool}-") as tmp:
        out = Path(tmp) / "out.json"
        env = {k: v for k, v in os.environ.items()
               if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
        env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["HOME"] = tmp  # the tools' config and cache folders go to a scratch home
        done = subprocess.run([str(VENV_PYTHON), str(RUNNER), tool, server.base_url,
                               str(answers_file), str(out)], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)
        if out.exists():
            result = json.loads(out.read_text())
        else:
            result = {"tool": tool, "ok": False, "version": None,
                      "error": f"runner exited {done.returncode} without a result"}
        if not result.get("ok"):
            result["stderr_tail"] = done.stderr[-3000:]
        return result


def setup() -> int:
    """Create benchmarks/.venv-compare and install the pinned DeepEval and RAGAS."""
    if not VENV_PYTHON.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    cmd = [str(VENV_PYTHON), "-m", "pip", "install", "-r", str(REQUIREMENTS)]
    if CONSTRAINTS.exists():
        cmd += ["-c", str(CONSTRAINTS)]
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=False).returncode


def table(rows: list[dict]) -> str:
    lines = ["| tool | version | calls/answer | input tokens/answer | output tokens/answer "
             "| + response_format schema tokens/answer |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if r.get("measured"):
            m = r["measured"]["per_answer"]
            lines.append(f"| {r['tool']} | {r['version']} | {m['calls']:.2f} | "
                         f"{m['input_tokens']:.0f} | {m['output_tokens']:.0f} | "
                         f"{m['schema_tokens']:.0f} |")
        else:
            lines.append(f"| {r['tool']} | {r.get('version') or '-'} | failed: "
                         f"{(r.get('error') or '')[:80]} | | | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--setup", action="store_true",
                        help="create benchmarks/.venv-compare with the pinned tools, then exit")
    parser.add_argument("--tools", default="pytest-faithfulness,deepeval,ragas",
                        help="comma-separated subset to run")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per tool run")
    parser.add_argument("--out", type=Path, default=RESULTS / "compare_tools.json")
    args = parser.parse_args(argv)
    if args.setup:
        return setup()
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if any(t != "pytest-faithfulness" for t in tools) and not VENV_PYTHON.exists():
        print(f"{VENV} is missing: run `python benchmarks/compare_tools.py --setup` first",
              file=sys.stderr)
        return 2

    _install_guard()
    from chat_server import ScriptedChatServer

    answers = build_answers()
    RESULTS.mkdir(parents=True, exist_ok=True)
    answers_file = RESULTS / "compare_answers.jsonl"
    with answers_file.open("w", encoding="utf-8") as fh:
        for a in answers:
            fh.write(json.dumps({k: a[k] for k in ("id", "question", "answer", "passages")},
                                ensure_ascii=False) + "\n")

    from chat_server import count_text_tokens

    passage_tokens = [count_text_tokens("\n\n".join(p["text"] for p in a["passages"]))
                      for a in answers]
    model = ScriptedModel(answers)
    rows: list[dict] = []
    samples: dict[str, dict] = {}
    with ScriptedChatServer(model) as server:
        for tool in tools:
            start_req, start_log = len(server.records), len(model.log)
            print(f"running {tool} ...", file=sys.stderr, flush=True)
            try:
                if tool == "pytest-faithfulness":
                    result = run_ours(server, answers)
                else:
                    result = run_other(tool, server, answers_file, args.timeout)
            except Exception as exc:  # report and go on with the other tools
                result = {"tool": tool, "ok": False, "version": None,
                          "error": f"{type(exc).__name__}: {exc}"}
            records, log = server.records[start_req:], model.log[start_log:]
            if result.get("ok"):
                result["measured"] = measure(records, log, len(answers))
            else:
                result["calls_before_failure"] = len(records)
            for r in records:  # the first request of each step, as sent, for auditing
                samples.setdefault(f"{tool}/{_step_of(r.json)}", r.json)
            result["tool"] = tool
            rows.append(result)
        server_errors = [repr(e) for e in server.errors]

    report = {
        "benchmark": "judge calls and tokens per answer, same answers, same loopback server",
        "answers": {"count": len(answers), "rule": "synthetic (build_answers, seed "
                    f"{SEED}): 5 passages and 5 verbatim-supported claims per answer",
                    "claims_per_answer": 5,
                    "passage_tokens_per_answer": sum(passage_tokens) / len(passage_tokens)},
        "tokenizer": "litellm.token_counter(model='gpt-4o-mini') = tiktoken o200k_base, "
                     "messages with OpenAI chat overhead (+ tools); response_format schemas "
                     "counted apart as schema_tokens",
        "python": sys.version.split()[0],
        "server_errors": server_errors,
        "blocked_connections_main": list(BLOCKED),
        "tools": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    samples_file = args.out.with_name(args.out.stem + "_requests.json")
    samples_file.write_text(json.dumps(samples, indent=1, ensure_ascii=False) + "\n")
    print(table(rows))
    print(f"\n{len(answers)} answers, {report['answers']['passage_tokens_per_answer']:.0f} "
          f"passage tokens and 5 claims each; results in {args.out.relative_to(ROOT)}")
    failed = [r["tool"] for r in rows if not r.get("ok")]
    if failed:
        print("failed: " + ", ".join(f"{r['tool']}: {r.get('error')}" for r in rows
                                     if not r.get("ok")), file=sys.stderr)
    return 1 if failed or server_errors else 0


if __name__ == "__main__":
    sys.exit(main())
