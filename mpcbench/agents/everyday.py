"""The everyday reader: reads the sources as the scripted solver does, but wherever nothing it was
shown settles a convention, it takes the reading a person would (issue: silence must never decide
a gold answer). It scores F1 1.0 only if every convention the grader applies is stated in what the
agent reads: the system prompt, the policy's JSON (level 1) or its handbook section (levels 2-4).

    found = everyday_plan(env, HiddenFacts(env.data))    # as plan(), with the everyday reading

What it assumes where it finds nothing (docs/semantics.md, "What the agent is told"):

- no meeting on a Saturday or Sunday (a policy's working days are Monday to Friday);
- the buffer's edge is inclusive: an event that ends exactly `minutes` before the start is too close;
- the buffer keeps every commitment at a distance: out-of-office and banned periods too;
- the per-day and back-to-back limits count meetings: confirmed entries whose title is a meeting's.
"""

from __future__ import annotations

import re

from ..episode.environment import Environment
from ..episode.prompts import system_prompt
from ..levels import level_spec
from ..world.prose import working_days_text
from .memoriser import handbook_sections
from .offline import ScriptedAgent
from .scripted import Hidden, Reader, Reading, plan, submission

WORKING_WEEK = ("Mon", "Tue", "Wed", "Thu", "Fri")
# The sentences that settle each convention, in any of the wordings the sources use.
SAYS_EDGE_IS_OPEN = re.compile(
    r"exactly (?:that many|that much|\d+ minutes)[^.;)]*(?:enough|allow|fine|acceptable|suffices|complies|passes)"
    r"|may end exactly|exact fit passes|exact clearance passes|touching its edge is allowed", re.I)
SAYS_BUFFER_IS_FOR_EVENTS = re.compile(
    r"(?:out-of-office|absences?|absence notices|time off)[^.;)]*(?:need no|not|are not counted|carry no)"
    r"|not to out-of-office|never absences|not out-of-office", re.I)
SAYS_EVERY_ENTRY_COUNTS = re.compile(
    r"entries of any kind|any confirmed or tentative (?:calendar )?(?:entry|block)|every confirmed or tentative"
    r"|calendar (?:entries|blocks) of (?:every|all) kinds?", re.I)


def reading_of(told: str) -> Reading:
    """The everyday reading, corrected by what `told` (every text the agent was shown) states."""
    told = " ".join(told.split())
    return Reading(default_days=WORKING_WEEK,
                   buffer_edge_inclusive=not SAYS_EDGE_IS_OPEN.search(told),
                   buffer_all_commitments=not SAYS_BUFFER_IS_FOR_EVENTS.search(told),
                   meetings_only=not SAYS_EVERY_ENTRY_COUNTS.search(told))


class StatedDays:
    """Level 4's hidden rules as a reader of the handbook has them: a policy's working days only
    where its section of the handbook says them in words."""

    def __init__(self, hidden: Hidden, sections: dict[str, str]):
        self.hidden, self.sections = hidden, sections

    def message_tags(self, message_ids):
        return self.hidden.message_tags(message_ids)

    def policy_rules(self, policy_id: str) -> dict[str, dict]:
        rules = {kind: dict(params) for kind, params in self.hidden.policy_rules(policy_id).items()}
        hours = rules.get("working_hours", {})
        if "days" in hours and working_days_text(hours["days"]) not in self.sections.get(policy_id, ""):
            del hours["days"]
        return rules


def policy_sections(env: Environment) -> dict[str, str]:
    """Each policy's section of the handbook (levels 2-4), from every page of every document."""
    read = Reader(env)
    pages = [read.text("read_policy_doc", doc_id=doc["doc_id"], page=page)
             for doc in read.json("search_policy_docs")["documents"] for page in range(1, doc["pages"] + 1)]
    return {policy_id: "\n\n".join(paragraphs) for policy_id, paragraphs in handbook_sections(pages).items()}


def everyday_plan(env: Environment, hidden: Hidden | None = None):
    told = system_prompt(env.level)
    if not level_spec(env.level).policy_docs:
        told += env.call("list_policies", {})
    else:
        sections = policy_sections(env)
        told += "\n".join(sections.values())
        if hidden is not None:
            hidden = StatedDays(hidden, sections)
    return plan(env, hidden, reading_of(told))


class EverydayAgent(ScriptedAgent):
    """The everyday reader as a program of the episode engine."""

    name = "everyday"

    def submission(self, env: Environment, feedback: str | None, hidden: Hidden | None) -> dict:
        if feedback is None:
            self.found = everyday_plan(env, hidden)
        return submission(env.level, self.found)
