"""`Episode.step`, as a driver from outside uses it (MCP and the training environments do): one
reply in, the messages the episode answers with and whether it is over out; the budget, the end
of a turn, feedback and `finish()` in the one place, and the journal record saying how it ended.
The default budget (`DEFAULT_MAX_STEPS`) is every surface's, and enough for a model that makes one
tool call a reply to read what the scripted reference reads."""

from __future__ import annotations

import asyncio
import json

import pytest

from evalkit import submission
from mpcbench.agents.offline import ScriptedAgent
from mpcbench.episode.codecs import NativeCodec
from mpcbench.episode.contract import EndReason
from mpcbench.episode.engine import Episode, Reply, play
from mpcbench.episode.environment import Environment
from mpcbench.grading.scoring import quick_score
from mpcbench.harness.rollout import program_messages

INSTANCE = "L1-0001"


class Unused:
    name = "outside"

    async def reply(self, view):
        raise AssertionError("the replies come from outside")


class Twice:
    """Feedback that says "try again" after the first answer, and nothing after the second."""

    def __init__(self):
        self.asked = 0

    async def give(self, instance_id, level, answer, *, turn, max_turns):
        self.asked += 1
        return "try again" if turn < max_turns else None


def call(name: str, arguments: dict, call_id: str) -> Reply:
    return Reply({"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]})


def record_of(episode: Episode) -> dict:
    return episode.record(trial=1, agent="test", model=None, latency_s=0.0)


@pytest.fixture
def env(con):
    with Environment(con, INSTANCE) as env:
        yield env


def test_a_tool_call_is_answered_and_the_last_step_ends_the_episode(env):
    episode = Episode(env, Unused(), NativeCodec(), max_steps=2)
    first = asyncio.run(episode.step(call("get_current_time", {}, "a")))
    assert [(m["role"], m["tool_call_id"]) for m in first.messages] == [("tool", "a")] and not first.done
    assert first.messages[0]["content"] == env.trace[-1].result
    last = asyncio.run(episode.step(call("get_current_time", {}, "b")))
    assert last.done and len(last.messages) == 1
    record = record_of(episode)
    assert (record["end"], record["steps"], record["error"], record["turns"]) == ("step_budget", 2, None, 1)
    assert record["answers"][0]["error"] == "no answer"
    with pytest.raises(RuntimeError, match="over"):
        asyncio.run(episode.step(call("get_current_time", {}, "c")))


def test_a_valid_submission_ends_it_and_finish_closes_one_left_open(con, golds):
    with Environment(con, INSTANCE) as env:
        episode = Episode(env, Unused(), NativeCodec(), max_steps=30)
        done = asyncio.run(episode.step(call("submit_candidates", submission(golds[INSTANCE], 1), "s")))
        assert done.done and done.messages[0]["content"].startswith("Submitted")
        assert record_of(episode)["end"] == "answered"
    with Environment(con, INSTANCE) as env:
        left = Episode(env, Unused(), NativeCodec(), max_steps=30)
        asyncio.run(left.step(call("get_current_time", {}, "t")))
        assert not left.done
        record = record_of(left)
    assert (record["end"], record["steps"], record["answers"][0]["error"]) == ("stopped", 1, "no answer")


def test_feedback_opens_the_next_turn_while_steps_remain(env):
    wrong = {"candidates": [{"start": "2026-01-01T00:00"}]}
    feedback = Twice()
    episode = Episode(env, Unused(), NativeCodec(), max_steps=3, max_turns=2, feedback=feedback)
    step = asyncio.run(episode.step(call("submit_candidates", wrong, "1")))
    assert not step.done and step.messages[-1] == {"role": "user", "content": "try again"}
    assert episode.turn == 2
    step = asyncio.run(episode.step(call("submit_candidates", wrong, "2")))
    assert step.done and feedback.asked == 2
    record = record_of(episode)
    assert [a["feedback"] for a in record["answers"]] == ["try again", None] and record["end"] == "answered"


def test_an_answer_on_the_last_step_stands_without_feedback(env):
    """No step is left for another turn, so no feedback is asked for: the answer is the episode's."""
    wrong = {"candidates": [{"start": "2026-01-01T00:00"}]}
    feedback = Twice()
    episode = Episode(env, Unused(), NativeCodec(), max_steps=1, max_turns=2, feedback=feedback)
    step = asyncio.run(episode.step(call("submit_candidates", wrong, "1")))
    assert step.done and feedback.asked == 0
    record = record_of(episode)
    assert record["turns"] == 1 and record["answers"][0]["candidates"][0]["start"] == "2026-01-01T00:00"


class OneCallAReply:
    """A model that makes one tool call a reply (as most open models do): the scripted reference's
    calls of the instance, each its own reply, then its submission (`program_messages`)."""
    name = "one-call-a-reply"

    def __init__(self, replies: list[dict]):
        self.replies = iter(replies)

    async def reply(self, view):
        return Reply(next(self.replies))


def test_one_call_a_reply_reads_what_the_scripted_reference_reads_within_the_default_budget(con, golds):
    level4 = [i for (i,) in con.execute("select instance_id from instances where level = 4 order by position").fetchall()]
    assert level4
    longest: tuple[str, list[dict]] = ("", [])
    for instance_id in level4:
        replies = program_messages(con, ScriptedAgent(), instance_id, batch=False)
        assert all(len(m["tool_calls"]) == 1 for m in replies) and len(replies) > 1
        with Environment(con, instance_id) as env:
            out = asyncio.run(play(OneCallAReply(replies), env)).out   # the default max_steps
        assert (out.end, out.steps, out.error) == (EndReason.ANSWERED, len(replies), None), instance_id
        assert quick_score(4, out.answer, golds[instance_id]).f1 == 1.0, instance_id
        longest = max(longest, (instance_id, replies), key=lambda x: len(x[1]))
    instance_id, replies = longest   # the check has teeth: one reply fewer, and the budget ends it first
    with Environment(con, instance_id) as env:
        out = asyncio.run(play(OneCallAReply(replies), env, max_steps=len(replies) - 1)).out
    assert out.end == EndReason.STEP_BUDGET and quick_score(4, out.answer, golds[instance_id]).f1 == 0.0
