"""The booking task (`--task book`): the write tools and the episode's own overlay they write.

    writes = Overlay(tools)                 # tools: the episode's DataTools (its own cursor)
    writes.run("create_event", {"title": "Sync", "start": "2026-03-10T09:00", "duration_minutes": 30,
                                "attendees": ["p-3fa9c2"]})     # 'Booked bk-1: ...' (or ToolError)
    writes.state()                          # the final state: the journal record's `writes`
    writes.answer()                         # the bookings as an answer, graded like candidates

The overlay is a few TEMP tables on the episode's own cursor, and TEMP views named like the
source tables they extend (`events`, `room_bookings`, `messages`: the warehouse's rows and the
agent's), so every read tool, and every view under it, also shows the agent's own writes; another
cursor sees none of them, and the warehouse file is never written (it is opened read-only).
A write the agent can fix (an unknown person or room, a room taken, an overlap with its own
booking, a time outside the window) raises `ToolError`.
"""

from __future__ import annotations

import datetime as dt
import json

import duckdb
import jsonschema

from ..errors import HarnessError
from ..levels import level_spec
from .answers import START_PATTERN, Candidate, ParsedAnswer
from .contract import ToolSpec
from .toolfiles import ToolError

TIME = "%Y-%m-%dT%H:%M"
AUTHOR = "assistant"   # who the agent's messages are from
FINISH_TOOL = "finish"   # ends a booking episode (the engine's answer, as submit_candidates ends proposing)

_OVERLAY = """
create temp table agent_events (world_id varchar, event_id varchar, title varchar, starts_at timestamp,
                                ends_at timestamp, room_id varchar, status varchar);
create temp table agent_attendees (event_id varchar, person_id varchar);
create temp table agent_messages (world_id varchar, message_id varchar, thread_id varchar, ts timestamp,
                                  text varchar);
create temp view events as
select world_id, event_id, person_id, starts_at, ends_at, status, title from {db}.main.events
union all
select e.world_id, e.event_id, a.person_id, e.starts_at, e.ends_at, e.status, e.title
from agent_events as e join agent_attendees as a using (event_id);
create temp view room_bookings as
select world_id, booking_id, room_id, starts_at, ends_at, position from {db}.main.room_bookings
union all
select world_id, event_id, room_id, starts_at, ends_at, 0 from agent_events
where room_id is not null and status <> 'cancelled';
create temp view messages as
select world_id, message_id, thread_id, author_id, ts, text, position from {db}.main.messages
union all
select world_id, message_id, thread_id, '{author}', ts, text, 100000 + row_number() over (order by message_id)
from agent_messages;
"""

_START = {"type": "string", "pattern": START_PATTERN, "description": "Local wall-clock time, YYYY-MM-DDTHH:MM."}
_EVENT_ID = {"type": "string", "maxLength": 40, "description": "The id create_event gave, e.g. bk-1."}
_ROOM_ID = {"type": "string", "maxLength": 40, "description": "The room's id, e.g. N-204 (list_rooms shows them)."}


def write_specs(level: int) -> list[ToolSpec]:
    """The write tools a booking episode offers at this level (rooms and threads where it has them)."""
    spec = level_spec(level)
    who = ("person ids (p-...) or full names as search_people gives them" if spec.people_by_name
           else "person ids, e.g. p-3fa9c2")
    event = {"title": {"type": "string", "minLength": 1, "maxLength": 200, "description": "The meeting's title."},
             "start": _START,
             "end": {**_START, "description": "When it ends (YYYY-MM-DDTHH:MM); or give duration_minutes."},
             "duration_minutes": {"type": "integer", "minimum": 15, "maximum": 480,
                                  "description": "How long it lasts; or give end."},
             "attendees": {"type": "array", "items": {"type": "string", "maxLength": 80}, "minItems": 1,
                           "maxItems": 20, "description": f"Everyone who attends: {who}."}}
    if spec.rooms:
        event["room_id"] = {**_ROOM_ID, "description": "A room to reserve for it (optional; reserve_room later)."}
    with_room = " (and reserve a room with it, if given)" if spec.rooms else ""
    tools = [ToolSpec("create_event", f"Book a meeting on the attendees' calendars{with_room}. Returns the booking's id.",
                      {"type": "object", "properties": event, "required": ["title", "start", "attendees"]}),
             ToolSpec("cancel_event", "Cancel a meeting you booked in this conversation (it stays on the "
                                      "calendars as cancelled and frees its room).",
                      {"type": "object", "properties": {"event_id": _EVENT_ID}, "required": ["event_id"]})]
    if spec.rooms:
        tools.append(ToolSpec("reserve_room", "Reserve a room for a meeting you booked (its time).",
                              {"type": "object", "properties": {"event_id": _EVENT_ID, "room_id": _ROOM_ID},
                               "required": ["event_id", "room_id"]}))
    if spec.threads:
        tools.append(ToolSpec("post_message", "Post a message in a project thread, where everyone in it reads it.",
                              {"type": "object", "properties": {
                                  "thread_id": {"type": "string", "maxLength": 40,
                                                "description": "The thread's id (list_threads shows them)."},
                                  "text": {"type": "string", "minLength": 1, "maxLength": 2000,
                                           "description": "The message."}},
                               "required": ["thread_id", "text"]}))
    tools.append(ToolSpec(FINISH_TOOL, "End the task once the meeting is booked (and confirmed): the state you "
                                       "leave is the answer. A plain-text reply ends it too.",
                          {"type": "object", "properties": {}}))
    return tools


