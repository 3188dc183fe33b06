"""What litellm does per judge call besides the call itself: no success-logging task when no
one registered a callback (``transport.quiet_call``), every call logged to a callback someone
did register, and the cost of each reply the same as litellm's own price for it."""

from __future__ import annotations

import pytest
from scripted_model import AUDIT_ANSWER, AUDIT_PASSAGES, audit_handler, make_judge

from pytest_faithfulness import evaluate

PRICED_MODEL = "openai/gpt-4o-mini"  # in litellm's bundled price map


@pytest.fixture
def logging_worker(monkeypatch):
    """litellm's logging worker, with the coroutines enqueued to it counted (the worker still
    runs them)."""
    from litellm.litellm_core_utils import logging_worker

    worker = logging_worker.GLOBAL_LOGGING_WORKER
    enqueued = []
    original = worker.ensure_initialized_and_enqueue

    def counting(*args, **kwargs):
        enqueued.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(worker, "ensure_initialized_and_enqueue", counting)
    return enqueued


def test_no_logging_task_per_call_when_no_callback_is_registered(chat_server, logging_worker,
                                                                 monkeypatch):
    import litellm

    for name in ("callbacks", "success_callback", "_async_success_callback"):
        monkeypatch.setattr(litellm, name, [])
    chat_server.handler = audit_handler()
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, model=PRICED_MODEL))
    assert result.status == "scored" and len(chat_server.requests) == 6
    assert logging_worker == []  # no success log built for anyone
    assert result.usage.cost_usd > 0 and result.usage.uncosted_calls == 0  # still priced


def test_a_registered_callback_still_sees_every_judge_call(chat_server, logging_worker,
                                                           monkeypatch):
    import litellm
    from litellm.integrations.custom_logger import CustomLogger

    monkeypatch.setattr(litellm, "callbacks", [CustomLogger()])  # a user's logger
    chat_server.handler = audit_handler()
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, model=PRICED_MODEL))
    assert result.status == "scored"
    assert len(logging_worker) == 6  # one success log per call, as litellm does by default


def test_each_reply_costs_what_litellm_prices_it_at(chat_server):
    """The cost recorded per answer is litellm's price for the tokens the provider reported:
    its bundled price map's input and output prices per token for the model."""
    import litellm

    chat_server.handler = audit_handler()
    result = evaluate(AUDIT_ANSWER, AUDIT_PASSAGES, make_judge(chat_server, model=PRICED_MODEL))
    usage = result.usage
    price = litellm.model_cost["gpt-4o-mini"]
    expected = (usage.input_tokens * price["input_cost_per_token"]
                + usage.output_tokens * price["output_cost_per_token"])
    assert usage.input_tokens > 0 and usage.cost_usd == pytest.approx(expected, rel=1e-9)
