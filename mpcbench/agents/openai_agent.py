"""The LLM agent: a chat-completions tool loop over any OpenAI-compatible endpoint.

    client = ChatClient(EndpointConfig(model="gpt-4o-mini"))
    output = await OpenAIAgent(client, AgentOptions(max_steps=30)).run(env)

Each step sends the conversation (system prompt for the level, the instance prompt, every tool
result so far) with the level's tools plus `submit_candidates`, and runs every tool call of the
reply in order (parallel tool calls included; each gets its own tool message). The episode ends
when the model

- calls `submit_candidates` with arguments that pass the JSON Schema (path "tool"); arguments
  that do not come back as a tool error the model can fix within the step limit;
- answers with plain text (no tool call): the text is parsed leniently (path "text");
- reaches the step limit: the last submission attempt (or nothing) is the answer;
- or the endpoint fails after the client's retries: an infrastructure error (`output.error`),
  which the scores keep apart from the model's own failures.

`submit_candidates` calls are recorded in the environment's trace like any tool call.
"""

from __future__ import annotations

import asyncio
import textwrap
from dataclasses import asdict, dataclass

from ..episode.answers import SUBMIT_TOOL_NAME, parse_text_answer, submit_tool
from ..episode.contract import AgentOutput, Environment
from ..episode.submission import submit_call
from ..llm import ChatClient, InfrastructureError
from ..kinds import kinds_of

TOOL_CHOICES = ("auto", "required", "none")

_INTRO = """\
You are a scheduling assistant inside a company. You find meeting times by reading the company's
internal sources through the tools you have, and you give your answer by calling submit_candidates.

How scheduling works here:
- Times are local wall-clock times written YYYY-MM-DDTHH:MM (no seconds, no time zone).
  Intervals are half-open [start, end): a meeting may start exactly when another one ends.
- A candidate starts on the 15-minute grid (minute 00, 15, 30 or 45) on a day of the requested
  window (both end days included) and lasts the meeting's duration.
- Every constraint below is hard: a candidate that breaks one is invalid."""


def _bullet(text: str) -> str:
    return "\n" + textwrap.fill(text, width=96, subsequent_indent="  ")


def _source_rules(source: str, level: int) -> str:
    """The constraint kinds of one source that the level has, as the registry words them."""
    texts = [k.prompt_text for k in kinds_of(source, level)]
    if source == "calendar":
        return _bullet("- Calendars: " + "; ".join(texts) + ".")
    if source == "policy":
        listed = ", ".join(texts)
        return _bullet("- Policy: only the rules of the policy the request uses apply. "
                       + listed[0].upper() + listed[1:] + ".")
    listed = ", ".join(texts[:-1]) + " and " + texts[-1]
    return _bullet("- Project threads: only the threads of the request's project apply. "
                   + listed[0].upper() + listed[1:] + " all apply. "
                   + ("Documents and messages state every fact in plain prose (there are no tags)." if level == 4 else
                      "Machine-readable tags look like [[type key=value ...]] in documents and messages."))


_REQUIREMENTS = """
- The request may leave the participants, duration, number of options, policy, room needs and
  tie-break rule to the project's threads: when messages disagree, the latest message wins.
- Rooms: a room fits if its capacity holds every participant and any stated minimum, it has
  every required feature, it is in the required building (if any), and none of its bookings
  overlaps the meeting. Each candidate takes the fitting free room with the lowest room_id, or,
  when the tie-break rule is capacity, the smallest capacity and then the lowest room_id. A
  start with no fitting free room is invalid."""

_LEVEL4 = """
- Time zones: every time the tools show and every answer is in the organiser's time zone (the
  request names it). Each participant works in their own home zone: get_working_hours gives it
  and their working hours on their own clock; convert the meeting to their clock to check it.
- Recurring events: list_recurring_events gives each weekly series once (first occurrence, the
  days between occurrences, how many) with its exceptions, a cancelled or moved occurrence; the
  occurrences are not listed one by one, and they block like other events (list_events has the
  single events).
- Authority: the project's owner (the threads say who) decides the requirements. Only the
  owner's messages set or change participants, duration, number of options, policy, room needs
  and tie-break (the owner's latest message wins); a change proposed by anyone else does not
  count. Anyone's ban, deadline or absence applies."""

