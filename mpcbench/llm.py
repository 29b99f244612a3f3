"""A small, resilient async chat-completions caller over the official ``openai`` SDK.

The SDK client is built with ``max_retries=0``; retries, backoff and error classification
happen here. The response is fetched with ``with_raw_response`` and its JSON parsed by us:
on a 200 whose body is not JSON the SDK's plain ``create`` raises a bare
``json.JSONDecodeError`` (not an ``openai`` error), and it accepts ``{"choices": []}`` or a
body with no ``choices`` at all without complaint. Both are ``bad_response`` here.

The API key is read from the environment only when the SDK client is created and lives only
inside that client; it is never part of a config, a request, a result or the cache. A server named
by a base URL (`--base-url` or `$OPENAI_BASE_URL`) gets a placeholder key when the variable is unset:
local servers without auth (vLLM, SGLang, Ollama, LM Studio, llama.cpp) accept any key.

A refusal for a limit of the model (its context, or output its own server cannot parse; see
`model_limits`) raises `errors.ModelLimitError` instead: the model's failure, not the endpoint's.

Calls go through an `AdaptiveLimit` (mpcbench/limiter.py): a timeout while other calls were in
flight (they queue at a server with fewer slots) halves the limit and is retried without using
up one of the call's retries (at most QUEUE_RETRIES times). What a run asks a server about
itself (is it there, its slots, its tokenizer) is in `harness.endpoint`.
"""

from __future__ import annotations

import asyncio
import email.utils
import hashlib
import json
import os
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from .errors import InfrastructureError, ModelLimitError
from .limiter import AdaptiveLimit
from .model_limits import MODEL_OUTPUT_REJECTED, model_limit

if TYPE_CHECKING:
    import openai

NO_KEY = "no-key"  # sent to a server named by a base URL when the key's variable is unset
REFUSED = "mpcbench_refused"  # a cached response that is a model's limit, not a body
KINDS = ("rate_limit", "server_error", "timeout", "connection", "bad_response", "client_error", "replay_miss")


@dataclass(frozen=True)
class EndpointConfig:
    model: str
    base_url: str | None = None  # None: the SDK default (OpenAI, or $OPENAI_BASE_URL)
    api_key_env: str = "OPENAI_API_KEY"  # the *name* of the variable, never the key
    timeout_s: float = 60.0
    max_retries: int = 5
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0

    def names_a_server(self) -> bool:
        """Whether a base URL names the endpoint (else it is OpenAI's own)."""
        return bool(self.base_url or os.environ.get("OPENAI_BASE_URL"))

    def api_key(self) -> str | None:
        """The key in the environment; NO_KEY for a server named by a base URL when the variable
        is unset; None for OpenAI's own endpoint without a key."""
        return os.environ.get(self.api_key_env) or (NO_KEY if self.names_a_server() else None)

    def missing_key(self) -> str:
        """What to say when api_key() is None."""
        return (f"${self.api_key_env} is not set: set it to your OpenAI key, name another variable with "
                "--api-key-env, or point --base-url (or $OPENAI_BASE_URL) at a server without auth")


@dataclass(frozen=True)
class ChatResult:
    message: dict  # {"role", "content", ["tool_calls": [{id, type, function: {name, arguments}}]]}
    finish_reason: str | None
    usage: dict  # {"prompt_tokens": int, "completion_tokens": int}
    latency_s: float  # wall time of the successful HTTP attempt (0 for a cache hit)
    attempts: int  # HTTP attempts made (0 for a cache hit)
    cached: bool


