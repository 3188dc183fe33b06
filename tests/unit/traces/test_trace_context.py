"""Which retrieved passages reached the model (``traces.context``): the prompt check in both
directions (a faithful app's passages are found however its prompt was formatted; a document
that never reached the model is not "seen" through a few shared words), and the prompt of a
draft the generation rewrote."""

from __future__ import annotations

from otel_spans import require_otel

require_otel()

from otel_spans import SpanBuilder, oi_docs, oi_llm  # noqa: E402

from pytest_faithfulness.traces.turns import Turn, TurnFailure  # noqa: E402

TWO_LINES = ("Refunds are issued within 14 days of a return being received.\n"
             "Items bought on sale can be exchanged but not refunded.")
SALE = "Items bought on sale can be exchanged but not refunded."


def _app(b, docs, prompts_and_outputs, root_output):
    """A CHAIN root, a RETRIEVER with ``docs``, then one LLM span per (prompt, output)."""
    with b.span("app", **{"openinference.span.kind": "CHAIN"}) as root:
        with b.span("search", **{"openinference.span.kind": "RETRIEVER"}, **oi_docs(*docs)):
            pass
        for i, (prompt, output) in enumerate(prompts_and_outputs):
            with b.span(f"llm{i}", **oi_llm(prompt, output)):
                pass
        root.set_attribute("output.value", root_output)


def _only(found):
    assert len(found) == 1, found
    return found[0]


def test_a_document_whose_lines_are_prefixed_or_soft_hyphenated_is_seen_whole():
    """Attack 26 finding 12 (false alarms): ``> `` / ``- `` before each line, or a soft hyphen
    the app stripped, made the passage "cut short" (judged by its first line) or unused."""
    prompts = ["Context:\n" + "\n".join("> " + line for line in TWO_LINES.splitlines()),
               "Context:\n" + "\n".join("- " + line for line in TWO_LINES.splitlines())]
    for prompt in prompts:
        b = SpanBuilder()
        with b.window() as cap:
            _app(b, [TWO_LINES], [(prompt + "\nQ: sale?", SALE)], SALE)
        turn = _only(cap.results())
        assert isinstance(turn, Turn) and [p.text for p in turn.passages] == [TWO_LINES]
        assert not any("cut short" in w for w in turn.warnings), turn.warnings
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, ["Re\u00adfunds are issued within 14 days."],
             [("Context: Refunds are issued within 14 days.\nQ: refunds?", "Refunds take 14 days.")],
             "Refunds take 14 days.")
    turn = _only(cap.results())
    assert isinstance(turn, Turn) and turn.context == "prompt" and len(turn.passages) == 1
    # a prompt builder that NFKC-normalises a PDF's ligature ("\ufb01nal" -> "final")
    doc = SALE + " Sale prices are \ufb01nal."
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [doc], [("Context: " + SALE + " Sale prices are final.\nQ: sale?", SALE)], SALE)
    turn = _only(cap.results())
    assert isinstance(turn, Turn) and [p.text for p in turn.passages] == [doc]


def test_a_documents_first_words_in_the_users_question_are_not_the_document():
    """Attack 26 finding 17 (a silent pass): the document's first 44 characters occurred in
    the user's question, so the document counted as "cut short" to them, its qualifier gone."""
    doc = "Items bought on sale can be refunded in cash only in our Vienna flagship store."
    question = "Items bought on sale can be refunded in cash at any branch, right?"
    reply = "Yes, items bought on sale can be refunded in cash at any branch."
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [doc], [("Answer the customer.\nCustomer: " + question, reply)], reply)
    failure = _only(cap.results())
    assert isinstance(failure, TurnFailure) and failure.kind == "trace_context_unused"
    # both directions: a document the app cut at a line's end still counts by that part
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [doc], [(f"Context:\n{doc[:50]}\nQuestion: where?", reply)], reply)
    turn = _only(cap.results())
    assert isinstance(turn, Turn) and [p.text for p in turn.passages] == [doc[:50].rstrip()]
    assert any("cut short in the prompt" in w for w in turn.warnings)


