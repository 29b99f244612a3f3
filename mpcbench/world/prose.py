"""Workplace prose around the facts: names, chatter, handbook text, prompts.

Only text lives here; every fact an agent needs is also a tag (see tags.py) rendered from rows.
At levels 1-3 the tag is written into the text; at level 4 it is not (`untagged`): the prose
alone states the fact, and the tag stays in the hidden message_tags table.
Each function takes the random generator it draws from, so output is a function of the seed.
"""

from __future__ import annotations

import datetime as dt
import random

FIRST_NAMES = (
    "Ana", "Ben", "Chloe", "Daniel", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kira",
    "Liam", "Maya", "Noah", "Olga", "Priya", "Quentin", "Rosa", "Sami", "Tomas", "Uma", "Victor",
    "Wen", "Yara", "Zoe", "Marco", "Lena", "Omar", "Sofia", "Arjun", "Nadia", "Felix", "Ivy",
    "Jamal", "Keiko", "Lucas", "Mei", "Nikolai", "Paula", "Rafael",
)
SHARED_FIRST_NAMES = FIRST_NAMES[:12]
LAST_NAMES = (
    "Lima", "Chen", "Novak", "Okafor", "Schmidt", "Haddad", "Park", "Tanaka", "Costa", "Berg",
    "Ivanova", "Murphy", "Patel", "Rossi", "Kowalski", "Nguyen", "Silva", "Fischer", "Ahmed",
    "Larsen", "Moreau", "Yilmaz", "Dubois", "Sato", "Jansen", "Alvarez", "Brennan", "Ferreira",
    "Hoffmann", "Kim", "Lindqvist", "Mensah", "Oliveira", "Petrov", "Quinn", "Reyes", "Sandoval",
    "Takahashi", "Varga", "Weber", "Zhang", "Abbott", "Bauer", "Castillo", "Dahl", "Eriksen",
)
TEAMS = ("Platform", "Payments", "Growth", "Data", "Design", "Support", "Sales", "Research",
         "Operations", "Security")
TITLES = ("Software Engineer", "Senior Engineer", "Staff Engineer", "Product Manager",
          "Designer", "Data Analyst", "Engineering Manager", "Account Executive",
          "Support Lead", "Research Scientist", "Program Manager", "SRE")
# Work titles and neutral personal blocks: a private title is a sensitive item (world/privacy.py).
EVENT_TITLES = (
    "1:1", "Standup", "Sprint planning", "Design review", "Customer call", "Interview loop",
    "Incident review", "Roadmap sync", "Lunch with a candidate", "Personal time", "Focus block",
    "Vendor demo", "Quarterly review", "Pairing session", "Hiring debrief", "Board prep",
    "Team retro", "Architecture forum", "Onboarding session", "Commute", "Gym",
    "Budget check-in", "Security training", "All-hands dry run",
)
PROJECT_WORDS = (
    "Falcon", "Aurora", "Basalt", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Harbor",
    "Indigo", "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Onyx", "Pinnacle", "Quartz",
    "Redwood", "Sierra", "Tundra", "Umbra", "Vertex", "Willow", "Zephyr", "Atlas", "Beacon",
    "Cascade", "Drift", "Echo",
)
PROJECT_KINDS = ("migration", "launch", "redesign", "audit", "rollout", "integration",
                 "offsite", "pilot", "renewal", "cleanup")
CHANNEL_SUFFIXES = ("planning", "core", "sync", "logistics", "eng", "leads", "ops")
TOPICS = ("the API review", "the budget sheet", "the launch checklist", "the vendor contract",
          "the dashboard", "the migration runbook", "the hiring plan", "the design mocks",
          "the Q3 roadmap", "the incident write-up", "the customer escalation", "the test plan")