def request_hash(model: str, request: dict) -> str:
    canon = json.dumps({"model": model, **request}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class ResponseCache:
    """Append-only JSONL of {"hash", "request", "response"}; safe against kill -9."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._entries: dict[str, dict] = {}
        self._lock = threading.Lock()
        if self.path.exists():
            self._load()

    def _load(self) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a torn last write: drop it so the next append starts clean
            with open(self.path, "r+b") as f:
                f.truncate(end)
        for line in data[:end].splitlines():
            try:
                rec = json.loads(line)
                self._entries.setdefault(rec["hash"], rec["response"])
            except (ValueError, KeyError, TypeError):
                continue  # a corrupt line costs one cache entry, never the run

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, h: str) -> bool:
        return h in self._entries

    def get(self, h: str) -> dict | None:
        return self._entries.get(h)

    def put(self, h: str, request: dict, response: dict) -> None:
        line = json.dumps({"hash": h, "request": request, "response": response}, ensure_ascii=False)
        with self._lock:
            if h in self._entries:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
            self._entries[h] = response


def parse_retry_after(headers: Any, cap: float) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``Retry-After`` (seconds or HTTP-date), capped."""
    if headers is None:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return min(max(float(ms) / 1000.0, 0.0), cap)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            secs = float(value)
        except ValueError:
            secs = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        return min(max(secs, 0.0), cap)
    except (TypeError, ValueError, OverflowError):
        return None


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def result_from_body(body: Any, *, latency_s: float, attempts: int, cached: bool) -> ChatResult:
    """Normalise a chat-completions JSON body; raises ValueError when it has no usable choice."""
    if not isinstance(body, dict):
        raise ValueError("response body is not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        err = body.get("error")
        raise ValueError(f"response has no choices{f' (error: {err})' if err else ''}")
    choice = choices[0]
    msg = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(msg, dict):
        raise ValueError("first choice has no message object")
    content = msg.get("content")
    message: dict[str, Any] = {"role": msg.get("role") or "assistant",
                               "content": content if isinstance(content, str) or content is None else json.dumps(content)}
    calls = []
    for i, tc in enumerate(msg.get("tool_calls") or []):
        fn = (tc or {}).get("function") or {}
        args = fn.get("arguments")
        calls.append({"id": tc.get("id") or f"call_{i}", "type": tc.get("type") or "function",
                      "function": {"name": fn.get("name") or "",
                                   "arguments": args if isinstance(args, str) else json.dumps(args if args is not None else {})}})
    if calls:  # OpenAI rejects an empty tool_calls list when the message is sent back
        message["tool_calls"] = calls
    usage = raw if isinstance(raw := body.get("usage"), dict) else {}
    return ChatResult(message=message, finish_reason=choice.get("finish_reason"),
                      usage={"prompt_tokens": _int(usage.get("prompt_tokens")),
                             "completion_tokens": _int(usage.get("completion_tokens"))},
                      latency_s=latency_s, attempts=attempts, cached=cached)


def openai_sdk() -> ModuleType:
    """The `openai` package, imported by the first caller that talks to an endpoint: importing it
    takes about a second of CPU, which every command that calls no model would pay (a build, an
    offline agent's eval, a report)."""
    import openai
    return openai


MALFORMED = (ValueError, TypeError, AttributeError)  # what parsing an odd-shaped body can raise
QUEUE_RETRIES = 8  # free retries per call after a timeout in the server's queue


class ChatClient:
    def __init__(self, config: EndpointConfig, *, cache: ResponseCache | None = None, replay_only: bool = False,
                 rng: random.Random | None = None, sleep: Callable[[float], Awaitable[None]] | None = None,
                 limit: AdaptiveLimit | None = None):
        self.config, self.cache, self.replay_only = config, cache, replay_only
        self.limit = limit or AdaptiveLimit(10_000)
        self.rng = rng if rng is not None else random.Random()
        self.sleep = sleep if sleep is not None else asyncio.sleep
        self._client: openai.AsyncOpenAI | None = None

    def _sdk(self) -> openai.AsyncOpenAI:
        if self._client is None:
            key = self.config.api_key()
            if key is None:
                raise InfrastructureError("client_error", self.config.missing_key(), 0)
            self._client = openai_sdk().AsyncOpenAI(api_key=key, base_url=self.config.base_url,
                                              timeout=self.config.timeout_s, max_retries=0)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def __aenter__(self) -> "ChatClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform(0, min(max, base * 2**(attempt-1)))."""
        c = self.config
        return self.rng.uniform(0.0, min(c.backoff_max_s, c.backoff_base_s * 2 ** (attempt - 1)))

    def refusal(self, h: str, request: dict, cause: str, message: str, attempts: int) -> ModelLimitError:
        """The error of a model's limit, kept in the cache (under `REFUSED`) so that a replay
        meets the same refusal."""
        if self.cache is not None:
            self.cache.put(h, {"model": self.config.model, **request}, {REFUSED: {"cause": cause, "message": message}})
        return ModelLimitError(cause, message, attempts)

    async def complete(self, request: dict) -> ChatResult:
        model = self.config.model
        h = request_hash(model, request)
        if self.cache is not None and (hit := self.cache.get(h)) is not None:
            if isinstance(hit, dict) and isinstance(refusal := hit.get(REFUSED), dict):  # a model's limit, as the endpoint said it
                raise ModelLimitError(str(refusal.get("cause")), str(refusal.get("message")), 0)
            try:
                return result_from_body(hit, latency_s=0.0, attempts=0, cached=True)
            except MALFORMED:
                pass  # an unusable cached body (hand-edited file?) counts as a miss
        if self.replay_only:
            raise InfrastructureError("replay_miss", f"no cached response for request {h[:12]}", 0)
        sdk, openai = self._sdk(), openai_sdk()
        # The request is plain JSON already. Sent as `extra_body` (which the SDK merges over the
        # typed fields, documented: the second mapping wins) it skips the SDK's per-call,
        # type-driven transform of `messages` and `tools` (costly on long conversations), and
        # provider extensions go through as they are. Errors, timeouts and headers stay the SDK's.

        attempt = queue_retries = 0
        while True:
            attempt += 1
            retry_after = refused = None
            ticket = None
            try:
                async with self.limit.slot() as ticket:
                    t0 = time.monotonic()
                    async with asyncio.timeout(self.config.timeout_s + 5.0):  # hard cap over the SDK's phase timeouts
                        resp = await sdk.chat.completions.with_raw_response.create(model=model, messages=[],
                                                                                   extra_body=request)
                        content = resp.http_response.content
                latency = time.monotonic() - t0
                try:
                    body = json.loads(content)
                    result = result_from_body(body, latency_s=latency, attempts=attempt, cached=False)
                except MALFORMED as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
                    kind, msg = "bad_response", f"{e} (body starts {content[:80]!r})"
                else:
                    self.limit.succeeded()
                    if self.cache is not None:
                        self.cache.put(h, {"model": model, **request}, body)
                    return result
            except openai.APIStatusError as e:
                code = e.status_code
                refused = model_limit(code, f"{e.message} {json.dumps(e.body, ensure_ascii=False, default=str)}")
                if code != 429 and code < 500:  # 400/401/403/404/...: retrying cannot help
                    if refused is not None:
                        raise self.refusal(h, request, refused, f"HTTP {code}: {e.message}", attempt) from e
                    raise InfrastructureError("client_error", f"HTTP {code}: {e.message}", attempt) from e
                kind, msg = ("rate_limit" if code == 429 else "server_error"), str(e)
                retry_after = parse_retry_after(e.response.headers, self.config.backoff_max_s)
                if code == 429 and ticket is not None:   # the call had its slot: the server answered
                    self.limit.overloaded(ticket, "the server answered HTTP 429 (too many requests)")
            except (openai.APITimeoutError, TimeoutError) as e:
                kind, msg = "timeout", f"no response within {self.config.timeout_s}s ({type(e).__name__})"
                if ticket is not None and ticket.others > 0 and queue_retries < QUEUE_RETRIES:
                    self.limit.overloaded(ticket, f"a model call got no answer within {self.config.timeout_s} s")
                    queue_retries += 1
                    attempt -= 1  # it waited in the server's queue: not the call's fault
                    continue
            except openai.APIConnectionError as e:
                kind, msg = "connection", f"{e} ({type(e.__cause__).__name__})"
            except openai.APIError as e:  # e.g. APIResponseValidationError
                kind, msg = "bad_response", str(e)
            if attempt > self.config.max_retries:
                if refused == MODEL_OUTPUT_REJECTED:
                    raise self.refusal(h, request, refused, msg, attempt)
                raise InfrastructureError(kind, msg, attempt)
            await self.sleep(retry_after if retry_after is not None else self.backoff(attempt))
