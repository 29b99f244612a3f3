"""The episode engine: one episode, played the one way every agent path plays it.

    env = Environment(con, "L2-0007", CodeMode())
    episode = Episode(env, ChatPolicy(client, options), codec_for("mint"), max_steps=30, max_turns=3,
                      feedback=giver)
    await episode.play()                 # never raises for what goes wrong inside the episode
    record = episode.record(trial=1, agent="openai", model="gpt-4o-mini", latency_s=12.3)

`mpcbench eval` (harness/runner.py), the Inspect solver, the MCP session and the scripted
references all go through here, so an instance gets the same system prompt, the same tools and
the same `submit_candidates` schema on every path, and the same conversation gives the same
journal record.

Who does what:

- a **policy** gives the next reply, given the conversation so far (`Policy.reply(View)`): a
  model behind an endpoint (`agents.openai_agent.ChatPolicy`), Inspect's model, a scripted
  model of MINT's protocol, or a program (`ProgramPolicy`: an offline agent that reads the sources
  through `env.call` and then submits);
- a **codec** (`episode.codecs`) writes the conversation as messages and reads a reply into
  actions: OpenAI tool calling, or MINT's `<execute>`/`<solution>` text;
- the **engine** runs the actions (tool calls through the environment, submissions through
  `submit`), keeps the step budget (at most `max_steps` replies, all turns together), ends a
  turn at an answer, gives feedback between turns (at most `max_turns` answers), and writes the
  journal record.

How an episode ends, and what it is counted as:

- an answer: a valid `submit_candidates` call (one that fails the JSON Schema comes back as an
  error the model can fix, and is the answer only if nothing valid follows), a plain-text reply
  (native) or a `<solution>` (MINT), parsed leniently;
- the step budget spent: the last submission attempt (or nothing) is the answer;
- a limit of the model (`errors.ModelLimitError`: the conversation outgrew its context, or its
  server could not parse its output): the episode ends, scored like a spent budget, and
  `model_limit = "<cause>: ..."` names the cause (`model_limits`);
- `error = "<kind>: ..."`, an infrastructure error: the endpoint failed after its retries
  (`llm.InfrastructureError`; `feedback_<kind>` when the feedback model's endpoint failed);
- `error = "harness_error: ..."`: our own code failed (a tool's query, a program, a bug). The
  traceback is kept in the record; the run fails (harness/runner.py).
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ModelLimitError
from ..llm import InfrastructureError
from .answers import SUBMIT_TOOL_NAME, ParsedAnswer, parse_submission, parse_text_answer
from .codecs import Action, Budget, Codec, codec_for
from .contract import AgentOutput, ToolCall
from .environment import Environment, sent_text
from .tools import HiddenFacts

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs is Python 3.13+; only annotations use it

HARNESS_ERROR = "harness_error"
JOURNAL_VERSION = 1


@dataclass
class Reply:
    """A policy's reply: an assistant message in the OpenAI shape (`content`, `tool_calls`)."""
    message: dict
    prompt_tokens: int = 0
    completion_tokens: int = 0
    steps: int = 1            # the steps it stands for: a model call is one; a program counts its tool calls
    final: bool = False       # it ends the turn whatever it holds (a program answers once; no retry)


@dataclass
class View:
    """What a policy is given for its next reply."""
    messages: list[dict]      # the conversation so far
    request: dict             # the codec's request fields: the tool list, or MINT's stop words
    env: Environment          # programs read the sources through env.call
    codec: Codec              # programs write their answer with it
    turn: int
    feedback: str | None      # the feedback that opened this turn (None on the first)
    hidden: HiddenFacts | None  # level 4's hidden facts: only the scripted references get them


class Policy(Protocol):
    name: str

    async def reply(self, view: View) -> Reply:
        """The next reply; InfrastructureError if the endpoint failed after its retries."""
        ...


