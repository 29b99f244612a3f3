"""A scripted OpenAI-compatible chat-completions server for tests (stdlib only).

    with FakeOpenAI([status(429, retry_after=1), reply_text("hi")]) as srv:
        client = AsyncOpenAI(base_url=srv.base_url, api_key="sk-test")
        ...
        assert srv.requests[0].headers["authorization"] == "Bearer sk-test"

The script is either a list of behaviours, consumed one per request (a request past
the end gets HTTP 500 and is recorded in ``srv.unexpected``), or a callable
``script(req: RecordedRequest) -> Behaviour`` (``req.index`` is the 0-based count).
Import from test files as ``from fake_openai import FakeOpenAI, reply_text, ...``
(pytest puts ``tests/`` on sys.path).

GET requests (what a harness asks before a run) are answered from ``gets`` (path -> Behaviour;
by default ``/v1/models`` lists one model, anything else is 404) and recorded apart, in
``srv.get_requests``, so they never shift a list script. ``serial=True`` makes the server
answer one chat request at a time, as llama.cpp's server does with one slot: the others wait
in line, and one whose client has hung up by its turn is dropped (as llama.cpp drops it).
POSTs to other paths (a tokenizer's `/tokenize`) are answered by ``posts`` (path -> a function of
the request; anything else is 404) and recorded apart too, in ``srv.other_posts``.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Sequence, Union

_DEFAULT = object()  # sentinel: "compute a realistic usage block"


@dataclass(frozen=True)
class RecordedRequest:
    index: int
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # decoded JSON, or None when the body was not JSON
    raw: bytes

    @property
    def messages(self) -> list[dict]:
        return (self.body or {}).get("messages", []) if isinstance(self.body, dict) else []


@dataclass(frozen=True)
class Behaviour:
    """What the server does with one request.

    ``body`` may be bytes/str (sent verbatim), a dict (sent as JSON), or a callable
    ``body(req) -> dict`` (used by the reply helpers to echo the model and size usage).
    ``delay_s`` waits before answering; ``hang_s`` waits then drops the connection
    without any response.
    """

    status: int = 200
    body: Any = b""
    headers: tuple[tuple[str, str], ...] = ()
    delay_s: float = 0.0
    hang_s: float | None = None
    content_type: str = "application/json"


Script = Union[Sequence[Behaviour], Callable[[RecordedRequest], Behaviour]]


# ---------------------------------------------------------------- helper constructors

def _approx_tokens(obj: Any) -> int:
    text = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return max(1, len(text) // 4)


def _completion(req: RecordedRequest, message: dict, finish_reason: str, usage: Any) -> dict:
    body = req.body if isinstance(req.body, dict) else {}
    out: dict[str, Any] = {
        "id": f"chatcmpl-fake{req.index:04d}",
        "object": "chat.completion",
        "created": 1_700_000_000 + req.index,
        "model": body.get("model", "fake-model"),
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
    }
    if usage is _DEFAULT:
        prompt = _approx_tokens(body.get("messages", [])) + (_approx_tokens(body["tools"]) if body.get("tools") else 0)
        completion = _approx_tokens(message.get("content") or "") + sum(
            _approx_tokens(tc["function"]) for tc in message.get("tool_calls") or []
        )
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if usage is not None:
        out["usage"] = usage
    return out


def reply_text(text: str, *, finish_reason: str = "stop", usage: Any = _DEFAULT, delay_s: float = 0.0) -> Behaviour:
    """A plain assistant message. ``usage=None`` omits the usage block; a dict overrides it."""
    msg = {"role": "assistant", "content": text, "refusal": None}
    return Behaviour(body=lambda req: _completion(req, msg, finish_reason, usage), delay_s=delay_s)


def reply_tool_calls(
    calls: Iterable[tuple[str, Any]],
    *,
    content: str | None = None,
    finish_reason: str = "tool_calls",
    usage: Any = _DEFAULT,
    id_prefix: str = "call_",
    delay_s: float = 0.0,
) -> Behaviour:
    """One or several (parallel) tool calls, in the given order.

    Each call is ``(name, arguments)``; arguments may be a dict (JSON-encoded as the
    API does) or a str sent verbatim (e.g. to test malformed arguments). Call ids are
    ``f"{id_prefix}{request_index:04d}_{i}"`` so they are unique across a conversation.
    """
    calls = list(calls)

    def body(req: RecordedRequest) -> dict:
        tool_calls = [
            {
                "id": f"{id_prefix}{req.index:04d}_{i}",   # fixed width: equal conversations, equal length
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ]
        msg = {"role": "assistant", "content": content, "refusal": None, "tool_calls": tool_calls}
        return _completion(req, msg, finish_reason, usage)

    return Behaviour(body=body, delay_s=delay_s)


def status(code: int, *, retry_after: float | str | None = None, message: str | None = None,
           headers: dict[str, str] | None = None) -> Behaviour:
    """An HTTP error with an OpenAI-style error body (e.g. ``status(429, retry_after=1)``)."""
    hdrs = dict(headers or {})
    if retry_after is not None:
        hdrs["Retry-After"] = str(retry_after)
    err_type = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error",
                429: "rate_limit_exceeded"}.get(code, "server_error")
    body = {"error": {"message": message or f"fake error {code}", "type": err_type, "param": None, "code": None}}
    return Behaviour(status=code, body=body, headers=tuple(hdrs.items()))


def hang(seconds: float) -> Behaviour:
    """Accept the request, say nothing for ``seconds``, then drop the connection."""
    return Behaviour(hang_s=seconds)


def raw(body: bytes | str, status: int = 200, *, content_type: str = "application/json") -> Behaviour:
    """Send ``body`` verbatim, e.g. ``raw("not json{")`` or ``raw('{"choices": []}')``."""
    return Behaviour(status=status, body=body, content_type=content_type)


def models(*names: str) -> Behaviour:
    """A `GET /v1/models` list."""
    data = [{"id": n, "object": "model", "created": 1_700_000_000, "owned_by": "fake"} for n in names or ("fake-model",)]
    return Behaviour(body={"object": "list", "data": data})


def llama_props(total_slots: int) -> Behaviour:
    """llama.cpp's `GET /props`: the generation defaults and the number of parallel slots."""
    return Behaviour(body={"default_generation_settings": {"n_ctx": 4096, "params": {}}, "total_slots": total_slots,
                           "model_path": "fake.gguf", "chat_template": ""})


