"""The agent interface every agent implements (scripted, baselines, replay, the LLM agent).

An episode is one instance: the agent gets an `Environment` (the prompt, the level's tool
specs, and `call` to run a tool) and returns an `AgentOutput` whose answer is what it
submitted with `submit_candidates` (or wrote as text). Episodes are independent; an
environment is used by one episode only, so episodes can run concurrently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from .answers import ParsedAnswer


@dataclass(frozen=True)
class ToolSpec:
    """A tool as an agent sees it: a name, a description and a JSON Schema for its arguments."""
    name: str
    description: str
    parameters: dict

    def openai(self) -> dict:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description,
                             "parameters": self.parameters}}


@dataclass(frozen=True)
class ToolCall:
    """One tool call of an episode, as stored in tool_calls.parquet."""
    turn: int
    step: int
    tool: str
    arguments: str          # the JSON text the agent sent
    result: str             # exactly the text the agent read back
    latency_ms: float
    error: str | None       # short error text when the call failed (bad arguments, unknown tool)
    via: str = "native"     # native: the agent called it; code: a python cell called it (code mode)
    cell: int | None = None  # code mode: the cell that ran it (the python call's own number)


@dataclass
class AgentOutput:
    answer: ParsedAnswer | None          # None: the agent never answered (parse failure); of the latest turn
    turns: int = 1
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None             # an infrastructure error ("rate_limit: ..."), not a model failure
    invalid_actions: int = 0             # MINT protocol: replies with neither <execute> nor <solution>
    transcript: list[dict] = field(default_factory=list)   # chat messages, for replay and reports


class Environment(Protocol):
    instance_id: str
    level: int
    n_given: int | None                  # N, the answer's length, where the prompt states it (levels 1-2)
    prompt: str                          # what the agent is told (in context mode: with every source)
    request: str                         # the instance prompt alone
    tools: list[ToolSpec]                # the level's catalog (submit_candidates not included)
    trace: list[ToolCall]

    def call(self, name: str, arguments: str | dict, *, turn: int = 1) -> str:
        """Run a tool and return the text the agent reads. Never raises for bad input: an
        unknown tool or bad arguments give a short error text (also recorded in the trace)."""
        ...


class Agent(Protocol):
    """One agent object serves one episode. `run` plays the first turn; when the harness gives
    feedback on an answer (multi-turn, MINT-style), `follow_up` plays the next turn with the
    conversation so far and returns the same, updated output: `answer` is that turn's answer."""
    name: str

    async def run(self, env: Environment) -> AgentOutput:
        ...

    async def follow_up(self, env: Environment, feedback: str, turn: int) -> AgentOutput:
        ...
