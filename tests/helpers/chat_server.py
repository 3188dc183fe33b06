"""A small scripted HTTP server that speaks the OpenAI chat-completions protocol.

Tests point a real client (litellm, the OpenAI SDK, plain httpx) at ``server.base_url`` and
script the replies with a Python callable::

    def handler(request: dict) -> Reply | str | dict:
        ...

    with ScriptedChatServer(handler) as server:
        judge = LiteLLMJudge("openai/scripted", api_base=server.base_url)
        ...
        server.requests   # every request JSON received, in arrival order

What ``handler`` may return:

* ``Reply(content="...")`` or a plain ``str``: a normal ``chat.completion`` JSON with
  ``choices[0].message.content`` and a ``usage`` block;
* a ``dict`` or ``list``: the same, with the value serialised as JSON content;
* ``Reply(status=429, headers={"Retry-After": "1"}, body=...)``: an HTTP error status;
* ``Reply(body=b"...")``: raw response bytes as given (empty or truncated bodies);
* any of the above with ``delay=seconds``: the reply is held back that long (a hanging
  server); ``close()`` wakes held replies so the server always stops promptly.

If ``handler`` raises, the server answers 500 with the exception text, and the exception is
kept in ``server.errors`` so the test can surface it.

Built on the standard library only: ``http.server.ThreadingHTTPServer`` on ``127.0.0.1``,
port 0 (a free port), served from a daemon thread.

The ``usage`` block counts real tokens: ``count_prompt_tokens`` / ``count_text_tokens`` use
``litellm.token_counter`` with the ``gpt-4o-mini`` tokenizer (tiktoken's ``o200k_base``, read
from the copy bundled with litellm, never downloaded), whatever model the request names, so
every client is measured with the same tokenizer. litellm is imported on the first reply only;
where it is not installed the count falls back to characters / 4.
"""

from __future__ import annotations

import itertools
import json
import os
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass
class Reply:
    """One scripted reply.

    Args:
        content: the assistant message content of a normal 200 ``chat.completion`` reply.
        status: the HTTP status (200 by default).
        headers: extra response headers (e.g. ``{"Retry-After": "1"}``).
        body: the raw response body; overrides ``content``. ``bytes`` are sent as given,
            ``str`` is UTF-8 encoded, a ``dict``/``list`` is sent as JSON. For a non-200
            ``status`` without a body, an OpenAI-style error object is sent.
        delay: seconds to wait before replying.
        content_length: a ``Content-Length`` to announce instead of the real one (e.g. larger
            than the body, for a connection cut mid-body).
        finish_reason: ``choices[0].finish_reason`` of a normal reply.
        null_content: send ``"content": null`` (as a provider does for a reply its content
            filter blocked) instead of ``content``.
    """

    content: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | str | dict | list | None = None
    delay: float = 0.0
    content_length: int | None = None
    finish_reason: str = "stop"
    null_content: bool = False

    @classmethod
    def json(cls, value: Any, **kwargs: Any) -> Reply:
        """A normal reply whose content is ``value`` serialised as JSON."""
        return cls(content=json.dumps(value, ensure_ascii=False), **kwargs)

    @classmethod
    def error(cls, status: int, *, headers: dict[str, str] | None = None,
              body: bytes | str | dict | list | None = None, **kwargs: Any) -> Reply:
        """An HTTP error reply."""
        return cls(status=status, headers=dict(headers or {}), body=body, **kwargs)

    @classmethod
    def raw(cls, body: bytes | str, *, status: int = 200, **kwargs: Any) -> Reply:
        """Raw body bytes, sent as given with a JSON content type."""
        return cls(status=status, body=body if isinstance(body, bytes) else body.encode(),
                   **kwargs)


Handler = Callable[[dict], "Reply | str | dict | list"]