def empty_choices() -> Behaviour:
    return raw(json.dumps({"id": "chatcmpl-empty", "object": "chat.completion", "model": "fake", "choices": []}))


# ---------------------------------------------------------------- the server

class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128   # not socketserver's 5: a client opening many connections at once is not refused


class FakeOpenAI:
    def __init__(self, script: Script, *, host: str = "127.0.0.1", gets: dict[str, Behaviour] | None = None,
                 posts: dict[str, Callable[["RecordedRequest"], Behaviour]] | None = None, serial: bool = False):
        self._script = script
        self._gets = {"/v1/models": models(), **(gets or {})}
        self._posts = posts or {}
        self.other_posts: list[RecordedRequest] = []  # POSTs to paths other than chat completions, in order
        self._serial = threading.Lock() if serial else None
        self.get_requests: list[str] = []  # paths of GET requests, in order
        self.dropped: list[RecordedRequest] = []  # serial: requests whose client left before their turn
        self._host = host
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._count = 0
        self.requests: list[RecordedRequest] = []
        self.unexpected: list[RecordedRequest] = []  # requests past the end of a list script
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def start(self) -> "FakeOpenAI":
        self._server = _Server((self._host, 0), self._make_handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="FakeOpenAI", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # wakes sleeping (hanging/delayed) handlers
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- internals
    def _next(self, req: RecordedRequest) -> Behaviour:
        if callable(self._script):
            return self._script(req)
        if req.index < len(self._script):
            return self._script[req.index]
        with self._lock:
            self.unexpected.append(req)
        return status(500, message=f"FakeOpenAI script exhausted at request #{req.index}")

    def _make_handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                with fake._lock:
                    fake.get_requests.append(self.path)
                beh = fake._gets.get(self.path.split("?")[0]) or status(404, message="not found")
                self._respond(beh, None)

            def client_gone(self) -> bool:
                try:
                    readable, _, _ = select.select([self.connection], [], [], 0)
                    return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    return True

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(data) if data else None
                except ValueError:
                    body = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    other = RecordedRequest(len(fake.other_posts), "POST", self.path, headers, body, data)
                    with fake._lock:
                        fake.other_posts.append(other)
                    answer = fake._posts.get(self.path.split("?")[0])
                    self._respond(answer(other) if answer else status(404, message="unknown path"), None)
                    return
                with fake._lock:
                    idx = fake._count
                    fake._count += 1
                    req = RecordedRequest(idx, "POST", self.path, headers, body, data)
                    fake.requests.append(req)
                try:
                    beh = fake._next(req)
                except Exception as e:  # noqa: BLE001 - a broken callable script should fail loudly, not hang
                    beh = status(500, message=f"FakeOpenAI script raised {e!r}")
                if fake._serial is None:
                    self._respond(beh, req)
                    return
                with fake._serial:
                    if self.client_gone():
                        with fake._lock:
                            fake.dropped.append(req)
                        self.close_connection = True
                        return
                    self._respond(beh, req)

            def _respond(self, beh: Behaviour, req: RecordedRequest | None) -> None:
                if beh.hang_s is not None:
                    fake._stop.wait(beh.hang_s)
                    self.close_connection = True
                    return  # no response at all; the socket is closed by the server
                if beh.delay_s:
                    fake._stop.wait(beh.delay_s)
                payload = beh.body(req) if callable(beh.body) else beh.body
                if isinstance(payload, (dict, list)):
                    payload = json.dumps(payload).encode()
                elif isinstance(payload, str):
                    payload = payload.encode()
                self._send(beh.status, payload, beh.content_type, beh.headers)

            def _send(self, code: int, payload: bytes, ctype: str, headers: Iterable[tuple[str, str]]) -> None:
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(payload)))
                    self.send_header("Connection", "close")
                    for k, v in headers:
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (e.g. timed out) first
                self.close_connection = True

        return Handler


__all__ = ["FakeOpenAI", "RecordedRequest", "Behaviour", "reply_text", "reply_tool_calls", "status", "hang",
           "raw", "empty_choices", "models", "llama_props"]
