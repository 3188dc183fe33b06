"""Does reading turns from spans keep what a perfect judge needs, and let nothing cut through?

Every answer and claim of the development data (``/work/shared/data``: ``answers.jsonl`` and
``claims.jsonl``, 585 records, 1 to 40 passages each) is run through a toy RAG app traced with
the real OpenTelemetry SDK (OpenInference attributes: a CHAIN root with the answer as
``output.value``, a RETRIEVER span with the record's passages, an LLM span with the prompt and
the answer), in each app shape below. The turns are then read as ``assert_faithful_trace()``
reads them (``TraceCapture.results()``, ``answer=None``).

Both directions:

* **kept** (a perfect judge keeps the answer): the turn's answer is the record's answer and its
  passages are exactly the record's passages, so a judge sees what it would see given the record
  by hand. Anything else is a false alarm the trace layer adds, counted by error kind.
* **through** (a lying trace gets through): in the shapes where the SDK cut the answer, a turn
  that is judged at all is a silent pass (the cut part is never judged). The same holds for a
  background thread's turns credited to a test in which the app never ran.

Shapes: the prompt as plain text, ``json.dumps`` of the documents (ASCII escapes, and
``ensure_ascii=False``), a JSON message holding that JSON (escaped twice), HTML-escaped
(``html.escape``), Python ``repr``, each sentence on a line after ``> ``; no prompt recorded;
a prompt that holds no document but a question repeating a document's first 60 characters
(through: a turn judged with that document); two turns in one conversation span (both must
be judged); the SDK value length limit just above
the longest text (nothing cut) and just below the answer's length (the answer is cut); a
background thread making other records' turns while the test makes its own, and a test that
makes none.

Run: ``python benchmarks/trace_turns.py`` (writes ``benchmarks/results/trace_turns.json``).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA = Path("/work/shared/data")
OUT = Path(__file__).parent / "results" / "trace_turns.json"

Prompt = Callable[[list[dict[str, str]], str], "str | None"]


def _docs_json(passages: list[dict[str, str]], **kwargs: Any) -> str:
    return json.dumps([{"id": p["id"], "text": p["text"]} for p in passages], **kwargs)


#: How an app may write the retrieved documents into its prompt.
PROMPTS: dict[str, Prompt] = {
    "plain": lambda ps, q: "Answer from these passages:\n" + "\n\n".join(p["text"] for p in ps)
    + f"\nQuestion: {q}",
    "json": lambda ps, q: f"Context: {_docs_json(ps)}\nQuestion: {q}",
    "json-unicode": lambda ps, q: f"Context: {_docs_json(ps, ensure_ascii=False)}\nQ: {q}",
    "json-in-json": lambda ps, q: json.dumps({"messages": [{"role": "user", "content":
                                             f"Context: {_docs_json(ps)}\nQ: {q}"}]}),
    "html": lambda ps, q: "<context>" + "".join(f"<doc>{html.escape(p['text'])}</doc>"
                                                for p in ps) + f"</context><q>{html.escape(q)}</q>",
    "repr": lambda ps, q: f"Context: {[{'id': p['id'], 'text': p['text']} for p in ps]!r}\nQ: {q}",
    "quoted-lines": lambda ps, q: "Context:\n" + "\n".join(
        "> " + line for p in ps for line in re.split(r"(?<=[.!?])\s+|\n+", p["text"]) if line)
    + f"\nQuestion: {q}",
    "no-prompt": lambda ps, q: None,
}


def records(limit: int | None) -> list[dict[str, Any]]:
    """``{"id", "answer", "passages", "question"}`` per record of the development data."""
    out = []
    for name in ("answers.jsonl", "claims.jsonl"):
        with open(DATA / name, encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                out.append({"id": row["id"], "answer": row.get("answer") or row["claim"],
                            "question": row.get("question") or "",
                            "passages": [{"id": p["id"], "text": p["text"]}
                                         for p in row["passages"]]})
    return out[:limit] if limit else out


class App:
    """The toy RAG app on a tracer provider with the plugin's processor attached."""

    def __init__(self, max_value_length: int | None = None) -> None:
        from opentelemetry.sdk.trace import SpanLimits, TracerProvider

        from pytest_faithfulness.traces.capture import attach

        limits = SpanLimits(max_attribute_length=max_value_length) if max_value_length else None
        self.provider = TracerProvider(**({"span_limits": limits} if limits else {}))
        attach(self.provider)
        self.tracer = self.provider.get_tracer("trace-turns-benchmark")

    def ask(self, record: dict[str, Any], prompt: Prompt) -> None:
        span = self.tracer.start_as_current_span
        with span("rag", attributes={"openinference.span.kind": "CHAIN",
                                     "input.value": record["question"]}) as root:
            with span("retrieve", attributes={"openinference.span.kind": "RETRIEVER"}) as r:
                for i, p in enumerate(record["passages"]):
                    r.set_attribute(f"retrieval.documents.{i}.document.id", p["id"])
                    r.set_attribute(f"retrieval.documents.{i}.document.content", p["text"])
            text = prompt(record["passages"], record["question"])
            attrs = {"openinference.span.kind": "LLM",
                     "llm.output_messages.0.message.role": "assistant",
                     "llm.output_messages.0.message.content": record["answer"]}
            if text is not None:
                attrs["llm.input_messages.0.message.role"] = "user"
                attrs["llm.input_messages.0.message.content"] = text
            with span("llm", attributes=attrs):
                pass
            root.set_attribute("output.value", record["answer"])


