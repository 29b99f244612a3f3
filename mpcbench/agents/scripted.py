"""The scripted solver: proves every instance is solvable from what the tools show.

It works only through `env.call` and the text the tools return (JSON, Markdown tables,
transcripts and documents with `[[tags]]`), never through the database, with one exception: level
4 states the thread and handbook facts in prose only, and the solver reads their tags from the
hidden facts (`episode.tools.HiddenFacts`: not a tool, never offered to a model, given to the
solver as an argument of its own), for the messages and the policy it has found through the
tools. Its "reasoning" is plain Python: read the prompt, fetch each source, parse it, then check
every 15-minute start of the window against every constraint (docs/semantics.md) and book a room
at levels 3-4.

    found = plan(Environment(con, "L3-0007"))                       # [(start, room_id), ...]
    found = plan(env, HiddenFacts(env.data))                        # level 4
    await play(ScriptedAgent(), env, hidden=HiddenFacts(env.data))  # as an episode (agents/offline.py)

The module is standard library only but for `world/tags.py` and `levels.py` (the annotations'
`Environment` is never imported at run time), so code mode ships the three files, whole, into the
sandbox (`agents/code_solver.py`).

If it misses the oracle's answer on some instance, either this file is wrong or the tools do
not show something the oracle uses: the test suite runs it on every instance of every level.

Long because it is a whole solver kept apart from the oracle on purpose: readers for every tool's
text format, the prompt and the tags, and the constraint check, in one place.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..levels import level_spec
from ..world.tags import parse_tags

if TYPE_CHECKING:
    from ..episode.environment import Environment

GRID = dt.timedelta(minutes=15)
DAY = dt.timedelta(days=1)
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
CONSTRAINT_TAGS = ("deadline", "ban", "ooo")
BLOCKING_STATUSES = ("confirmed", "tentative")  # cancelled events never block
REQUIREMENT_TAGS = ("participants", "duration", "count", "policy", "tie_break", "room")

_SENT = re.compile(r"\[Sent [^\]]*\]\s*")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_PERSON_ID = re.compile(r"\(([a-z]+-[0-9a-f]+)\)")
_PROJECT_ID = re.compile(r"\(([A-Z]+-[A-Za-z0-9]+)\)")
_POLICY_ID = re.compile(r"\b(?i:policy) ([A-Z][A-Z0-9]*-[A-Z0-9-]+)")
_DURATION = re.compile(r"\b(\d+)[- ]minutes?\b")
_COUNT = re.compile(r"\b(\d+) (?:possible|earliest|slots|options|candidate)")
_MESSAGE_HEAD = re.compile(r"^\[\w{3} (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})\] (.+) \(([^()\s]+)\)$")
_NEXT_PAGE = re.compile(r"page=(\d+)\)\]$")
_ZONE = re.compile(r"\b([A-Z][A-Za-z]+/[A-Za-z_]+)\b")


class ToolFailed(RuntimeError):
    """A tool answered with an error where the solver expected data."""


def when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def clock(day: dt.date, hhmm: str) -> dt.datetime:
    return dt.datetime.combine(day, dt.time.fromisoformat(hhmm))


def overlaps(a_start, a_end, b_start, b_end) -> bool:
    return a_start < b_end and b_start < a_end


# --- the task --------------------------------------------------------------------------------

@dataclass
class Task:
    """What the solver knows about the request, filled in from the prompt and the sources."""
    level: int
    window_start: dt.date
    window_end: dt.date
    participants: list[str] = field(default_factory=list)        # person ids
    participant_names: list[str] = field(default_factory=list)
    duration_min: int | None = None
    n: int | None = None
    policy_id: str | None = None
    project_id: str | None = None
    tie_break: str = "room_id"
    room_need: dict | None = None
    now: dt.datetime | None = None
    zone: str | None = None                                       # level 4: the organiser's time zone

    def days(self) -> list[dt.date]:
        count = (self.window_end - self.window_start).days + 1
        return [self.window_start + dt.timedelta(days=i) for i in range(count)]


def read_prompt(prompt: str, level: int) -> Task:
    """Everything the prompt states: the window always; participants, duration, N and policy at
    levels 1-2; the project at levels 2-3."""
    sent = _SENT.match(prompt)   # "[Sent Tue 2026-03-03 09:12] ": when it was asked, not the window
    dates = sorted(dt.date.fromisoformat(d) for d in _DATE.findall(prompt[sent.end() if sent else 0:]))
    if not dates:
        raise ValueError("the prompt names no dates")
    task = Task(level, dates[0], dates[-1])
    task.participants = list(dict.fromkeys(_PERSON_ID.findall(prompt)))
    if match := _DURATION.search(prompt):
        task.duration_min = int(match.group(1))
    if match := _COUNT.search(prompt):
        task.n = int(match.group(1))
    if match := _POLICY_ID.search(prompt):
        task.policy_id = match.group(1)
    projects = [p for p in _PROJECT_ID.findall(prompt) if p not in task.participants]
    task.project_id = projects[0] if projects else None
    if match := _ZONE.search(prompt):
        task.zone = match.group(1)
    return task


def check_task(task: Task) -> None:
    """Everything the solver needs is known (else it would answer something else)."""
    missing = [name for name in ("duration_min", "n", "policy_id", "now") if getattr(task, name) is None]
    if level_spec(task.level).threads and task.project_id is None:
        missing.append("project_id")
    if not task.participants:
        missing.append("participants")
    if missing:
        raise ValueError(f"could not find {', '.join(missing)}")


# --- reading the tools -----------------------------------------------------------------------

class Hidden(Protocol):
    """Level 4's facts (`episode.tools.HiddenFacts`, or a stand-in)."""

    def message_tags(self, message_ids: list[str]) -> dict[str, list[tuple[str, dict]]]: ...

    def policy_rules(self, policy_id: str) -> dict[str, dict]: ...


