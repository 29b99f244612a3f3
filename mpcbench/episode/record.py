"""An episode's journal record: one JSON line with everything needed to score the episode
again or to replay it (`episode_record`), its answers turn by turn (`turn_answer`), and how an
error in it is read (`error_kind`, `error_message`, `is_harness_error`), and the one count
besides its score an episode falls under (`counted_as`).

    record["end"]          # why it ended: an `EndReason` value (`answered`, `step_budget`, ...)
    record["error"]        # None, or "<kind>: <message>" when it ended unscored
    record["error_kind"]   # that <kind>: `harness_error`, or an endpoint's (`rate_limit`, ...)
    record["end_detail"]   # that <message>; or what the server said of a model's limit
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping, Sequence
from typing import Any

from ..model_limits import CAUSES as MODEL_LIMITS
from .answers import SUBMIT_TOOL_NAME, parse_submission
from .contract import AgentOutput, EndReason, ToolCall

HARNESS_ERROR = EndReason.HARNESS_ERROR.value
JOURNAL_VERSION = 1


_UNSCORED_ENDS = frozenset(reason.value for reason in EndReason if not reason.scored)


def unscored(record: Mapping[str, Any]) -> bool:
    """An error ended the episode (the endpoint's or ours; `EndReason.scored` is False): a journal
    record or a runs.parquet row alike, by its `end`; one written before `end` was, by its `error`."""
    end = record.get("end")
    return end in _UNSCORED_ENDS if end else bool(record.get("error"))


def error_kind(record: Mapping[str, Any]) -> str | None:
    """The kind of a record's (or a runs.parquet row's) error: `harness_error`, or an
    infrastructure error's kind (`rate_limit`, `feedback_timeout`, ...); None without an error.
    A journal written before `error_kind` was recorded gives it as the error's first word."""
    if not unscored(record):
        return None
    return record.get("error_kind") or str(record["error"]).split(":", 1)[0]


def error_message(record: Mapping[str, Any]) -> str | None:
    """The message of a record's error, without its kind; None without an error. A journal
    written before errors kept their message in `end_detail` gives the error's text after the kind."""
    if not unscored(record):
        return None
    if record.get("end_detail") is not None:
        return record["end_detail"]
    return str(record["error"]).partition(": ")[2]


def is_harness_error(record: Mapping[str, Any]) -> bool:
    return error_kind(record) == HARNESS_ERROR


COUNTS = ("parse_failures", "step_budget", *MODEL_LIMITS, "infrastructure_errors", "harness_errors")


def counted_as(record: Mapping[str, Any]) -> str | None:
    """The one of `COUNTS` an episode falls under, for a journal record or a runs.parquet row
    alike (eval's progress and table, run.json, report.md and report.html all count with this):
    an error is the endpoint's or ours; a scored episode a model's limit ended counts under that
    limit; one without a readable answer is out of steps (`step_budget`: it spent --max-steps
    before answering) or a parse failure (it answered, unreadably); None for a scored episode
    with a readable answer."""
    if unscored(record):
        return "harness_errors" if is_harness_error(record) else "infrastructure_errors"
    limit = record.get("end") if record.get("end") in MODEL_LIMITS else record.get("failure_cause")
    if limit in MODEL_LIMITS:
        return limit
    if "parse_ok" in record:
        readable = record["parse_ok"]
    else:
        readable = bool(record.get("answers")) and record["answers"][-1].get("parse_ok")
    if readable:
        return None
    return "step_budget" if record.get("end") == EndReason.STEP_BUDGET else "parse_failures"


