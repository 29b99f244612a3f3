"""A regex reader of level-4 prose (issue 9: "a regex-over-one-template agent must fail").

`RegexFacts` stands in for the scripted solver's hidden facts (`HiddenFacts`: `message_tags`,
`policy_rules`) and answers them from the *text* the tools return instead of the hidden tables: every message of a thread and the handbook are matched against regular
expressions made from the level-4 prose templates of one side of `mpcbench/world/wording.py`
(`side`: "public", or "ood" for an ood build). With `first_only` it
knows only the first phrasing of each fact kind (what a regex written against one example
message would catch); with every phrasing it is the positive control, showing that the prose
states every fact. Everything else is the scripted solver, unchanged.

    env = Environment(con, "L4-0001")
    found = scripted.plan(env, RegexFacts(env, first_only=True))
    found = scripted.plan(env, RegexFacts(env, first_only=False, side="ood"))   # an ood build
"""

from __future__ import annotations

import datetime as dt
import re
import string

from mpcbench.agents.memoriser import policy_paragraphs, thread_texts
from mpcbench.world import prose
from mpcbench.world.wording import FAMILIES

_DAY = r"\w{3} \d{4}-\d{2}-\d{2}"
_FIELDS = {
    "day": rf"(?P<day>{_DAY})", "start": r"(?P<start>\d{2}:\d{2})", "end": r"(?P<end>\d{2}:\d{2})",
    "end_by": rf"(?P<end_by>{_DAY} \d{{2}}:\d{{2}})", "when": rf"(?P<when>{_DAY}(?: \d{{2}}:\d{{2}}–\d{{2}}:\d{{2}})?)",
    "name": r"(?P<name>[A-Z][\w'-]* [A-Z][\w'-]*)",
    "reason": r".+?", "value": r"(?P<value>.+?)", "label": r".+?", "minutes": r"(?P<minutes>\d+)",
    "hours": r"(?P<hours>\d+)", "count": r"(?P<count>\d+)", "weekdays_text": r"(?P<weekdays_text>.+?)",
    "days": r"(?P<days>.+?)", "edge": r"(?P<edge>\d{2}:\d{2})",
}
_WHEN = re.compile(rf"^(?P<day>{_DAY})(?: (?P<start>\d{{2}}:\d{{2}})–(?P<end>\d{{2}}:\d{{2}}))?$")


def template_regex(template: str, whole: bool = True) -> re.Pattern:
    """The template as a regex: literal text escaped, each {field} a group, the tag left out. A
    field used twice matches the same text again. Not `whole`: it may be followed by more text."""
    out, seen = [], set()
    for literal, name, _, _ in string.Formatter().parse(template.replace(" {tag}", "").replace("{tag}", "")):
        out.append(re.escape(literal))
        if name:
            out.append(f"(?P={name})" if name in seen and name in _FIELDS and "?P<" in _FIELDS[name]
                       else _FIELDS[name])
            seen.add(name)
    return re.compile("".join(out) + (r"\s*$" if whole else ""), re.IGNORECASE)


def _at(day_text: str, hhmm: str) -> str:
    return f"{day_text.split()[1]}T{hhmm}"


def _words(side: str, key: str) -> str:
    return getattr(FAMILIES[key], side)[0]


def _room(value: str, side: str) -> dict:
    if value == _words(side, "room_words:any"):
        return {}
    need = {}
    capacity = template_regex(_words(side, "room_words:capacity").replace("{n}", "{count}"))
    features, building = (_words(side, f"room_words:{k}").split("{")[0] for k in ("features", "building"))
    for part in value.split(_words(side, "room_words:joiner")):
        if m := capacity.fullmatch(part):
            need["min_capacity"] = int(m.group("count"))
        elif part.startswith(features):
            need["features"] = part[len(features):].split(_words(side, "room_words:feature_joiner"))
        elif part.startswith(building):
            need["building"] = part[len(building):]
    return need