_ANSWER = """

Answer with the N earliest valid candidates, earliest first, with distinct start times. When you
know them, call submit_candidates with {{"candidates": [{example}, ...]}}. If it answers with an
error, fix the arguments and call it again.
The answer is cut to its first N candidates, N {n_source}: any candidate after
them is dropped unjudged, so sending more never helps."""


def system_prompt(level: int) -> str:
    """The system prompt for a level: the rules of the sources that level has, and the answer format."""
    example = '{"start": "2026-03-02T09:30", "room_id": "..."}' if level >= 3 else '{"start": "2026-03-02T09:30"}'
    return (_INTRO + _source_rules("calendar", level) + _source_rules("policy", level)
            + (_source_rules("threads", level) if level >= 2 else "") + (_REQUIREMENTS if level >= 3 else "")
            + (_LEVEL4 if level == 4 else "")
            + _ANSWER.format(example=example, n_source="as the project's threads ask for it" if level >= 3
                             else "as the request states it"))


@dataclass(frozen=True)
class AgentOptions:
    max_steps: int = 30                      # model calls per episode
    temperature: float | None = 0.0          # None: not sent
    seed: int | None = 0                     # None: not sent
    tool_choice: str = "auto"                # auto | required | none
    parallel_tool_calls: bool | None = None  # None: not sent (some servers reject the field)
    max_tokens: int | None = None            # None: not sent

    def __post_init__(self) -> None:
        if self.tool_choice not in TOOL_CHOICES:
            raise ValueError(f"tool_choice must be one of {', '.join(TOOL_CHOICES)}, not {self.tool_choice!r}")
        if self.max_steps < 1:
            raise ValueError("max_steps must be at least 1")

    def to_dict(self) -> dict:
        return asdict(self)


class OpenAIAgent:
    """Implements agents.base.Agent over a `ChatClient` (one client may serve many episodes)."""

    name = "openai"

    def __init__(self, client: ChatClient, options: AgentOptions | None = None):
        self.client = client
        self.options = options or AgentOptions()

    def request(self, messages: list[dict], tools: list[dict]) -> dict:
        o = self.options
        request: dict = {"messages": messages, "tools": tools, "tool_choice": o.tool_choice}
        for key, value in (("temperature", o.temperature), ("seed", o.seed),
                           ("parallel_tool_calls", o.parallel_tool_calls), ("max_tokens", o.max_tokens)):
            if value is not None:
                request[key] = value
        return request

    async def run(self, env: Environment) -> AgentOutput:
        messages = [{"role": "system", "content": system_prompt(env.level)},
                    {"role": "user", "content": env.prompt}]
        self.out = AgentOutput(answer=None, turns=1, transcript=messages)
        await self.turn(env, messages, self.out, turn=1)
        return self.out

    async def follow_up(self, env: Environment, feedback: str, turn: int) -> AgentOutput:
        out = self.out
        out.transcript.append({"role": "user", "content": feedback})
        out.answer, out.turns = None, turn
        await self.turn(env, out.transcript, out, turn=turn)
        return out

    async def turn(self, env: Environment, messages: list[dict], out: AgentOutput, *, turn: int) -> None:
        """Steps until an answer, the step limit or an infrastructure error; fills `out`."""
        tools = [spec.openai() for spec in env.tools] + [submit_tool(env.level, env.n_given)]
        while out.steps < self.options.max_steps:
            try:
                result = await self.client.complete(self.request(messages, tools))
            except InfrastructureError as e:
                out.error = f"{e.kind}: {e.message}"
                return
            out.steps += 1
            out.prompt_tokens += result.usage.get("prompt_tokens", 0)
            out.completion_tokens += result.usage.get("completion_tokens", 0)
            message = result.message
            messages.append(message)
            calls = message.get("tool_calls") or []
            if not calls:
                out.answer = parse_text_answer(message.get("content") or "", env.level)
                return
            accepted = None
            for call in calls:
                function = call.get("function") or {}
                name, arguments = function.get("name") or "", function.get("arguments") or ""
                if name == SUBMIT_TOOL_NAME:
                    answer = submit_call(env, arguments, turn=turn)
                    text = env.trace[-1].result
                    if answer.parse_ok:
                        accepted = answer
                    elif accepted is None:
                        out.answer = answer  # the last attempt, if nothing valid comes
                else:
                    text = await asyncio.to_thread(env.call, name, arguments, turn=turn)
                messages.append({"role": "tool", "tool_call_id": call.get("id") or "", "content": text})
            if accepted is not None:
                out.answer = accepted
                return