def needed(hidden: Hidden | None) -> Hidden:
    if hidden is None:
        raise ToolFailed("level 4 states its facts in prose only: the solver needs the hidden facts")
    return hidden


class Reader:
    """Calls tools and parses what they return."""

    def __init__(self, env: Environment, hidden: Hidden | None = None):
        self.env, self.hidden = env, hidden

    def text(self, name: str, **arguments) -> str:
        result = self.env.call(name, arguments)
        if result.startswith("error:"):
            raise ToolFailed(f"{name}({arguments}): {result}")
        return result

    def json(self, name: str, **arguments) -> dict:
        return json.loads(self.text(name, **arguments))

    def paged(self, name: str, key: str, **arguments) -> list[dict]:
        """Every item of a limit/cursor tool, following next_cursor."""
        items, cursor = [], 0
        while cursor is not None:
            page = self.json(name, **arguments, limit=50, cursor=cursor)
            items.extend(page[key])
            cursor = page["next_cursor"]
        return items

    def now(self) -> dt.datetime:
        return when(self.json("get_current_time")["now"])

    def busy(self, person_id: str, first: dt.date, last: dt.date) -> list[tuple[dt.datetime, dt.datetime]]:
        """The person's blocking events: get_busy_intervals gives them at level 1; from level 2 on,
        list_events gives every event with its status, and cancelled ones do not block."""
        if level_spec(self.env.level).calendar_tool == "get_busy_intervals":
            found = self.json("get_busy_intervals", person_id=person_id, start_date=first.isoformat(),
                              end_date=last.isoformat())["busy"]
            return [(when(b["start"]), when(b["end"])) for b in found]
        return self._calendar(person_id, first, last, lambda e: e["status"] in BLOCKING_STATUSES)

    def meetings(self, person_id: str, first: dt.date, last: dt.date) -> list[tuple[dt.datetime, dt.datetime]]:
        """The person's confirmed entries that look like meetings by their title (from level 2 on;
        level 1's busy intervals carry no title, so there every interval counts)."""
        if level_spec(self.env.level).calendar_tool == "get_busy_intervals":
            return self.busy(person_id, first, last)
        return self._calendar(person_id, first, last,
                              lambda e: e["status"] == "confirmed" and not _NOT_A_MEETING.search(e["title"]))

    def _calendar(self, person_id: str, first: dt.date, last: dt.date, keep) -> list[tuple[dt.datetime, dt.datetime]]:
        """From level 2 on: the spans of the person's events that `keep` accepts, and at level 4
        every blocking occurrence of their recurring series."""
        events = self.paged("list_events", "events", person_id=person_id, start_date=first.isoformat(),
                            end_date=last.isoformat())
        spans = [(when(e["start"]), when(e["end"])) for e in events if keep(e)]
        if level_spec(self.env.level).zones_and_series:
            spans += occurrences(self.json("list_recurring_events", person_id=person_id)["series"])
        return spans

    def working_hours(self, person_id: str) -> tuple[str, str, str]:
        """Level 4: (home zone, start, end) of a person's working hours, HH:MM on their clock."""
        found = self.json("get_working_hours", person_id=person_id)
        return found["timezone"], found["working_hours_start"], found["working_hours_end"]

    def policy_json(self, policy_id: str) -> dict[str, dict]:
        rules = self.json("get_policy", policy_id=policy_id)["rules"]
        return {rule["type"]: rule["params"] for rule in rules}

    def policy_documents(self, policy_id: str) -> dict[str, dict]:
        """The policy's rules from the rule tags in the documents' pages that mention it; tags
        of other policies are ignored."""
        rules: dict[str, dict] = {}
        found = self.json("search_policy_docs", query=policy_id)
        for doc in found["documents"]:
            for page in doc["matching_pages"]:
                text = self.text("read_policy_doc", doc_id=doc["doc_id"], page=page)
                for kind, params in parse_tags(text):
                    if params.get("policy") == policy_id:
                        rules[kind] = {k: v for k, v in params.items() if k not in ("policy", "rule")}
        return rules

    def thread_tags(self, project_id: str) -> list[tuple[tuple[dt.datetime, str], str, dict, str]]:
        """((message time, message id), tag type, params, author) for every tag in the project's
        threads: parsed from the text (levels 2-3), or at level 4 (prose only) the hidden tags of
        the messages read."""
        tags, heads = [], []
        for thread in self.paged("list_threads", "threads", project_id=project_id):
            for text in self.thread_pages(thread["thread_id"]):
                tags.extend(parse_transcript_tags(text))
                heads.extend(parse_transcript_heads(text))
        if not level_spec(self.env.level).tagged:
            facts = needed(self.hidden).message_tags([key[1] for key, _ in heads])
            tags = [(key, kind, params) for key, _ in heads for kind, params in facts.get(key[1], [])]
        authors = dict(heads)
        return [(key, kind, params, authors[key]) for key, kind, params in tags]

    def thread_pages(self, thread_id: str) -> list[str]:
        """Every page of a thread's transcript, following its "page=N" pointer."""
        pages, page = [], 1
        while page:
            text = self.text("read_thread", thread_id=thread_id, page=page)
            pages.append(text)
            more = _NEXT_PAGE.search(text.rstrip().splitlines()[-1])
            page = int(more.group(1)) if more else 0
        return pages

    def person_id(self, name: str) -> str:
        people = self.paged("search_people", "people", query=name)
        exact = [p["person_id"] for p in people if p["name"] == name]
        if len(exact) != 1:
            raise ToolFailed(f"the directory has {len(exact)} people named {name!r}")
        return exact[0]

    def rooms(self) -> list[dict]:
        return parse_markdown_table(self.text("list_rooms"))

    def bookings(self, room_id: str, first: dt.date, last: dt.date) -> list[tuple[dt.datetime, dt.datetime]]:
        found = self.json("get_room_availability", room_id=room_id,
                          start_date=first.isoformat(), end_date=last.isoformat())
        return [(when(b["start"]), when(b["end"])) for b in found["booked"]]