class Program(Protocol):
    """An offline agent: a program that reads the sources through `env.call` and computes its
    answer; `feedback` is None on the first turn."""
    name: str

    def submission(self, env: Environment, feedback: str | None, hidden: HiddenFacts | None) -> dict:
        """The submission's arguments ({"candidates": [...]})."""
        ...


class ProgramPolicy:
    """A program as a policy: it runs in a worker thread (its tool calls block), and its reply
    submits what it computed. Its steps are the tool calls it made."""

    def __init__(self, program: Program):
        self.program, self.name = program, program.name

    async def reply(self, view: View) -> Reply:
        before = len(view.env.trace)
        arguments = await asyncio.to_thread(self.program.submission, view.env, view.feedback, view.hidden)
        return Reply(view.codec.submission(arguments), steps=len(view.env.trace) - before, final=True)


def is_policy(agent: Policy | Program) -> TypeIs[Policy]:
    """A policy replies; a program (no `reply`) computes a submission."""
    return hasattr(agent, "reply")


class Feedback(Protocol):
    async def give(self, instance_id: str, level: int, answer: ParsedAnswer | None, *, turn: int,
                   max_turns: int) -> str | None:
        """The feedback on a turn's answer, or None: it is right, or no turn is left."""
        ...


class Episode:
    """One episode over an open environment (the caller closes it)."""

    def __init__(self, env: Environment, policy: Policy, codec: Codec, *, max_steps: int = 30, max_turns: int = 1,
                 feedback: Feedback | None = None, hidden: HiddenFacts | None = None):
        self.env, self.policy, self.codec = env, policy, codec
        self.max_steps, self.max_turns, self.feedback, self.hidden = max_steps, max_turns, feedback, hidden
        self.out = AgentOutput(answer=None, turns=1,
                               transcript=codec.opening(env, max_steps=max_steps, max_proposals=max_turns))
        self.answers: list[dict] = []       # the journal's answers, turn by turn
        self.proposals = 0                  # MINT: <solution>s given
        self.said: str | None = None        # the feedback that opened the current turn
        self.traceback: str | None = None   # of a harness error

    @property
    def messages(self) -> list[dict]:
        return self.out.transcript

    def budget(self) -> Budget:
        return Budget(self.max_steps - self.out.steps, self.max_turns - self.proposals)

    async def play(self) -> AgentOutput:
        """Every turn: after a wrong answer, while turns remain, the feedback and the next turn.
        Whatever goes wrong ends up in `out.error`, never as an exception."""
        out = self.out
        try:
            await self.play_turn(1)
            for turn in range(1, self.max_turns + 1):
                if out.error or out.model_limit:
                    break
                said = None
                if self.feedback is not None:
                    said = await self.feedback.give(self.env.instance_id, self.env.level, out.answer, turn=turn,
                                                    max_turns=self.max_turns)
                self.answers.append(turn_answer(out, self.env.level, turn, said))
                if said is None:
                    break
                self.messages.append(self.codec.feedback(said, self.budget()))
                out.answer, out.turns, self.said = None, turn + 1, said
                await self.play_turn(turn + 1)
        except InfrastructureError as e:  # the feedback model's endpoint
            out.error = f"feedback_{e.kind}: {e.message}"
        except Exception as e:  # noqa: BLE001 - whatever our own code raised ends this episode, as ours
            self.fail(e)
        if not self.answers or out.error or out.model_limit:
            self.answers.append(turn_answer(out, self.env.level, len(self.answers) + 1))
        return out

    def fail(self, error: BaseException) -> None:
        """End the episode with a harness error (our code failed), keeping the traceback."""
        self.out.error, self.traceback = harness_failure(error)

    async def play_turn(self, turn: int) -> None:
        """Replies until an answer, the step budget or an endpoint failure."""
        out = self.out
        while out.steps < self.max_steps:
            view = View(self.messages, self.codec.request(self.env), self.env, self.codec, turn, self.said,
                        self.hidden)
            try:
                reply = await self.policy.reply(view)
            except InfrastructureError as e:
                out.error = f"{e.kind}: {e.message}"
                return
            except ModelLimitError as e:
                out.model_limit = f"{e.cause}: {e.message}"
                return
            out.steps += reply.steps
            out.prompt_tokens += reply.prompt_tokens
            out.completion_tokens += reply.completion_tokens
            kept, actions = self.codec.read(reply.message, self.env)
            self.messages.append(kept)
            if await self.act(actions, turn) or reply.final:
                return

    async def act(self, actions: list[Action], turn: int) -> bool:
        """Run a reply's actions in order; True when they answered the turn."""
        out = self.out
        accepted = None
        for action in actions:
            if action.kind in ("text", "solution"):
                self.proposals += action.kind == "solution"
                out.answer = parse_text_answer(action.content, self.env.level)
                return True
            if action.kind == "submit":
                answer = submit(self.env, action.arguments, turn=turn)
                text = self.env.trace[-1].result
                if answer.parse_ok:
                    accepted = answer
                elif accepted is None:
                    out.answer = answer  # the last attempt, if nothing valid comes
            elif action.kind == "call":
                text = await asyncio.to_thread(self.env.call, action.name, action.arguments, turn=turn)
            else:
                out.invalid_actions += 1
                text = action.content
            self.messages.append(self.codec.result(action, text, self.budget()))
        if accepted is not None:
            out.answer = accepted
            return True
        return False

    def record(self, *, trial: int, agent: str, model: str | None, latency_s: float) -> dict:
        """The episode's journal line."""
        return episode_record(instance_id=self.env.instance_id, trial=trial, level=self.env.level, agent=agent,
                              model=model, mode=self.env.mode.name, output=self.out, answers=self.answers,
                              trace=self.env.trace, latency_s=latency_s, traceback=self.traceback,
                              prompt_rows=self.env.prompt_rows)


