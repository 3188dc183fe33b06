"""Runs: saved runs (``saved``) and the comparison of a run with a saved one and its regression
gates (``compare``). Nothing here imports pytest."""
