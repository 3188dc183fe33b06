"""The frozen careful-reader evidence (``benchmarks/evidence_gold.jsonl``, issue 20 item 6):
its shape, its licence rule, and (where the development data is present) that every quote is a
verbatim span of its passage and that its script rebuilds it unchanged."""

import importlib.util
import json

import pytest
from repo_paths import ROOT

GOLD = ROOT / "benchmarks" / "evidence_gold.jsonl"


def _script():
    spec = importlib.util.spec_from_file_location("make_evidence_gold",
                                                  ROOT / "benchmarks" / "make_evidence_gold.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gold():
    lines = GOLD.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def test_header_counts_and_row_shape(gold):
    header, rows = gold
    assert header["header"] is True and header["rows"] == len(rows)
    assert header["in_denominator"] == sum(r["in_denominator"] for r in rows)
    assert len({r["id"] for r in rows}) == len(rows)
    for r in rows:
        assert len(r["evidence"]) <= 3
        assert r["in_denominator"] is False or r["evidence"], r["id"]
        assert r["denominator_reason"]
        for item in r["evidence"]:
            assert item["passage_id"] and 0 <= item["start"] < item["end"]


def test_no_row_holds_text_of_the_data(gold):
    """Ids and offsets only: FaithBench is non-commercial, and the other sources' passages
    are third-party text whose copyright their licences do not settle."""
    _, rows = gold
    assert any(r["record_id"].startswith("faithbench-") for r in rows)
    for r in rows:
        assert r["claim"] is None
        assert all(item["quote"] is None for item in r["evidence"])
        assert r["claim_span"] is not None or r["source"] == "claims"


def _data_dir():
    data = _script().default_data_dir(ROOT)
    if not (data / "claims.jsonl").exists():
        pytest.skip("the development data (../shared/data) is not here")
    return data


def test_quotes_are_verbatim_spans_of_their_passages(gold):
    data = _data_dir()
    script = _script()
    _, rows = gold
    records = {}
    for name in {r["record_file"] for r in rows}:
        for rec in script._read(data / name):
            records[(name, rec["id"])] = rec
    for r in rows:
        rec = records[(r["record_file"], r["record_id"])]
        texts = {p["id"]: p["text"] for p in rec["passages"]}
        for item in r["evidence"]:
            span = texts[item["passage_id"]][item["start"]:item["end"]]
            assert item["quote"] is None or item["quote"] == span
        if r["claim_span"] is not None and r["claim"] is not None:
            source = rec.get("answer", rec.get("claim"))
            assert source[r["claim_span"][0]:r["claim_span"][1]] == r["claim"]


def test_the_script_rebuilds_the_frozen_file(gold, tmp_path):
    data = _data_dir()
    out = tmp_path / "gold.jsonl"
    assert _script().main(["--data-dir", str(data), "--out", str(out)]) == 0
    assert out.read_bytes() == GOLD.read_bytes()
