"""Language feedback between turns (the MINT protocol), derived from the oracle's constraint lineage.

    giver = FeedbackGiver(con, kind="rule", detail="why")
    text = await giver.give("L2-0007", answer, turn=1, max_turns=3)   # None: it was an exact match

After an answer that is not an exact match, and while turns remain, the harness sends the agent
one of these and lets it continue:

- `binary`: only that the answer is not correct;
- `rule`: plain language from the violation views (`scoring.score_episodes`), at a detail of
  `count` (how many candidates are wrong), `which` (which ones) or `why` (which constraint each
  breaks, and the source and rule, tag or event behind it);
- `llm`: a model (through the same client, `--feedback-model`) rewrites the `rule` facts.

Feedback names only the agent's own candidates and never a gold one: it says a candidate is
wrong, or valid but not among the earliest, never which start would have been right. It judges
only the answer's first N candidates (the rest are dropped, `scoring.judged`), so over K turns it
can certify at most N·(K−1) starts before the last answer (docs/semantics.md).
"""

from __future__ import annotations

import asyncio

import duckdb

from ..episode.answers import SUBMIT_TOOL_NAME, ParsedAnswer
from ..kinds import constraint_kinds
from ..levels import level_spec
from .scoring import GradedEpisode, Grader, TurnAnswer

KINDS = ("none", "binary", "rule", "llm")
# How the agent answers again, by protocol: MINT has no submit_candidates tool, only <solution> tags.
RESUBMIT = {"native": f"call {SUBMIT_TOOL_NAME}", "mint": "answer inside <solution> tags"}


def _resubmit(protocol: str) -> str:
    """How to answer again, as a sentence starts it ("Call submit_candidates")."""
    return RESUBMIT[protocol][0].upper() + RESUBMIT[protocol][1:]
DETAILS = ("count", "which", "why")

SOURCE_NAMES = {"calendar": "calendar", "policy": "policy", "threads": "project threads",
                "rooms": "room system", "answer": "answer format"}
# what breaking each constraint kind means, in the words of the one who reads the feedback: the
# registry's feedback_text for the constraint kinds, then the grader's own checks
KIND_TEXT = {
    **{k.name: k.feedback_text for k in constraint_kinds()},
    "unknown_room": "names a room that does not exist",
    "room_unfit": "names a room that does not meet the meeting's room needs",
    "room_booked": "names a room that is booked then",
    "room_tie_break": "names a room that fits and is free, but the tie-break rule picks another one",
    "unreadable": "cannot be read as a time YYYY-MM-DDTHH:MM",
    "utc_offset": "carries a time-zone offset (give local wall-clock times)",
    "off_grid": "is not on the 15-minute grid",
    "room_missing": "names no room",
    "out_of_window": "is outside the requested window",
}
LLM_SYSTEM = """\
You review a colleague's proposed meeting times for a scheduling request. Below are the facts a
checker found about their answer. Rewrite them as short, clear feedback in plain language that
helps them fix the answer. Use only these facts: do not guess or propose any meeting time, room
or rule that the facts do not state."""


def _label(candidate: dict, level: int) -> str:
    start = candidate["start"] if candidate["start"] is not None else repr(candidate["raw"])
    return f"{start} in room {candidate['room_id']}" if level_spec(level).rooms and candidate["room_id"] else start


def _why(candidate: dict) -> str:
    if candidate["is_duplicate"]:
        return "repeats an earlier candidate"
    if not candidate["violation_details"]:
        if candidate["feasible"]:
            return "is valid, but earlier valid starts exist: the answer must be the earliest ones"
        return "is not one of the valid starts"
    reasons = []
    for kind, source, constraint_id in dict.fromkeys(candidate["violation_details"]):
        where = SOURCE_NAMES.get(source, source)
        ident = f": {constraint_id}" if constraint_id and constraint_id != kind and source != "answer" else ""
        reasons.append(f"{KIND_TEXT.get(kind, kind)} ({where}{ident})")
    return "; ".join(reasons)


