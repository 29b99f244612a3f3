"""Codecs: how an episode's conversation is written as chat messages, and how a reply is read.

    codec = codec_for("native")          # OpenAI tool calling: tools, submit_candidates
    codec = codec_for("mint")            # MINT's text protocol: <execute> and <solution>

A codec gives the opening messages (system prompt and task), the request fields besides the
messages (the tool list, or MINT's stop words), reads a reply into actions, and writes what the
engine says back (a tool result, an observation with MINT's count-down, feedback). The engine
(`episode.engine`) does the rest, the same for both.

Actions, in the order a reply makes them:

- `call`: a tool of the environment (native: any tool call but submit_candidates; MINT: the
  code of an `<execute>`, run by the `python` tool);
- `submit`: a `submit_candidates` call (native);
- `text`: a reply without a tool call, read as a plain-text answer (native);
- `solution`: MINT's `<solution>`, read by the same parser as a text answer;
- `invalid`: a MINT reply with neither tag (or an `<execute>` where no code runs): a fixed message.

MINT: the stop words `</execute>` and `</solution>` are sent, and since some servers ignore
them the reply is also cut at the first closing tag here; a tag left open (the stop word ate its
end) runs to the end of the reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, NamedTuple, Protocol

from .answers import SUBMIT_TOOL_NAME, submit_tool
from .code import PYTHON_TOOL
from .prompts import countdown, mint_system_prompt, system_prompt

if TYPE_CHECKING:
    from .environment import Environment

STOP = ["</execute>", "</solution>"]
INVALID_ACTION = ("I don't understand your input. \nIf you want to execute code, please use <execute> "
                  "YOUR_CODE_HERE </execute>.\nIf you want to give me an answer, please use <solution> "
                  "YOUR_SOLUTION_HERE </solution>.\nFor example: The answer to the question is <solution> 42 "
                  "</solution>. \n")
NO_CODE = ("There is no code execution here: everything is in the task. Give your answer with <solution> "
           "YOUR_SOLUTION_HERE </solution>.\n")
_OPEN = re.compile(r"<(execute|solution)>")
_CLOSE = re.compile(r"</(?:execute|solution)>")


class ActionKind(StrEnum):
    CALL = "call"
    SUBMIT = "submit"
    TEXT = "text"
    SOLUTION = "solution"
    INVALID = "invalid"


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    name: str = ""                      # call, submit: the tool
    arguments: str | dict | None = None  # call, submit: as the reply gave them
    content: str = ""                   # text, solution: the answer text; invalid: what the agent is told
    call_id: str = ""                   # native: the tool call's id


@dataclass(frozen=True)
class Budget:
    """What the count-down says: steps and proposals left."""
    steps_left: int
    proposals_left: int


class Codec(Protocol):
    protocol: str

    def opening(self, env: Environment, *, max_steps: int, max_proposals: int) -> list[dict]:
        """The system prompt and the task, as the conversation's first messages."""
        ...

    def request(self, env: Environment) -> dict:
        """The request's fields besides the messages (and the policy's own sampling options)."""
        ...

    def read(self, message: dict, env: Environment) -> tuple[dict, list[Action]]:
        """The reply as the conversation keeps it, and its actions."""
        ...

    def result(self, action: Action, text: str, budget: Budget) -> dict:
        """The message that answers one action (a call's text, a submission's receipt, an invalid
        action's fixed message)."""
        ...

    def feedback(self, text: str, budget: Budget) -> dict:
        """The message that gives the harness's feedback before the next turn."""
        ...

    def submission(self, arguments: str | dict) -> dict:
        """A reply that submits these candidates (how a program answers)."""
        ...

    def text_answer(self, text: str) -> dict:
        """A reply that answers in plain text (how a recorded text answer is replayed)."""
        ...


class NativeCodec:
    """OpenAI tool calling: the environment's tools plus submit_candidates (with maxItems = N at
    levels 1-2), tool results as tool messages."""
    protocol = "native"

    def __init__(self, privacy: bool = False):
        self.privacy = privacy   # the system prompt states the privacy norm (--privacy-instructions on)

    def opening(self, env: Environment, *, max_steps: int, max_proposals: int) -> list[dict]:
        return [{"role": "system", "content": system_prompt(env.level, mode=env.mode.name, privacy=self.privacy,
                                                            task=env.task)},
                {"role": "user", "content": env.prompt}]

    def request(self, env: Environment) -> dict:
        submit = [submit_tool(env.level, env.n_given)] if env.task == "propose" else []   # book: a text reply ends it
        return {"tools": [spec.openai() for spec in env.tools] + submit}

    def read(self, message: dict, env: Environment) -> tuple[dict, list[Action]]:
        calls = message.get("tool_calls") or []
        if not calls:
            return message, [Action(ActionKind.TEXT, content=message.get("content") or "")]
        actions = []
        for call in calls:
            function = call.get("function") or {}
            name = function.get("name") or ""
            actions.append(Action(ActionKind.SUBMIT if name == SUBMIT_TOOL_NAME else ActionKind.CALL, name,
                                  function.get("arguments") or "", call_id=call.get("id") or ""))
        return message, actions

    def result(self, action: Action, text: str, budget: Budget) -> dict:
        return {"role": "tool", "tool_call_id": action.call_id, "content": text}

    def feedback(self, text: str, budget: Budget) -> dict:
        return {"role": "user", "content": text}

    def submission(self, arguments: str | dict) -> dict:
        return tool_call_message(tool_call(SUBMIT_TOOL_NAME, arguments))

    def text_answer(self, text: str) -> dict:
        return {"role": "assistant", "content": text}


