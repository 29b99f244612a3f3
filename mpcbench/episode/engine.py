"""The episode engine: one episode, played the one way every agent path plays it.

    env = Environment(con, "L2-0007", CodeMode())
    episode = Episode(env, ChatPolicy(client, options), codec_for("mint"), max_turns=3, feedback=giver)
    await episode.play()                 # never raises for what goes wrong inside the episode
    record = episode.record(trial=1, agent="openai", model="gpt-4o-mini", latency_s=12.3)

    step = await episode.step(Reply(message))   # or a reply at a time, from outside (MCP, training)
    step.messages, step.done                    # what the episode answered; whether it is over
    episode.finish()                            # the driver stops: the episode ends here

`mpcbench eval` (harness/runner.py), the Inspect solver, the MCP session, the training
environments and the scripted references all go through here, so an instance gets the same
system prompt, the same tools and the same `submit_candidates` schema on every path, the same
step budget, and the same conversation gives the same journal record.

Who does what:

- a **policy** gives the next reply, given the conversation so far (`Policy.reply(View)`): a
  model behind an endpoint (`agents.openai_agent.ChatPolicy`), Inspect's model, a scripted
  model of MINT's protocol, or a program (`ProgramPolicy`: an offline agent that reads the sources
  through `env.call` and then submits);
- a **codec** (`episode.codecs`) writes the conversation as messages and reads a reply into
  actions: OpenAI tool calling, or MINT's `<execute>`/`<solution>` text;
- the **engine** runs the actions (tool calls through the environment, submissions through
  `submit`), keeps the step budget (at most `max_steps` replies, all turns together;
  `DEFAULT_MAX_STEPS` unless the caller says otherwise), ends a
  turn at an answer, gives feedback between turns (at most `max_turns` answers), and writes the
  journal record (`episode.record`). `Episode.step` is all of that for one reply; `play` asks the
  policy for replies and steps until the episode is over.

How an episode ends (`contract.EndReason`, the record's `end`), and what it is counted as:

- `answered`: a valid `submit_candidates` call (one that fails the JSON Schema comes back as an
  error the model can fix, and is the answer only if nothing valid follows), a plain-text reply
  (native) or a `<solution>` (MINT), parsed leniently; right, or no turn (or no step) is left
  for feedback;
- `step_budget`: the steps ran out; the last submission attempt (or nothing) is the answer;
- `stopped`: a driver from outside finished it first; the same answer as `step_budget`;
- `context_exceeded`, `model_output_rejected`: a limit of the model (`errors.ModelLimitError`:
  the conversation outgrew its context, or its server could not parse its output); scored like
  `step_budget`, and `end_detail` keeps what the server said (`model_limits`);
- `infrastructure`, `error = "<kind>: ..."`: the endpoint failed after its retries
  (`errors.InfrastructureError`; `feedback_<kind>` when the feedback model's endpoint failed);
- `harness_error`, `error = "harness_error: ..."`: our own code failed (a tool's query, a
  program, a bug). The traceback is kept in the record; the run fails (harness/runner.py).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..errors import InfrastructureError, ModelLimitError
from .answers import SUBMIT_TOOL_NAME, ParsedAnswer, parse_submission, parse_text_answer
from .booking import FINISH_TOOL
from .codecs import Action, ActionKind, Budget, Codec, codec_for
from .contract import AgentOutput, EndReason, ToolCall
from .environment import Environment, sent_text
from .record import HARNESS_ERROR, end_output, episode_record, harness_failure, turn_answer
from .tools import HiddenFacts

if TYPE_CHECKING:
    from typing_extensions import TypeIs  # typing.TypeIs is Python 3.13+; only annotations use it

# The step budget of every surface (eval's --max-steps, `mpcbench mcp`, `mpcbench serve-env`, the
# verifiers taskset, the Inspect task, the rollout pool): model replies per episode. A model that
# makes one tool call a reply needs a reply per tool call the scripted reference makes (at most
# 51-53 at level 4 of the default build) and one for its submission; the budget is at least 1.5x
# the reference's largest count at every level (docs/evaluating.md, "The step budget", has the
# counts; tests/test_offline_agents.py checks the margin).
DEFAULT_MAX_STEPS = 80


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
        # booking: the program wrote through env.call; a text reply ends the episode
        message = view.codec.submission(arguments) if view.env.task == "propose" else view.codec.text_answer("Done.")
        return Reply(message, steps=len(view.env.trace) - before, final=True)


def is_policy(agent: Policy | Program) -> TypeIs[Policy]:
    """A policy replies; a program (no `reply`) computes a submission."""
    return hasattr(agent, "reply")


class Feedback(Protocol):
    async def give(self, instance_id: str, level: int, answer: ParsedAnswer | None, *, turn: int,
                   max_turns: int) -> str | None:
        """The feedback on a turn's answer, or None: it is right, or no turn is left."""
        ...