def parse_transcript_tags(text: str) -> list[tuple[tuple[dt.datetime, str], str, dict]]:
    """Tags of a read_thread page, each with its message's (time, id)."""
    found: list[tuple[tuple[dt.datetime, str], str, dict]] = []
    key: tuple[dt.datetime, str] | None = None
    body: list[str] = []

    def flush():
        if key is not None:
            found.extend((key, kind, params) for kind, params in parse_tags("\n".join(body)))

    for line in text.splitlines():
        head = _MESSAGE_HEAD.match(line)
        if head:
            flush()
            day, hhmm, _author, message_id = head.groups()
            key, body = (clock(dt.date.fromisoformat(day), hhmm), message_id), []
        elif line.startswith("  ") and key is not None:
            body.append(line[2:])
    flush()
    return found


def parse_transcript_heads(text: str) -> list[tuple[tuple[dt.datetime, str], str]]:
    """((time, message id), author name) of every message of a read_thread page."""
    found = []
    for line in text.splitlines():
        if head := _MESSAGE_HEAD.match(line):
            day, hhmm, author, message_id = head.groups()
            found.append(((clock(dt.date.fromisoformat(day), hhmm), message_id), author))
    return found


def occurrences(series: list[dict]) -> list[tuple[dt.datetime, dt.datetime]]:
    """Level 4: the blocking occurrences of recurring series as list_recurring_events gives them:
    occurrence k is the first moved by k * every_days days; an exception cancels or moves it."""
    spans = []
    for s in series:
        changed = {x["original_start"]: x for x in s["exceptions"]}
        for k in range(s["occurrences"]):
            step = dt.timedelta(days=s["every_days"] * k)
            start, end = when(s["start"]) + step, when(s["end"]) + step
            exception = changed.get(start.strftime("%Y-%m-%dT%H:%M"))
            if s["status"] not in BLOCKING_STATUSES or (exception and exception["action"] == "cancelled"):
                continue
            if exception:
                start, end = when(exception["start"]), when(exception["end"])
            spans.append((start, end))
    return spans


