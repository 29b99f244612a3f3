"""A model behind any OpenAI-compatible chat-completions endpoint, as a policy of the episode
engine (`episode.engine`).

    client = ChatClient(EndpointConfig(model="gpt-4o-mini"))
    policy = ChatPolicy(client, AgentOptions(temperature=0.0))
    await Episode(env, policy, codec_for("native")).play()     # max_steps: DEFAULT_MAX_STEPS

Each reply is one request: the conversation so far, the codec's fields (the tools with
`submit_candidates` under the native protocol, MINT's stop words under `--protocol mint`) and
the sampling options. The engine does the rest: running the tool calls of a reply in order
(parallel tool calls included), the submission, the step budget and the feedback turns. An
endpoint that fails after the client's retries raises `InfrastructureError`, which ends the
episode as an infrastructure error.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..episode.engine import Reply, View
from ..llm import ChatClient

TOOL_CHOICES = ("auto", "required", "none")


@dataclass(frozen=True)
class AgentOptions:
    """The sampling options of each request (the step budget is the engine's)."""
    temperature: float | None = 0.0          # None: not sent
    seed: int | None = 0                     # None: not sent
    tool_choice: str = "auto"                # auto | required | none (native protocol)
    parallel_tool_calls: bool | None = None  # None: not sent (some servers reject the field)
    max_tokens: int | None = None            # None: not sent

    def __post_init__(self) -> None:
        if self.tool_choice not in TOOL_CHOICES:
            raise ValueError(f"tool_choice must be one of {', '.join(TOOL_CHOICES)}, not {self.tool_choice!r}")

    def request(self, messages: list[dict], fields: dict) -> dict:
        """The request of a reply: the conversation, the codec's fields and these options."""
        request: dict = {"messages": messages, **fields}
        if "tools" in fields:
            request["tool_choice"] = self.tool_choice
        for key, value in (("temperature", self.temperature), ("seed", self.seed), ("max_tokens", self.max_tokens)):
            if value is not None:
                request[key] = value
        if "tools" in fields and self.parallel_tool_calls is not None:
            request["parallel_tool_calls"] = self.parallel_tool_calls
        return request


class ChatPolicy:
    """The `openai` agent: one chat-completions request per reply (one client may serve many
    episodes)."""

    name = "openai"

    def __init__(self, client: ChatClient, options: AgentOptions | None = None):
        self.client = client
        self.options = options or AgentOptions()

    async def reply(self, view: View) -> Reply:
        result = await self.client.complete(self.options.request(view.messages, view.request))
        return Reply(result.message, result.usage.get("prompt_tokens", 0), result.usage.get("completion_tokens", 0))