CHATTER = (
    "Morning all! Quick reminder to update {topic} before Friday.",
    "Can someone share the latest version of {topic}? The link in the doc is dead.",
    "I left a few comments on {topic}, nothing blocking.",
    "{name}, did the vendor ever get back to us about {topic}?",
    "Thanks everyone for the quick turnaround yesterday 🙏",
    "Heads up: I'm moving {topic} into the shared drive so it stops getting lost.",
    "+1 to what {name} said.",
    "I'll take the action item on {topic}.",
    "Is anyone else seeing the staging env being slow today?",
    "Dropping the notes from the last sync here: mostly about {topic}, nothing new on dates.",
    "Coffee machine on 3 is fixed, for those keeping score ☕",
    "Let's not reopen the naming debate, please 😅",
    "{name} — can you double-check the numbers in {topic}?",
    "FYI the offsite photos are up on the wiki.",
    "Reminder that expense reports for last month are due.",
    "I pinged {name} about {topic}, will report back.",
    "Small thing: the calendar invite from last week had the wrong dial-in.",
    "Has anyone tried the new standup bot? Mixed feelings.",
    "Back from leave, catching up on the thread now.",
    "I think {topic} is in good shape, just needs a final read.",
    "Whoever booked the big room for Thursday's lunch-and-learn, thank you!",
    "Let's keep this channel for logistics; design talk can go to the design thread.",
)
BAN_TEXT = (
    "Heads up: {reason} on {day}, so please keep this project's meeting clear of {start}–{end}. {tag}",
    "No meetings for this one between {start} and {end} on {day} — {reason}. {tag}",
    "Blocking {day} {start}–{end} ({reason}); nothing should land there. {tag}",
    "Please don't put anything for us on {day} from {start} to {end}: {reason}. {tag}",
    "{day}, {start} to {end} is off limits for this project because of {reason}. {tag}",
    "Keep our meeting away from {start}–{end} on {day}; that's {reason}. {tag}",
)
BAN_REASONS = ("the release freeze", "the all-hands", "the fire drill", "the customer audit",
               "the data-center maintenance window", "the exec offsite dial-in",
               "the quarterly close")
OOO_TEXT = (
    "{name} is out {when} ({reason}). {tag}",
    "FYI {name} will be offline {when} — {reason}. {tag}",
    "Note for scheduling: {name} is OOO {when}. {tag}",
    "Just so everyone knows, {name} can't make anything {when}: {reason}. {tag}",
    "{name} asked me to pass on that they're away {when} ({reason}). {tag}",
    "Don't count on {name} {when}, they're out for {reason}. {tag}",
)
# Worded neutrally: a private reason is a sensitive item (world/privacy.py), never a plain reason.
OOO_REASONS = ("a personal appointment", "conference travel", "a personal matter", "moving house",
               "a training course", "a site visit", "an errand")
DEADLINE_TEXT = (
    "Whatever we pick has to be wrapped up by {end_by}, the client reads the summary right after. {tag}",
    "Hard stop: the meeting must be over by {end_by} so we can ship the notes. {tag}",
    "Finance needs the decision by {end_by}, so the meeting has to end by then. {tag}",
    "We have to be done talking by {end_by} at the latest; the board pack goes out then. {tag}",
    "Latest possible finish is {end_by}. Anything that runs later is no use to us. {tag}",
    "The outcome feeds a review at {end_by}, so the meeting must have ended by that time. {tag}",
)
REQUIREMENT_TEXT = {
    "participants": ("Attendees for this one: {value}. {tag}", "We need {value} in the room. {tag}",
                     "Invite list: {value}. {tag}", "The people who have to be there: {value}. {tag}",
                     "Let's keep it to {value}; nobody else needs to join. {tag}"),
    "duration": ("Let's plan for {value} minutes. {tag}", "It should take {value} minutes. {tag}",
                 "Block {value} minutes for it. {tag}", "I think {value} minutes is enough for this. {tag}",
                 "Length: {value} minutes, no more. {tag}"),
    "count": ("Please propose {value} options so people can pick. {tag}", "Give us {value} candidate slots. {tag}",
              "Can whoever books this offer {value} possible times? {tag}",
              "We'd like {value} slots to choose from. {tag}", "Send round {value} options, earliest first. {tag}"),
    "policy": ("This is run under policy {value}, so its rules apply. {tag}", "Scheduling rules: {value}. {tag}",
               "Use the {value} rules from the handbook for this one. {tag}",
               "Policy-wise we fall under {value}. {tag}", "Book it following policy {value}. {tag}"),
    "tie_break": ("When several rooms work, take {value}. {tag}", "Room choice rule: {value}. {tag}",
                  "If more than one room is free, go for {value}. {tag}",
                  "Among the rooms that fit, pick {value}. {tag}", "For the room, prefer {value}. {tag}"),
    "room": ("Room needs: {value}. {tag}", "For the room: {value}. {tag}",
             "We'll need a room {value}. {tag}", "Whatever room we get should be {value}. {tag}",
             "Room-wise: {value}. {tag}"),
}
REVISION_TEXT = ("Update to the earlier message: ", "Correction — ", "Small change to the plan: ",
                 "Revising the earlier message: ", "Change of plan: ", "Sorry, one fix to what was said before: ")