class MintCodec:
    """MINT's text protocol: no tools field; `<execute>` runs a cell of the `python` tool (code
    mode), `<solution>` answers; every message back ends with the count-down line."""
    protocol = "mint"

    def __init__(self, privacy: bool = False):
        self.privacy = privacy

    def opening(self, env: Environment, *, max_steps: int, max_proposals: int) -> list[dict]:
        prompt = mint_system_prompt(env.level, env.functions, code=_runs_code(env), steps=max_steps,
                                    proposals=max_proposals, privacy=self.privacy)
        return [{"role": "system", "content": prompt}, {"role": "user", "content": f"Task:\n{env.prompt}"}]

    def request(self, env: Environment) -> dict:
        return {"stop": list(STOP)}

    def read(self, message: dict, env: Environment) -> tuple[dict, list[Action]]:
        kind, content, reply = parse_action(message.get("content") or "")
        kept = {"role": "assistant", "content": reply}
        if kind == "solution":
            return kept, [Action(ActionKind.SOLUTION, content=content)]
        if kind == "execute" and _runs_code(env):
            return kept, [Action(ActionKind.CALL, PYTHON_TOOL, {"code": content})]
        return kept, [Action(ActionKind.INVALID, content=NO_CODE if kind == "execute" else INVALID_ACTION)]

    def result(self, action: Action, text: str, budget: Budget) -> dict:
        said = f"Observation:\n{text}" if action.kind == ActionKind.CALL else text
        return {"role": "user", "content": f"{said}\n{countdown(budget.steps_left, budget.proposals_left)}"}

    def feedback(self, text: str, budget: Budget) -> dict:
        return {"role": "user", "content": f"{text}\n{countdown(budget.steps_left, budget.proposals_left)}"}

    def submission(self, arguments: str | dict) -> dict:
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        return self.text_answer(raw)

    def text_answer(self, text: str) -> dict:
        return {"role": "assistant", "content": f"The answer is <solution> {text} </solution>"}


def tool_call(name: str, arguments: str | dict | None, call_id: str | None = None) -> dict:
    """One entry of an assistant message's `tool_calls` (OpenAI's shape), the arguments as JSON
    text (None: `{}`)."""
    raw = arguments if isinstance(arguments, str) else json.dumps({} if arguments is None else arguments,
                                                                   ensure_ascii=False)
    return {**({"id": call_id} if call_id is not None else {}), "type": "function",
            "function": {"name": name, "arguments": raw}}


def tool_call_message(*calls: dict) -> dict:
    """An assistant message that makes these tool calls (`tool_call` entries), in OpenAI's shape."""
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


CODECS: dict[str, type[NativeCodec] | type[MintCodec]] = {"native": NativeCodec, "mint": MintCodec}


def codec_for(protocol: str, privacy: bool = False) -> Codec:
    """The protocol's codec; `privacy`: its system prompt states the privacy norm."""
    return CODECS[protocol](privacy)


def _runs_code(env: Environment) -> bool:
    return any(spec.name == PYTHON_TOOL for spec in env.tools)


class ParsedAction(NamedTuple):
    kind: str         # execute | solution | invalid
    content: str
    reply: str        # the reply as kept: cut after the first closing tag


def parse_action(text: str) -> ParsedAction:
    """The action of a MINT reply: the tag that opens first, up to its
    closing tag, the other tag's opening or the end of the reply (the reply is first cut after
    the first closing tag)."""
    text = text or ""
    close = _CLOSE.search(text)
    reply = text[:close.end()] if close else text
    opened = _OPEN.search(reply)
    if opened is None:
        return ParsedAction("invalid", "", reply)
    rest = reply[opened.end():]
    end = re.search(rf"</{opened.group(1)}>|<(?:execute|solution)>", rest)
    return ParsedAction(opened.group(1), rest[:end.start()] if end else rest, reply)