@dataclass
class Step:
    """What one reply did: the messages the episode answered it with (a tool result per call,
    MINT's observation, the feedback that opens the next turn) and whether the episode is over."""
    messages: list[dict]
    done: bool


class Episode:
    """One episode over an open environment (the caller closes it). `play()` asks the policy for
    each reply; a driver whose replies arrive from outside (MCP, the training environments) gives
    them to `step()` itself and calls `finish()` when it stops before the episode is over."""

    def __init__(self, env: Environment, policy: Policy, codec: Codec, *, max_steps: int = DEFAULT_MAX_STEPS,
                 max_turns: int = 1, feedback: Feedback | None = None, hidden: HiddenFacts | None = None):
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

    @property
    def turn(self) -> int:
        return self.out.turns

    @property
    def done(self) -> bool:
        return self.out.end is not None

    @property
    def steps_left(self) -> int:
        return max(self.max_steps - self.out.steps, 0)

    def budget(self) -> Budget:
        return Budget(self.max_steps - self.out.steps, self.max_turns - self.proposals)

    def view(self) -> View:
        """What the policy is given for the next reply."""
        return View(self.messages, self.codec.request(self.env), self.env, self.codec, self.turn, self.said,
                    self.hidden)

    async def play(self) -> AgentOutput:
        """Ask the policy for replies and step through them until the episode is over. Whatever
        goes wrong ends up in `out.error`, never as an exception."""
        while not self.done:
            try:
                reply = await self.policy.reply(self.view())
            except InfrastructureError as e:
                self.end(EndReason.INFRASTRUCTURE, e.kind, e.message)
            except ModelLimitError as e:  # the model's failure: scored on the answer it had; its call is a step
                self.out.steps += 1
                self.out.end_detail = e.message
                self.end(EndReason(e.cause))
            except Exception as e:  # noqa: BLE001 - our own code (the policy's) failed: the episode ends, as ours
                self.fail(e)
            else:
                await self.step(reply)
        return self.out

    async def step(self, reply: Reply) -> Step:
        """Advance the episode by one reply: read it, count its steps and tokens, run its actions,
        and end the turn at an answer (feedback, then the next turn or the end) or the episode when
        the step budget is spent. Never raises for what goes wrong inside the episode; a reply
        after the end is a RuntimeError."""
        if self.done:
            raise RuntimeError(f"the episode of {self.env.instance_id} is over ({self.out.end})")
        out, start = self.out, len(self.messages) + 1   # what follows the reply as kept
        try:
            out.steps += reply.steps
            out.prompt_tokens += reply.prompt_tokens
            out.completion_tokens += reply.completion_tokens
            kept, actions = self.codec.read(reply.message, self.env)
            self.messages.append(kept)
            if await self.act(actions) or reply.final:
                await self.end_turn()
            elif out.steps >= self.max_steps:
                self.end(EndReason.STEP_BUDGET)
        except InfrastructureError as e:  # the feedback model's endpoint
            self.end(EndReason.INFRASTRUCTURE, f"feedback_{e.kind}", e.message)
        except ModelLimitError as e:  # the feedback model's limit: not the evaluated model's
            self.end(EndReason.INFRASTRUCTURE, f"feedback_{e.cause}", e.message)
        except Exception as e:  # noqa: BLE001 - whatever our own code raised ends this episode, as ours
            self.fail(e)
        return Step(self.messages[start:], self.done)

    async def end_turn(self) -> None:
        """The turn has its answer: feedback on it while turns and steps remain (then the next turn
        opens with it), else the episode ends."""
        out, turn = self.out, self.turn
        said = None
        if self.env.task == "book":
            out.answer = self.env.booked()
        if self.feedback is not None and out.steps < self.max_steps:
            said = await self.feedback.give(self.env.instance_id, self.env.level, out.answer, turn=turn,
                                            max_turns=self.max_turns)
        self.answers.append(turn_answer(out, self.env.level, turn, said))
        if said is None:
            self.end(EndReason.ANSWERED)
            return
        self.messages.append(self.codec.feedback(said, self.budget()))
        out.answer, out.turns, self.said = None, turn + 1, said

    def end(self, reason: EndReason, kind: str | None = None, message: str | None = None) -> None:
        """End the episode for `reason` (an error's `kind` and `message` make `out.error`); the
        current turn's answer, if the turn did not end with one, is the journal's last."""
        end_output(self.out, reason, kind, message)
        if self.env.task == "book":   # the answer is what the episode booked, however it ended
            self.out.answer = self.env.booked()
        if len(self.answers) < self.turn:
            self.answers.append(turn_answer(self.out, self.env.level, self.turn))

    def finish(self) -> AgentOutput:
        """Close the episode out: one that is not over yet ends here (`stopped`: the driver
        stopped before an answer; what it submitted so far is the answer)."""
        if not self.done:
            self.end(EndReason.STOPPED)
        return self.out

    def fail(self, error: BaseException) -> None:
        """End the episode with a harness error (our code failed), keeping the traceback."""
        message, self.traceback = harness_failure(error)
        self.end(EndReason.HARNESS_ERROR, HARNESS_ERROR, message)

    async def act(self, actions: list[Action]) -> bool:
        """Run a reply's actions in order; True when they answered the turn."""
        out, turn = self.out, self.turn
        accepted = None
        for action in actions:
            if action.kind in (ActionKind.TEXT, ActionKind.SOLUTION):
                self.proposals += action.kind == ActionKind.SOLUTION
                out.answer = parse_text_answer(action.content, self.env.level)
                return True
            if action.kind == ActionKind.SUBMIT and self.env.task == "book":
                text = self.env.refuse(action.name, action.arguments, f"there is no {SUBMIT_TOOL_NAME} when booking: "
                                       "book with the write tools, then reply in plain text", turn=turn)
            elif action.kind == ActionKind.SUBMIT:
                answer = submit(self.env, action.arguments, turn=turn)
                text = self.env.trace[-1].result
                if answer.parse_ok:
                    accepted = answer
                elif accepted is None:
                    out.answer = answer  # the last attempt, if nothing valid comes
            elif action.kind == ActionKind.CALL:
                text = await asyncio.to_thread(self.env.call, action.name, action.arguments, turn=turn)
                if self.env.task == "book" and action.name == FINISH_TOOL and self.env.trace[-1].error is None:
                    self.messages.append(self.codec.result(action, text, self.budget()))
                    return True   # the booking episode's answer: the state it left
            else:
                out.invalid_actions += 1
                text = action.content
            self.messages.append(self.codec.result(action, text, self.budget()))
        if accepted is not None:
            out.answer = accepted
            return True
        return False

    def record(self, *, trial: int, agent: str, model: str | None, latency_s: float) -> dict:
        """The episode's journal line (of a finished episode: `finish()` first when unsure)."""
        self.finish()
        return episode_record(instance_id=self.env.instance_id, trial=trial, level=self.env.level, agent=agent,
                              model=model, mode=self.env.mode.name, output=self.out, answers=self.answers,
                              trace=self.env.trace, latency_s=latency_s, traceback=self.traceback,
                              prompt_rows=self.env.prompt_rows, task=self.env.task,
                              writes=self.env.writes.final if self.env.writes else None)


async def play(agent: Policy | Program, env: Environment, *, protocol: str = "native",
               max_steps: int = DEFAULT_MAX_STEPS, max_turns: int = 1, feedback: Feedback | None = None,
               hidden: HiddenFacts | None = None) -> Episode:
    """Play one episode of a policy (or a program) on an open environment; the played episode."""
    policy: Policy = agent if is_policy(agent) else ProgramPolicy(agent)
    episode = Episode(env, policy, codec_for(protocol), max_steps=max_steps, max_turns=max_turns, feedback=feedback,
                      hidden=hidden)
    await episode.play()
    return episode


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