# Level 4: who decides (the project owner); only the owner's requirement messages count.
OWNER_TEXT = (
    "For the record, {name} owns this project and makes the scheduling calls.",
    "{name} is the decision-maker here; whatever they settle on is what we book.",
    "Reminder: scheduling decisions for this project are {name}'s, nobody else's.",
    "Any change to the meeting plan has to come from {name}, who owns the project.",
    "{name} leads this one, so the meeting details are theirs to decide.",
)
SERIES_TITLES = ("Weekly standup", "Team sync", "1:1", "Office hours", "Planning check-in",
                 "Ops review", "Reading group", "Sprint demo")
PROMPT_L4 = (
    "Can you set up the meeting the {project} team has been discussing? Anytime from {first} to "
    "{last}. All times are {zone} (the organiser's time zone). Propose the slots, each with a room.",
    "The {project} folks need their meeting booked somewhere between {first} and {last}, times "
    "in {zone}. Please come back with start times and rooms.",
    "Please schedule the {project} meeting for the window {first} – {last} ({zone} time) and "
    "suggest rooms.",
)


def untagged(text: str) -> str:
    """A template filled with tag="" (level 4): the prose without the tag's trailing space."""
    return text.rstrip()


def pick(rng: random.Random, options):
    return options[rng.randrange(len(options))]


def human_day(day: dt.date) -> str:
    return f"{day.strftime('%a')} {day.isoformat()}"


def human_time(moment: dt.datetime) -> str:
    return moment.strftime("%H:%M")


RULE_PROSE = {
    "working_hours": (
        "Meetings under this policy sit entirely inside core hours, {start} to {end} local time: "
        "a meeting may start at {start} and must be over by {end}.",
        "Core hours run from {start} until {end}. Nothing is scheduled to start earlier or to run past {end}.",
    ),
    "blackout": (   # {label}: what the window is for, by its time of day (policies.blackout_label)
        "The daily window from {start} to {end} is protected ({label}); no meeting may overlap it.",
        "Every day, {start}–{end} is kept free of meetings for {label}. A meeting that overlaps that window must move (one may end as it starts).",
    ),
    "buffer": (
        "Leave at least {minutes} minutes free before and after every meeting, measured against each attendee's other commitments.",
        "Back-to-back booking is not allowed: each attendee needs a {minutes}-minute gap on both sides of the meeting.",
    ),
    "no_meeting_weekdays": (
        "No meetings are held on {weekdays_text}.",
        "{weekdays_text} are meeting-free days for everyone covered here.",
    ),
    "min_notice": (
        "Invitations need at least {hours} hours of notice: a meeting may not start sooner than {hours} hours after it is requested.",
        "Give people time to prepare: book no meeting that begins less than {hours} hours from when you schedule it.",
    ),
    "max_meetings_per_day": (
        "Meeting load is capped: if an attendee already has {count} or more meetings starting that day, book another day.",
        "Nobody takes a new meeting on a day that already holds {count} of their meetings.",
    ),
    "max_consecutive_minutes": (
        "Nobody sits in meetings for more than {minutes} minutes in a row: a meeting that would join "
        "an attendee's back-to-back meetings into a longer run must move.",
        "Back-to-back runs are capped at {minutes} minutes. Counting meetings that touch or overlap, "
        "a new meeting may not stretch any attendee's run past that.",
    ),
}