def error_kind(error: str) -> str:
    """The kind of an episode's error: `harness_error`, or an infrastructure error's kind
    (`rate_limit`, `feedback_timeout`, ...)."""
    return error.split(":", 1)[0]


def is_harness_error(error: str | None) -> bool:
    return error is not None and error_kind(error) == HARNESS_ERROR


async def play(agent: Policy | Program, env: Environment, *, protocol: str = "native", max_steps: int = 30,
               max_turns: int = 1, feedback: Feedback | None = None, hidden: HiddenFacts | None = None) -> Episode:
    """Play one episode of a policy (or a program) on an open environment; the played episode."""
    policy: Policy = agent if is_policy(agent) else ProgramPolicy(agent)
    episode = Episode(env, policy, codec_for(protocol), max_steps=max_steps, max_turns=max_turns, feedback=feedback,
                      hidden=hidden)
    await episode.play()
    return episode


def harness_failure(error: BaseException) -> tuple[str, str]:
    """(the record's error, the traceback) of a failure of our own code."""
    detail = " ".join(str(error).split())[:500]
    text = f"{HARNESS_ERROR}: {type(error).__name__}" + (f": {detail}" if detail else "")
    return text, "".join(traceback.format_exception(error))


def failed_record(error: BaseException, *, instance_id: str, trial: int, level: int, agent: str, model: str | None,
                  mode: str, latency_s: float) -> dict[str, Any]:
    """The journal line of an episode that could not start (its environment or policy failed)."""
    out = AgentOutput(answer=None)
    out.error, trace_text = harness_failure(error)
    return episode_record(instance_id=instance_id, trial=trial, level=level, agent=agent, model=model, mode=mode,
                          output=out, answers=[turn_answer(out, level, 1)], trace=[], latency_s=latency_s,
                          traceback=trace_text)


def submitted_text(answer: ParsedAnswer) -> str:
    """What an agent reads back after a submission (an `error: ...` text when it is rejected)."""
    if not answer.parse_ok:
        return f"error: {answer.error}. Fix the arguments and call {SUBMIT_TOOL_NAME} again."
    n = len(answer.candidates)
    return f"Submitted {n} candidate{'s' if n != 1 else ''}."


