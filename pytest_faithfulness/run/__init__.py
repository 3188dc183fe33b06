"""One run, independent of pytest: the plugin and ``pytest-faithfulness merge`` both finish a
run here.

* ``results.ResultStore``: every answer and calibration outcome recorded, the judges seen, the
  xdist payload in and out.
* ``outcome.RunOutcome``: the run once gated (results, summary, failures, comparison,
  calibration, the verdict, the one "shows as failing" policy); every report reads it.
* ``finish.finish_run``: the gates in order, the exit status and the outputs (the one
  sequence).
* ``outputs``: every output written independently and atomically, rewritten on failure.

Nothing here imports pytest.
"""
