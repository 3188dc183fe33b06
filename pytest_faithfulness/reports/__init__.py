"""Reports, one module per output: ``terminal`` (pytest's summary and per-claim failures),
``json`` (every verdict), ``markdown`` (the CI summary), ``html`` (the self-contained page),
``junit`` (JUnit XML properties); ``figures`` formats numbers for all of them and ``files``
writes them. Nothing here imports pytest."""