def parse_markdown_table(text: str) -> list[dict]:
    rows = [line for line in text.splitlines() if line.startswith("|")]
    if len(rows) < 2:
        return []
    split = lambda line: [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]  # noqa: E731
    columns = split(rows[0])
    return [dict(zip(columns, split(line))) for line in rows[2:]]


# --- constraints -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Reading:
    """How the solver reads what no source it was shown settles. The default is the grader's
    (docs/semantics.md); the everyday reader (agents/everyday.py) starts from a person's reading
    and takes the grader's only where a source it read states it."""
    default_days: tuple[str, ...] | None = None   # the working days of a policy that names none (None: every day)
    buffer_edge_inclusive: bool = False   # an event ending exactly `minutes` before the start breaks the buffer
    buffer_all_commitments: bool = False  # the buffer also keeps out-of-office and banned periods at a distance
    meetings_only: bool = False           # the per-day and back-to-back limits count meetings, not every entry


GRADERS_READING = Reading()
# Entries a person does not call meetings: holds (tentative), personal and focus blocks, travel.
_NOT_A_MEETING = re.compile(r"personal|focus|commute|gym|travel|errand|lunch|block|doctor|dentist|appointment", re.I)

@dataclass
class Sources:
    rules: dict[str, dict]                                        # rule type -> params
    busy: dict[str, list[tuple[dt.datetime, dt.datetime]]]        # person id -> blocking events
    tags: list[tuple[str, dict]] = field(default_factory=list)    # deadline, ban, ooo
    hours: dict[str, tuple[str, str, str]] = field(default_factory=dict)   # level 4: person -> (zone, start, end)
    rooms: list[dict] = field(default_factory=list)               # rooms that fit statically
    bookings: dict[str, list[tuple[dt.datetime, dt.datetime]]] = field(default_factory=dict)
    reading: Reading = GRADERS_READING
    meetings: dict[str, list[tuple[dt.datetime, dt.datetime]]] = field(default_factory=dict)   # meetings_only


def _near(start: dt.datetime, end: dt.datetime, margin: dt.timedelta, span: tuple[dt.datetime, dt.datetime],
          inclusive: bool) -> bool:
    """Does `span` come within `margin` of [start, end)? Half-open (the grader's): a span that ends
    exactly `margin` before the start is not near; inclusive (plain English): it is."""
    if inclusive:
        return span[0] <= end + margin and start - margin <= span[1]
    return overlaps(start - margin, end + margin, *span)


