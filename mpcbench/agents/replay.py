"""Replay of a recorded run, offline (`mpcbench eval --agent replay --from RUN`).

Two ways, chosen by what the recorded run was:

- a run of the `openai` agent is re-run with the same agent options against the run's response
  cache (`llm_cache.jsonl`, keyed by request hash) in replay-only mode: every request must be
  one the run made, so the replay needs no key and no network, and a request the run never made
  (because a tool now answers differently, or the prompt changed) ends that episode as a
  `replay_miss` infrastructure error;
- any other agent is replayed from its journal (`TrajectoryReplay`, a policy of the episode
  engine): each turn, the recorded tool calls of that turn are made again through the
  environment, in order, and the recorded answer of the turn is given again, as the submission
  or the text it was (or, where a model's limit ended the episode, that limit again).
"""

from __future__ import annotations

import asyncio

from ..episode.answers import SUBMIT_TOOL_NAME, answer_arguments
from ..episode.engine import Reply, View
from ..episode.record import error_kind, error_message
from ..errors import InfrastructureError, ModelLimitError
from ..model_limits import CAUSES as MODEL_LIMITS


class TrajectoryReplay:
    """Replays one recorded episode (a journal record) through a fresh environment."""

    name = "replay"

    def __init__(self, record: dict):
        self.record = record
        self.answers = {int(a.get("turn") or 1): a for a in record.get("answers") or []}

    async def reply(self, view: View) -> Reply:
        rec = self.record
        if view.turn == 1 and (kind := error_kind(rec)):
            raise InfrastructureError(kind, error_message(rec) or "")
        calls = [c for c in rec.get("tool_calls") or []
                 # calls made from code are made again by their cell (the `python` call)
                 if c["tool"] != SUBMIT_TOOL_NAME and c.get("via", "native") == "native"
                 and int(c.get("turn") or 1) == view.turn]
        for call in calls:
            await asyncio.to_thread(view.env.call, call["tool"], call["arguments"], turn=view.turn)
        if rec.get("end") in MODEL_LIMITS and view.turn == int(rec.get("turns") or 1):
            raise ModelLimitError(rec["end"], rec.get("end_detail") or "")
        first = view.turn == 1
        recorded = Reply({}, int(rec.get("prompt_tokens") or 0) if first else 0,
                         int(rec.get("completion_tokens") or 0) if first else 0,
                         steps=int(rec.get("steps") or 0) if first else 0, final=True)
        answer = self.answers.get(view.turn) or {}
        raw = answer.get("raw")
        if answer.get("path") == "text":
            recorded.message = view.codec.text_answer(raw or "")
        else:
            recorded.message = view.codec.submission(raw if raw is not None else answer_arguments(
                view.env.level, [(c.get("start"), c.get("room_id")) for c in answer.get("candidates") or []]))
        return recorded
