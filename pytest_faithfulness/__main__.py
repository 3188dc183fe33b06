"""``python -m pytest_faithfulness``: the ``pytest-faithfulness`` console script (``cli``)."""

import sys

from .cli import main

sys.exit(main())
