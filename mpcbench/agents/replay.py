"""Replay of a recorded run, offline (`mpcbench eval --agent replay --from RUN`).

Two ways, chosen by what the recorded run was:

- a run of the `openai` agent is re-run with the same agent options against the run's response
  cache (`llm_cache.jsonl`, keyed by request hash) in replay-only mode: every request must be
  one the run made, so the replay needs no key and no network, and a request the run never made
  (because a tool now answers differently, or the prompt changed) ends that episode as a
  `replay_miss` infrastructure error;
- any other agent is replayed from its journal (`TrajectoryReplayAgent`): the recorded tool
  calls are made again through the environment, in order, and the recorded final answer is
  parsed again.
"""

from __future__ import annotations

from ..episode.answers import answer_from_record
from ..episode.contract import AgentOutput, Environment


class TrajectoryReplayAgent:
    """Replays one recorded episode (a journal record) through a fresh environment."""

    name = "replay"

    def __init__(self, record: dict):
        self.record = record

    async def run(self, env: Environment) -> AgentOutput:
        rec = self.record
        self.out = AgentOutput(answer=None, steps=int(rec.get("steps") or 0),
                               prompt_tokens=int(rec.get("prompt_tokens") or 0),
                               completion_tokens=int(rec.get("completion_tokens") or 0),
                               invalid_actions=int(rec.get("invalid_actions") or 0),
                               error=rec.get("error"), transcript=list(rec.get("transcript") or []))
        return self._turn(env, 1)

    async def follow_up(self, env: Environment, feedback: str, turn: int) -> AgentOutput:
        return self._turn(env, turn)

    def _turn(self, env: Environment, turn: int) -> AgentOutput:
        """The recorded tool calls of this turn, made again, and the recorded answer parsed again."""
        for call in self.record.get("tool_calls") or []:
            # calls made from code are made again by their cell (the `python` call)
            if (call["tool"] != "submit_candidates" and call.get("via", "native") == "native"
                    and int(call.get("turn") or 1) == turn):
                env.call(call["tool"], call["arguments"], turn=turn)
        answers = {int(a.get("turn") or 1): a for a in self.record.get("answers") or []}
        self.out.answer = answer_from_record(answers.get(turn), env.level)
        self.out.turns = turn
        return self.out
