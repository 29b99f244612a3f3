"""Which model answers: `offline:<name>` runs in-process with no endpoint; any other name is a
model on an OpenAI-compatible endpoint, reached through the benchmark's own client (retries
with backoff, a response cache by request hash, `--base-url`, the key read from an environment
variable and never written anywhere).

    >>> is_offline("offline:scripted"), is_offline("gpt-4o-mini")
    (True, False)
    >>> Endpoint(base_url="http://user:secret@127.0.0.1:8080/v1").public()["base_url_host"]
    '127.0.0.1:8080'

`replay=True` answers from the cache only (no network): a recorded run, re-run offline.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .project import OFFLINE_PREFIX, ChatClient, EndpointConfig, ResponseCache, url_host


def is_offline(model: str) -> bool:
    return model.startswith(OFFLINE_PREFIX)


@dataclasses.dataclass
class Endpoint:
    """How to reach the models that are not offline, and how to sample them."""
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"     # the variable's name, never its value
    cache: Path | None = None               # the response cache (None: none)
    replay: bool = False                    # answer from the cache only
    timeout_s: float = 60.0
    max_retries: int = 5
    temperature: float | None = 0.0         # None: not sent
    seed: int | None = 0                    # None: not sent
    max_tokens: int | None = None           # None: not sent
    _clients: dict = dataclasses.field(default_factory=dict, repr=False)
    _cache: ResponseCache | None = dataclasses.field(default=None, repr=False)

    def client(self, model: str) -> ChatClient:
        """One client per model (they share the cache file)."""
        if model not in self._clients:
            if self.cache is not None and self._cache is None:
                self._cache = ResponseCache(self.cache)
            config = EndpointConfig(model=model, base_url=self.base_url, api_key_env=self.api_key_env,
                                    timeout_s=self.timeout_s, max_retries=self.max_retries)
            self._clients[model] = ChatClient(config, cache=self._cache, replay_only=self.replay)
        return self._clients[model]

    def sampling(self, seed_offset: int = 0) -> dict:
        """The sampling fields of a request (seed + seed_offset: another trial)."""
        out: dict = {}
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.seed is not None:
            out["seed"] = self.seed + seed_offset
        if self.max_tokens is not None:
            out["max_tokens"] = self.max_tokens
        return out

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    def public(self) -> dict:
        """The options as they may be saved: the endpoint's host only, the key's variable name only."""
        return {"base_url_host": url_host(self.base_url), "api_key_env": self.api_key_env, "cache": str(self.cache) if self.cache else None,
                "replay": self.replay, "timeout_s": self.timeout_s, "max_retries": self.max_retries,
                "temperature": self.temperature, "seed": self.seed, "max_tokens": self.max_tokens}
