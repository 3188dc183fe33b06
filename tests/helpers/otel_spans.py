"""Spans built with the real OpenTelemetry SDK for the trace readers' tests (the ``otel``
extra; a test module that imports this skips without it, unless ``FAITHFULNESS_REQUIRE_OTEL``
is set, as ``.ci/run`` does).

``SpanBuilder()``: a private SDK ``TracerProvider`` with the plugin's processor attached
(``traces.capture.attach``), its ``tracer``, and ``window()``: a capture window as a
``TraceCapture``. ``oi_docs`` / ``genai_docs`` write documents in each convention.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def require_otel(*modules: str) -> None:
    """Skip the calling module when ``modules`` (default: the SDK) cannot be imported; fail
    instead when ``FAITHFULNESS_REQUIRE_OTEL=1`` (CI must run these tests)."""
    for name in modules or ("opentelemetry.sdk.trace",):
        try:
            __import__(name)
        except ImportError as exc:
            if os.environ.get("FAITHFULNESS_REQUIRE_OTEL") == "1":
                raise RuntimeError(f"FAITHFULNESS_REQUIRE_OTEL=1 but {name} is missing: "
                                   "pip install -e '.[test]'") from exc
            pytest.skip(f"{name} is not installed (the test extra)", allow_module_level=True)


class SpanBuilder:
    """A private provider whose spans the plugin's processor captures."""

    def __init__(self, max_attributes: int | None = None, sampler: Any = None) -> None:
        from opentelemetry.sdk.trace import SpanLimits, TracerProvider

        from pytest_faithfulness.traces.capture import attach

        limits = SpanLimits(max_span_attributes=max_attributes) if max_attributes else None
        kwargs: dict[str, Any] = {"span_limits": limits} if limits else {}
        if sampler is not None:
            kwargs["sampler"] = sampler
        self.provider = TracerProvider(**kwargs)
        attach(self.provider)
        self.tracer = self.provider.get_tracer("faithfulness-tests")

    @contextmanager
    def window(self, name: str = "test") -> Iterator[Any]:
        from pytest_faithfulness.traces.session import TraceCapture
        from pytest_faithfulness.traces.window import Window

        with Window(name) as window:
            yield TraceCapture(window)

    def span(self, name: str, **attributes: Any) -> Any:
        """``with builder.span("retrieve", **{"a.b": 1}):`` (dots written as ``__``)."""
        return self.tracer.start_as_current_span(
            name, attributes={k.replace("__", "."): v for k, v in attributes.items()})


def oi_docs(*texts: str, prefix: str = "retrieval.documents", ids: bool = True) -> dict[str, Any]:
    """OpenInference flattened documents."""
    attrs: dict[str, Any] = {}
    for i, text in enumerate(texts):
        attrs[f"{prefix}.{i}.document.content"] = text
        if ids:
            attrs[f"{prefix}.{i}.document.id"] = f"d{i}"
    return attrs


def oi_llm(prompt: str | None, output: str) -> dict[str, Any]:
    attrs = {"openinference.span.kind": "LLM",
             "llm.output_messages.0.message.role": "assistant",
             "llm.output_messages.0.message.content": output}
    if prompt is not None:
        attrs["llm.input_messages.0.message.role"] = "user"
        attrs["llm.input_messages.0.message.content"] = prompt
    return attrs


def genai_docs(*docs: dict[str, Any]) -> str:
    return json.dumps(list(docs))


def genai_messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}],
                        **({"finish_reason": "stop"} if role == "assistant" else {})}])
