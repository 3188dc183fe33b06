"""The scripted model shared by the LLM-judge tests: constants of the worked examples and
handlers for ``chat_server.ScriptedChatServer`` that answer the judge's two prompts like a
careful model (or like a broken one)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chat_server import ScriptedChatServer, sequence

import pytest_faithfulness
from pytest_faithfulness import LiteLLMJudge
from pytest_faithfulness.judges.llm import SCHEMA_INSTRUCTION as _SCHEMA_INSTRUCTION
from pytest_faithfulness.judges.prompts import DECOMPOSE_SYSTEM, VERIFY_SYSTEM

MODEL = "openai/scripted"

# --------------------------------------------------------------------------------------------
# The audit-log example.

AUDIT_PASSAGES = [
    {"id": "p-2071", "text": "Audit log export is available on the Business and Enterprise plans. "
                             "Exports are delivered to a customer-owned S3 bucket."},
    {"id": "p-2072", "text": "Configure the destination bucket under Settings > Security > Audit "
                             "Log Export. The bucket policy must allow s3:PutObject for our "
                             "export role."},
]
AUDIT_ANSWER = ("Yes — audit log export to S3 is available on the Business plan. Configure the "
                "destination under Settings > Security > Audit Log Export, and make sure the "
                "bucket policy allows s3:PutObject for our export role. Exports run hourly and "
                "are retained in your bucket indefinitely. [p-2071, p-2072]")
AUDIT_CLAIMS = [
    "Audit log export to S3 is available on the Business plan.",
    "The audit log export destination is configured under Settings > Security > Audit Log Export.",
    "The bucket policy must allow s3:PutObject for the export role.",
    "Audit log exports run hourly.",
    "Audit log exports are retained in the customer's bucket indefinitely.",
]
AUDIT_SUPPORT = {
    AUDIT_CLAIMS[0]: ("p-2071",
                      "Audit log export is available on the Business and Enterprise plans. "
                      "Exports are delivered to a customer-owned S3 bucket."),
    AUDIT_CLAIMS[1]: ("p-2072",
                      "Configure the destination bucket under Settings > Security > Audit Log "
                      "Export."),
    AUDIT_CLAIMS[2]: ("p-2072", "The bucket policy must allow s3:PutObject for our export role."),
}

# --------------------------------------------------------------------------------------------
# Cases from /work/shared/cases/cases.jsonl (ids are numbers there: used as string ids).

VELA_PASSAGES = [{"id": "1", "text": "The Vela desk lamp has three brightness levels."}]
VELA_ANSWER = "The Vela desk lamp has three brightness levels. It includes a USB-C charging port."
VELA_CLAIMS = ["The Vela desk lamp has three brightness levels.",
               "The Vela desk lamp includes a USB-C charging port."]

ORBIT_PASSAGES = [{"id": "1", "text": "The Orbit blender has a 1.5-litre jar."}]
ORBIT_ANSWER = "The Orbit blender has a 1.5-litre jar."

KESTREL_PASSAGES = [{"id": "1", "text": "The Kestrel e-bike weighs 23 kg."}]
KESTREL_ANSWER = "The Kestrel e-bike weighs 23 kg."

# CASE-16: nine passages (1,988 characters); the evidence is the last one.
STORE_PASSAGES = [
    {"id": "1", "text": (
        "Store opening hours: Monday to Friday 09:00-18:00, Saturday 10:00-16:00, closed "
        "on Sundays and public holidays. During the December sale period the store opens "
        "one hour earlier on weekdays. Staff can be reached by phone during opening hours"
        " only."
    )},
    {"id": "2", "text": (
        "Parking: the customer car park has 60 spaces, including 4 accessible bays next "
        "to the main entrance. Parking is free for the first two hours with a validated "
        "receipt. Bicycle racks for 20 bikes are located by the side entrance near the "
        "loading dock."
    )},
    {"id": "3", "text": (
        "Gift cards are available in values from 10 to 200 euros and are valid for three "
        "years from the date of purchase. They can be used in store and online, but "
        "cannot be exchanged for cash. Lost gift cards can be blocked with the original "
        "receipt."
    )},
    {"id": "4", "text": (
        "Delivery: standard delivery takes 3 to 5 working days. Express delivery is "
        "available for orders placed before 14:00 and arrives the next working day. Large"
        " items such as furniture are delivered by a two-person team and require a booked"
        " time slot."
    )},
    {"id": "5", "text": (
        "Loyalty programme: members earn one point per euro spent. Points can be redeemed"
        " in blocks of 500 for a 5-euro voucher. Points expire 24 months after they were "
        "earned. Membership is free and can be cancelled at any time from the account "
        "page."
    )},
    {"id": "6", "text": (
        "Price match: if a customer finds the same item cheaper at a listed competitor "
        "within 14 days of purchase, the difference is refunded. The offer excludes "
        "marketplace sellers, clearance items and bundle deals. Proof of the lower price "
        "is required."
    )},
    {"id": "7", "text": (
        "Recycling: customers can drop off small electrical appliances for recycling at "
        "the service desk free of charge. Batteries and light bulbs go in the separate "
        "bins near the exit. Large appliances are collected on delivery of a replacement "
        "product."
    )},
    {"id": "8", "text": (
        "Newsletter: subscribers receive one email per week with new arrivals and offers."
        " The unsubscribe link is at the bottom of every email. Personal data is used "
        "only for the newsletter and is deleted within 30 days after unsubscribing."
    )},
    {"id": "9", "text": (
        "The Model K7 kettle has a 2-year warranty."
    )},
]
STORE_ANSWER = "The Model K7 kettle has a 2-year warranty. It ships with a descaling kit."


# --------------------------------------------------------------------------------------------
# The scripted model.

def parse_request(request: dict) -> tuple[str, Any, Any]:
    """``("decompose", answer, None)`` or ``("verify", passages, claim)`` from a request;
    ``passages`` as ``[{"id", "text"}]`` (``"title"`` before the text when sent)."""
    messages = request["messages"]
    # litellm sends the system prompt as a user message to models without a system role
    # (OpenAI's o1/o3-mini)
    roles = [m["role"] for m in messages]
    assert roles[0] in ("system", "user") and set(roles[1:]) == {"user"}, messages
    system = without_schema(messages[0]["content"])
    users = [m["content"] for m in messages[1:]]
    if system == DECOMPOSE_SYSTEM:
        head = "ANSWER:\n"
        assert len(users) == 1 and users[0].startswith(head), users
        return "decompose", json.loads(users[0][len(head):]), None
    if system == VERIFY_SYSTEM:
        assert len(users) == 2, users
        (block_head, block), (claim_head, claim) = (u.split("\n", 1) for u in users)
        assert (block_head, claim_head) == ("PASSAGES:", "CLAIM:"), users
        passages = [{"id": pid, **value} if isinstance(value, dict) else {"id": pid, "text": value}
                    for pid, value in json.loads(block).items()]
        return "verify", passages, json.loads(claim)
    raise AssertionError(f"unknown system prompt: {system[:80]!r}")


def without_schema(system: str) -> str:
    """The system prompt without the reply schema the judge appends in ``json_object`` mode."""
    return system.split(_SCHEMA_INSTRUCTION, 1)[0]


def system_schema(request: dict) -> dict | None:
    """The reply schema appended to the request's system prompt, if any."""
    system = request["messages"][0]["content"]
    if _SCHEMA_INSTRUCTION not in system:
        return None
    return json.loads(system.split(_SCHEMA_INSTRUCTION, 1)[1])


