"""The `mock` provider: a scenario's world state and six sources without a model, deterministic
(the same scenario gives the same files, byte for byte) and schema-valid.

    >>> from mpcbench.legacy.archive import load_scenario
    >>> state = world_state(load_scenario("product_launch"))
    >>> state["sub_scenarios_expanded"][0]["events"][1]["timestamp"]
    '2025-06-03T11:05'
    >>> sorted(source(state, "jira")["projects"][0])
    ['key', 'lead_email', 'name']

It does what the generator prompts ask a model to do, literally: every beat becomes an event
at start_date + day, its gist is the text, and noise comes from a fixed list of workplace
chatter, round(noise_level * 10) threads chosen by a generator seeded with the scenario id.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

Beat = tuple[str, int, str, str, dict[str, Any]]   # source, day offset, time, text or title, extra details
NOISE: tuple[tuple[str, list[Beat]], ...] = (  # (summary, beats)
    ("Team lunch", [("slack", 0, "11:40", "Lunch at Cafe Mitte at 12:30 today, who is in?", {"channel": "general"})]),
    ("Office move", [("gmail", 1, "16:00", "Facilities: the 3rd floor moves to the 4th floor next Monday; please pack your desk by Friday 17:00.",
                      {"subject": "Office move next Monday"})]),
    ("Security training", [("calendar", 2, "15:00", "Security awareness training", {"duration_min": 30}),
                           ("gmail", 1, "09:05", "Reminder: the yearly security awareness training is mandatory for everyone.",
                            {"subject": "Security training reminder"})]),
    ("Routine bug", [("jira", 1, "10:10", "Typo in the settings page footer", {}),
                     ("slack", 1, "10:12", "Filed a small one: typo in the settings page footer.", {"channel": "general"})]),
    ("All-hands", [("calendar", 3, "16:00", "Company all-hands", {"duration_min": 45, "everyone": True})]),
    ("Laptop refresh", [("gmail", 2, "11:30", "IT: laptop refresh appointments are open; book a 20-minute slot at the IT desk.",
                         {"subject": "Laptop refresh appointments"})]),
    ("Expenses", [("gmail", 3, "08:45", "Finance: please submit last month's expenses by Friday.", {"subject": "Expense reports due"})]),
    ("Coffee chat", [("calendar", 4, "10:30", "Coffee chat", {"duration_min": 30})]),
    ("Meetup talk", [("slack", 2, "17:05", "Slides from my meetup talk on data contracts are in Drive.", {"channel": "general"}),
                     ("drive", 2, "17:00", "Meetup talk notes - data contracts", {})]),
    ("Onboarding", [("drive", 0, "09:30", "Onboarding checklist for new joiners", {}),
                    ("slack", 0, "09:35", "Updated the onboarding checklist; please review your team's section.", {"channel": "general"})]),
)
REPLIES = ("Thanks, noted.", "Got it, thanks!", "Makes sense to me.", "Sounds good.")
VENDORS = (("v01", "Kai Brandt", "kai.brandt@brandtvogel-pr.example", "Brandt & Vogel PR", "Account Director"),
           ("v02", "Mira Sato", "mira.sato@cloudpeak.example", "CloudPeak Hosting", "Support Engineer"))


def _at(settings: dict, day: int, time: str) -> str:
    start = dt.date.fromisoformat(settings["start_date"]) + dt.timedelta(days=day)
    return f"{start.isoformat()}T{time}"


def _plus(ts: str, minutes: int) -> str:
    return (dt.datetime.fromisoformat(ts) + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M")


def world_state(scenario: dict) -> dict:
    """The scenario expanded: concrete timestamps for every beat, and noise threads."""
    settings = scenario["global_settings"]
    subs = []
    for sub in scenario["sub_scenarios"]:
        events = []
        for i, beat in enumerate(sub["beats"], 1):
            details = {k: beat[k] for k in ("channel", "to", "cc", "subject", "thread", "issue", "status", "file") if k in beat}
            if "event" in beat:
                e = beat["event"]
                start = _at(settings, e["day"], e["start"])
                details["event"] = {"title": e["title"], "start": start, "end": _plus(start, e["duration_min"]),
                                    "attendees": e["attendees"], "location": e.get("location", ""),
                                    "status": e.get("status", "confirmed")}
            events.append({"event_id": f"{sub['id']}-{i}", "timestamp": _at(settings, beat["day"], beat["time"]),
                           "source": beat["source"], "actor": beat["actor"], "summary": beat["gist"], "details": details})
        subs.append({"id": sub["id"], "summary": sub["summary"], "participants": sub["participants"], "events": events})
    return {"scenario_id": scenario["scenario_id"], "title": scenario["title"], "global_settings": settings,
            "people": scenario["people"], "projects": scenario["projects"], "sub_scenarios_expanded": subs,
            "noise_scenarios": _noise(scenario)}


def _noise(scenario: dict) -> list[dict]:
    rng = random.Random(f"mock/{scenario['scenario_id']}")
    staff = [p["id"] for p in scenario["people"] if not p.get("external")]
    count = min(len(NOISE), round(scenario["noise_level"] * 10))
    days = scenario["global_settings"]["days"]
    out = []
    for n, index in enumerate(sorted(rng.sample(range(len(NOISE)), count)), 1):
        summary, beats = NOISE[index]
        people = rng.sample(staff, 2)
        shift = rng.randrange(max(days - 4, 1))
        events = []
        for i, (kind, day, time, text, extra) in enumerate(beats, 1):
            ts = _at(scenario["global_settings"], day + shift, time)
            details = {k: v for k, v in extra.items() if k in ("channel", "subject")}
            if kind == "calendar":
                attendees = staff if extra.get("everyone") else people
                details["event"] = {"title": text, "start": ts, "end": _plus(ts, extra["duration_min"]),
                                    "attendees": attendees, "location": "Main hall" if extra.get("everyone") else "",
                                    "status": "confirmed"}
            if kind == "gmail":
                details["to"] = [people[1]]
            if kind == "jira":
                details["issue"] = f"{scenario['projects'][0]['id']}-{900 + n}"
                details["new_issue"] = text
            if kind == "drive":
                details["file"] = f"doc-noise-{n}"
                details["name"] = text
            events.append({"event_id": f"noise-{n}-{i}", "timestamp": ts, "source": kind, "actor": people[0],
                           "summary": text, "details": details})
        out.append({"id": f"noise-{n}", "summary": summary, "participants": people, "events": events})
    return out


# --- sources ---------------------------------------------------------------------------------

def _events(state: dict, kind: str) -> list[dict]:
    found = [e for group in ("sub_scenarios_expanded", "noise_scenarios") for sub in state[group]
             for e in sub["events"] if e["source"] == kind]
    return sorted(found, key=lambda e: (e["timestamp"], e["event_id"]))


def _participants(state: dict) -> dict[str, list[str]]:
    return {e["event_id"]: sub["participants"] for group in ("sub_scenarios_expanded", "noise_scenarios")
            for sub in state[group] for e in sub["events"]}


def _first(name: str) -> str:
    return name.split()[0]


def source(state: dict, name: str) -> dict:
    """One source of a world state: slack, gmail, calendar, contacts, jira or drive."""
    return BUILDERS[name](state, {p["id"]: p for p in state["people"]})


def _slack(state: dict, people: dict) -> dict:
    staff = [p for p in state["people"] if not p.get("external")]
    names = ["general", *(p["slack_channel"] for p in state["projects"] if p.get("slack_channel"))]
    names += [e["details"].get("channel", "general") for e in _events(state, "slack")]
    channels = [{"id": f"C-{n}", "name": n, "topic": "", "members": [p["id"] for p in staff]} for n in dict.fromkeys(names)]
    messages, depth, who = [], state.get("depth", 2), _participants(state)
    for e in _events(state, "slack"):
        channel = f"C-{e['details'].get('channel', 'general')}"
        messages.append({"id": f"m-{e['event_id']}", "channel_id": channel, "user_id": e["actor"], "ts": e["timestamp"],
                         "text": e["summary"], "thread_id": None})
        others = [p for p in who[e["event_id"]] if p != e["actor"] and not people[p].get("external")]
        for k in range(1, min(depth, len(others) + 1)):
            messages.append({"id": f"m-{e['event_id']}-r{k}", "channel_id": channel, "user_id": others[k - 1],
                             "ts": _plus(e["timestamp"], 5 * k), "text": REPLIES[(len(messages) + k) % len(REPLIES)],
                             "thread_id": f"m-{e['event_id']}"})
    return {"workspace_name": state["global_settings"]["slack_workspace"],
            "users": [{"id": p["id"], "name": p["name"], "email": p["email"], "title": p["role"]} for p in staff],
            "channels": channels, "messages": messages}


def _gmail(state: dict, people: dict) -> dict:
    threads: dict[str, dict] = {}
    who = _participants(state)
    for e in _events(state, "gmail"):
        d = e["details"]
        to = d.get("to") or [p for p in who[e["event_id"]] if p != e["actor"]][:1]
        thread = threads.setdefault(d.get("thread", f"th-{e['event_id']}"),
                                    {"id": d.get("thread", f"th-{e['event_id']}"), "subject": d.get("subject", e["summary"][:60]),
                                     "labels": ["inbox"], "messages": []})
        greeting = ", ".join(_first(people[p]["name"]) for p in to)
        thread["messages"].append({"id": f"g-{e['event_id']}", "from": people[e["actor"]]["email"],
                                   "to": [people[p]["email"] for p in to], "cc": [people[p]["email"] for p in d.get("cc", [])],
                                   "date": e["timestamp"],
                                   "body": f"Hi {greeting},\n\n{e['summary']}\n\nBest,\n{_first(people[e['actor']]['name'])}"})
    return {"threads": list(threads.values())}


def _calendar(state: dict, people: dict) -> dict:
    settings = state["global_settings"]
    staff = [p for p in state["people"] if not p.get("external")]
    events = []
    for e in _events(state, "calendar"):
        spec = e["details"]["event"]
        events.append({"id": f"ev-{e['event_id']}", "calendar_id": f"cal-{e['actor']}", "title": spec["title"],
                       "start": spec["start"], "end": spec["end"], "organizer_email": people[e["actor"]]["email"],
                       "attendees": [people[p]["email"] for p in spec["attendees"]], "location": spec.get("location", ""),
                       "description": e["summary"], "status": spec.get("status", "confirmed")})
    first = dt.date.fromisoformat(settings["start_date"])
    for project in state["projects"] if state["noise_scenarios"] else []:
        for day in (first + dt.timedelta(days=i) for i in range(settings["days"])):
            if day.weekday() < 5:
                start = f"{day.isoformat()}T09:30"
                events.append({"id": f"ev-standup-{project['id']}-{day.isoformat()}", "calendar_id": f"cal-{project['owner']}",
                               "title": f"{project['name']} standup", "start": start, "end": _plus(start, 15),
                               "organizer_email": people[project["owner"]]["email"],
                               "attendees": [people[project["owner"]]["email"]], "location": "Video call",
                               "description": "Daily standup.", "status": "confirmed"})
    return {"calendars": [{"id": f"cal-{p['id']}", "owner_email": p["email"], "name": p["name"],
                           "timezone": settings["timezone"]} for p in staff],
            "events": sorted(events, key=lambda e: (e["start"], e["id"]))}


def _contacts(state: dict, people: dict) -> dict:
    company = state["global_settings"]["company"]
    contacts = [{"id": f"ct-{p['id']}", "name": p["name"], "email": p["email"], "phone": p.get("phone", ""),
                 "company": p.get("company", company), "team": p["team"], "title": p["role"]} for p in state["people"]]
    contacts += [{"id": f"ct-{i}", "name": n, "email": e, "phone": "", "company": c, "team": "External", "title": t}
                 for i, n, e, c, t in VENDORS]
    return {"contacts": contacts}


def _jira(state: dict, people: dict) -> dict:
    start = f"{state['global_settings']['start_date']}T09:00"
    issues, by_key = [], {}
    for project in state["projects"]:
        for seed in project["jira_seeds"]:
            assignee = people[seed["assignee"]]
            issue = {"key": seed["key"], "project_key": project["id"], "summary": seed["summary"],
                     "description": f"Part of {project['name']}: {seed['summary']}.", "status": seed["status"],
                     "priority": seed["priority"], "assignee_email": assignee["email"], "assignee_name": assignee["name"],
                     "reporter_email": people[project["owner"]]["email"], "created": start, "updated": start,
                     "due_date": seed.get("due"), "labels": [project["id"].lower()], "comments": []}
            issues.append(issue)
            by_key[seed["key"]] = issue
    for e in _events(state, "jira"):
        d = e["details"]
        if d.get("new_issue") and d["issue"] not in by_key:
            actor = people[e["actor"]]
            by_key[d["issue"]] = {"key": d["issue"], "project_key": d["issue"].split("-")[0], "summary": d["new_issue"],
                                  "description": d["new_issue"] + ".", "status": "To Do", "priority": "Low",
                                  "assignee_email": None, "assignee_name": None, "reporter_email": actor["email"],
                                  "created": e["timestamp"], "updated": e["timestamp"], "due_date": None,
                                  "labels": ["noise"], "comments": []}
            issues.append(by_key[d["issue"]])
        elif d.get("issue") in by_key:
            issue = by_key[d["issue"]]
            issue["comments"].append({"author_email": people[e["actor"]]["email"], "created": e["timestamp"], "body": e["summary"]})
            issue["updated"] = e["timestamp"]
            issue["status"] = d.get("status", issue["status"])
    return {"projects": [{"key": p["id"], "name": p["name"], "lead_email": people[p["owner"]]["email"]}
                         for p in state["projects"]], "issues": issues}


def _drive(state: dict, people: dict) -> dict:
    start = f"{state['global_settings']['start_date']}T09:00"
    files = {}
    for project in state["projects"]:
        for doc in project["documents"]:
            files[doc["id"]] = {"id": doc["id"], "name": doc["name"], "mimeType": "text/markdown",
                                "owner_email": people[doc["owner"]]["email"], "modifiedTime": start,
                                "content": f"# {doc['name']}\n\n" + "\n\n".join(f"- {line}" for line in doc["outline"])}
    for e in _events(state, "drive"):
        d = e["details"]
        if d.get("file") in files:
            f = files[d["file"]]
            f["content"] += f"\n\n## Update {e['timestamp'].replace('T', ' ')}\n\n{e['summary']}"
            f["modifiedTime"] = e["timestamp"]
        elif d.get("file"):
            files[d["file"]] = {"id": d["file"], "name": d.get("name", e["summary"][:60]), "mimeType": "text/plain",
                                "owner_email": people[e["actor"]]["email"], "modifiedTime": e["timestamp"],
                                "content": e["summary"]}
    return {"files": list(files.values())}


BUILDERS = {"slack": _slack, "gmail": _gmail, "calendar": _calendar, "contacts": _contacts, "jira": _jira, "drive": _drive}
