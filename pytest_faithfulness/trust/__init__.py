"""The trust layer: what the pipeline refuses to believe, whatever the judge.

``quote_check`` (``check_verdict``: passage ids exist, the quote is in the passage, coverage and
negation rules) with its rules in ``evidence`` (reading the quotes), ``claim_rules``,
``name_rules``, ``number_rules`` and ``polarity_rules``; ``alignment`` (the decomposer's claims
held against the answer) and ``citations`` (the answer's own citation markers against the
verdicts). Built on ``language``; imports no judge (the alignment reads the rule decomposer's
sentence tests, ``decomposition``).
"""