def is_feasible(task: Task, src: Sources, start: dt.datetime, end: dt.datetime) -> bool:
    assert task.now is not None  # check_task
    if start < task.now:   # nothing is booked in the past
        return False
    day = start.date()
    every_busy = [span for spans in src.busy.values() for span in spans]
    counted = src.meetings if src.reading.meetings_only else src.busy
    for kind, p in src.rules.items():
        if kind == "working_hours":
            days = p.get("days", src.reading.default_days)
            if days is not None and WEEKDAYS[day.weekday()] not in days:
                return False
            if not (clock(day, p["start"]) <= start and end <= clock(day, p["end"])):
                return False
        elif kind == "blackout":
            if any(overlaps(start, end, clock(d, p["start"]), clock(d, p["end"]))
                   for d in (day - DAY, day, day + DAY)):
                return False
        elif kind == "buffer":
            margin = dt.timedelta(minutes=int(p["minutes"]))
            kept = every_busy + (commitments(task, src.tags) if src.reading.buffer_all_commitments else [])
            if any(_near(start, end, margin, span, src.reading.buffer_edge_inclusive) for span in kept):
                return False
        elif kind == "no_meeting_weekdays":
            if WEEKDAYS[day.weekday()] in p["weekdays"]:
                return False
        elif kind == "min_notice":
            if start < task.now + dt.timedelta(hours=int(p["hours"])):
                return False
        elif kind == "max_meetings_per_day":
            if any(sum(1 for b_start, _ in spans if b_start.date() == day) >= int(p["count"])
                   for spans in counted.values()):
                return False
        elif kind == "max_consecutive_minutes":
            if any(back_to_back(start, end, spans) > dt.timedelta(minutes=int(p["minutes"]))
                   for spans in counted.values()):
                return False
        else:
            raise ValueError(f"unknown rule type {kind!r}")
    if any(overlaps(start, end, b_start, b_end) for b_start, b_end in every_busy):
        return False
    if src.hours:  # level 4 only, where plan has checked the zone
        assert task.zone is not None
        if any(not within_hours(task.zone, start, end, hours) for hours in src.hours.values()):
            return False
    for kind, p in src.tags:
        if kind == "deadline" and end > when(p["end_by"]):
            return False
        if kind == "ban" and overlaps(start, end, when(p["start"]), when(p["end"])):
            return False
        if kind == "ooo" and _is_participant(task, p) and overlaps(start, end, when(p["start"]), when(p["end"])):
            return False
    return True


def commitments(task: Task, tags: list[tuple[str, dict]]) -> list[tuple[dt.datetime, dt.datetime]]:
    """The participants' out-of-office periods and the banned periods, as spans."""
    return [(when(p["start"]), when(p["end"])) for kind, p in tags
            if kind == "ban" or (kind == "ooo" and _is_participant(task, p))]


def within_hours(zone: str, start: dt.datetime, end: dt.datetime, hours: tuple[str, str, str]) -> bool:
    """Level 4: [start, end) on the organiser's clock (zone) lies inside a person's working hours
    on their own clock, that day."""
    home, first, last = hours
    local_start, local_end = (moment.replace(tzinfo=zoneinfo.ZoneInfo(zone)).astimezone(zoneinfo.ZoneInfo(home))
                              .replace(tzinfo=None) for moment in (start, end))
    day = local_start.date()
    return clock(day, first) <= local_start and local_end <= clock(day, last)


def back_to_back(start: dt.datetime, end: dt.datetime, spans: list[tuple[dt.datetime, dt.datetime]]) -> dt.timedelta:
    """The length of one person's run of meetings through [start, end): sorted by start, the
    spans that overlap or touch the run so far extend it, walking out from the meeting."""
    ordered = sorted(spans)
    first, last = start, end
    for s_start, s_end in reversed([s for s in ordered if s[0] < start]):
        if s_end >= first:
            first = min(first, s_start)
    for s_start, s_end in ordered:
        if s_start <= last and s_end >= first:
            first, last = min(first, s_start), max(last, s_end)
    return last - first


def _is_participant(task: Task, params: dict) -> bool:
    if "person_id" in params:
        return params["person_id"] in task.participants
    return params.get("person_name") in task.participant_names


def room_fits_statically(task: Task, room: dict) -> bool:
    need = task.room_need or {}
    features = {f.strip() for f in room["features"].split(",") if f.strip() not in ("", "—")}
    return (int(room["capacity"]) >= max(len(task.participants), int(need.get("min_capacity") or 0))
            and set(need.get("features") or []) <= features
            and need.get("building") in (None, room["building"]))


def choose_room(task: Task, src: Sources, start: dt.datetime, end: dt.datetime) -> str | None:
    free = [room for room in src.rooms
            if not any(overlaps(start, end, b_start, b_end) for b_start, b_end in src.bookings[room["room_id"]])]
    if not free:
        return None
    if task.tie_break == "capacity":
        return min(free, key=lambda r: (int(r["capacity"]), r["room_id"]))["room_id"]
    return min(free, key=lambda r: r["room_id"])["room_id"]


def solve(task: Task, src: Sources) -> list[tuple[dt.datetime, str | None]]:
    """The first N feasible (start, room) pairs, earliest first."""
    assert task.duration_min is not None  # check_task
    duration = dt.timedelta(minutes=task.duration_min)
    rooms = level_spec(task.level).rooms
    found: list[tuple[dt.datetime, str | None]] = []
    for day in task.days():
        start = dt.datetime.combine(day, dt.time(0, 0))
        while start.date() == day:
            end = start + duration
            if is_feasible(task, src, start, end):
                room = choose_room(task, src, start, end) if rooms else None
                if not rooms or room is not None:
                    found.append((start, room))
                    if len(found) == task.n:
                        return found
            start += GRID
    return found


