"""`mpcbench eval --agent openai` against endpoints that cannot serve the run as asked: no key
(an error for OpenAI's own endpoint, a placeholder for a server named by a base URL),
nothing listening, a refused key, every call failing (fail fast, one line, a true exit status),
and a local server that serves one request at a time (the concurrency adapts; no call is lost
to a timeout it spent in the server's queue)."""

from __future__ import annotations

import asyncio
import dataclasses

import polars as pl
import pytest
from typer.testing import CliRunner

from evalkit import PerInstance, submit
from fake_openai import FakeOpenAI, llama_props, status
from mpcbench.cli import app
from mpcbench.limiter import AdaptiveLimit
from mpcbench.llm import NO_KEY

KEY = "sk-test-endpoint"
runner = CliRunner()


def eval_args(db_path, out, base_url, *more) -> list[str]:
    return ["eval", "--agent", "openai", "--model", "fake-model", "--base-url", base_url, "--db", str(db_path),
            "--out", str(out), "--levels", "1", *more]


def last_line(output: str) -> str:
    return output.strip().splitlines()[-1]


def test_a_missing_key_for_openai_itself_stops_before_anything_is_sent(db_path, tmp_path, monkeypatch):
    """No key and no base URL (OpenAI's own endpoint): a one-line error, no request, no run."""
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = runner.invoke(app, ["eval", "--agent", "openai", "--model", "gpt-4o-mini", "--api-key-env",
                                 "NO_SUCH_KEY_VAR", "--db", str(db_path), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2, result.output
    assert "$NO_SUCH_KEY_VAR is not set" in result.output and "--base-url" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def gold_server(db_path, golds) -> PerInstance:
    """Each episode answers gold in one call."""
    return PerInstance(db_path, {}, default=lambda instance_id, k: submit(golds[instance_id], int(instance_id[1])))


@pytest.mark.parametrize("named_by", ["--base-url", "OPENAI_BASE_URL"])
def test_a_server_without_auth_runs_without_a_key(named_by, db_path, golds, tmp_path, monkeypatch):
    """The documented local-server command, with no OPENAI_API_KEY: the server named by --base-url
    (or $OPENAI_BASE_URL) is sent the placeholder key and the run completes."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAI(gold_server(db_path, golds)) as srv:
        args = ["eval", "--agent", "openai", "--model", "my-local-model", "--db", str(db_path),
                "--out", str(tmp_path / "run"), "--levels", "1"]
        if named_by == "--base-url":
            args += ["--base-url", srv.base_url]
        else:
            monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        result = runner.invoke(app, args)
        keys = {r.headers.get("authorization") for r in srv.requests}
    assert result.exit_code == 0, result.output
    assert keys == {f"Bearer {NO_KEY}"}
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs.height == 4 and runs["error"].is_null().all() and runs["exact_match"].all()


def test_a_server_that_wants_a_key_says_the_variable_is_unset(db_path, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAI([], gets={"/v1/models": status(401, message="no key")}) as srv:
        result = runner.invoke(app, eval_args(db_path, tmp_path / "run", srv.base_url))
        assert srv.requests == []
    assert result.exit_code == 2, result.output
    assert "without a key ($OPENAI_API_KEY is not set" in result.output.replace("\n", " ")
    assert not (tmp_path / "run").exists()


def test_nothing_listening_is_one_line_naming_the_url(db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    result = runner.invoke(app, eval_args(db_path, tmp_path / "run", "http://127.0.0.1:1/v1"))
    assert result.exit_code == 2, result.output
    assert "nothing answers at http://127.0.0.1:1/v1" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert not (tmp_path / "run").exists()


def test_a_refused_key_is_one_line(db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI([], gets={"/v1/models": status(401, message="bad key")}) as srv:
        result = runner.invoke(app, eval_args(db_path, tmp_path / "run", srv.base_url))
        assert srv.requests == []  # no chat request was made
    assert result.exit_code == 2, result.output
    assert "refused the key in $OPENAI_API_KEY (HTTP 401)" in result.output


def test_a_run_of_nothing_but_infrastructure_errors_exits_non_zero(db_path, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(lambda req: status(400, message="model not found")) as srv:
        result = runner.invoke(app, eval_args(db_path, tmp_path / "run", srv.base_url, "--max-retries", "0"))
    assert result.exit_code == 1, result.output
    line = last_line(result.output)
    assert "every episode of" in line and "infrastructure error" in line and "model not found" in line
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs.height == 4 and runs["error"].is_not_null().all()  # the results are still written


def one_at_a_time(db_path, golds, delay_s: float = 0.3) -> PerInstance:
    """Each episode answers gold in one call; the server takes `delay_s` a call, one call at a time."""
    def answer(instance_id, k):
        return submit(golds[instance_id], int(instance_id[1]))
    script = PerInstance(db_path, {}, default=answer)
    return lambda req: dataclasses.replace(script(req), delay_s=delay_s)


def test_a_one_slot_server_that_says_nothing_gets_fewer_calls_and_no_errors(db_path, golds, tmp_path, monkeypatch):
    """16 episodes at --concurrency 8 against a server that answers one call at a time in 0.15 s:
    calls queued at the server pass the 0.5 s timeout, the limit halves, and the run ends with
    every episode answered (before, each ended as an infrastructure error)."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(one_at_a_time(db_path, golds, delay_s=0.15), serial=True) as srv:
        result = runner.invoke(app, ["eval", "--agent", "openai", "--model", "fake-model", "--base-url", srv.base_url,
                                     "--db", str(db_path), "--out", str(tmp_path / "run"), "--timeout", "0.5",
                                     "--max-retries", "2"])
        dropped = len(srv.dropped)
    assert result.exit_code == 0, result.output
    runs = pl.read_parquet(tmp_path / "run" / "runs.parquet")
    assert runs.height == len(golds) and runs["error"].is_null().all() and runs["exact_match"].all()
    notes = [line for line in result.output.splitlines() if line.startswith("note:")]
    assert notes and "model calls now run at most" in notes[0] and "--concurrency" in notes[0]
    assert dropped >= 1  # calls did time out in the queue (the server dropped them), and were run again


def test_a_server_that_gives_its_slots_is_never_sent_more(db_path, golds, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(one_at_a_time(db_path, golds), serial=True, gets={"/props": llama_props(1)}) as srv:
        result = runner.invoke(app, eval_args(db_path, tmp_path / "run", srv.base_url, "--timeout", "1"))
        assert srv.get_requests == ["/v1/models", "/props"]
        assert srv.dropped == [] and len(srv.chat_requests) == 4  # no call ever waited past its timeout
    assert result.exit_code == 0, result.output
    assert "serves 1 request(s) at a time (/props says 1)" in result.output.replace("\n", " ")
    assert "--concurrency 1" in result.output.replace("\n", " ")


def test_the_limit_halves_once_per_window_and_grows_back_by_one():
    notes = []

    async def scenario():
        limit = AdaptiveLimit(8, note=notes.append)
        tickets = []
        for _ in range(8):  # eight calls in flight at once, all timing out together
            async with limit.slot() as ticket:
                tickets.append(ticket)
        for ticket in tickets:
            ticket.others = 7
            limit.overloaded(ticket, "timeout")
        assert limit.limit == 4 and len(notes) == 1  # one crowded moment: halved once
        async with limit.slot() as later:
            pass
        limit.overloaded(later, "timeout")
        assert limit.limit == 2
        for _ in range(2):
            limit.succeeded()
        assert limit.limit == 3  # a run of `limit` successes adds one
        for _ in range(100):
            limit.succeeded()
        assert limit.limit == 8  # never above the maximum

    asyncio.run(scenario())


def test_a_call_that_waited_behind_others_that_have_ended_still_counts_them():
    """A one-slot server serves the calls in the order they came: a call sent while another was in
    flight waits for it, and may time out after it has ended. Its timeout is the queue's (a
    retry that costs none of the call's own), not its own: the call counts the calls in flight
    when it began as well as when it ended."""
    async def scenario():
        limit = AdaptiveLimit(2)
        ahead, behind = limit.slot(), limit.slot()
        first = await ahead.__aenter__()
        second = await behind.__aenter__()
        await ahead.__aexit__(None, None, None)      # the call ahead is answered
        await behind.__aexit__(None, None, None)     # the one behind it times out alone
        alone = limit.slot()
        third = await alone.__aenter__()
        await alone.__aexit__(None, None, None)
        return first.others, second.others, third.others

    assert asyncio.run(scenario()) == (1, 1, 0)


def test_the_limit_holds_calls_back():
    async def scenario():
        limit = AdaptiveLimit(2)
        most = 0

        async def call():
            nonlocal most
            async with limit.slot():
                most = max(most, limit.in_flight)
                await asyncio.sleep(0.01)

        await asyncio.gather(*(call() for _ in range(10)))
        return most

    assert asyncio.run(scenario()) == 2


def test_the_legacy_commands_take_the_same_rule_for_the_key(tmp_path, monkeypatch):
    """`mpcbench legacy run` with a model and no key: an error for OpenAI's own endpoint; with a
    base URL the key is no obstacle (the run stops later, on the data it has not generated)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    args = ["legacy", "run", "--task", "nadia_schedule", "--agent-model", "some-model", "--root", str(tmp_path)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1 and "$OPENAI_API_KEY is not set" in result.output, result.output
    result = runner.invoke(app, [*args, "--base-url", "http://127.0.0.1:1/v1"])
    assert result.exit_code == 1 and "no generated data" in result.output, result.output