def judge_model(decompose: Callable[[str], Any],
                verify: Callable[[list[dict], str], Any]) -> Callable[[dict], Any]:
    """A server handler that routes decompose and verify requests to the two scripts."""
    def handler(request: dict) -> Any:
        op, first, second = parse_request(request)
        return decompose(first) if op == "decompose" else verify(first, second)
    return handler


def claims_reply(claims: list[str], dropped: list = ()) -> Callable[[str], dict]:
    """A decompose script that returns ``claims`` for any answer."""
    return lambda answer: {"claims": list(claims), "dropped": list(dropped)}


def unsupported(rationale: str = "no passage speaks to the claim") -> dict:
    return {"label": "unsupported", "passage_ids": [], "quote": None, "rationale": rationale}


def evidence_verifier(support: dict[str, tuple[str, str]]) -> Callable[[list[dict], str], dict]:
    """A verify script that behaves like a careful judge: ``supported`` with the passage id
    and a verbatim quote when the claim's evidence is among the passages it was sent,
    ``unsupported`` otherwise."""
    def verify(passages: list[dict], claim: str) -> dict:
        if claim in support:
            pid, quote = support[claim]
            texts = {p["id"]: p["text"] for p in passages}
            if pid in texts and quote in texts[pid]:
                return {"label": "supported", "passage_ids": [pid], "quote": quote,
                        "rationale": f"{pid} states it"}
        return unsupported()
    return verify


def supports_verbatim(passages: list[dict], claim: str) -> dict:
    """A verify script: supported when the claim occurs word for word in a passage."""
    for p in passages:
        if claim in p["text"]:
            return {"label": "supported", "passage_ids": [p["id"]], "quote": claim,
                    "rationale": "stated verbatim"}
    return unsupported()


def sequence_per_call(*replies: Any) -> Callable[[list[dict], str], Any]:
    """A verify script answering with ``replies`` in order (then the last one again)."""
    script = sequence(*replies)
    return lambda passages, claim: script({})


def ops(server: ScriptedChatServer) -> list[str]:
    return [parse_request(r)[0] for r in server.requests]


def verify_requests(server: ScriptedChatServer) -> list[dict]:
    return [r for r in server.requests if parse_request(r)[0] == "verify"]


def make_judge(server_or_url: ScriptedChatServer | str, model: str = MODEL,
               **options: Any) -> LiteLLMJudge:
    url = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    options.setdefault("backoff_base", 0.01)
    options.setdefault("timeout", 10)
    return LiteLLMJudge(model, api_base=url, **options)


def audit_handler() -> Callable[[dict], Any]:
    return judge_model(claims_reply(AUDIT_CLAIMS, dropped=["Yes"]),
                       evidence_verifier(AUDIT_SUPPORT))


def claim_view(result: pytest_faithfulness.AnswerResult) -> list[dict]:
    return [c.model_dump(mode="json") for c in result.claims]
