"""The language layer: text analysis shared by the trust checks, the offline judge, training and benchmarks.

``text`` (normalisation, sentence and passage-sentence spans, Markdown line patterns). Nothing here
imports a judge, the pipeline or pytest.
"""
