"""The records an episode is made of: a tool as an agent sees it (`ToolSpec`), one traced call
(`ToolCall`), what an episode produced (`AgentOutput`) and why it ended (`EndReason`). The
environment is `episode.environment.Environment`; the loop that plays an episode is
`episode.engine`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..model_limits import CONTEXT_EXCEEDED, MODEL_OUTPUT_REJECTED
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


class EndReason(StrEnum):
    """Why an episode ended (the journal record's `end`). The episode is scored on its last
    turn's answer unless the reason is in `UNSCORED`; a new reason is one line here."""
    ANSWERED = "answered"               # the last turn's answer stands: right, or no turn left for feedback
    STEP_BUDGET = "step_budget"         # the steps ran out: the last submission attempt (or nothing) is the answer
    STOPPED = "stopped"                 # the outside driver closed it first (an agent that never submitted)
    CONTEXT_EXCEEDED = CONTEXT_EXCEEDED            # a model's limit (`model_limits`): the conversation outgrew
    MODEL_OUTPUT_REJECTED = MODEL_OUTPUT_REJECTED  # its context, or its server rejected its output; `end_detail`
    INFRASTRUCTURE = "infrastructure"   # the endpoint failed after its retries: `error` says how
    HARNESS_ERROR = "harness_error"     # our own code failed: `error` says how; the run fails

    @property
    def scored(self) -> bool:
        return self not in UNSCORED


UNSCORED = frozenset({EndReason.INFRASTRUCTURE, EndReason.HARNESS_ERROR})


@dataclass
class AgentOutput:
    answer: ParsedAnswer | None          # None: the agent never answered (parse failure); of the latest turn
    turns: int = 1
    steps: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None             # why the episode ended unscored: "rate_limit: ...", "harness_error: ..."
    error_kind: str | None = None        # its kind: `harness_error`, an endpoint's (`rate_limit`, `feedback_timeout`)
    end: EndReason | None = None         # None while the episode goes on
    end_detail: str | None = None        # an error's message; a model's limit: what the server said ("HTTP 400: ...")
    invalid_actions: int = 0             # MINT protocol: replies with neither <execute> nor <solution>
    transcript: list[dict] = field(default_factory=list)   # chat messages, for replay and reports
