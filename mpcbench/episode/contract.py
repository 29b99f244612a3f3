"""The records an episode is made of: a tool as an agent sees it (`ToolSpec`), one traced call
(`ToolCall`) and what an episode produced (`AgentOutput`). The environment is
`episode.environment.Environment`; the loop that plays an episode is `episode.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    source_rows: tuple[str, ...] = ()  # the raw rows (`<table>:<key>`) of what a data tool returned


@dataclass
class AgentOutput:
    answer: ParsedAnswer | None          # None: the agent never answered (parse failure); of the latest turn
    turns: int = 1
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None             # why the episode ended unscored: "rate_limit: ...", "harness_error: ..."
    model_limit: str | None = None       # the model's limit that ended it, scored: "context_exceeded: HTTP 400 ..."
    invalid_actions: int = 0             # MINT protocol: replies with neither <execute> nor <solution>
    transcript: list[dict] = field(default_factory=list)   # chat messages, for replay and reports