def _cut_text(level: int, answer_row: dict) -> str:
    """What an answer longer than N is told: only its first N candidates were judged."""
    if level_spec(level).request_in_threads:
        return ("Your answer has more candidates than the project asks for: only the first ones, as many as "
                "it asks for, were judged; the rest were dropped unread.")
    n, submitted = answer_row["n_gold"], answer_row["n_submitted"]
    return (f"You submitted {submitted} candidates, but the request asks for {n}: only the first {n} were "
            f"judged; the other {submitted - n} were dropped unread.")


def rule_text(level: int, answer_row: dict, candidates: list[dict], detail: str, protocol: str = "native") -> str:
    """Feedback on one scored answer (a `score_episodes` answer row and its candidate rows), telling
    the agent to answer again as its protocol answers."""
    if not answer_row["parse_ok"]:
        return (f"Your answer could not be read ({answer_row['parse_error'] or 'no answer'}). "
                f"{_resubmit(protocol)} with the candidates in the documented format.")
    wrong = [c for c in candidates if not c["in_gold"] or c["is_duplicate"]]
    lines = ["Your answer is not correct yet."]
    if answer_row["over_submitted"]:
        lines.append(_cut_text(level, answer_row))
    # where the threads say N, it is the agent's to find: a cut answer's length would give it away
    of_yours = "of the judged" if level_spec(level).request_in_threads and answer_row["over_submitted"] else f"of your {len(candidates)}"
    if wrong:
        lines.append(f"{len(wrong)} {of_yours} candidates {'is' if len(wrong) == 1 else 'are'} wrong"
                     + (":" if detail != "count" else "."))
        if detail != "count":
            lines += [f"- {_label(c, level)}" + (f": {_why(c)}" if detail == "why" else "") for c in wrong]
    distinct = answer_row["n_pred"] - sum(1 for c in candidates if c["is_duplicate"])
    if distinct < answer_row["n_gold"]:
        lines.append("The answer has fewer candidates than the request asks for.")
    lines.append(f"Fix it and {RESUBMIT[protocol]} again.")
    return "\n".join(lines)


class FeedbackGiver:
    """Scores an answer against the oracle and words the feedback (see the module docstring)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, kind: str = "rule", detail: str = "why", client=None,
                 grader: Grader | None = None, protocol: str = "native"):
        if kind not in KINDS or detail not in DETAILS or protocol not in RESUBMIT:
            raise ValueError(f"feedback must be one of {KINDS}, detail one of {DETAILS} and protocol one of "
                             f"{tuple(RESUBMIT)}")
        self.protocol = protocol
        if kind == "llm" and client is None:
            raise ValueError("llm feedback needs a chat client (--feedback-model)")
        self.con, self.kind, self.detail, self.client = con, kind, detail, client
        self.grader = grader if grader is not None else Grader(con)   # the run's, to share its cursors

    def facts(self, instance_id: str, level: int, answer: ParsedAnswer | None) -> str | None:
        """The rule feedback on the answer, or None if it is an exact match."""
        scored = self.grader.score([GradedEpisode(instance_id, 1, level, [TurnAnswer(1, answer)])], explain=False)
        row = scored.answers[0]
        if row["exact_match"]:
            return None
        return rule_text(level, row, scored.candidates, self.detail, self.protocol)

    async def give(self, instance_id: str, level: int, answer: ParsedAnswer | None, *, turn: int,
                   max_turns: int) -> str | None:
        """What the harness says after turn `turn`, or None when it says nothing (exact match,
        no turns left, or feedback `none`). An endpoint failure of `llm` raises InfrastructureError."""
        if self.kind == "none" or turn >= max_turns:
            return None
        facts = await asyncio.to_thread(self.facts, instance_id, level, answer)
        if facts is None:
            return None
        left = max_turns - turn
        tail = f"\n({left} more answer{'s' if left != 1 else ''} allowed.)"
        again = f"{_resubmit(self.protocol)} again with a corrected answer."
        if self.kind == "binary":
            return "Your answer is not correct. " + again + tail
        if self.kind == "rule":
            return facts + tail
        result = await self.client.complete({"messages": [{"role": "system", "content": LLM_SYSTEM},
                                                          {"role": "user", "content": facts}]})
        text = (result.message.get("content") or "").strip() or facts
        return f"{text}\n{again}" + tail
