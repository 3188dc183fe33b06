"""Where things are in the checkout, for tests at any depth under ``tests/``.

* ``ROOT``: the repository root (the folder of ``pyproject.toml``).
* ``HELPERS``: this folder, ``tests/helpers`` (put on ``sys.path`` by ``tests/conftest.py``;
  an inner run in another process puts it there itself).
"""

from __future__ import annotations

from pathlib import Path

HELPERS = Path(__file__).resolve().parent
ROOT = HELPERS.parents[1]
