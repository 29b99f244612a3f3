"""MINT's text protocol (`--protocol mint`): any chat model, no `tools` field.

    agent = MintAgent(ChatModel(client, options), max_steps=30, max_proposals=3)
    output = await agent.run(CodeEnvironment(ToolEnvironment(con, "L2-0007")))

The system prompt tells the model MINT's rules and lists the level's tool functions as "already
imported in the <execute> environment", with one example for the level: a real trajectory of the
scripted solver on an instance no evaluation holds (`mint_examples.json`, written by
harness/mint_examples.py). Each reply
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
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
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

EXAMPLES_PATH = Path(__file__).with_name("mint_examples.json")   # written by harness/mint_examples.py


@cache
def stored_examples() -> dict:
    """Each level's recorded trajectory (harness/mint_examples.py), keyed "level1".."level3"."""
    return json.loads(EXAMPLES_PATH.read_text())


def render_example(example: dict, steps: int, proposals: int) -> str:
    """A recorded trajectory as MINT's in-context example: its cells, their observations with the
    count-down lines of this run's budget (or of the example's own length, if that is longer)
    and its solution."""
    steps = max(steps, len(example["steps"]) + 1)
    lines = ["", "--- Example (a request from another world, solved by a reference solver; you will not be "
                 "asked it) ---", f"Task:\n{example['task']}"]
    for number, step in enumerate(example["steps"], start=1):
        lines += [f"Assistant: <thought> {step['thought']} </thought>",
                  f"<execute>\n{step['code']}\n</execute>",
                  f"Observation:\n{step['output']}", countdown(steps - number, proposals)]
    lines += ["Assistant: <thought> I test every 15-minute start of the window against what I read, in "
              "Python, and keep the earliest that pass. </thought>",
              f"The answer is <solution> {json.dumps(example['solution'])} </solution>", "--- End of example ---", ""]
    return "\n".join(lines)


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
    example = render_example(stored_examples()[f"level{level}"], steps, proposals)
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