def count_episodes(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many of `records` fall under each of `COUNTS`."""
    counts = dict.fromkeys(COUNTS, 0)
    for r in records:
        if (c := counted_as(r)) is not None:
            counts[c] += 1
    return counts


def harness_failure(error: BaseException) -> tuple[str, str]:
    """(the record's error, the traceback) of a failure of our own code."""
    detail = " ".join(str(error).split())[:500]
    return f"{type(error).__name__}" + (f": {detail}" if detail else ""), "".join(traceback.format_exception(error))


def failed_record(error: BaseException, *, instance_id: str, trial: int, level: int, agent: str, model: str | None,
                  mode: str, latency_s: float, task: str = "propose") -> dict[str, Any]:
    """The journal line of an episode that could not start (its environment or policy failed)."""
    out = AgentOutput(answer=None)
    message, trace_text = harness_failure(error)
    end_output(out, EndReason.HARNESS_ERROR, HARNESS_ERROR, message)
    return episode_record(instance_id=instance_id, trial=trial, level=level, agent=agent, model=model, mode=mode,
                          output=out, answers=[turn_answer(out, level, 1)], trace=[], latency_s=latency_s,
                          traceback=trace_text, task=task)


def end_output(out: AgentOutput, reason: EndReason, kind: str | None = None, message: str | None = None) -> None:
    """Mark the output as ended for `reason`; an error's `kind` and `message` make its `error`
    (and are kept apart, as `error_kind` and `end_detail`)."""
    out.end = reason
    if kind is not None:
        out.error, out.error_kind, out.end_detail = f"{kind}: {message}", kind, message


def final_raw(output: AgentOutput, level: int) -> str | None:
    """The raw text of the final answer: the submit_candidates arguments it came from, or the
    final text message."""
    answer = output.answer
    if answer is None:
        return None
    for message in reversed(output.transcript or []):
        if message.get("role") != "assistant":
            continue
        if answer.path == "text":
            if message.get("content") is not None and not message.get("tool_calls"):
                return message["content"]
            continue
        for call in reversed(message.get("tool_calls") or []):
            function = call.get("function") or {}
            if function.get("name") == SUBMIT_TOOL_NAME:
                raw = function.get("arguments")
                raw = raw if isinstance(raw, str) else json.dumps(raw)
                if parse_submission(raw, level) == answer:
                    return raw
    return None


def turn_answer(output: AgentOutput, level: int, turn: int, feedback: str | None = None) -> dict:
    """A turn's answer as the journal keeps it (taken when the turn ends: the raw text is found
    at the end of the transcript), with the feedback the harness gave on it."""
    answer = output.answer
    if answer is None:
        return {"turn": turn, "path": None, "raw": None, "parse_ok": False, "error": "no answer",
                "candidates": [], "note": None, "feedback": feedback}
    return {"turn": turn, "path": answer.path, "raw": final_raw(output, level), "parse_ok": answer.parse_ok,
            "error": answer.error,
            "candidates": [{"start": c.start, "room_id": c.room_id, "raw": c.raw, "problem": c.problem}
                           for c in answer.candidates], "note": answer.note, "feedback": feedback}


def episode_record(*, instance_id: str, trial: int, level: int, agent: str, model: str | None, mode: str,
                   output: AgentOutput, answers: list[dict], trace: list[ToolCall], latency_s: float,
                   traceback: str | None = None, prompt_rows: tuple[str, ...] = (), task: str = "propose",
                   writes: dict | None = None) -> dict[str, Any]:
    """One journal line: everything needed to score the episode again, or to replay it, with the
    raw rows each call returned and the prompt showed (`prompt_rows`: context mode's sources);
    a booking episode (`task` book) also keeps the final state of what it wrote (`writes`)."""
    calls = [{"turn": c.turn, "step": c.step, "tool": c.tool, "arguments": c.arguments,
              "result_chars": len(c.result or ""), "latency_ms": round(c.latency_ms, 3), "error": c.error,
              "via": c.via, "cell": c.cell, "source_rows": list(c.source_rows)}
             for c in trace]
    record = {"v": JOURNAL_VERSION, "instance_id": instance_id, "trial": trial, "level": level, "agent": agent,
              "model": model, "mode": mode, "turns": len(answers), "steps": output.steps,
              "prompt_tokens": output.prompt_tokens, "completion_tokens": output.completion_tokens,
              "invalid_actions": output.invalid_actions, "latency_s": round(latency_s, 4),
              "end": None if output.end is None else output.end.value, "error": output.error,
              "error_kind": output.error_kind, "end_detail": output.end_detail, "answers": answers, "tool_calls": calls,
              "prompt_rows": list(prompt_rows), "transcript": output.transcript, "task": task}
    if writes is not None:
        record["writes"] = writes
    if traceback is not None:
        record["traceback"] = traceback
    return record
