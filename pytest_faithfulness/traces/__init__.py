"""Judging the app as it runs: RAG turns read from its OpenTelemetry spans.

* ``window``: capture windows and the span processor (pure Python);
* ``capture``: the processor hooked into the app's tracer provider (imports the ``otel``
  extra, ``opentelemetry-sdk``, only when a trace fixture is used);
* ``spans`` / ``readers``: a span read by its convention (OpenInference, OpenTelemetry GenAI,
  MLflow, TruLens);
* ``turns``: the turn assembly rules (answer span, generation span, passages, context);
* ``session``: ``TraceCapture``, what the ``faithfulness_trace`` fixture returns;
* ``explain``: the span tree as text.

Nothing here imports pytest; importing this package imports no ``opentelemetry``.
"""
