"""Tiny hand-written worlds, one per edge case of docs/semantics.md (time and constraints), each with its answer
worked out by hand from the spec (never computed by either oracle).

Unless a case says otherwise: Monday 2026-03-02, policy POL-A = working hours 09:00-11:00,
participants p1 and p2, a 30-minute meeting, so the bare grid is the seven starts
09:00 09:15 09:30 09:45 10:00 10:15 10:30. `expected` lists every feasible start, ranked (and
its room at level 3); the instance asks for n = len(expected) unless the case sets n.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DAY = "2026-03-02"          # a Monday
PEOPLE = [
    {"person_id": "p1", "name": "Ada Lovelace", "email": "ada@example.com", "team": "Core", "title": "Engineer"},
    {"person_id": "p2", "name": "Alan Turing", "email": "alan@example.com", "team": "Core", "title": "Lead"},
    {"person_id": "p3", "name": "Grace Hopper", "email": "grace@example.com", "team": "Ops", "title": "Manager"},
    {"person_id": "p4", "name": "Edsger Dijkstra", "email": "ed@example.com", "team": "Ops", "title": "Engineer"},
]
NAMES = {p["person_id"]: p["name"] for p in PEOPLE}


def at(hhmm: str, day: str = DAY) -> str:
    return f"{day}T{hhmm}"


def event(event_id, person_id, start, end, status="confirmed", day=DAY):
    start = start if "T" in start else at(start, day)
    end = end if "T" in end else at(end, day)
    return {"event_id": event_id, "person_id": person_id, "start": start, "end": end,
            "status": status, "title": "Busy"}


def policy(policy_id, *rules):
    return {"policy_id": policy_id, "name": f"Policy {policy_id}",
            "rules": [{"rule_id": f"{policy_id}.{kind}", "type": kind, "params": params}
                      for kind, params in rules]}


def hours(start="09:00", end="11:00", days=("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")):
    """Working hours; every day a working day unless `days` says otherwise."""
    return ("working_hours", {"start": start, "end": end, "days": list(days)})


def message(message_id, ts, *tags, author_id="p1"):
    return {"message_id": message_id, "author_id": author_id, "ts": ts, "text": "(tagged message)",
            "tags": [{"type": kind, "params": params} for kind, params in tags]}


def series(series_id, person_id, start, end, every_days, occurrences, *exceptions, status="confirmed"):
    """Level 4: a recurring event; exceptions are ("cancelled", original) or ("moved", original, start, end)."""
    return {"series_id": series_id, "person_id": person_id, "start": start, "end": end,
            "every_days": every_days, "occurrences": occurrences, "status": status, "title": "Weekly",
            "exceptions": [{"original_start": x[1], "action": x[0], "start": x[2] if len(x) > 2 else None,
                            "end": x[3] if len(x) > 2 else None} for x in exceptions]}


def thread(thread_id, project_id, *messages):
    return {"thread_id": thread_id, "project_id": project_id, "channel": "#planning",
            "title": "Planning", "messages": list(messages)}


def room(room_id, capacity, features=(), building="North"):
    return {"room_id": room_id, "name": f"Room {room_id}", "building": building, "floor": 1,
            "capacity": capacity, "features": list(features)}


def booking(room_id, start, end, day=DAY):
    return {"room_id": room_id, "start": at(start, day), "end": at(end, day)}


def requirement_thread(project_id, requirements: dict, level: int = 3) -> dict:
    """Level-3 requirement tags that resolve to exactly `requirements` (so worlds are consistent);
    at level 4 the first names the owner, Ada Lovelace (p1), who writes them all."""
    tags = [("owner", {"person_name": NAMES["p1"]})] if level == 4 else []
    tags += [
        ("participants", {"people": [NAMES[p] for p in requirements["participants"]]}),
        ("duration", {"minutes": requirements["duration_min"]}),
        ("count", {"n": requirements["n"]}),
        ("policy", {"policy_id": requirements["policy_id"]}),
        ("tie_break", {"rule": requirements["tie_break"]}),
    ]
    if requirements["room"] is not None:
        room_tag = {k: v for k, v in requirements["room"].items() if v not in (None, [])}
        tags.append(("room", room_tag))
    return thread(f"{project_id}-req", project_id,
                  *[message(f"{project_id}-r{i:02d}", f"2026-02-20T{9 + i:02d}:00", tag)
                    for i, tag in enumerate(tags)])


@dataclass
class Case:
    name: str
    level: int = 1
    events: list = field(default_factory=list)
    policies: list = field(default_factory=lambda: [policy("POL-A", hours())])
    policy_id: str = "POL-A"
    participants: tuple = ("p1", "p2")
    duration_min: int = 30
    window: tuple = (DAY, DAY)
    now: str = "2026-02-25T08:00"
    threads: list = field(default_factory=list)       # the instance's project is PRJ-1
    extra_projects: tuple = ()
    rooms: list = field(default_factory=list)
    bookings: list = field(default_factory=list)
    tie_break: str = "room_id"
    room_needs: dict | None = None
    expected: list = field(default_factory=list)      # [(start, room_id or None)], ranked
    n: int | None = None
    necessity: dict | None = None                     # hand-worked necessity, where given
    zones: dict = field(default_factory=dict)         # level 4: person_id -> (timezone, start, end)
    series: list = field(default_factory=list)        # level 4

    @property
    def requirements(self) -> dict:
        return {"participants": list(self.participants), "duration_min": self.duration_min,
                "n": self.n if self.n is not None else len(self.expected),
                "policy_id": self.policy_id,
                "tie_break": self.tie_break if self.level >= 3 else None,
                "room": self.room_needs if self.level >= 3 else None}

    def world(self) -> dict:
        w = {"world_id": f"golden-{self.name}", "level": self.level, "seed": 0,
             "timezone": "Europe/Berlin", "people": PEOPLE, "events": self.events,
             "policies": self.policies}
        if self.level == 4:   # everyone works around the clock in Berlin unless the case says otherwise
            w["people"] = [{**p, "timezone": self.zones.get(p["person_id"], ("Europe/Berlin",))[0],
                            "working_hours": dict(zip(("start", "end"), self.zones.get(p["person_id"],
                                                                                       (None, "00:00", "23:59"))[1:]))}
                           for p in PEOPLE]
            w["series"] = self.series
        if self.level >= 2:
            threads = list(self.threads)
            if self.level >= 3:
                threads.append(requirement_thread("PRJ-1", self.requirements, self.level))
            w["policy_docs"] = [{"doc_id": "doc-1", "title": "Handbook", "text": "(rules)"}]
            w["projects"] = [{"project_id": p, "name": f"Project {p}"}
                             for p in ("PRJ-1", *self.extra_projects)]
            w["threads"] = threads
        if self.level >= 3:
            w["rooms"] = self.rooms
            w["room_bookings"] = self.bookings
        return w

    def instance(self) -> dict:
        req = self.requirements
        given = {} if self.level >= 3 else {
            k: req[k] for k in ("participants", "duration_min", "n", "policy_id")}
        return {"instance_id": f"G-{self.name}", "level": self.level,
                "world_id": f"golden-{self.name}", "prompt": "(golden)", "now": self.now,
                "window": {"start": self.window[0], "end": self.window[1]}, "given": given,
                "project_id": None if self.level == 1 else "PRJ-1", "requirements": req}


def starts(*hhmms: str, day: str = DAY, room_id: str | None = None) -> list:
    return [(at(h, day) if "T" not in h else h, room_id) for h in hhmms]


ALL = ("09:00", "09:15", "09:30", "09:45", "10:00", "10:15", "10:30")

CASES = [
    # An event ending exactly at a start does not block it; one starting exactly at an end neither.
    Case("touching_intervals",
         events=[event("e1", "p1", "09:00", "09:30"), event("e2", "p2", "10:30", "11:00")],
         expected=starts("09:30", "09:45", "10:00"),
         necessity={"calendar": True, "policy": False}),
    # 10:05-10:50 kills every 30-minute start from 09:45 ([09:45, 10:15) overlaps) to 10:30.
    Case("odd_minute_event",
         events=[event("e1", "p2", "10:05", "10:50")],
         expected=starts("09:00", "09:15", "09:30")),
    # Working hours 08:50-10:10: first grid start 09:00, last 09:30 (ends 10:00; 09:45 ends 10:15).
    Case("working_hours_off_grid",
         policies=[policy("POL-A", hours("08:50", "10:10"))],
         expected=starts("09:00", "09:15", "09:30")),
    # Working hours are inclusive at both ends: a meeting may end exactly at the closing time.
    Case("working_hours_end_inclusive",
         policies=[policy("POL-A", hours("09:00", "10:00"))], duration_min=60,
         expected=starts("09:00")),
    # A policy's working days: the weekend before a Monday is closed under Mon-Fri.
    Case("working_days_close_the_weekend",
         policies=[policy("POL-A", hours(days=("Mon", "Tue", "Wed", "Thu", "Fri")))],
         window=("2026-02-28", DAY),
         expected=starts("09:00", "09:15", "09:30", "09:45", "10:00", "10:15", "10:30")),
    # Nothing starts before the request was sent, even with no minimum notice: now 09:20.
    Case("nothing_before_now",
         now=at("09:20"),
         expected=starts("09:30", "09:45", "10:00", "10:15", "10:30")),
    # Tentative blocks, cancelled does not, a non-participant's event is irrelevant.
    Case("tentative_blocks_cancelled_not",
         events=[event("e1", "p1", "09:00", "09:30", "tentative"),
                 event("e2", "p2", "10:00", "11:00", "cancelled"),
                 event("e3", "p3", "09:30", "11:00", "confirmed")],
         expected=starts("09:30", "09:45", "10:00", "10:15", "10:30")),
    # A multi-day event from the day before blocks the morning; one for the next day does not.
    Case("event_across_midnight",
         events=[event("e1", "p1", "2026-03-01T22:00", "2026-03-02T09:45"),
                 event("e2", "p2", "2026-03-02T10:45", "2026-03-03T02:00")],
         expected=starts("09:45", "10:00", "10:15")),
    # Buffer 15: a gap of exactly 15 minutes on either side is fine (09:30 after an event ending
    # 09:15; 10:00 ends 10:30, 15 minutes before 10:45); 09:15 and 10:15 are too close.
    Case("buffer_edge",
         policies=[policy("POL-A", hours(), ("buffer", {"minutes": 15}))],
         events=[event("e1", "p1", "09:00", "09:15"), event("e2", "p2", "10:45", "11:30")],
         expected=starts("09:30", "09:45", "10:00"),
         necessity={"calendar": True, "policy": True}),
    # Buffer 10 around an odd-minute event 09:50-10:05: [s-10, s+40) must miss it.
    # 09:00 -> [08:50, 09:40) ok; 09:15 -> [09:05, 09:55) hits; ... 10:15 -> [10:05, 10:55) ok.
    Case("buffer_odd_minutes",
         policies=[policy("POL-A", hours(), ("buffer", {"minutes": 10}))],
         events=[event("e1", "p2", "09:50", "10:05")],
         expected=starts("09:00", "10:15", "10:30")),
    # Buffer sees only blocking events of participants.
    Case("buffer_ignores_cancelled_and_others",
         policies=[policy("POL-A", hours(), ("buffer", {"minutes": 30}))],
         events=[event("e1", "p1", "09:40", "09:50", "cancelled"),
                 event("e2", "p3", "09:40", "09:50", "confirmed")],
         expected=starts(*ALL)),
    # min_notice 2h with now 07:40 on the first day: start >= 09:40.
    Case("min_notice_inside_window",
         policies=[policy("POL-A", hours(), ("min_notice", {"hours": 2}))],
         now=at("07:40"),
         expected=starts("09:45", "10:00", "10:15", "10:30"),
         necessity={"calendar": False, "policy": True}),
    # min_notice exactly met: now 07:00 + 2h = 09:00 is allowed.
    Case("min_notice_exact",
         policies=[policy("POL-A", hours(), ("min_notice", {"hours": 2}))],
         now=at("07:00"),
         expected=starts(*ALL)),
    # max 2 meetings: p1 has 2 blocking events starting Tue (one tentative, both outside working
    # hours) -> Tue is out. Mon: p2 has one confirmed (07:00), one cancelled and one that started
    # on Sunday -> 1 < 2, Mon stays. Events outside the window days still count for their day.
    # p1's 08:30-09:00 and 09:30-10:00 are 60 minutes apart; 09:00 would fill the gap and join
    # them into a 90-minute run; 10:00 makes a run of exactly 60 (allowed); 10:15 touches p2's
    # 10:45 event (75 minutes). The cancelled event would chain 10:00 to 11:00 if it counted;
    # p3 is no participant.
    Case("max_consecutive_minutes",
         policies=[policy("POL-A", hours(), ("max_consecutive_minutes", {"minutes": 60}))],
         events=[event("e1", "p1", "08:30", "09:00"), event("e2", "p1", "09:30", "10:00"),
                 event("e3", "p1", "10:30", "11:00", status="cancelled"),
                 event("e4", "p2", "10:45", "11:30", status="tentative"),
                 event("e5", "p3", "10:30", "11:00")],
         expected=[(at("10:00"), None)]),
    # A meeting exactly as long as the cap is allowed alone; touching p2's 10:15 event pushes
    # 09:30 over it (09:30-10:30, 60 minutes); later starts overlap the event.
    Case("max_consecutive_minutes_at_the_cap",
         policies=[policy("POL-A", hours(), ("max_consecutive_minutes", {"minutes": 45}))],
         duration_min=45,
         events=[event("e1", "p2", "10:15", "10:30")],
         expected=[(at("09:00"), None), (at("09:15"), None)]),
    # A meeting longer than the cap breaks it on its own, with an empty calendar: nothing is feasible.
    Case("max_consecutive_minutes_longer_meeting",
         policies=[policy("POL-A", hours(), ("max_consecutive_minutes", {"minutes": 45}))],
         duration_min=60, n=1, expected=[]),
    Case("max_meetings_per_day",
         policies=[policy("POL-A", hours(), ("max_meetings_per_day", {"count": 2}))],
         window=("2026-03-02", "2026-03-03"),
         events=[event("e1", "p1", "07:00", "07:30", day="2026-03-03"),
                 event("e2", "p1", "18:00", "18:30", "tentative", day="2026-03-03"),
                 event("e3", "p2", "07:00", "07:30"),
                 event("e4", "p2", "09:00", "09:30", "cancelled"),
                 event("e5", "p2", "2026-03-01T23:00", "2026-03-02T00:30"),
                 event("e6", "p3", "07:00", "07:30"),
                 event("e7", "p3", "08:00", "08:30")],
         expected=starts(*ALL), n=3,
         necessity={"calendar": False, "policy": False}),
    Case("max_meetings_count_not_reached",
         policies=[policy("POL-A", hours(), ("max_meetings_per_day", {"count": 3}))],
         window=("2026-03-03", "2026-03-03"),
         events=[event("e1", "p1", "07:00", "07:30", day="2026-03-03"),
                 event("e2", "p1", "18:00", "18:30", "tentative", day="2026-03-03")],
         expected=starts(*ALL, day="2026-03-03")),
    # no meetings on Tuesdays, window Mon-Wed, working hours 09:00-10:00.
    Case("no_meeting_weekdays",
         policies=[policy("POL-A", hours("09:00", "10:00"), ("no_meeting_weekdays", {"weekdays": ["Tue"]}))],
         window=("2026-03-02", "2026-03-04"),
         expected=starts("09:00", "09:15", "09:30") + starts("09:00", "09:15", "09:30", day="2026-03-04"),
         n=4),
    # blackout 09:50-10:20: 09:30 [09:30, 10:00) overlaps, 10:15 overlaps, 10:30 ok.
    Case("blackout",
         policies=[policy("POL-A", hours(), ("blackout", {"start": "09:50", "end": "10:20"}))],
         expected=starts("09:00", "09:15", "10:30")),
    # Blackout touching: 09:30-10:00 leaves 09:00 (ends 09:30) and 10:00.
    Case("blackout_touching",
         policies=[policy("POL-A", hours(), ("blackout", {"start": "09:30", "end": "10:00"}))],
         expected=starts("09:00", "10:00", "10:15", "10:30")),
    # The rules of a policy the instance does not use are noise.
    Case("noise_policy_ignored",
         policies=[policy("POL-A", hours()),
                   policy("POL-NOISE", hours("09:00", "09:30"),
                          ("blackout", {"start": "09:00", "end": "11:00"}),
                          ("no_meeting_weekdays", {"weekdays": ["Mon"]}),
                          ("min_notice", {"hours": 500}),
                          ("buffer", {"minutes": 60}),
                          ("max_meetings_per_day", {"count": 1}))],
         events=[event("e1", "p1", "07:00", "07:30")],
         expected=starts(*ALL)),
    # Level 2: deadline equal to the end is allowed.
    Case("deadline_equal_end", level=2,
         threads=[thread("t1", "PRJ-1", message("m1", "2026-02-20T10:00",
                                                ("deadline", {"end_by": at("10:00")})))],
         expected=starts("09:00", "09:15", "09:30"),
         # the deadline removes only starts after the first N: threads do not matter here
         necessity={"calendar": False, "policy": False, "threads": False}),
    # Level 2: ban 09:40-10:15 (off grid).
    Case("ban", level=2,
         threads=[thread("t1", "PRJ-1", message("m1", "2026-02-20T10:00",
                                                ("ban", {"start": at("09:40"), "end": at("10:15")})))],
         expected=starts("09:00", "10:15", "10:30")),
    # Level 2: ooo of a participant blocks (and gets no buffer); ooo of a non-participant does not.
    Case("ooo_participant_vs_not", level=2,
         policies=[policy("POL-A", hours(), ("buffer", {"minutes": 30}))],
         threads=[thread("t1", "PRJ-1",
                         message("m1", "2026-02-20T10:00",
                                 ("ooo", {"person_id": "p1", "start": at("09:00"), "end": at("09:45")})),
                         message("m2", "2026-02-20T11:00",
                                 ("ooo", {"person_id": "p3", "start": at("10:00"), "end": at("11:00")})))],
         expected=starts("09:45", "10:00", "10:15", "10:30"),
         necessity={"calendar": False, "policy": False, "threads": True}),
    # Several bans and deadlines all apply (they are not "latest wins").
    Case("all_constraint_tags_apply", level=2,
         threads=[thread("t1", "PRJ-1",
                         message("m1", "2026-02-20T10:00",
                                 ("ban", {"start": at("09:00"), "end": at("09:20")})),
                         message("m2", "2026-02-21T10:00",
                                 ("ban", {"start": at("09:55"), "end": at("10:05")}),
                                 ("deadline", {"end_by": at("10:50")})),
                         message("m3", "2026-02-22T10:00",
                                 ("deadline", {"end_by": at("11:00")})))],
         # ban 1 kills 09:00 and 09:15 (09:15 < 09:20); ban 2 kills 09:30 (ends 10:00 > 09:55),
         # 09:45 and 10:00 (10:00 < 10:05); deadline 10:50 kills 10:30 (ends 11:00).
         expected=starts("10:15")),
    # Another project's ban/deadline/ooo do not apply.
    Case("other_project_tags_ignored", level=2, extra_projects=("PRJ-2",),
         threads=[thread("t1", "PRJ-1", message("m1", "2026-02-20T10:00")),
                  thread("t2", "PRJ-2",
                         message("m2", "2026-02-20T11:00",
                                 ("ban", {"start": at("00:00"), "end": at("23:00")}),
                                 ("deadline", {"end_by": at("08:00")}),
                                 ("ooo", {"person_id": "p1", "start": at("00:00"), "end": at("23:00")})))],
         expected=starts(*ALL),
         necessity={"calendar": False, "policy": False, "threads": False}),
    # Level 3: rooms R-1 (10 seats), R-2 (4), R-3 (6), R-4 (6); R-2 booked 09:00-09:30.
    # Working hours 09:00-10:00. room_id tie-break: R-1 everywhere.
    Case("room_tie_break_room_id", level=3,
         policies=[policy("POL-A", hours("09:00", "10:00"))],
         rooms=[room("R-4", 6), room("R-1", 10), room("R-3", 6), room("R-2", 4)],
         bookings=[booking("R-2", "09:00", "09:30")],
         expected=starts("09:00", "09:15", "09:30", room_id="R-1"),
         necessity={"calendar": False, "policy": False, "threads": False, "rooms": False}),
    # Same rooms, capacity tie-break: least capacity, then least room_id (R-3 before R-4).
    Case("room_tie_break_capacity", level=3, tie_break="capacity",
         policies=[policy("POL-A", hours("09:00", "10:00"))],
         rooms=[room("R-4", 6), room("R-1", 10), room("R-3", 6), room("R-2", 4)],
         bookings=[booking("R-2", "09:00", "09:30")],
         expected=[(at("09:00"), "R-3"), (at("09:15"), "R-3"), (at("09:30"), "R-2")]),
    # Needs: >= 4 seats (2 participants), video, building North. N-2 too small, N-3 lacks video,
    # S-1 in the wrong building; N-1 booked 09:00-09:45, N-4 booked 09:10-09:20.
    # 09:00, 09:15: no fitting room; 09:30: N-4; 09:45 onwards N-1 (touching its booking).
    Case("no_fitting_room", level=3,
         policies=[policy("POL-A", hours("09:00", "10:30"))],
         room_needs={"min_capacity": 4, "features": ["video"], "building": "North"},
         rooms=[room("N-1", 8, ["video", "whiteboard"]), room("N-2", 3, ["video"]),
                room("N-3", 10, ["whiteboard"]), room("S-1", 10, ["video"], "South"),
                room("N-4", 6, ["video"])],
         bookings=[booking("N-1", "09:00", "09:45"), booking("N-4", "09:10", "09:20")],
         expected=[(at("09:30"), "N-4"), (at("09:45"), "N-1"), (at("10:00"), "N-1")],
         necessity={"calendar": False, "policy": False, "threads": False, "rooms": True}),
    # No room needs stated: a room still needs a seat per participant (3 here): R-1 (2 seats)
    # never fits, R-2 (3 seats) does; R-2 booked 09:15-09:30 leaves only 09:30 (touching).
    Case("room_seats_for_participants", level=3, participants=("p1", "p2", "p3"),
         policies=[policy("POL-A", hours("09:00", "10:00"))],
         rooms=[room("R-1", 2), room("R-2", 3, building="South")],
         bookings=[booking("R-2", "09:15", "09:30")],
         expected=[(at("09:30"), "R-2")]),
    # min_capacity below the number of participants: the participants decide (4 > 2).
    Case("room_min_capacity_below_participants", level=3, participants=("p1", "p2", "p3", "p4"),
         room_needs={"min_capacity": 2, "features": [], "building": None},
         policies=[policy("POL-A", hours("09:00", "09:30"))],
         rooms=[room("R-1", 3), room("R-2", 4)],
         expected=[(at("09:00"), "R-2")]),
    # Level 3: ooo names a person by full name (resolved through the directory); a stale
    # duration tag (90) is superseded by the requirements' 30; other tags apply as at level 2.
    Case("level3_ooo_by_name_and_stale_tags", level=3,
         policies=[policy("POL-A", hours())],
         rooms=[room("R-1", 10)],
         threads=[thread("t1", "PRJ-1",
                         message("m1", "2026-02-19T09:00", ("duration", {"minutes": 90})),
                         message("m2", "2026-02-19T10:00",
                                 ("ooo", {"person_name": "Alan Turing", "start": at("10:00"), "end": at("10:20")})),
                         message("m3", "2026-02-19T11:00",
                                 ("ooo", {"person_name": "Grace Hopper", "start": at("09:00"), "end": at("11:00")})))],
         expected=starts("09:00", "09:15", "09:30", "10:30", room_id="R-1")),
    # Level 4, participant_hours: Ada works 13:40-23:00 in Kolkata (4h30 ahead of Berlin in March:
    # 09:10-18:30 Berlin), Alan 08:15-09:45 in London (an hour behind: 09:15-10:45 Berlin). A
    # 30-minute meeting: 09:00 starts at 13:30 for Ada (too early); 10:30 ends 10:00 London, after
    # Alan's 09:45 end of work; 09:15-10:15 fit both. Without the calendar every start is back.
    Case("participant_hours_own_zones", level=4,
         zones={"p1": ("Asia/Kolkata", "13:40", "23:00"), "p2": ("Europe/London", "08:15", "09:45")},
         rooms=[room("R-1", 10)],
         expected=starts("09:15", "09:30", "09:45", "10:00", "10:15", room_id="R-1"),
         necessity={"calendar": True, "policy": False, "threads": False, "rooms": False}),
    # Level 4, recurring events: Ada's weekly 09:00-09:30 (from 02-23) has its 03-02 occurrence
    # cancelled; Alan's weekly 10:00-10:30 (from 02-16) has its 03-02 occurrence moved to
    # 09:30-10:00 (kills 09:15, 09:30, 09:45); Ada's tentative one-off series at 10:30-11:00 kills
    # 10:15 and 10:30. Left: 09:00 and 10:00 (touching the moved occurrence and the series).
    Case("series_cancelled_and_moved", level=4,
         series=[series("s1", "p1", "2026-02-23T09:00", "2026-02-23T09:30", 7, 3, ("cancelled", at("09:00"))),
                 series("s2", "p2", "2026-02-16T10:00", "2026-02-16T10:30", 7, 3,
                        ("moved", at("10:00"), at("09:30"), at("10:00"))),
                 series("s3", "p1", at("10:30"), at("11:00"), 7, 1, status="tentative"),
                 series("s4", "p2", at("09:00"), at("10:00"), 7, 2, status="cancelled")],
         rooms=[room("R-1", 10)],
         expected=starts("09:00", "10:00", room_id="R-1"),
         necessity={"calendar": True, "policy": False, "threads": False, "rooms": False}),
    # Ranking across days and truncation to N: earliest first, first N only.
    Case("ranking_truncated", window=("2026-03-02", "2026-03-03"),
         policies=[policy("POL-A", hours("09:00", "09:45"))],
         events=[event("e1", "p1", "09:00", "09:15", day="2026-03-03")],
         expected=starts("09:00", "09:15") + starts("09:15", day="2026-03-03"), n=2),
]

BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES), "duplicate golden case names"
