"""The language layer: text analysis shared by the trust checks, the offline judge, training
and benchmarks.

Layered, each module importing only those before it: ``text`` (normalisation, sentence and
passage-sentence spans, Markdown line patterns), ``lexicon`` (one copy of each word list),
``words`` (tokens, stems, negation and opposite words), ``quantities`` (numbers, units,
ranges, rates, clock times), ``features`` (``TextFeatures`` of a text and the evidence spans of
a passage). Nothing here imports a judge, the pipeline or pytest.
"""