class Overlay:
    """One booking episode's writes, on the cursor of its `DataTools` (see the module docstring)."""

    def __init__(self, tools):
        self.con, self.world_id, self.now = tools.con, tools.world_id, tools.now
        tools.cache_key = None   # the tools read this episode's writes: no call is answered from CALL_CACHE
        self.level = tools.level
        (database,) = self.con.execute("select current_database()").fetchone()
        self.con.execute(_OVERLAY.format(db=f'"{database}"', author=AUTHOR))
        self.window = self.con.execute("select window_start, window_end + 1 from instances where instance_id = $i",
                                       {"i": tools.instance_id}).fetchone()
        self.specs = write_specs(self.level)
        self._schemas = {s.name: {**s.parameters, "additionalProperties": False} for s in self.specs}
        self.written = 0   # ids: bk-1, bk-2, ... and msg-1, ...
        self.final: dict = {"events": [], "messages": []}   # the state after the last write (readable once closed)

    def offers(self, name: object) -> bool:
        return name in self._schemas

    def run(self, name: str, arguments: str | dict | None) -> str:
        """Run one write; its text, or ToolError for a write the agent can fix."""
        args = arguments if isinstance(arguments, dict) else _json(arguments)
        try:
            jsonschema.validate(args, self._schemas[name])
        except jsonschema.ValidationError as e:
            raise ToolError(f"invalid arguments for {name}: {e.message}") from None
        try:
            text = getattr(self, name)(**args)
            self.final = self.state()
            return text
        except duckdb.Error as e:
            raise HarnessError(f"the write {name} failed: {type(e).__name__}: {str(e).splitlines()[0]}") from e

    def _q(self, sql: str, **binds) -> list[tuple]:
        binds = {"w": self.world_id, **binds}
        return self.con.execute(sql, {k: v for k, v in binds.items() if f"${k}" in sql}).fetchall()

    def create_event(self, title: str, start: str, attendees: list[str], end: str | None = None,
                     duration_minutes: int | None = None, room_id: str | None = None) -> str:
        starts = dt.datetime.strptime(start, TIME)
        if (end is None) == (duration_minutes is None):
            raise ToolError("give either end or duration_minutes")
        ends = dt.datetime.strptime(end, TIME) if end else starts + dt.timedelta(minutes=duration_minutes or 0)
        if ends <= starts:
            raise ToolError("the meeting must end after it starts")
        first, after_last = (dt.datetime.combine(d, dt.time()) for d in self.window)
        if starts < max(first, self.now) or ends > after_last:
            raise ToolError(f"{start} is outside the request's window ({first:%Y-%m-%d} to "
                            f"{after_last - dt.timedelta(days=1):%Y-%m-%d}, not before {self.now:{TIME}})")
        people = [self._person(a) for a in attendees]
        for event_id, s, e in self._q("select event_id, starts_at, ends_at from agent_events where status <> "
                                      "'cancelled' and starts_at < $e and ends_at > $s", s=starts, e=ends):
            raise ToolError(f"it overlaps your booking {event_id} ({s:{TIME}} to {e:{TIME}}); cancel that first")
        if room_id is not None:
            self._check_room(room_id, starts, ends)
        self.written += 1
        event_id = f"bk-{self.written}"
        self.con.execute("insert into agent_events values ($w, $id, $title, $s, $e, $room, 'confirmed')",
                         {"w": self.world_id, "id": event_id, "title": title, "s": starts, "e": ends, "room": room_id})
        self.con.execute("insert into agent_attendees select $id, unnest($people)",
                         {"id": event_id, "people": list(dict.fromkeys(people))})
        room = f", room {room_id}" if room_id else ""
        return (f"Booked {event_id}: {title!r}, {starts:{TIME}} to {ends:{TIME}}, attendees "
                f"{', '.join(dict.fromkeys(people))}{room}.")

    def reserve_room(self, event_id: str, room_id: str) -> str:
        starts, ends, _ = self._own(event_id)
        self._check_room(room_id, starts, ends, event_id)
        self.con.execute("update agent_events set room_id = $room where event_id = $id", {"room": room_id, "id": event_id})
        return f"Reserved room {room_id} for {event_id} ({starts:{TIME}} to {ends:{TIME}})."

    def cancel_event(self, event_id: str) -> str:
        self._own(event_id)
        self.con.execute("update agent_events set status = 'cancelled' where event_id = $id", {"id": event_id})
        return f"Cancelled {event_id}."

    def finish(self) -> str:
        events = [e for e in self.final["events"] if e["status"] != "cancelled"]
        return f"Finished with {len(events)} booking(s) and {len(self.final['messages'])} message(s)."

    def post_message(self, thread_id: str, text: str) -> str:
        if not self._q("select 1 from threads where world_id = $w and thread_id = $t", t=thread_id):
            raise ToolError(f"no thread has thread_id {thread_id!r}; list_threads shows a project's threads")
        self.written += 1
        message_id = f"msg-{self.written}"
        self.con.execute("insert into agent_messages values ($w, $id, $t, $ts, $text)",
                         {"w": self.world_id, "id": message_id, "t": thread_id, "ts": self.now, "text": text})
        return f"Posted {message_id} in {thread_id}."

    def _person(self, given: str) -> str:
        found = self._q("select person_id from people where world_id = $w and (person_id = $g or "
                        "lower(name) = lower(trim($g)))", g=given)
        if len(found) != 1:
            why = "is not unique" if found else "matches no person"
            raise ToolError(f"attendee {given!r} {why}; give person ids (search_people finds them)")
        return found[0][0]

    def _own(self, event_id: str) -> tuple[dt.datetime, dt.datetime, str]:
        found = self._q("select starts_at, ends_at, status from agent_events where event_id = $id", id=event_id)
        if not found or found[0][2] == "cancelled":
            raise ToolError(f"{event_id!r} is no live booking of yours; you may change only what you booked")
        return found[0]

    def _check_room(self, room_id: str, starts: dt.datetime, ends: dt.datetime, own: str = "") -> None:
        if not self._q("select 1 from rooms where world_id = $w and room_id = $r", r=room_id):
            raise ToolError(f"no room has room_id {room_id!r}; list_rooms shows them")
        taken = self._q("select starts_at, ends_at from room_bookings where world_id = $w and room_id = $r "
                        "and booking_id <> $own and starts_at < $e and ends_at > $s", r=room_id, s=starts, e=ends,
                        own=own)
        if taken:
            raise ToolError(f"room {room_id} is booked from {taken[0][0]:{TIME}} to {taken[0][1]:{TIME}}")

    def state(self) -> dict:
        """What the episode wrote: its bookings (with their attendees) and its messages."""
        events = self._q("select event_id, title, strftime(starts_at, '%Y-%m-%dT%H:%M'), "
                         "strftime(ends_at, '%Y-%m-%dT%H:%M'), room_id, status, "
                         "(select list(person_id order by person_id) from agent_attendees a where "
                         "a.event_id = e.event_id) from agent_events e order by event_id")
        messages = self._q("select message_id, thread_id, text from agent_messages order by message_id")
        keys = ("event_id", "title", "start", "end", "room_id", "status", "attendees")
        return {"events": [dict(zip(keys, row)) for row in events],
                "messages": [dict(zip(("message_id", "thread_id", "text"), row)) for row in messages]}


def booked_answer(state: dict) -> ParsedAnswer:
    """The live bookings as an answer (earliest first), so the grading views explain a wrong one as
    they explain a wrong candidate; the messages are its note, which the privacy track reads."""
    live = sorted((e for e in state["events"] if e["status"] != "cancelled"), key=lambda e: e["start"])
    candidates = tuple(Candidate(e["start"], e["room_id"], json.dumps({"start": e["start"], "room_id": e["room_id"]}),
                                 None) for e in live)
    note = "\n\n".join(m["text"] for m in state["messages"]) or None
    return ParsedAnswer(candidates, True, "book", None, note)


def _json(arguments: str | None) -> dict:
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        raise ToolError("the arguments are not JSON") from None
    if not isinstance(value, dict):
        raise ToolError("the arguments must be a JSON object")
    return value
