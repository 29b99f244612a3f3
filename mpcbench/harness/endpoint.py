"""What a run asks an endpoint about itself, never a chat request: `probe_endpoint` once before
a run (`GET /models`: nothing listening, or the key refused, is an InfrastructureError; then the
server's parallel slots where it says, llama.cpp's `/props` `total_slots` or `/slots`), and
`server_token_count` for `eval --dry-run` (the server's own tokenizer's count of a request)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..errors import InfrastructureError
from ..llm import MALFORMED, ChatClient, EndpointConfig, openai_sdk


@dataclass(frozen=True)
class ServerInfo:
    url: str                 # the base URL the SDK resolved
    slots: int | None        # parallel request slots the server reports, where it says
    slots_from: str | None   # where that number came from


def server_slots(body: Any, path: str) -> int | None:
    """The parallel slots in a llama.cpp `/props` body (`total_slots`) or `/slots` list."""
    if path == "/props" and isinstance(body, dict):
        n = body.get("total_slots")
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None
    if path == "/slots" and isinstance(body, list) and body:
        return len(body)
    return None


async def probe_endpoint(config: EndpointConfig, timeout_s: float = 10.0) -> ServerInfo:
    """One cheap request before a run (see the module docstring); raises InfrastructureError
    (kind `client_error` for a missing or refused key, `connection` or `timeout` otherwise)."""
    client = ChatClient(config)
    try:
        sdk, openai = client._sdk().with_options(timeout=min(timeout_s, config.timeout_s)), openai_sdk()
        url = str(sdk.base_url).rstrip("/")
        try:
            await sdk.models.with_raw_response.list()
        except openai.APIStatusError as e:
            if e.status_code in (401, 403):
                which = (f"the key in ${config.api_key_env}" if os.environ.get(config.api_key_env) else
                         f"a request without a key (${config.api_key_env} is not set; set it to the server's key)")
                raise InfrastructureError("client_error", f"{url} refused {which} (HTTP {e.status_code})", 1) from e
        except openai.APITimeoutError as e:
            raise InfrastructureError("timeout", f"{url} did not answer within {min(timeout_s, config.timeout_s)} s",
                                      1) from e
        except openai.APIConnectionError as e:
            raise InfrastructureError("connection", f"nothing answers at {url} ({e.__cause__ or e})", 1) from e
        root = url.removesuffix("/v1")
        for path in ("/props", "/slots"):
            try:
                slots = server_slots(await sdk.get(root + path, cast_to=object), path)
            except (openai.APIError, *MALFORMED):
                continue
            if slots:
                return ServerInfo(url, slots, f"{path} says {slots}")
        return ServerInfo(url, None, None)
    finally:
        await client.aclose()


@dataclass(frozen=True)
class TokenCount:
    tokens: int
    how: str   # which endpoint counted them


def _count_of(body: Any, key: str) -> int | None:
    value = body.get(key) if isinstance(body, dict) else None
    if key == "tokens":
        return len(value) if isinstance(value, list) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


async def server_token_count(config: EndpointConfig, request: dict, timeout_s: float = 10.0) -> TokenCount | None:
    """The prompt tokens of a chat request (its messages and tools, the chat template applied) as
    the server's own tokenizer counts them: vLLM's (and SGLang's) `POST /tokenize` with the
    messages, or llama.cpp's `POST /apply-template`, then `POST /tokenize` of that prompt with its
    special tokens, as llama.cpp tokenizes a chat request. None where the server offers neither
    (OpenAI's own endpoint is never asked) or does not answer."""
    if not config.names_a_server():
        return None
    client = ChatClient(config)
    chat = {"messages": request["messages"], **({"tools": request["tools"]} if request.get("tools") else {})}
    try:
        sdk, openai = client._sdk().with_options(timeout=min(timeout_s, config.timeout_s)), openai_sdk()
        root = str(sdk.base_url).rstrip("/").removesuffix("/v1")
        try:
            body = await sdk.post(root + "/tokenize", cast_to=object,
                                  body={"model": config.model, **chat, "add_generation_prompt": True})
            if (n := _count_of(body, "count")) is not None:
                return TokenCount(n, f"the server's tokenizer (POST {root}/tokenize)")
            applied = await sdk.post(root + "/apply-template", cast_to=object, body=chat)
            prompt = applied.get("prompt") if isinstance(applied, dict) else None
            if isinstance(prompt, str):
                body = await sdk.post(root + "/tokenize", cast_to=object,
                                      body={"content": prompt, "add_special": True, "parse_special": True})
                if (n := _count_of(body, "tokens")) is not None:
                    return TokenCount(n, f"the server's tokenizer (POST {root}/apply-template, then /tokenize)")
        except (openai.APIError, *MALFORMED):
            return None
        return None
    finally:
        await client.aclose()
