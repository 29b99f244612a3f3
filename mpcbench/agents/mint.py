"""MINT's text protocol (`--protocol mint`): any chat model, no `tools` field.

    agent = MintAgent(ChatModel(client, options), max_steps=30, max_proposals=3)
    output = await agent.run(CodeEnvironment(ToolEnvironment(con, "L2-0007")))

The system prompt tells the model MINT's rules and lists the level's tool functions as "already
imported in the <execute> environment", with one example trajectory for the level. Each reply
is one action, and every action uses a step (at most `max_steps` per episode):

- `<execute>code</execute>`: the code runs as a cell of the episode's sandbox (the `python`
  tool of code mode); the model reads "Observation:" and the cell's output;
- `<solution>JSON</solution>`: the answer of the turn, read by the same parser as a text answer
  (DESIGN §7); the harness scores it and, when turns remain, gives feedback: at most
  `max_proposals` (--max-turns) proposals per episode;
- anything else is an invalid action: a fixed message, counted in `invalid_actions`.

Every message back ends with MINT's count-down line ("You have N steps left and M chances to
propose solution left."). The stop words `</execute>` and `</solution>` are sent, and since some
servers ignore them the reply is also cut at the first closing tag here; a tag left open (the
stop word ate its end) runs to the end of the reply. With `--mode context` the protocol has only
`<solution>`: an `<execute>` is answered like an invalid action.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Protocol

from ..episode.answers import parse_text_answer
from ..episode.code import PYTHON_TOOL
from ..episode.contract import AgentOutput, Environment, ToolSpec
from ..llm import ChatClient, InfrastructureError
from .openai_agent import AgentOptions, system_prompt

STOP = ["</execute>", "</solution>"]
INVALID_ACTION = ("I don't understand your input. \nIf you want to execute code, please use <execute> "
                  "YOUR_CODE_HERE </execute>.\nIf you want to give me an answer, please use <solution> "
                  "YOUR_SOLUTION_HERE </solution>.\nFor example: The answer to the question is <solution> 42 "
                  "</solution>. \n")
NO_CODE = ("There is no code execution here: everything is in the task. Give your answer with <solution> "
           "YOUR_SOLUTION_HERE </solution>.\n")
_OPEN = re.compile(r"<(execute|solution)>")
_CLOSE = re.compile(r"</(?:execute|solution)>")

_INTRO = """\
You are a helpful assistant assigned with the task of problem-solving. To achieve this, you will be using \
an interactive coding environment equipped with a variety of tool functions to assist you throughout the process.

At each turn, you should first provide your step-by-step thinking for solving the task. Your thought \
process should be enclosed using "<thought>" tag, for example: <thought> I need to print "Hello World!" </thought>.

After that, you have two options:

1) Interact with a Python programming environment and receive the corresponding output. Your code should \
be enclosed using "<execute>" tag, for example: <execute> print("Hello World!") </execute>.
2) Directly provide a solution that adheres to the required format for the given task. Your solution should \
be enclosed using "<solution>" tag, for example: The answer is <solution> A </solution>.

You have {steps} chances to interact with the environment or propose a solution. You can only propose a \
solution {proposals} times.

Tool function available (already imported in <execute> environment):
{tools}
"""

_INTRO_CONTEXT = """\
You are a helpful assistant assigned with the task of problem-solving. Think step by step inside \
"<thought>" tags, then give your solution enclosed in "<solution>" tags, for example: The answer is \
<solution> A </solution>. You have {steps} chances to propose a solution or think aloud. You can only \
propose a solution {proposals} times.
"""

_EXAMPLE = """
--- Example (another request; its ids and outputs are illustrative) ---
Task: Find the {n} earliest 30-minute slots for Ana Lima (emp-003) and Bo Chen (emp-011) between \
2026-03-02 and 2026-03-03 that follow policy POL-STD{more}.
Assistant: <thought> I need the current time, the policy{reads} and both calendars. </thought>
<execute>
import json
print(get_current_time())
for p in ("emp-003", "emp-011"):
    print({calendar}(person_id=p, start_date="2026-03-01", end_date="2026-03-04"))