def sequence(*replies: Reply | str | dict | list) -> Handler:
    """A handler that gives ``replies`` in order, then repeats the last one (thread-safe)."""
    if not replies:
        raise ValueError("sequence() needs at least one reply")
    lock = threading.Lock()
    it = iter(replies)
    last: list[Any] = [replies[0]]

    def handler(_request: dict) -> Reply | str | dict | list:
        with lock:
            try:
                last[0] = next(it)
            except StopIteration:
                pass
            return last[0]

    return handler


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it (``query``: the URL's query string, without ``?``)."""

    path: str
    headers: dict[str, str]
    json: Any
    received_at: float
    query: str = ""


class _ChatHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        owner = self.server.owner
        path, _, query = self.path.partition("?")
        path = path.rstrip("/")
        for route in ("/chat/completions",):
            # the OpenAI SDK appends the route after a base URL's query string
            # (``/v1?tenant=a/chat/completions``): served as ``/v1/chat/completions?tenant=a``
            if path not in CHAT_PATHS and query.endswith(route):
                path, query = path + route, query[:-len(route)]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if path not in CHAT_PATHS:
            self._send(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return
        try:
            request = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            request = None
        if not isinstance(request, dict):
            self._send(400, {"error": {"message": "request body is not a JSON object",
                                       "type": "invalid_request_error"}})
            return
        owner._record(RecordedRequest(path=path, headers=dict(self.headers.items()),
                                      json=request, received_at=time.monotonic(),
                                      query=query))
        owner._enter()
        try:
            self._reply(owner, request)
        finally:
            owner._leave()

    def _reply(self, owner: ScriptedChatServer, request: dict) -> None:
        try:
            reply = _as_reply(owner.handler(request))
        except Exception as exc:  # surface the script's own bug to the test
            owner._errors_append(exc)
            self._send(500, {"error": {"message": f"scripted handler failed: {exc!r}\n"
                                       + traceback.format_exc(), "type": "server_error"}})
            return
        if reply.delay > 0 and owner._closing.wait(reply.delay):
            self.close_connection = True
            return  # server closing: drop the connection without a reply
        if reply.body is not None:
            body = reply.body
        elif reply.status != 200:
            body = {"error": {"message": f"scripted HTTP {reply.status}",
                              "type": "server_error" if reply.status >= 500 else "error",
                              "code": str(reply.status)}}
        else:
            body = owner._completion(request, reply)
        self._send(reply.status, body, reply.headers, reply.content_length)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self._send(404, {"error": {"message": "only POST chat completions are served"}})

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None,
              content_length: int | None = None) -> None:
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode("utf-8")
        elif isinstance(body, str):
            data = body.encode("utf-8")
        else:
            data = bytes(body)
        try:
            self.send_response(status)
            names = {k.lower() for k in (headers or {})}
            if "content-type" not in names:
                self.send_header("Content-Type", "application/json")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length",
                             str(content_length if content_length is not None else len(data)))
            keep = self.server.owner.keep_alive and content_length is None
            if not keep:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            keep = False  # the client gave up (timeout): nothing to do
        self.close_connection = not keep


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ScriptedChatServer


def _as_reply(value: Any) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return Reply(content=value)
    if isinstance(value, (dict, list)):
        return Reply.json(value)
    raise TypeError(f"handler must return Reply, str, dict or list, got {type(value).__name__}")


class ScriptedChatServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1, scripted by ``handler``.

    Attributes:
        base_url: ``"http://127.0.0.1:PORT/v1"``, for ``api_base`` / ``base_url``.
        handler: the script; may be replaced between calls.
        requests: a snapshot of every request JSON received, in arrival order.
        records: the same with path, headers and arrival time (``RecordedRequest``).
        errors: exceptions raised by ``handler``.
        max_in_flight: the most requests being answered at one time.
    """

    def __init__(self, handler: Handler | None = None, *, count_tokens: bool = True,
                 keep_alive: bool = False) -> None:
        self.handler: Handler = handler or (lambda request: Reply(content="{}"))
        # True: connections stay open between replies (HTTP/1.1 keep-alive, as a provider's
        # do), so a benchmark measures a client that reuses its connections; False (tests):
        # every reply closes its connection.
        self.keep_alive = keep_alive
        # False: usage is estimated as characters / 4, so a timing benchmark does not spend
        # the machine's CPU on tokenising in the stand-in provider.
        self.count_tokens = count_tokens
        self._lock = threading.Lock()
        self._records: list[RecordedRequest] = []
        self._errors: list[BaseException] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._ids = itertools.count(1)
        self._closing = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _ChatHandler)
        self._server.owner = self
        self.port: int = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"scripted-chat-server-{self.port}", daemon=True)
        self._thread.start()
        self._closed = False

    # recording ------------------------------------------------------------------------------
    def _record(self, record: RecordedRequest) -> None:
        with self._lock:
            self._records.append(record)

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    @property
    def max_in_flight(self) -> int:
        """The most requests this server was answering at one time."""
        with self._lock:
            return self._max_in_flight

    def _errors_append(self, exc: BaseException) -> None:
        with self._lock:
            self._errors.append(exc)

    @property
    def records(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._records)

    @property
    def requests(self) -> list[dict]:
        with self._lock:
            return [r.json for r in self._records]

    @property
    def errors(self) -> list[BaseException]:
        with self._lock:
            return list(self._errors)

    def clear(self) -> None:
        """Forget the requests recorded so far (and the in-flight high-water mark)."""
        with self._lock:
            self._records.clear()
            self._max_in_flight = self._in_flight

    # replies --------------------------------------------------------------------------------
    def _completion(self, request: dict, reply: Reply) -> dict:
        content = reply.content if reply.content is not None else ""
        if self.count_tokens:
            prompt_tokens = max(1, count_prompt_tokens(request))
            completion_tokens = max(1, count_text_tokens(content))
        else:
            prompt_tokens = max(1, sum(len(str(m.get("content") or ""))
                                       for m in request.get("messages") or []) // 4)
            completion_tokens = max(1, len(content) // 4)
        return {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "system_fingerprint": "fp_scripted",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant",
                            "content": None if reply.null_content else content},
                "logprobs": None,
                "finish_reason": reply.finish_reason,
            }],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
        }

    # lifecycle ------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop serving and release the port; wakes replies held by ``delay``. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedChatServer:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ScriptedChatServer {self.base_url} requests={len(self.records)}>"


# token counting ---------------------------------------------------------------------------

TOKENIZER_MODEL = "gpt-4o-mini"
_tokenizer_lock = threading.Lock()
_token_counter: list[Any] = []  # [litellm.token_counter or None], filled on first use


def _counter() -> Any:
    """``litellm.token_counter``, imported on first use; ``None`` where litellm is missing."""
    with _tokenizer_lock:
        if not _token_counter:
            try:
                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
                import litellm

                _token_counter.append(litellm.token_counter)
            except Exception:  # noqa: BLE001 - litellm missing or broken: characters / 4
                _token_counter.append(None)
        return _token_counter[0]


def count_prompt_tokens(request: dict) -> int:
    """Input tokens of a chat-completions request: its messages (with the per-message
    overhead of OpenAI's chat format) and its ``tools``, counted with the ``gpt-4o-mini``
    tokenizer whatever model the request names."""
    messages = request.get("messages") or []
    counter = _counter()
    if counter is not None:
        try:
            return int(counter(model=TOKENIZER_MODEL, messages=messages,
                               tools=request.get("tools") or None))
        except Exception:  # noqa: BLE001 - a message shape it does not know: characters / 4
            counter = None
    chars = sum(len(str(m.get("content") or "")) for m in messages if isinstance(m, dict))
    return chars // 4


def count_text_tokens(text: str | None) -> int:
    """Tokens of ``text`` with the same tokenizer (e.g. a reply's content)."""
    if not text:
        return 0
    counter = _counter()
    if counter is not None:
        try:
            return int(counter(model=TOKENIZER_MODEL, text=text))
        except Exception:  # noqa: BLE001 - characters / 4 rather than no count
            counter = None
    return len(text) // 4


def free_closed_port() -> int:
    """A port on 127.0.0.1 that was free a moment ago and has nothing listening on it."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def message_contents(requests: Iterable[dict], *, role: str = "user") -> list[str | None]:
    """The last ``role`` message content of each request, in order."""
    out = []
    for request in requests:
        contents = [m.get("content") for m in request.get("messages") or []
                    if m.get("role") == role]
        out.append(contents[-1] if contents else None)
    return out