def _turns(run: Callable[[], None], *, background: Callable[[threading.Event], None] | None
           = None) -> list[Any]:
    """The results of one test's window, opened as the plugin opens it (setup, then body)."""
    from pytest_faithfulness.traces.session import TraceCapture
    from pytest_faithfulness.traces.window import Window

    window = Window("test").open(credit_new_threads=False)
    stop = threading.Event()
    thread = None
    try:
        if background is not None:  # a session fixture's loop, started in the test's setup
            thread = threading.Thread(target=background, args=(stop,), name="keep-alive")
            thread.start()
            stop.wait(0.01)
        window.credit_new_threads()
        run()
        return TraceCapture(window).results()
    finally:
        window.close()
        stop.set()
        if thread is not None:
            thread.join()


def _same(turn: Any, record: dict[str, Any]) -> bool:
    from pytest_faithfulness.traces.spans import normal

    return (normal(turn.answer) == normal(record["answer"])
            and sorted(normal(p.text) for p in turn.passages)
            == sorted(normal(p["text"]) for p in record["passages"]))


def measure(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per shape: records, kept, errored by kind, and (where the answer is cut or the app
    never ran) how many were judged anyway."""
    from pytest_faithfulness.traces.turns import TurnFailure

    figures: dict[str, Any] = {}
    app = App()
    for name, prompt in PROMPTS.items():
        kept, errors = 0, Counter()
        for record in rows:
            found = _turns(lambda record=record, prompt=prompt: app.ask(record, prompt))
            if len(found) == 1 and not isinstance(found[0], TurnFailure) \
                    and _same(found[0], record):
                kept += 1
            else:
                errors.update(f.kind if isinstance(f, TurnFailure) else "different turn"
                              for f in found)
        figures[name] = {"records": len(rows), "kept": kept, "false_alarms": dict(errors)}
    longest = max(len(t) for r in rows for t in [r["answer"], *(p["text"] for p in r["passages"]),
                                                   PROMPTS["plain"](r["passages"], r["question"])])
    kept, errors = 0, Counter()
    roomy = App(max_value_length=longest + 1)
    for record in rows:
        found = _turns(lambda record=record: roomy.ask(record, PROMPTS["plain"]))
        if len(found) == 1 and not isinstance(found[0], TurnFailure) and _same(found[0], record):
            kept += 1
        else:
            errors.update(f.kind if isinstance(f, TurnFailure) else "different turn" for f in found)
    figures["limit-above-longest"] = {"records": len(rows), "limit": longest + 1, "kept": kept,
                                      "false_alarms": dict(errors)}
    through, kinds = 0, Counter()
    cut_rows = [r for r in rows if len(r["answer"]) > 20]
    for record in cut_rows:
        cut = App(max_value_length=len(record["answer"]) - 10)
        found = _turns(lambda record=record, cut=cut: cut.ask(record, PROMPTS["no-prompt"]))
        through += sum(not isinstance(f, TurnFailure) for f in found)
        kinds.update(f.kind for f in found if isinstance(f, TurnFailure))
    figures["answer-cut-by-limit"] = {"records": len(cut_rows), "judged_anyway": through,
                                      "errored": dict(kinds)}
    through, kinds = 0, Counter()
    for record in rows:  # the documents never reach the model; the question repeats one's start
        start = record["passages"][0]["text"][:60]
        found = _turns(lambda record=record, start=start: app.ask(
            record, lambda ps, q: f"Customer: {start} right?"))
        through += sum(not isinstance(f, TurnFailure) and bool(f.passages) for f in found)
        kinds.update(f.kind for f in found if isinstance(f, TurnFailure))
    figures["documents-unused-question-repeats-one"] = {"records": len(rows),
                                                         "judged_with_passages": through,
                                                         "errored": dict(kinds)}
    kept = 0
    pairs = list(zip(rows[0::2], rows[1::2]))
    for first, second in pairs:  # two turns in one conversation span
        def talk(first: dict[str, Any] = first, second: dict[str, Any] = second) -> None:
            with app.tracer.start_as_current_span("conversation") as conv:
                app.ask(first, PROMPTS["plain"])
                app.ask(second, PROMPTS["plain"])
                conv.set_attribute("output.value", second["answer"])
        found = _turns(talk)
        answers = sorted(_normal(f.answer) for f in found if not isinstance(f, TurnFailure))
        kept += answers == sorted(_normal(r["answer"]) for r in (first, second))
    figures["two-turns-one-trace"] = {"pairs": len(pairs), "both_judged": kept}
    figures.update(_background(app, rows))
    return figures


def _normal(text: str) -> str:
    from pytest_faithfulness.traces.spans import normal

    return normal(text)


def _background(app: App, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A keep-alive thread makes other records' turns during every test."""
    from pytest_faithfulness.traces.turns import TurnFailure

    def loop(stop: threading.Event) -> None:
        i = 0
        while not stop.is_set():
            app.ask(rows[i % len(rows)], PROMPTS["plain"])
            i += 1
            stop.wait(0.001)

    sample = rows[:: max(1, len(rows) // 60)]
    kept, credited, idle_through = 0, 0, 0
    for record in sample:
        found = _turns(lambda record=record: app.ask(record, PROMPTS["plain"]), background=loop)
        turns = [f for f in found if not isinstance(f, TurnFailure)]
        kept += len(turns) == 1 and _same(turns[0], record)
        credited += max(0, len(turns) - 1)
        idle = _turns(lambda: time.sleep(0.02), background=loop)
        idle_through += sum(not isinstance(f, TurnFailure) for f in idle)
    return {"background-thread": {"records": len(sample), "kept": kept,
                                  "foreign_turns_credited": credited},
            "background-thread-app-never-ran": {"tests": len(sample),
                                                "judged_anyway": idle_through}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="first N records only")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    figures = measure(records(args.limit))
    figures["seconds"] = round(time.perf_counter() - started, 1)
    OUT.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    for name, row in figures.items():
        print(f"{name}: {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
