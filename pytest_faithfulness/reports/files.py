"""Writing report files: atomically where a reader could see a half-written file, and for any
text (a lone surrogate in an answer never stops a report). Nothing here imports pytest."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(report: Any) -> str:
    """``report`` as indented JSON text that keeps every string exactly and encodes as UTF-8.

    Non-ASCII characters are written as themselves, except lone surrogates (``"\\ud800"``,
    which UTF-8 cannot hold): those are written as ``\\ud800`` escapes, valid JSON that
    reads back as the same string.

    Raises:
        TypeError / ValueError: ``report`` holds something JSON cannot represent.
    """
    text = json.dumps(report, indent=2, ensure_ascii=False)
    # a surrogate can only sit inside a JSON string, where a \\u escape means the same
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically: into a temporary file beside it, then renamed
    over it, so a reader sees the old file or the new one, never half of one. The temporary
    file is removed whatever goes wrong. Parent folders are created. Returns the path.

    Raises:
        OSError: the folder or file cannot be written (the temporary file is gone).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a name of our own (not mkstemp, which would make the report readable by its owner only)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:  # the original error is the one to report
            pass
        raise
    return path


def write_json(path: str | Path, report: dict[str, Any]) -> Path:
    """Write the JSON report atomically (see ``json_text`` and ``write_atomic``); returns the
    path.

    Raises:
        OSError: the file cannot be written. TypeError / ValueError: not JSON-serialisable.
    """
    return write_atomic(path, json_text(report).encode("utf-8"))


def write_text(path: str | Path, text: str, *, append: bool = False) -> Path:
    """Write ``text`` to ``path`` as UTF-8 (atomically), or append it after a blank line;
    parent folders are created. A character UTF-8 cannot hold (a lone surrogate) is written
    as a ``\\udXXX`` escape, so any text can be written. Returns the path.

    Raises:
        OSError: the file cannot be written.
    """
    data = text.encode("utf-8", errors="backslashreplace")
    if not append:
        return write_atomic(path, data)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        if fh.tell():
            fh.write(b"\n")
        fh.write(data)
    return path