def _fact(kind: str, m: re.Match, side: str = "public") -> dict:
    """The tag params a match of `kind`'s template says."""
    g = m.groupdict()
    if kind == "ban":
        return {"start": _at(g["day"], g["start"]), "end": _at(g["day"], g["end"])}
    if kind == "ooo":
        when = _WHEN.match(g["when"])
        if when is None:
            raise ValueError(g["when"])
        if when["start"]:
            start, end = _at(when["day"], when["start"]), _at(when["day"], when["end"])
        else:
            day = dt.date.fromisoformat(when["day"].split()[1])
            start, end = f"{day}T00:00", f"{day + dt.timedelta(days=1)}T00:00"
        return {"person_name": g["name"], "start": start, "end": end}
    if kind == "deadline":
        day, hhmm = g["end_by"].rsplit(" ", 1)
        return {"end_by": _at(day, hhmm)}
    if kind == "owner":
        return {"person_name": g["name"]}
    value = g["value"]
    return {"participants": lambda: {"people": value.split(", ")},
            "duration": lambda: {"minutes": int(value)},
            "count": lambda: {"n": int(value)},
            "policy": lambda: {"policy_id": value},
            "tie_break": lambda: {"rule": "capacity" if value == _words(side, "tie_break:capacity") else "room_id"},
            "room": lambda: _room(value, side)}[kind]()


def _days(text: str) -> list[str]:
    """A policy's working days from their words (prose.working_days_text's three forms)."""
    names = [name for name in prose.WEEK_WORDS if name in text]
    if " to " in text:
        first, last = prose.WEEK_WORDS.index(names[0]), prose.WEEK_WORDS.index(names[-1])
        names = list(prose.WEEK_WORDS[first: last + 1])
    return [prose.WEEKDAY_ABBREVIATIONS[prose.WEEK_WORDS.index(name)] for name in names]


def _rule(kind: str, m: re.Match) -> dict:
    g = m.groupdict()
    if kind in ("working_hours", "blackout"):
        return {"start": g["start"], "end": g["end"]}
    if kind == "no_meeting_weekdays":
        text = g["weekdays_text"]
        return {"weekdays": [w for part in text.split(" and ") for w in part.split(", ")]}
    key = {"buffer": "minutes", "max_consecutive_minutes": "minutes", "min_notice": "hours",
           "max_meetings_per_day": "count"}[kind]
    return {key: int(g[key])}


class RegexFacts:
    """The hidden facts, read by regexes over the text the episode's environment has shown."""

    def __init__(self, env, first_only: bool, side: str = "public"):
        self.inner, self.trace, self.side = env, env.trace, side
        pick = (lambda options: options[:1]) if first_only else (lambda options: options)

        def pool(family: str) -> tuple[str, ...]:
            return getattr(FAMILIES[family], side)

        facts = {kind: pool(f"{kind}/l4") for kind in ("ban", "ooo", "deadline", *prose.REQUIREMENT_TEXT)}
        facts["owner"] = pool("owner")
        revise = [""] + [re.escape(r) for r in pick(pool("revision"))]
        self.facts = [(kind, re.compile(f"^(?:{'|'.join(revise)})" + template_regex(t).pattern, re.IGNORECASE))
                      for kind, templates in facts.items() for t in pick(templates)]
        self.rules = [(kind, template_regex(t, whole=False)) for kind in prose.RULE_PROSE
                      for t in pick(pool(f"rule:{kind}/l4"))]
        # what a rule counts, said after its sentence: the working days among it
        self.notes = {kind: [template_regex(t) for t in pick(pool(f"rule_note:{kind}/l4"))] for kind in prose.RULE_NOTES}

    def call(self, name, arguments=None, *, turn=1):
        return self.inner.call(name, arguments, turn=turn)

    def message_tags(self, message_ids):
        texts = thread_texts(self.trace)
        found = {}
        for message_id in message_ids:
            for kind, pattern in self.facts:
                m = pattern.match(texts.get(message_id, ""))
                if m:
                    try:
                        found[message_id] = [(kind, _fact(kind, m, self.side))]
                    except (ValueError, KeyError):
                        continue
                    break
        return found

    def policy_rules(self, policy_id):
        rules = {}
        for paragraph in policy_paragraphs(self.inner, policy_id):
            text = paragraph.strip()
            for kind, pattern in self.rules:
                if not (m := pattern.match(text)):
                    continue
                rest = text[m.end():].strip()
                notes = [n for note in self.notes.get(kind, []) if (n := note.match(rest))]
                if rest and not notes or kind in self.notes and not notes:
                    continue   # the sentence is only the start of another paragraph, or its note is unread
                rules[kind] = _rule(kind, m)
                if kind == "working_hours":
                    rules[kind]["days"] = _days(notes[0]["days"])
                break
        return rules
