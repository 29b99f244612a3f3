"""A policy rule as the handbook says it: its sentence, the note on what it counts (the working
days, the buffer's edge and scope, what the limits count), and at levels 2-3 its tag.

    rule_paragraph(rng, "POL-7F3A2C", rule, words)            # "Core hours run ... [[working_hours ...]]"
    rule_paragraph(rng, "POL-7F3A2C", rule, words, False)     # level 4: prose only
"""

from __future__ import annotations

import random

from . import prose
from .policies import blackout_kind
from .tags import render_tag
from .wording import FAMILIES, Wording


def rule_paragraph(rng: random.Random, policy_id: str, rule: dict, words: Wording, tagged: bool = True) -> str:
    """A rule's sentence and its tag; at level 4 (`tagged` false) the sentence alone, from the
    level-4 phrasings."""
    params = rule["params"]
    fields = dict(params)
    if rule["type"] == "blackout":
        fields["label"] = words.fixed("blackout_labels", blackout_kind(params["start"], params["end"]))
    if "weekdays" in params:
        fields["weekdays_text"] = ", ".join(params["weekdays"][:-1]) + (
            " and " if len(params["weekdays"]) > 1 else "") + params["weekdays"][-1]
    if "days" in params:
        fields["days"] = prose.working_days_text(params["days"])
    if rule["type"] == "buffer":
        fields["edge"] = f"{(720 - params['minutes']) // 60:02d}:{(720 - params['minutes']) % 60:02d}"
    level = "" if tagged else "/l4"
    template = words.pick(rng, f"rule:{rule['type']}{level}")
    sentence = template.format(**fields)
    if f"rule_note:{rule['type']}" in FAMILIES:
        # what the rule counts: the note paired with the sentence's phrasing (one per phrasing, so the
        # handbook's draws do not move and a paragraph has as many wordings as its sentence)
        phrasings = getattr(FAMILIES[f"rule:{rule['type']}{level}"], words.side)
        notes = getattr(FAMILIES[f"rule_note:{rule['type']}{level}"], words.side)
        sentence += " " + notes[phrasings.index(template) % len(notes)].format(**fields)
    if not tagged:
        return sentence
    tag = render_tag(rule["type"], {"policy": policy_id, "rule": rule["rule_id"], **params})
    return f"{sentence} {tag}"
