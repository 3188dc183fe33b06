"""The MLflow reader on spans MLflow itself writes (``mlflow-tracing``, no network): an app
traced with ``@mlflow.trace`` (a RETRIEVER returning ``mlflow.entities.Document``s, a
CHAT_MODEL given the prompt, a CHAIN around them), MLflow on the global OpenTelemetry provider
(``MLFLOW_USE_DEFAULT_TRACER_PROVIDER=false``). MLflow exports to a tracking server; the inner
run points it at a closed loopback port with no retries (its export fails and is logged, the
spans are still made). Needs the test extra; ``FAITHFULNESS_REQUIRE_OTEL=1`` (``.ci/run``)
fails instead of skipping."""

from __future__ import annotations

import json
import socket

from otel_spans import require_otel

require_otel("opentelemetry.sdk.trace", "mlflow")

MLFLOW_APP = '''
import mlflow
from mlflow.entities import Document, SpanType

KB = {"kb-1": "Refunds are issued within 14 days of a return being received.",
      "kb-2": "The Kestrel e-bike weighs 23 kg."}


@mlflow.trace(span_type=SpanType.RETRIEVER)
def retrieve(question):
    return [Document(page_content=t, id=i) for i, t in KB.items()
            if any(w in t.lower() for w in question.lower().split())]


@mlflow.trace(span_type=SpanType.CHAT_MODEL)
def chat(messages, reply):
    return {"choices": [{"message": {"role": "assistant", "content": reply}}]}


@mlflow.trace(span_type=SpanType.CHAIN)
def ask(question, reply):
    docs = retrieve(question)
    prompt = "Answer from the context.\\nContext:\\n" + "\\n".join(d.page_content for d in docs)
    out = chat([{"role": "system", "content": prompt}, {"role": "user", "content": question}],
               reply)
    return out["choices"][0]["message"]["content"]
'''


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_mlflow_spans_give_the_turn_and_an_unsupported_claim_fails(pytester, monkeypatch):
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.setenv("MLFLOW_USE_DEFAULT_TRACER_PROVIDER", "false")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    pytester.makeconftest('''
        import mlflow
        from mlflow.entities.trace_location import MlflowExperimentLocation

        mlflow.tracing.set_destination(MlflowExperimentLocation(experiment_id="0"))
    ''')
    pytester.makepyfile(mlflow_app=MLFLOW_APP, test_mlflow='''
        from mlflow_app import ask

        def test_faithful(assert_faithful_trace, faithfulness_trace):
            reply = ask("When are refunds issued?", "Refunds are issued within 14 days.")
            [result] = assert_faithful_trace(answer=reply, min_score=1.0)
            assert result.trace.context == "prompt"
            explained = faithfulness_trace.explain()
            assert "retrieve [retriever, mlflow]" in explained
            assert "chat [llm, mlflow]" in explained

        def test_unfaithful(assert_faithful_trace):
            ask("How heavy is the Kestrel e-bike?",
                "The Kestrel e-bike weighs 23 kg. It comes with a ten-year warranty.")
            assert_faithful_trace()
    ''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--faithfulness-canaries",
                                           "0", "--faithfulness-report", "r.json")
    result.assert_outcomes(passed=1, failed=1)
    answers = {a["test_id"]: a for a in
               json.loads((pytester.path / "r.json").read_text())["answers"]}
    faithful = answers["test_mlflow.py::test_faithful"]
    assert [p["id"] for p in faithful["passages"]] == ["kb-1"]
    unfaithful = answers["test_mlflow.py::test_unfaithful"]
    assert unfaithful["answer"].endswith("ten-year warranty.")
    assert "kb-2" in [p["id"] for p in unfaithful["passages"]]
    assert any(c["verdict"]["label"] != "supported" for c in unfaithful["claims"])