# What a rule counts, said after the rule's sentence in the handbook (levels 2-4): the conventions the
# grader applies that the rule's sentence alone leaves open (docs/semantics.md, "What the agent is
# told"). {days}: the policy's working days in words (working_days_text); {edge}: the latest end of
# an event that still allows a 12:00 meeting under the buffer. Levels 2-3 draw from these; level 4
# adds prose_level4.RULE_NOTES_MORE.
RULE_NOTES = {
    "working_hours": (
        "Working days are {days}; no meeting is held on any other day.",
        "This policy's working week is {days}; the other days are closed.",
    ),
    "buffer": (
        "The gap runs from the end of an attendee's calendar event to the meeting's start, and from the "
        "meeting's end to the next event: an event may end exactly {minutes} minutes before the start, so "
        "one ending at {edge} still allows a 12:00 meeting. Out-of-office periods and banned times need no gap.",
        "Exactly {minutes} minutes is enough: an event that ends at {edge} leaves room for a meeting at 12:00. "
        "Only confirmed or tentative calendar events need the gap, not out-of-office periods or banned times.",
    ),
    "max_meetings_per_day": (
        "Every confirmed or tentative calendar entry counts toward this cap, whatever it is: meetings, holds, "
        "focus blocks, commutes and personal entries alike.",
        "For this cap a meeting is any confirmed or tentative entry in the calendar, holds and personal "
        "blocks included.",
    ),
    "max_consecutive_minutes": (
        "Every confirmed or tentative calendar entry counts here, focus blocks, commutes and personal "
        "entries included.",
        "For this limit a meeting is any confirmed or tentative entry in the calendar, holds and personal "
        "blocks included.",
    ),
}
WEEKDAY_ABBREVIATIONS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
WEEK_WORDS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def working_days_text(days: list[str]) -> str:
    """A policy's working days in words: "Monday to Friday", "Monday to Sunday (every day, weekends
    included)", or a list ("Monday, Tuesday and Thursday")."""
    index = sorted(WEEKDAY_ABBREVIATIONS.index(day) for day in days)
    names = [WEEK_WORDS[i] for i in index]
    if len(index) == 7:
        return "Monday to Sunday (every day, weekends included)"
    if len(index) >= 3 and index == list(range(index[0], index[-1] + 1)):
        return f"{names[0]} to {names[-1]}"
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


# Level 4 only: three more phrasings per rule kind (prose_level4.py adds five more, for ten);
# levels 1-3 keep drawing from RULE_PROSE alone.
RULE_PROSE_MORE = {
    "working_hours": (
        "The working day for this policy opens at {start} and closes at {end}; meetings fit inside it.",
        "Book meetings between {start} and {end} only: starting before {start} or ending after {end} is not allowed.",
        "Meeting hours: from {start}, and every meeting must have finished by {end}.",
    ),
    "blackout": (
        "From {start} to {end} each day ({label}) no meeting may take place, not even partly.",
        "Protected time every day: {start} until {end}, for {label}. Keep meetings out of it entirely.",
        "No meeting may overlap {start}–{end} on any day; that time is reserved for {label}.",
    ),
    "buffer": (
        "Every attendee keeps {minutes} minutes clear on either side of a meeting.",
        "A meeting needs a gap of {minutes} minutes before it starts and after it ends in each attendee's calendar.",
        "Plan {minutes} minutes of slack around each meeting: no attendee commitment may fall within that margin.",
    ),
    "no_meeting_weekdays": (
        "Do not schedule meetings on {weekdays_text}.",
        "Meetings are never booked on {weekdays_text}.",
        "{weekdays_text}: no meetings under this policy.",
    ),
    "min_notice": (
        "A meeting must be requested at least {hours} hours before it begins.",
        "The start of a meeting must lie {hours} hours or more after the moment it is booked.",
        "Short-notice meetings are not allowed: keep at least {hours} hours between booking and start.",
    ),
    "max_meetings_per_day": (
        "An attendee who already has {count} meetings starting on a day takes no further meeting that day.",
        "Daily cap: {count} meetings per person. A day that already holds that many for any attendee is out.",
        "No new meeting on a day when any attendee already has at least {count} meetings beginning.",
    ),
    "max_consecutive_minutes": (
        "No attendee may end up in more than {minutes} consecutive minutes of meetings, counting meetings that touch or overlap.",
        "A chain of back-to-back meetings, the new one included, may last at most {minutes} minutes for any attendee.",
        "Continuous meeting time is limited to {minutes} minutes per person; a meeting that extends a longer chain must move.",
    ),
}

