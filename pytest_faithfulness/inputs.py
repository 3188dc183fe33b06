"""User shapes to records: the ``passages`` a user passes (strings, dicts, ``Passage``,
LangChain ``Document``s, LlamaIndex nodes) as ``Passage`` records (``to_passages``), and an
``(answer, passages)`` pair or a batch of them checked before any judge call
(``check_inputs``, ``check_cases``). Neither library is ever imported.
"""

from __future__ import annotations

from typing import Any

from .records import Passage


def check_inputs(answer: Any, passages: Any) -> tuple[str, list[Passage]]:
    """Validate inputs before any judge call.

    Returns:
        ``(answer, passages)`` with passages coerced to ``Passage``.

    Raises:
        TypeError: ``answer`` is not a string, or passages are of the wrong shape.
        ValueError: passages is ``None`` or has duplicate or empty ids.
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a string, got {type(answer).__name__}")
    return answer, to_passages(passages)


def check_cases(cases: Any, *, item: str = "case",
                start: int = 0) -> list[tuple[str, list[Passage]]]:
    """Check each ``(answer, passages)`` pair (or dict with ``answer`` / ``passages``).

    Returns the checked pairs as ``check_inputs`` gives them, in order. ``item`` and ``start``
    name a bad one in the error (``case 0: ...``, ``turn 1: ...``). Raises ``TypeError`` or
    ``ValueError`` naming the item and what is wrong with it.
    """
    checked = []
    for index, case in enumerate(cases, start=start):
        try:
            if isinstance(case, dict):
                missing = {"answer", "passages"} - set(case)
                if missing:
                    raise ValueError(f"missing key(s) {', '.join(sorted(missing))}")
                answer, passages = case["answer"], case["passages"]
            elif isinstance(case, (tuple, list)) and len(case) == 2:
                answer, passages = case
            else:
                raise TypeError(f"a {item} is an (answer, passages) pair or a dict with "
                                f"'answer' and 'passages', got {type(case).__name__}")
            checked.append(check_inputs(answer, passages))
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{item} {index}: {exc}") from exc
    return checked


def to_passages(passages: Any) -> list[Passage]:
    """Coerce the ``passages`` argument into a list of ``Passage``.

    Accepted items, mixed freely:

    * ``Passage``;
    * ``str``: ids ``p1``, ``p2``, ... by position (1-based);
    * ``dict`` with ``id`` and ``text`` (``id`` may be an int; it becomes its string);
      a dict with ``text`` only gets a positional id; its ``title``, if any, is kept;
    * any object with a ``page_content`` (LangChain ``Document``) or ``text`` (LlamaIndex
      node) string attribute; its ``id`` / ``id_`` / ``node_id`` / ``metadata["id"]`` is used
      when present, else a positional id; its ``title`` string attribute or, failing that,
      ``metadata["title"]`` is kept as the title. Those libraries are never imported.

    Args:
        passages: a list or tuple of the above, or ``None``.

    Returns:
        a new list of ``Passage`` in the given order (may be empty).

    Raises:
        TypeError: ``passages`` is a single string or not a list/tuple, an item has no text,
            or a title is not a string.
        ValueError: a passage id is empty or repeated, or passages is ``None``.
    """
    if passages is None:
        raise ValueError("passages is None: pass the retrieved passages (an empty list if none)")
    if isinstance(passages, (str, bytes)) or not isinstance(passages, (list, tuple)):
        raise TypeError(
            "passages must be a list of passages (str, dict with 'id'/'text', Passage, or a "
            f"document with page_content/text), got {type(passages).__name__}"
        )
    out: list[Passage] = []
    for index, item in enumerate(passages, start=1):
        default_id = f"p{index}"
        if isinstance(item, Passage):
            out.append(item)
            continue
        if isinstance(item, str):
            out.append(Passage(id=default_id, text=item))
            continue
        if isinstance(item, dict):
            if "text" not in item:
                raise TypeError(f"passages[{index - 1}] is a dict without a 'text' key")
            pid = item.get("id", default_id)
            metadata = item.get("metadata")
            title = item.get("title")
            if title is None and isinstance(metadata, dict):
                title = metadata.get("title")
            out.append(Passage(id=_id_str(pid, index), text=_text_str(item["text"], index),
                               title=_title_str(title, index)))
            continue
        text = getattr(item, "page_content", None)
        if text is None:
            text = getattr(item, "text", None)
        if text is None:
            raise TypeError(
                f"passages[{index - 1}] is a {type(item).__name__}: expected str, dict, Passage "
                "or an object with a page_content or text attribute"
            )
        pid = None
        for attr in ("id", "id_", "node_id"):
            value = getattr(item, attr, None)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
                pid = value
                break
        metadata = getattr(item, "metadata", None)
        if pid is None and isinstance(metadata, dict) and metadata.get("id") not in (None, ""):
            pid = metadata["id"]
        title = getattr(item, "title", None)
        if not isinstance(title, str):  # e.g. a method of that name: not a title
            title = metadata.get("title") if isinstance(metadata, dict) else None
        out.append(Passage(id=_id_str(pid if pid is not None else default_id, index),
                           text=_text_str(text, index), title=_title_str(title, index)))
    seen: set[str] = set()
    for p in out:
        if p.id in seen:
            raise ValueError(f"duplicate passage id {p.id!r}: passage ids must be unique")
        seen.add(p.id)
    return out


def _id_str(value: Any, index: int) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise TypeError(f"passages[{index - 1}] id must be a string or int, "
                        f"got {type(value).__name__}")
    text = str(value)
    if not text.strip():
        raise ValueError(f"passages[{index - 1}] has an empty id")
    return text


def _title_str(value: Any, index: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"passages[{index - 1}] title must be a string, got {type(value).__name__}")
    return value if value.strip() else None


def _text_str(value: Any, index: int) -> str:
    if not isinstance(value, str):
        raise TypeError(f"passages[{index - 1}] text must be a string, got {type(value).__name__}")
    return value