def test_a_draft_rewritten_by_a_second_model_call_keeps_the_drafts_context():
    """Attack 26 finding 15 (a false alarm): draft from the documents, then a polish call
    whose prompt holds only the draft; the polish call was taken as the generation and the
    turn errored "the model never saw them (a RAG bug)"."""
    doc = SALE + " Exchanges of sale items must happen within 30 days of purchase."
    answer = "Exchanges of sale items must happen within 30 days of purchase."
    polished = "Thanks for asking! " + answer
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [doc], [("Context:\n" + doc + "\nQ: how long?", answer),
                        ("Rewrite this answer in a friendly tone:\n" + answer, polished)],
             polished)
    turn = _only(cap.results())
    assert isinstance(turn, Turn), turn
    assert turn.context == "prompt" and [p.text for p in turn.passages] == [doc]
    assert any("a draft it rewrote" in w for w in turn.warnings)
    # both directions: the polish step's prompt alone, with no draft from the documents,
    # still gives no context
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [doc], [("Rewrite in a friendly tone: exchanges take a month.", polished)],
             polished)
    failure = _only(cap.results())
    assert isinstance(failure, TurnFailure) and failure.kind == "trace_context_unused"


PREMIUM = "Premium members get free express shipping on every order."
OTHER = "Standard delivery within Germany takes two to four working days."


def test_an_earlier_calls_documents_come_along_only_for_a_pure_rewrite():
    """Attack 27 finding 1 (silent passes): chat history or a search query written by an
    earlier call sat in the final prompt, so that call's documents counted as context although
    the final model, which saw documents of its own, never saw them."""
    b = SpanBuilder()
    first = "You can return items within 30 days of delivery, as our policy says."
    with b.window() as cap:
        _app(b, [PREMIUM, OTHER], [
            ("Context:\n" + PREMIUM + "\nQ: returns?", first),
            ("Context:\n" + OTHER + "\nHistory: " + first + "\nQ: shipping?", PREMIUM)],
            PREMIUM)
    turns = [t for t in cap.results() if isinstance(t, Turn)]
    final = next(t for t in turns if t.answer == PREMIUM)
    assert [p.text for p in final.passages] == [OTHER]  # not the first call's PREMIUM


def test_a_quotation_of_a_documents_start_in_the_question_is_not_the_document():
    """Attack 27 finding 2: the question quoted the document's first words; the closing
    quote counted as the place the app cut the document."""
    question = 'A friend told me "Premium members get free express shipping" - true?'
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [PREMIUM + " Offer ends in May."],
             [("Answer the customer.\nCustomer: " + question, PREMIUM)], PREMIUM)
    failure = _only(cap.results())
    assert isinstance(failure, TurnFailure) and failure.kind == "trace_context_unused"


def test_scattered_sentences_of_a_document_are_not_the_document():
    """Attack 27 finding 3: an FAQ document's question and its "Yes." each occurred somewhere
    in the prompt (the user's question, the chat history), so the document counted as seen."""
    faq = "Do premium members get free express shipping on every order? Yes."
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [faq], [("History: Is it raining? Yes.\nCustomer: Do premium members get free "
                         "express shipping on every order?", PREMIUM)], PREMIUM)
    failure = _only(cap.results())
    assert isinstance(failure, TurnFailure) and failure.kind == "trace_context_unused"


def test_a_truncation_marker_and_html_tags_stripped_by_the_app_are_no_false_alarm():
    """Attack 27 findings 11 and 12: a document cut and followed by " (truncated)", and an
    HTML document whose tags the prompt builder stripped, errored E-CONTEXT-UNUSED."""
    long_doc = PREMIUM + " " + OTHER
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [long_doc], [(f"Context: {long_doc[:70]} (truncated)\nQ: shipping?", PREMIUM)],
             PREMIUM)
    turn = _only(cap.results())
    assert isinstance(turn, Turn) and turn.passages[0].text == long_doc[:70].rstrip()
    html_doc = "<p>Premium members get <b>free express shipping</b> on every order.</p>"
    b = SpanBuilder()
    with b.window() as cap:
        _app(b, [html_doc], [("Context: " + PREMIUM + "\nQ: shipping?", PREMIUM)], PREMIUM)
    turn = _only(cap.results())
    assert isinstance(turn, Turn) and [p.text for p in turn.passages] == [
        "Premium members get free express shipping on every order."]  # what the model saw
    assert any("without its HTML tags" in w for w in turn.warnings)