# What a daily blackout is for (policies.blackout_label picks one by its time of day).
BLACKOUT_LABELS = ("the lunch break", "morning focus time", "afternoon focus time", "focus time")
# A room need and a tie-break rule said in words (candidates._room_words, _requirement_message).
ROOM_WORDS = {"capacity": "at least {n} seats", "features": "with {features}", "feature_joiner": " and ",
              "building": "in {building}", "any": "anything that fits everyone", "joiner": ", "}
TIE_BREAK_WORDS = {"capacity": "the smallest room that fits", "room_id": "the room with the lowest room id"}

POLICY_NOUNS = ("core hours", "calendar etiquette", "meeting policy", "scheduling rules",
                "meeting norms", "calendar guidelines")

HANDBOOK_TITLES = ("Meeting and Calendar Handbook (2026 edition)", "Regional Teams Addendum")
HANDBOOK_SECTION = "This section applies only to meetings run under policy {policy_id}."
HANDBOOK_CLOSING = "## General notes"
HANDBOOK_FILLER = (
    "Calendars are the source of truth for availability. Keep them current, and mark personal "
    "appointments as busy rather than deleting them.",
    "Tentative holds count as commitments until they are released. If you no longer need a hold, "
    "cancel it so that others can see the time is free again.",
    "Recurring meetings should be reviewed every quarter. Many of them outlive their purpose; a "
    "short async update is often enough.",
    "Room bookings are handled by the facilities system. Please release rooms you do not use; "
    "no-shows are reported monthly.",
    "Travel requests go through the travel desk at least two weeks in advance. This handbook does "
    "not change the travel policy.",
    "Remote participants must be able to join every meeting. Share an agenda in the invite and "
    "keep notes in the project's channel.",
    "The expense policy, the equipment policy and the security policy are separate documents and "
    "are not repeated here.",
    "A meeting follows the one policy it is booked under; where another policy in this handbook "
    "says something else, it does not apply to that meeting.",
    "External guests are welcome, but an internal host must be present for the whole meeting.",
    "Questions about this handbook go to the People Operations team in the usual channel.",
)

PROMPT_L1 = (
    "Please find {n} possible {duration}-minute meeting slots for {people}, between {first} and "
    "{last} (both days included). Use each participant's calendar and policy {policy_id} "
    "(its rules are available as JSON). List the {n} earliest valid start times, earliest first.",
    "I need to set up a {duration}-minute meeting with {people}. Check their calendars and the "
    "scheduling policy {policy_id}, then give me the {n} earliest start times that work, "
    "anywhere from {first} through {last}.",
    "Schedule request: participants {people}; duration {duration} minutes; window {first} to "
    "{last}; policy {policy_id}. Sources to use: the calendars and the policy JSON. Reply with "
    "the {n} earliest valid starts.",
)
PROMPT_L2 = (
    "We need a {duration}-minute meeting for the {project} project with {people}, sometime "
    "between {first} and {last}. Policy {policy_id} applies. Propose the {n} earliest start "
    "times that work. You will need several internal sources to get this right.",
    "Can you find {n} slots for a {duration}-minute {project} sync with {people}? Anywhere from "
    "{first} to {last}, under policy {policy_id}. More than one internal source matters here, "
    "so check before you answer. Earliest first.",
    "For {project}: {people} need {duration} minutes together between {first} and {last}. Use "
    "policy {policy_id}. Give the {n} earliest options; the answer depends on information spread "
    "across several internal systems.",
)
PROMPT_L3 = (
    "Can you set up the meeting the {project} team has been discussing? Anytime from {first} to "
    "{last}. Propose the slots, each with a room.",
    "The {project} folks need their meeting booked somewhere between {first} and {last}. Please "
    "come back with start times and rooms.",
    "Please schedule the {project} meeting for the window {first} – {last} and suggest rooms.",
)
