"""Hooking the span processor into the app's tracer provider, and saying why no span came.

The provider strategy (``shared/design/traces.md`` 2.2), decided once per process at first use:

* an SDK ``TracerProvider`` is set (it has ``add_span_processor``): add the processor to it,
  once; the app's exporters keep every span;
* none is set (the API's ``ProxyTracerProvider``): install ``TracerProvider(ALWAYS_ON)`` with
  the processor, and say so (an app that sets its own provider later is refused by the SDK);
* anything else (a no-op or vendor provider): nothing can be captured; the ``trace_no_spans``
  message names the provider type and the fix (``attach(provider)``).

A provider is never replaced. This module imports ``opentelemetry`` (the ``otel`` extra) and is
imported only when a trace fixture is used: ``require_otel`` turns its absence into a
``TracesUnavailable`` naming the extra.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from ..errors import FaithfulnessError
from .window import FaithfulnessSpanProcessor

_LOCK = threading.Lock()
_PROCESSOR = FaithfulnessSpanProcessor()
_ATTACHED: dict[int, Any] = {}  # id(provider) -> provider, each given the processor once
_STATE: dict[str, Any] = {"installed": False, "unusable": None}


class TracesUnavailable(FaithfulnessError):
    """The trace fixtures were used without the ``otel`` extra (``opentelemetry-sdk``), or
    ``attach()`` was given something that is not an SDK tracer provider."""


def require_otel() -> None:
    """Raise ``TracesUnavailable`` when ``opentelemetry-sdk`` is not installed."""
    try:
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as exc:
        raise TracesUnavailable(
            "judging the app from its spans needs the otel extra: pip install "
            f"'pytest-faithfulness[otel]' (opentelemetry-sdk); import failed: {exc}") from None


def processor() -> FaithfulnessSpanProcessor:
    """The process's one span processor."""
    return _PROCESSOR


def ensure_installed() -> None:
    """Add the processor to the global provider, or install a provider when none is set
    (once per process; later calls only add it to a provider set since).

    Raises:
        TracesUnavailable: no ``opentelemetry-sdk``.
    """
    require_otel()
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON

    with _LOCK:
        provider = trace.get_tracer_provider()
        if isinstance(provider, trace.ProxyTracerProvider):
            mine = TracerProvider(sampler=ALWAYS_ON)
            mine.add_span_processor(_PROCESSOR)  # type: ignore[arg-type]
            trace.set_tracer_provider(mine)
            _ATTACHED[id(mine)] = mine
            _STATE["installed"] = trace.get_tracer_provider() is mine
            _STATE["unusable"] = None
            return
        if hasattr(provider, "add_span_processor"):
            if id(provider) not in _ATTACHED:
                provider.add_span_processor(_PROCESSOR)
                _ATTACHED[id(provider)] = provider
            _STATE["unusable"] = None
            return
        _STATE["unusable"] = type(provider).__name__


def attach(provider: Any) -> None:
    """Add the processor to ``provider`` too (an app's private provider: MLflow's isolated
    one, Phoenix ``register(set_global_tracer_provider=False)``, an instrumentor called with
    ``tracer_provider=``). Idempotent.

    Raises:
        TracesUnavailable: ``provider`` has no ``add_span_processor`` (not an SDK provider).
    """
    if not hasattr(provider, "add_span_processor"):
        raise TracesUnavailable(f"attach() needs an SDK TracerProvider (with "
                                f"add_span_processor), got {type(provider).__name__}")
    with _LOCK:
        if id(provider) not in _ATTACHED:
            provider.add_span_processor(_PROCESSOR)
            _ATTACHED[id(provider)] = provider


def installed_note() -> str | None:
    """A line for the report when this package installed the global provider, else ``None``."""
    if not _STATE["installed"]:
        return None
    return ("pytest-faithfulness installed a TracerProvider (none was set when the first trace "
            "test ran); a provider the app sets later is refused by the SDK, so set yours "
            "before the tests run")


def _may_drop(sampler: Any) -> bool:
    """Whether ``sampler`` drops some of the traces the app starts: always-off, or a ratio
    under 1 (or a percentage under 100) in its description (``TraceIdRatioBased{0.25}``,
    ``...(default_ratio=0.5)``, ``KeepPercent{25%}``); a
    ``ParentBased`` sampler by its root sampler. A custom sampler that states no ratio cannot
    be told (it may only drop health checks), so it is not taken to drop."""
    root = getattr(sampler, "_root", None)
    if root is not None:  # ParentBased: a new trace is decided by its root sampler
        return _may_drop(root)
    description = sampler.get_description()
    if "AlwaysOff" in description:
        return True
    ratios = [float(n) / (100 if percent else 1) for n, percent in
              re.findall(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(%?)", description)]
    return any(ratio < 1 for ratio in ratios)


def sampling_problem(sources: set[int] | None = None) -> str | None:
    """Why spans may be missing because a provider the processor is added to samples: the
    sampler named with the fix, else ``None``.

    Args:
        sources: ``Window.sources`` (the providers whose spans a window holds, by the ``id()``
            of their span processor); ``None``: every provider the processor is added to.
    """
    for provider in list(_ATTACHED.values()):
        if sources is not None and id(getattr(provider, "_active_span_processor",
                                              None)) not in sources:
            continue
        sampler = getattr(provider, "sampler", None)
        if sampler is not None and _may_drop(sampler):
            return (f"the tracer provider's sampler is {sampler.get_description()}: the app "
                    "calls it samples out never reach a processor, so they are never judged; "
                    "use ALWAYS_ON in tests (OTEL_TRACES_SAMPLER=always_on, or "
                    "TracerProvider(sampler=ALWAYS_ON))")
    return None


def no_span_diagnosis() -> str:
    """Why no span may have reached the processor, and the fix for each cause found (the
    ``trace_no_spans`` message)."""
    reasons = []
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        reasons.append("OTEL_SDK_DISABLED=true makes the SDK hand out no-op tracers: unset it")
    if _STATE["unusable"]:
        reasons.append(f"the global tracer provider is a {_STATE['unusable']}, not an SDK "
                       "TracerProvider, so no processor can be added: set an SDK provider, or "
                       "pass yours to faithfulness_trace.attach(provider)")
    if _PROCESSOR.shut_down:
        reasons.append("a tracer provider the processor was added to has been shut down "
                       "(by an earlier test's teardown?): do not shut the provider down "
                       "between tests")
    sampling = sampling_problem()
    if sampling:
        reasons.append(sampling)
    reasons.append("is the app instrumented (the instrumentor's .instrument() called before "
                   "the app runs)?")
    reasons.append("a private provider (MLflow's default: set MLFLOW_USE_DEFAULT_TRACER_PROVIDER"
                   "=false; Phoenix register(set_global_tracer_provider=False); an instrumentor "
                   "given tracer_provider=): pass it to faithfulness_trace.attach(provider)")
    reasons.append("an app in another process (a server started as a subprocess) cannot be "
                   "captured in-process")
    reasons.append("an app run in a fixture of wider scope (module, session) runs once, while "
                   "the first test that uses it is set up: its spans are that test's; use a "
                   "function-scoped fixture, or assert_faithful(answer, passages) with what "
                   "the fixture returned")
    return "; ".join(reasons)