def submit(env: Environment, arguments: str | dict | None, *, turn: int = 1) -> ParsedAnswer:
    """Parse a `submit_candidates` call and trace it like any tool call; the text read back is
    the trace's last result. Arguments that fail the JSON Schema give `parse_ok == False` and an
    `error: ...` text that asks for a fixed call."""
    started = time.perf_counter()
    answer = parse_submission({} if arguments is None else arguments, env.level)
    env.trace.append(ToolCall(turn=turn, step=len(env.trace) + 1, tool=SUBMIT_TOOL_NAME,
                              arguments=sent_text(arguments), result=submitted_text(answer),
                              latency_ms=(time.perf_counter() - started) * 1000,
                              error=None if answer.parse_ok else answer.error))
    return answer


# --- the journal record --------------------------------------------------------------------------

def final_raw(output: AgentOutput, level: int) -> str | None:
    """The raw text of the final answer: the submit_candidates arguments it came from, or the
    final text message."""
    answer = output.answer
    if answer is None:
        return None
    for message in reversed(output.transcript or []):
        if message.get("role") != "assistant":
            continue
        if answer.path == "text":
            if message.get("content") is not None and not message.get("tool_calls"):
                return message["content"]
            continue
        for call in reversed(message.get("tool_calls") or []):
            function = call.get("function") or {}
            if function.get("name") == SUBMIT_TOOL_NAME:
                raw = function.get("arguments")
                raw = raw if isinstance(raw, str) else json.dumps(raw)
                if parse_submission(raw, level) == answer:
                    return raw
    return None


def turn_answer(output: AgentOutput, level: int, turn: int, feedback: str | None = None) -> dict:
    """A turn's answer as the journal keeps it (taken when the turn ends: the raw text is found
    at the end of the transcript), with the feedback the harness gave on it."""
    answer = output.answer
    if answer is None:
        return {"turn": turn, "path": None, "raw": None, "parse_ok": False, "error": "no answer",
                "candidates": [], "note": None, "feedback": feedback}
    return {"turn": turn, "path": answer.path, "raw": final_raw(output, level), "parse_ok": answer.parse_ok,
            "error": answer.error,
            "candidates": [{"start": c.start, "room_id": c.room_id, "raw": c.raw, "problem": c.problem}
                           for c in answer.candidates], "note": answer.note, "feedback": feedback}


def episode_record(*, instance_id: str, trial: int, level: int, agent: str, model: str | None, mode: str,
                   output: AgentOutput, answers: list[dict], trace: list[ToolCall], latency_s: float,
                   traceback: str | None = None, prompt_rows: tuple[str, ...] = ()) -> dict[str, Any]:  # noqa: A002
    """One journal line: everything needed to score the episode again, or to replay it, with the
    raw rows each call returned and the prompt showed (`prompt_rows`: context mode's sources)."""
    calls = [{"turn": c.turn, "step": c.step, "tool": c.tool, "arguments": c.arguments,
              "result_chars": len(c.result or ""), "latency_ms": round(c.latency_ms, 3), "error": c.error,
              "via": c.via, "cell": c.cell, "source_rows": list(c.source_rows)}
             for c in trace]
    record = {"v": JOURNAL_VERSION, "instance_id": instance_id, "trial": trial, "level": level, "agent": agent,
              "model": model, "mode": mode, "turns": len(answers), "steps": output.steps,
              "prompt_tokens": output.prompt_tokens, "completion_tokens": output.completion_tokens,
              "invalid_actions": output.invalid_actions, "latency_s": round(latency_s, 4), "error": output.error,
              "model_limit": output.model_limit,
              "answers": answers, "tool_calls": calls, "prompt_rows": list(prompt_rows),
              "transcript": output.transcript}
    if traceback is not None:
        record["traceback"] = traceback
    return record