</execute>
Observation:
{{"now": "2026-02-27T10:00"}}
{observed}
You have {left} steps left and 2 chances to propose solution left.
Assistant: <thought> I check every 15-minute start against the calendars and the rules, in Python. </thought>
<execute>
# ... parse the outputs, test each start of the window, keep the first {n} ...
print(found)
</execute>
Observation:
{answer}
You have {left2} steps left and 2 chances to propose solution left.
Assistant: The answer is <solution> {{"candidates": {answer}}} </solution>
--- End of example ---
"""


# the example's calendar output: blocking intervals at level 1; every event with its status above
_BUSY = """\
{"person_id": "emp-003", "busy": [{"start": "2026-03-02T09:00", "end": "2026-03-02T10:00"}]}
{"person_id": "emp-011", "busy": []}"""
_EVENTS = """\
{"person_id": "emp-003", "total": 2, "events": [{"event_id": "ev-1", "title": "Planning", "start": \
"2026-03-02T09:00", "end": "2026-03-02T10:00", "status": "confirmed"}, {"event_id": "ev-2", "title": "1:1", \
"start": "2026-03-02T11:00", "end": "2026-03-02T11:30", "status": "cancelled"}], "remaining": 0, "next_cursor": null}
{"person_id": "emp-011", "total": 0, "events": [], "remaining": 0, "next_cursor": null}"""


def countdown(steps_left: int, proposals_left: int) -> str:
    return f"You have {steps_left} steps left and {proposals_left} chances to propose solution left."


def tool_listing(specs: list[ToolSpec]) -> str:
    """Each tool function as a signature line and its description."""
    lines = []
    for spec in specs:
        properties = spec.parameters.get("properties") or {}
        required = set(spec.parameters.get("required") or ())
        params = ", ".join(name if name in required else f"{name}=None" for name in properties)
        lines.append(f"{spec.name}({params}) -> str\n    {spec.description}")
    return "\n".join(lines)


def mint_system_prompt(level: int, functions: list[ToolSpec], *, code: bool, steps: int, proposals: int) -> str:
    """MINT's instructions, the tool functions, the scheduling rules and the level's example."""
    if not code:
        return _INTRO_CONTEXT.format(steps=steps, proposals=proposals) + "\n" + system_prompt(level)
    room = ', "room_id": "R-101"' if level == 3 else ""
    answer = f'[{{"start": "2026-03-02T10:00"{room}}}, {{"start": "2026-03-02T10:15"{room}}}]'
    example = _EXAMPLE.format(n=2, left=steps - 1, left2=steps - 2, answer=answer,
                              calendar="get_busy_intervals" if level == 1 else "list_events",
                              observed=_BUSY if level == 1 else _EVENTS,
                              more=" (the project's threads may add constraints)" if level >= 2 else "",
                              reads=", the project's threads" if level >= 2 else "")
    rules = system_prompt(level).replace("through the tools you have, and you give your answer by calling "
                                         "submit_candidates", "through the tool functions")
    return (_INTRO.format(steps=steps, proposals=proposals, tools=tool_listing(functions)) + "\n" + rules
            + '\nIn this protocol, answer with <solution> {"candidates": [...]} </solution> instead of '
              "calling submit_candidates.\n" + example)


@dataclass(frozen=True)
class Action:
    kind: str         # execute | solution | invalid
    content: str
    reply: str        # the reply as kept: cut after the first closing tag


def parse_action(text: str) -> Action:
    """The action of a reply: the tag that opens first, up to its closing tag, the other tag's
    opening or the end of the reply (the reply is first cut after the first closing tag)."""
    text = text or ""
    close = _CLOSE.search(text)
    reply = text[:close.end()] if close else text
    opened = _OPEN.search(reply)
    if opened is None:
        return Action("invalid", "", reply)
    rest = reply[opened.end():]
    end = re.search(rf"</{opened.group(1)}>|<(?:execute|solution)>", rest)
    return Action(opened.group(1), rest[:end.start()] if end else rest, reply)


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Model(Protocol):
    async def reply(self, env: Environment, messages: list[dict]) -> Reply:
        """The model's next message; InfrastructureError if the endpoint fails."""
        ...


class ChatModel:
    """A chat-completions endpoint speaking the protocol: no tools field, MINT's stop words."""

    def __init__(self, client: ChatClient, options: AgentOptions):
        self.client, self.options = client, options

    async def reply(self, env: Environment, messages: list[dict]) -> Reply:
        o = self.options
        request: dict = {"messages": messages, "stop": STOP}
        for key, value in (("temperature", o.temperature), ("seed", o.seed), ("max_tokens", o.max_tokens)):
            if value is not None:
                request[key] = value
        result = await self.client.complete(request)
        return Reply(result.message.get("content") or "", result.usage.get("prompt_tokens", 0),
                     result.usage.get("completion_tokens", 0))


class MintAgent:
    """Implements episode.contract.Agent over a Model speaking MINT's protocol."""

    name = "mint"

    def __init__(self, model: Model, *, max_steps: int = 30, max_proposals: int = 1):
        self.model, self.max_steps, self.max_proposals = model, max_steps, max_proposals
        self.proposals = 0

    def _code(self, env: Environment) -> bool:
        return any(spec.name == PYTHON_TOOL for spec in env.tools)

    def _countdown(self) -> str:
        return countdown(self.max_steps - self.out.steps, self.max_proposals - self.proposals)

    async def run(self, env: Environment) -> AgentOutput:
        code = self._code(env)
        functions = getattr(env, "functions", [])
        messages = [{"role": "system", "content": mint_system_prompt(env.level, functions, code=code,
                                                                     steps=self.max_steps,
                                                                     proposals=self.max_proposals)},
                    {"role": "user", "content": f"Task:\n{env.prompt}"}]
        self.out = AgentOutput(answer=None, turns=1, transcript=messages)
        await self.turn(env, code, turn=1)
        return self.out

    async def follow_up(self, env: Environment, feedback: str, turn: int) -> AgentOutput:
        self.out.transcript.append({"role": "user", "content": f"{feedback}\n{self._countdown()}"})
        self.out.answer, self.out.turns = None, turn
        await self.turn(env, self._code(env), turn=turn)
        return self.out

    async def turn(self, env: Environment, code: bool, *, turn: int) -> None:
        """Actions until a solution, the step limit or an infrastructure error; fills self.out."""
        out, messages = self.out, self.out.transcript
        while out.steps < self.max_steps:
            try:
                reply = await self.model.reply(env, messages)
            except InfrastructureError as e:
                out.error = f"{e.kind}: {e.message}"
                return
            out.steps += 1
            out.prompt_tokens += reply.prompt_tokens
            out.completion_tokens += reply.completion_tokens
            action = parse_action(reply.text)
            messages.append({"role": "assistant", "content": action.reply})
            if action.kind == "solution":
                self.proposals += 1
                out.answer = parse_text_answer(action.content, env.level)
                return
            if action.kind == "execute" and code:
                output = await asyncio.to_thread(env.call, PYTHON_TOOL, {"code": action.content}, turn=turn)
                said = f"Observation:\n{output}"
            else:
                out.invalid_actions += 1
                said = NO_CODE if action.kind == "execute" else INVALID_ACTION
            messages.append({"role": "user", "content": f"{said}\n{self._countdown()}"})
