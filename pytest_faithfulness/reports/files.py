"""Writing report files: atomically where a reader could see a half-written file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def write_json(path: str | Path, report: dict[str, Any]) -> Path:
    """Write the report atomically (a temporary file then rename); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_text(path: str | Path, text: str, *, append: bool = False) -> Path:
    """Write (or append) ``text`` to ``path`` as UTF-8, creating parent folders; returns it.

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a" if append else "w", encoding="utf-8") as fh:
        if append and path.exists() and path.stat().st_size:
            fh.write("\n")
        fh.write(text)
    return path