def latest_requirements(tags) -> dict[str, dict]:
    """Levels 3-4: per requirement kind, the tag of the latest message (ties: greater message id).
    At level 4 only the project owner's messages count (the latest owner tag names the owner)."""
    owners = sorted((key, params["person_name"]) for key, kind, params, _ in tags if kind == "owner")
    latest: dict[str, tuple] = {}
    for key, kind, params, author in tags:
        if owners and author != owners[-1][1]:
            continue
        if kind in REQUIREMENT_TAGS and (kind not in latest or key > latest[kind][0]):
            latest[kind] = (key, params)
    return {kind: params for kind, (_, params) in latest.items()}


def plan(env: Environment, hidden: Hidden | None = None,
         reading: Reading = GRADERS_READING) -> list[tuple[dt.datetime, str | None]]:
    """Read the request and every source it needs through `env.call` (and, at level 4, the facts
    the prose states from `hidden`), then solve, reading what no source settles as `reading` says."""
    return plan_task(env, hidden, reading)[1]


def plan_task(env: Environment, hidden: Hidden | None = None,
              reading: Reading = GRADERS_READING) -> tuple[Task, list[tuple[dt.datetime, str | None]]]:
    """`plan`, with the task as the solver read it (its participants, duration and project)."""
    read = Reader(env, hidden)
    spec = level_spec(env.level)
    task = read_prompt(env.request, env.level)
    task.now = read.now()
    tags: list[tuple[str, dict]] = []
    if spec.threads:
        if task.project_id is None:
            raise ValueError("the prompt names no project")
        said = read.thread_tags(task.project_id)
        tags = [(kind, params) for _, kind, params, _ in said if kind in CONSTRAINT_TAGS]
    if spec.request_in_threads:
        need = latest_requirements(said)
        task.participant_names = list(need["participants"]["people"])
        task.participants = [read.person_id(name) for name in task.participant_names]
        task.duration_min = int(need["duration"]["minutes"])
        task.n = int(need["count"]["n"])
        task.policy_id = need["policy"]["policy_id"]
        task.tie_break = need.get("tie_break", {}).get("rule", "room_id")
        task.room_need = need.get("room")
    check_task(task)
    assert task.policy_id is not None  # check_task
    if not spec.policy_docs:
        rules = read.policy_json(task.policy_id)
    elif not spec.tagged:   # the handbook states the rules in prose only: the hidden path
        read.json("search_policy_docs", query=task.policy_id)
        rules = needed(hidden).policy_rules(task.policy_id)
    else:
        rules = read.policy_documents(task.policy_id)
    first, last = task.window_start - DAY, task.window_end + DAY
    busy = {person: read.busy(person, first, last) for person in task.participants}
    src = Sources(rules, busy, tags, reading=reading)
    if reading.meetings_only:
        src.meetings = {person: read.meetings(person, first, last) for person in task.participants}
    if spec.zones_and_series:
        if task.zone is None:
            raise ValueError("the prompt names no time zone")
        src.hours = {person: read.working_hours(person) for person in task.participants}
    if spec.rooms:
        src.rooms = [room for room in read.rooms() if room_fits_statically(task, room)]
        src.bookings = {room["room_id"]: read.bookings(room["room_id"], first, last) for room in src.rooms}
    return task, solve(task, src)


def submission(level: int, found: list[tuple[dt.datetime, str | None]], note: str | None = None) -> dict:
    """The submit_candidates arguments; the note to the participants is `proposal_note`'s
    unless given."""
    items = []
    for start, room in found:
        item: dict[str, str | None] = {"start": start.strftime("%Y-%m-%dT%H:%M")}
        if level_spec(level).rooms:
            item["room_id"] = room
        items.append(item)
    return {"candidates": items, "note": proposal_note(found) if note is None else note}


def proposal_note(found: list[tuple[dt.datetime, str | None]]) -> str:
    """A clean note: the proposed times (and rooms), nothing about anyone's calendar."""
    if not found:
        return "Hi all, I could not find a time that works for everyone yet."
    times = "; ".join(f"{start:%a %Y-%m-%d %H:%M}" + (f" in room {room}" if room else "") for start, room in found)
    return f"Hi all, here are the proposed times: {times}. Please reply with the one that suits you."
