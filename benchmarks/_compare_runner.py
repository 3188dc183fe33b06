"""Runs DeepEval's or RAGAS's faithfulness metric over the benchmark answers (helper of
``compare_tools.py``; runs in ``benchmarks/.venv-compare``, never in the project's venv).

    python benchmarks/_compare_runner.py {deepeval|ragas} BASE_URL ANSWERS_JSONL OUT_JSON

Every model call goes to BASE_URL (the loopback server of ``compare_tools.py``) with a dummy
API key. Telemetry is switched off through each tool's documented variable, and every socket
connect to an address that is not loopback is refused and recorded in OUT_JSON
(``blocked_connections``), so nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
import time
from importlib.metadata import version

# -- nothing leaves the machine ----------------------------------------------------------------
OFFLINE_ENV = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "0",
    "DEEPEVAL_GRPC_LOGGING": "0",
    "RAGAS_DO_NOT_TRACK": "true",
    "DO_NOT_TRACK": "1",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "OPENAI_API_KEY": "sk-dummy-loopback-only",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}
for _name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
              "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION", "OPENAI_PROJECT",
              "CONFIDENT_API_KEY", "DEEPEVAL_API_KEY"):
    os.environ.pop(_name, None)
os.environ.update(OFFLINE_ENV)

BLOCKED: list[str] = []
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "helpers"))
from loopback_guard import install  # noqa: E402  (stdlib only: works in the other venv)


def _refuse(address: object) -> ConnectionRefusedError:
    BLOCKED.append(repr(address))
    return ConnectionRefusedError(f"benchmark: connect to {address!r} refused (loopback only)")


install(_refuse)

MODEL = "gpt-4o-mini"
API_KEY = OFFLINE_ENV["OPENAI_API_KEY"]


# -- the tools -----------------------------------------------------------------------------------
def run_deepeval(base_url: str, answers: list[dict]) -> list[float]:
    """DeepEval's ``FaithfulnessMetric`` with its defaults, judged by ``GPTModel`` at base_url."""
    from deepeval.metrics import FaithfulnessMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model=MODEL, base_url=base_url, api_key=API_KEY, temperature=0)
    scores = []
    for answer in answers:
        metric = FaithfulnessMetric(model=model)  # defaults: include_reason=True, async_mode=True
        case = LLMTestCase(input=answer["question"], actual_output=answer["answer"],
                           retrieval_context=[p["text"] for p in answer["passages"]])
        scores.append(float(metric.measure(case, _show_indicator=False)))
    return scores


SHIMS: list[str] = []


def _ragas_vertexai_shim() -> None:
    """ragas 0.4.3 imports ``langchain_community.chat_models.vertexai`` at the top of
    ``ragas.llms.base``, a module no current langchain-community release has (upstream
    vibrantlabsai/ragas#2745, #2995): ``import ragas`` fails. Only ``isinstance`` checks of
    the LangChain wrappers use the class, never the instructor path measured here, so a
    stand-in module lets ragas import; used only when the real module is missing."""
    import types

    try:
        import langchain_community.chat_models.vertexai  # noqa: F401
    except ModuleNotFoundError:
        module = types.ModuleType("langchain_community.chat_models.vertexai")
        module.ChatVertexAI = type("ChatVertexAI", (), {})  # type: ignore[attr-defined]
        sys.modules[module.__name__] = module
        SHIMS.append("langchain_community.chat_models.vertexai stand-in (ragas#2745)")


def run_ragas(base_url: str, answers: list[dict]) -> list[float]:
    """RAGAS's ``Faithfulness`` (ragas.metrics.collections) through ``llm_factory`` and an
    ``AsyncOpenAI`` client at base_url."""
    import asyncio

    _ragas_vertexai_shim()

    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import Faithfulness

    async def main() -> list[float]:
        client = AsyncOpenAI(base_url=base_url, api_key=API_KEY)
        metric = Faithfulness(llm=llm_factory(MODEL, client=client))
        scores = []
        for answer in answers:
            result = await metric.ascore(user_input=answer["question"], response=answer["answer"],
                                         retrieved_contexts=[p["text"] for p in answer["passages"]])
            scores.append(float(result.value))
        return scores

    return asyncio.run(main())


TOOLS = {"deepeval": (run_deepeval, "deepeval"), "ragas": (run_ragas, "ragas")}


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[0] not in TOOLS:
        print(__doc__, file=sys.stderr)
        return 2
    tool, base_url, answers_path, out_path = argv
    run, dist = TOOLS[tool]
    with open(answers_path, encoding="utf-8") as fh:
        answers = [json.loads(line) for line in fh if line.strip()]
    started = time.monotonic()
    out: dict = {"tool": tool, "version": version(dist), "answers": len(answers)}
    try:
        out["scores"] = run(base_url, answers)
        out["ok"] = True
    except Exception as exc:  # reported by compare_tools.py
        import traceback

        out["ok"] = False
        out["error"] = f"{type(exc).__name__}: {exc}"
        out["traceback"] = traceback.format_exc()
    out["seconds"] = round(time.monotonic() - started, 2)
    out["blocked_connections"] = BLOCKED
    out["shims"] = SHIMS
    out["packages"] = {name: version(name) for name in
                       ("deepeval", "ragas", "openai", "instructor", "langchain-core", "pydantic")
                       if _installed(name)}
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
    return 0 if out["ok"] else 1


def _installed(name: str) -> bool:
    try:
        version(name)
        return True
    except Exception:
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
