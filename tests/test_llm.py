"""mpcbench.llm over the real openai SDK and real HTTP, against tests/fake_openai.py."""

from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import json
import pickle
import random
import socket
import time

import pytest

from fake_openai import FakeOpenAI, empty_choices, hang, raw, reply_text, reply_tool_calls, status
from mpcbench.errors import InfrastructureError
from mpcbench.llm import (
    ChatClient,
    EndpointConfig,
    NO_KEY,
    ResponseCache,
    parse_retry_after,
    request_hash,
)

SECRET = "sk-test-SECRET123"
REQ = {"messages": [{"role": "system", "content": "You schedule meetings."},
                    {"role": "user", "content": "Find a slot."}],
       "temperature": 0, "seed": 7}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


class Sleeps(list):
    """An injected sleep that records instead of waiting."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def call(srv, request=REQ, *, cache=None, replay_only=False, sleeps=None, rng_seed=0, **cfg):
    """Run one ChatClient.complete in a fresh event loop; returns (result, sleeps)."""
    sleeps = Sleeps() if sleeps is None else sleeps
    cfg = {"timeout_s": 0.3, "max_retries": 3, **cfg}
    config = EndpointConfig(model="fake-model", base_url=srv.base_url if srv else "http://127.0.0.1:9/v1", **cfg)

    async def go():
        async with ChatClient(config, cache=cache, replay_only=replay_only, rng=random.Random(rng_seed),
                              sleep=sleeps) as client:
            return await client.complete(request)

    return asyncio.run(go()), sleeps


def fails(srv, **kw) -> InfrastructureError:
    with pytest.raises(InfrastructureError) as ei:
        call(srv, **kw)
    return ei.value


# ------------------------------------------------------------------ replies

def test_plain_reply_and_request_body():
    with FakeOpenAI([reply_text("Tuesday 10:00 works.")]) as srv:
        res, sleeps = call(srv)
        (req,) = srv.requests
    assert res.message == {"role": "assistant", "content": "Tuesday 10:00 works."}
    assert res.finish_reason == "stop" and res.attempts == 1 and not res.cached and sleeps == []
    assert res.usage["prompt_tokens"] > 0 and res.usage["completion_tokens"] > 0
    assert set(res.usage) == {"prompt_tokens", "completion_tokens"}
    assert 0 < res.latency_s < 60   # measured, in seconds (not ms); generous for a loaded machine
    assert req.path == "/v1/chat/completions"
    assert req.body == {"model": "fake-model", **REQ}
    assert req.headers["authorization"] == f"Bearer {SECRET}"


def test_parallel_tool_calls_in_order_and_passthrough():
    calls = [("get_calendar", {"person_id": "p-001"}), ("get_calendar", {"person_id": "p-002"}),
             ("list_rooms", {})]
    tools = [{"type": "function", "function": {"name": "get_calendar", "parameters": {"type": "object"}}}]
    request = {**REQ, "tools": tools, "tool_choice": "auto", "parallel_tool_calls": True,
               "top_k": 5}  # top_k: a provider extension the SDK doesn't know -> extra_body
    with FakeOpenAI([reply_tool_calls(calls)]) as srv:
        res, _ = call(srv, request)
        body = srv.requests[0].body
    assert body == {"model": "fake-model", **request}
    assert res.finish_reason == "tool_calls" and res.message["content"] is None
    tcs = res.message["tool_calls"]
    assert [(t["function"]["name"], json.loads(t["function"]["arguments"])) for t in tcs] == calls
    assert all(t["type"] == "function" and isinstance(t["function"]["arguments"], str) for t in tcs)
    assert len({t["id"] for t in tcs}) == 3


def test_missing_usage_is_zero():
    with FakeOpenAI([reply_text("ok", usage=None)]) as srv:
        res, _ = call(srv)
    assert res.usage == {"prompt_tokens": 0, "completion_tokens": 0}


# ------------------------------------------------------------------ retries

def test_429_honours_retry_after():
    with FakeOpenAI([status(429, retry_after=1), reply_text("ok")]) as srv:
        res, sleeps = call(srv)
        assert len(srv.requests) == 2
    assert res.attempts == 2 and sleeps == [1.0]


def test_retry_after_is_capped_and_parses_http_dates():
    with FakeOpenAI([status(429, retry_after=120), reply_text("ok")]) as srv:
        _, sleeps = call(srv, backoff_max_s=5)
    assert sleeps == [5.0]
    soon = email.utils.formatdate(time.time() + 10, usegmt=True)
    assert 8 <= parse_retry_after({"retry-after": soon}, cap=30) <= 10
    assert parse_retry_after({"retry-after": email.utils.formatdate(time.time() + 3600, usegmt=True)}, 30) == 30
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 30) == 0  # in the past
    assert parse_retry_after({"retry-after-ms": "250"}, 30) == 0.25
    assert parse_retry_after({"retry-after": "soon-ish"}, 30) is None
    assert parse_retry_after({}, 30) is None


def test_500_twice_then_success_with_full_jitter():
    script = [status(500), status(503), reply_text("ok")]
    with FakeOpenAI(script) as srv:
        res, sleeps = call(srv, backoff_base_s=1.0, rng_seed=42)
    assert res.attempts == 3 and len(sleeps) == 2
    assert 0 <= sleeps[0] <= 1.0 and 0 <= sleeps[1] <= 2.0
    rng = random.Random(42)  # full jitter from the seeded rng: reproducible
    assert sleeps == [rng.uniform(0, 1.0), rng.uniform(0, 2.0)]


def test_hang_past_timeout_then_success():
    t0 = time.monotonic()
    with FakeOpenAI([hang(600), reply_text("ok")]) as srv:
        res, sleeps = call(srv, timeout_s=0.3)
    assert res.message["content"] == "ok" and res.attempts == 2 and len(sleeps) == 1
    # neither the client nor the server shutdown waited for the 600 s hang (a generous bound for a
    # loaded machine: done in well under a second otherwise)
    assert time.monotonic() - t0 < 60


@pytest.mark.parametrize("behaviour", [lambda: raw("not json{"), empty_choices, lambda: raw('{"object": "x"}'),
                                       lambda: raw('{"error": {"message": "overloaded"}}'),
                                       lambda: raw(b"\xff\xfe garbage"),
                                       lambda: raw('{"choices": [{"message": {"tool_calls": ["x"]}}]}'),
                                       lambda: raw('{"choices": [null]}')],
                         ids=["undecodable", "empty-choices", "no-choices", "error-body", "not-utf8",
                              "odd-tool-calls", "null-choice"])
def test_bad_body_is_retried_then_final(behaviour):
    with FakeOpenAI(lambda req: behaviour()) as srv:
        err = fails(srv, max_retries=2)
        assert len(srv.requests) == 3
    assert err.kind == "bad_response" and err.attempts == 3


def test_bad_body_recovers():
    with FakeOpenAI([raw("not json{"), empty_choices(), reply_text("ok")]) as srv:
        res, sleeps = call(srv)
    assert res.attempts == 3 and len(sleeps) == 2


@pytest.mark.parametrize("code", [400, 401, 404])
def test_4xx_is_final_immediately(code):
    with FakeOpenAI(lambda req: status(code)) as srv:
        err = fails(srv)
        assert len(srv.requests) == 1
    assert err.kind == "client_error" and err.attempts == 1 and str(code) in err.message


@pytest.mark.parametrize("beh,kind", [(lambda: status(500), "server_error"), (lambda: status(429), "rate_limit"),
                                      (lambda: hang(2), "timeout")])
def test_retries_exhausted(beh, kind):
    with FakeOpenAI(lambda req: beh()) as srv:
        sleeps = Sleeps()
        with pytest.raises(InfrastructureError) as ei:
            call(srv, max_retries=2, sleeps=sleeps)
        assert len(srv.requests) == 3
    assert ei.value.kind == kind and ei.value.attempts == 3 and len(sleeps) == 2


def test_connection_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    class Closed:
        base_url = f"http://127.0.0.1:{port}/v1"

    err = fails(Closed(), max_retries=1)
    assert err.kind == "connection" and err.attempts == 2


def test_missing_api_key_for_openai_itself_is_a_client_error(monkeypatch):
    """No key and no base URL: nothing is sent anywhere."""
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    config = EndpointConfig(model="fake-model")
    with pytest.raises(InfrastructureError) as ei:
        ChatClient(config)._sdk()
    err = ei.value
    assert err.kind == "client_error" and err.attempts == 0 and "$OPENAI_API_KEY is not set" in err.message


def test_a_server_named_by_a_base_url_gets_the_placeholder_key_without_one(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with FakeOpenAI([reply_text("ok")]) as srv:
        res, _ = call(srv)
        assert srv.requests[0].headers["authorization"] == f"Bearer {NO_KEY}"
    assert res.message["content"] == "ok"


def test_503_retry_after_is_honoured_too():
    with FakeOpenAI([status(503, retry_after=2), reply_text("ok")]) as srv:
        res, sleeps = call(srv)
    assert res.attempts == 2 and sleeps == [2.0]


def test_infrastructure_error_pickles():
    e = pickle.loads(pickle.dumps(InfrastructureError("timeout", "slow", 3)))
    assert (e.kind, e.message, e.attempts) == ("timeout", "slow", 3) and "timeout" in str(e)


# ------------------------------------------------------------------ cache

def test_cache_hit_skips_http(tmp_path):
    path = tmp_path / "cache.jsonl"
    with FakeOpenAI([reply_tool_calls([("get_calendar", {"person_id": "p-001"})])]) as srv:
        first, _ = call(srv, cache=ResponseCache(path))
        second, _ = call(srv, cache=ResponseCache(path))  # reloaded from disk
        assert len(srv.requests) == 1 and not srv.unexpected
    assert second.cached and second.latency_s == 0 and second.attempts == 0
    assert second.message == first.message and second.usage == first.usage
    (line,) = path.read_text().splitlines()
    rec = json.loads(line)
    assert rec["hash"] == request_hash("fake-model", REQ) and rec["request"] == {"model": "fake-model", **REQ}


def test_cache_key_is_canonical_and_discriminating():
    a = {"messages": [{"role": "user", "content": "x"}], "temperature": 0}
    b = {"temperature": 0, "messages": [{"content": "x", "role": "user"}]}
    assert request_hash("m", a) == request_hash("m", b)
    assert request_hash("m", a) != request_hash("m2", a)
    assert request_hash("m", a) != request_hash("m", {**a, "seed": 1})


def test_failures_are_not_cached(tmp_path):
    path = tmp_path / "cache.jsonl"
    with FakeOpenAI(lambda req: status(500)) as srv:
        fails(srv, cache=ResponseCache(path), max_retries=0)
    assert not path.exists() or path.read_text() == ""


def test_replay_only(tmp_path, monkeypatch):
    path = tmp_path / "cache.jsonl"
    with FakeOpenAI([reply_text("recorded")]) as srv:
        call(srv, cache=ResponseCache(path))
    monkeypatch.delenv("OPENAI_API_KEY")  # replay needs no key
    with FakeOpenAI([]) as srv:
        res, _ = call(srv, cache=ResponseCache(path), replay_only=True)
        assert res.cached and res.message["content"] == "recorded"
        err = fails(srv, request={**REQ, "seed": 8}, cache=ResponseCache(path), replay_only=True)
        assert srv.requests == []
    assert err.kind == "replay_miss"


def test_truncated_last_line_is_ignored(tmp_path):
    path = tmp_path / "cache.jsonl"
    cache = ResponseCache(path)
    cache.put("h1", {"messages": []}, {"choices": [{"message": {"role": "assistant", "content": "one"}}]})
    good = path.read_bytes()
    path.write_bytes(good + b'{"hash": "h2", "request": {}, "resp')  # killed mid-write
    reloaded = ResponseCache(path)
    assert len(reloaded) == 1 and reloaded.get("h1") and reloaded.get("h2") is None
    reloaded.put("h3", {}, {"choices": []})  # the next append starts on a clean line
    again = ResponseCache(path)
    assert len(again) == 2 and again.get("h3") == {"choices": []}
    assert all(json.loads(line) for line in path.read_text().splitlines())


# ------------------------------------------------------------------ secrets

def test_api_key_sent_but_never_written(tmp_path):
    cache_path = tmp_path / "cache.jsonl"
    script = [status(429, retry_after=0), reply_tool_calls([("get_calendar", {"person_id": "p-001"})]),
              status(401)]
    with FakeOpenAI(script) as srv:
        res, _ = call(srv, cache=ResponseCache(cache_path))
        err = fails(srv, request={**REQ, "seed": 99}, cache=ResponseCache(cache_path))
        assert all(r.headers["authorization"] == f"Bearer {SECRET}" for r in srv.requests)
        assert all(SECRET not in r.raw.decode() for r in srv.requests)  # not in any body
        config = EndpointConfig(model="fake-model", base_url=srv.base_url)
    (tmp_path / "artifacts.json").write_text(json.dumps({
        "config": dataclasses.asdict(config), "result": dataclasses.asdict(res), "error": str(err),
        "reprs": [repr(config), repr(res), repr(err)]}))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert cache_path in files
    for p in files:
        assert SECRET.encode() not in p.read_bytes(), p
    assert SECRET not in json.dumps(dataclasses.asdict(config))
