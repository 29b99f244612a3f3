"""The ood split's phrasings of the facts (issue 32): thread messages and handbook rules, written
apart from prose.py and prose_level4.py so that no sentence of theirs shares a skeleton with a
public one. The fields are the public templates' ({day}, {start}, ..., {tag}), so every fact is
said; a requirement message starts with a plain word (a revision lower-cases its first letter).
`*_MORE` are level 4's extra phrasings, as in prose_level4.py. world/wording.py pairs each pool
with its public twin."""

from __future__ import annotations

BAN_TEXT = (
    "Our project can't use {day} {start}–{end}; {reason} is happening then. {tag}",
    "Flagging {reason}: nothing of ours may run from {start} to {end} on {day}. {tag}",
    "Because of {reason}, the team is unavailable {day} {start}–{end}. {tag}",
    "Mark {day}, {start} until {end}, as a no-go zone for the project ({reason}). {tag}",
    "Whatever we set up must steer clear of {day} {start}–{end}, given {reason}. {tag}",
    "Our calendar is frozen on {day} between {start} and {end} — {reason}. {tag}",
)
BAN_TEXT_MORE = (
    "We lose the stretch {start}–{end} on {day} to {reason}. {tag}",
    "Scheduling note from ops: {reason} claims {day} from {start} to {end}, so we book nothing then. {tag}",
    "Treat {day} {start}–{end} as unavailable for the project, since {reason} sits there. {tag}",
    "Sorry, {day} {start} to {end} won't work for anything of ours: {reason}. {tag}",
)
BAN_REASONS = ("the network cutover", "the town hall", "the evacuation exercise", "the regulator visit",
               "the server-room rewiring", "the leadership retreat call", "the month-end reconciliation")
OOO_TEXT = (
    "Expect no replies from {name} {when}, who is busy with {reason}. {tag}",
    "Calendar note: {name} is unreachable {when} because of {reason}. {tag}",
    "Looping everyone in: {name} has {reason} {when} and won't join anything. {tag}",
    "Count {name} out {when}. {tag}",
    "Passing this along from {name}: booked solid {when} with {reason}. {tag}",
    "If you were planning on {name} {when}, that won't work; {reason}. {tag}",
)
OOO_TEXT_MORE = (
    "Absence alert: {name}, {when}, {reason}. {tag}",
    "We won't have {name} with us {when} due to {reason}. {tag}",
    "Mind that {name} is off {when} ({reason}). {tag}",
    "During {when}, {name} can't attend anything: {reason}. {tag}",
)
OOO_REASONS = ("a private commitment", "an industry summit", "some time off", "a house move",
               "a certification workshop", "a partner visit", "an outside commitment")
DEADLINE_TEXT = (
    "The session has to have ended by our cut-off, {end_by}; the stakeholders get the recap straight after. {tag}",
    "By {end_by} the discussion must have concluded, since the memo ships then. {tag}",
    "Ops has asked that we conclude by {end_by}, when procurement locks the order. {tag}",
    "Nothing useful comes from a session ending after {end_by}. {tag}",
    "Absolute end point: {end_by}, after which the report is printed. {tag}",
    "Timing constraint from finance: wrap everything up by {end_by}. {tag}",
)
DEADLINE_TEXT_MORE = (
    "Be sure to close the meeting by {end_by}, because the steering group reads the outcome then. {tag}",
    "Any option finishing past {end_by} is unusable for us. {tag}",
    "We're bound by a {end_by} finish line. {tag}",
    "Conclusions are needed no later than {end_by}; plan the end accordingly. {tag}",
)
REQUIREMENT_TEXT = {
    "participants": ("Guest list is {value}. {tag}", "Required attendance: {value}. {tag}",
                     "Expected around the table: {value}. {tag}", "Just {value}, please — no one else. {tag}",
                     "Our roster for the session: {value}. {tag}"),
    "duration": ("Slot length is {value} minutes. {tag}", "Budget {value} minutes of calendar time. {tag}",
                 "The discussion should fill {value} minutes. {tag}", "Allow {value} minutes in total. {tag}",
                 "Timebox: {value} minutes. {tag}"),
    "count": ("Collect {value} alternatives so the group can choose. {tag}",
              "Shortlist {value} start times. {tag}", "Return a set of {value} openings. {tag}",
              "Ideally {value} proposals, sorted by time. {tag}", "Gather {value} possibilities. {tag}"),
    "policy": ("Governing ruleset: {value}. {tag}", "Handbook section to honour: policy {value}. {tag}",
               "Compliance-wise, policy {value} is ours. {tag}", "Bookings here observe policy {value}. {tag}",
               "Rulebook for this project: {value}. {tag}"),
    "tie_break": ("Tie between rooms? Pick {value}. {tag}", "Room tiebreaker: {value}. {tag}",
                  "Facing a choice of rooms, settle on {value}. {tag}",
                  "Several suitable rooms means we go with {value}. {tag}",
                  "Where rooms tie, book {value}. {tag}"),
    "room": ("Venue must be {value}. {tag}", "Space requirements: {value}. {tag}",
             "Looking for a room {value}. {tag}", "Venue criteria: {value}. {tag}",
             "Reserve somewhere {value}. {tag}"),
}
REQUIREMENT_TEXT_MORE = {
    "participants": ("On the attendance list: {value}. {tag}", "Bring together {value} for this. {tag}",
                     "Seats are for {value}. {tag}", "Limit the invite to {value}. {tag}",
                     "Participants wanted: {value}. {tag}"),
    "duration": ("Running time: {value} minutes. {tag}", "Grab {value} minutes for this. {tag}",
                 "Set aside {value} minutes. {tag}", "Needed length is {value} minutes. {tag}",
                 "Expect it to last {value} minutes. {tag}"),
    "count": ("Surface {value} openings for us. {tag}", "Line up {value} candidate times. {tag}",
              "Put forward {value} alternatives. {tag}", "Aim for {value} options to compare. {tag}",
              "Number of proposals wanted: {value}. {tag}"),
    "policy": ("Relevant policy: {value}. {tag}", "Observe policy {value} throughout. {tag}",
               "Booking constraints come from policy {value}. {tag}", "Applicable handbook policy: {value}. {tag}",
               "Stick to the {value} ruleset. {tag}"),
    "tie_break": ("Choosing among free rooms, go for {value}. {tag}", "Default room pick: {value}. {tag}",
                  "Multiple matches for the room? Use {value}. {tag}", "Room selection rule: {value}. {tag}",
                  "Pick {value} whenever rooms tie. {tag}"),
    "room": ("Required venue: {value}. {tag}", "Find us a space {value}. {tag}",
             "Hoping for a room {value}. {tag}", "Venue wishlist: {value}. {tag}",
             "Ensure the space is {value}. {tag}"),
}
REVISION_TEXT = ("Amendment — ", "Quick correction to what was agreed: ", "Replacing the earlier note on this: ",
                 "Edit: ", "New info, ", "Overriding what was posted earlier: ")
OWNER_TEXT = (
    "Ownership note: {name} runs this project and signs off on scheduling.",
    "Scheduling authority sits with {name}.",
    "{name} calls the shots on meeting logistics for this project.",
    "Meeting choices here are made by {name} alone.",
    "Heads-up that {name} is the accountable owner; only their meeting instructions count.",
    "Defer to {name} on anything about the meeting — it's their project.",
    "Project lead {name} settles the meeting setup.",
    "Whatever {name} specifies for the meeting is final.",
    "It's {name} who owns scheduling decisions on this workstream.",
    "Sign-off on the meeting belongs to {name}.",
)

RULE_PROSE = {
    "working_hours": (
        "Sessions governed here must begin no sooner than {start} and conclude no later than {end}.",
        "Permitted meeting span: {start} onwards, ending by {end}.",
    ),
    "blackout": (
        "Reserved daily for {label}: {start}–{end}. Sessions must stay clear of it.",
        "Sessions overlapping {start}–{end} on any day are forbidden ({label}).",
    ),
    "buffer": (
        "Attendees require {minutes} spare minutes on each side of a session.",
        "Sessions need a cushion of {minutes} minutes before and after, relative to every attendee's schedule.",
    ),
    "no_meeting_weekdays": (
        "Sessions are forbidden on {weekdays_text}.",
        "Calendars stay empty of sessions on {weekdays_text}.",
    ),
    "min_notice": (
        "Sessions require advance notice of {hours} hours or more.",
        "Lead time for any session is at least {hours} hours from booking to start.",
    ),
    "max_meetings_per_day": (
        "Attendees already holding {count} sessions that start on a given day cannot accept another there.",
        "Per-day ceiling: {count} session starts per attendee.",
    ),
    "max_consecutive_minutes": (
        "Uninterrupted session time tops out at {minutes} minutes for each attendee, touching sessions counted as one run.",
        "Sessions may not chain into more than {minutes} unbroken minutes for anyone attending.",
    ),
}
RULE_PROSE_MORE = {
    "working_hours": (
        "Sessions occupy the band {start}–{end} and never spill outside it.",
        "Earliest session start is {start}; latest session end is {end}.",
        "Anything scheduled here lives between {start} and {end}.",
        "Governed sessions open at {start} or later and close at {end} or earlier.",
        "Outside {start}–{end} nothing gets booked under this policy.",
        "Valid session hours span {start} to {end}.",
        "Session timing is restricted to {start}–{end}.",
        "Calendars accept sessions only within {start}–{end}.",
    ),
    "blackout": (
        "Each day, {label} occupies {start}–{end}, and sessions avoid it completely.",
        "Off-limits window, every day: {start} to {end} ({label}).",
        "Sessions cannot intersect the daily {start}–{end} slot reserved for {label}.",
        "Guarded time for {label} runs {start}–{end} daily; no session may overlap it.",
        "Between {start} and {end} each day sits {label}, with no session overlapping it.",
        "Daily exclusion: {start} to {end}, kept for {label}.",
        "Sessions keep out of {start}–{end}, the daily slot for {label}.",
        "Sessions never encroach on {start}–{end} ({label}), whatever the day.",
    ),
    "buffer": (
        "Padding of {minutes} minutes must separate a session from every attendee commitment.",
        "Attendee calendars keep {minutes} idle minutes around each session.",
        "Sessions sit at least {minutes} minutes away from anything else attendees have booked.",
        "Spacing rule: {minutes} minutes of clearance before and after each session.",
        "Commitments of attendees may not fall within {minutes} minutes of a session.",
        "Each session is wrapped by {minutes} clear minutes per attendee.",
        "Clearance around sessions equals {minutes} minutes on both sides.",
        "Sessions demand {minutes} untouched minutes flanking them in attendee calendars.",
    ),
    "no_meeting_weekdays": (
        "Session-free weekdays: {weekdays_text}.",
        "Sessions are never placed on {weekdays_text}.",
        "Zero sessions take place on {weekdays_text}.",
        "Booking sessions on {weekdays_text} is prohibited.",
        "Sessions skip {weekdays_text} entirely.",
        "Quiet days without sessions: {weekdays_text}.",
        "Calendars reserve {weekdays_text} for work without sessions.",
        "Sessions get booked on any weekday except {weekdays_text}.",
    ),
    "min_notice": (
        "Sessions booked fewer than {hours} hours ahead are rejected.",
        "Booking lead time must reach {hours} hours.",
        "Session starts fall {hours} hours or more after the request.",
        "Sessions cannot be squeezed in with under {hours} hours of warning.",
        "Advance notice of {hours} hours precedes every session.",
        "Minimum gap between booking and session start: {hours} hours.",
        "Short-notice sessions, under {hours} hours, are refused.",
        "Sessions get requested {hours} hours or more before they begin.",
    ),
    "max_meetings_per_day": (
        "Sessions per attendee per day are capped at {count} starts; a capped day refuses more.",
        "Attendees reaching {count} session starts on a day are fully booked that day.",
        "Daily session quota: {count} per attendee.",
        "Days where any attendee already has {count} session starts take no new session.",
        "Session starts per person per day cannot exceed {count}, counting the new one.",
        "Once an attendee has {count} sessions beginning on a day, further sessions go elsewhere.",
        "Attendee day limit equals {count} session starts.",
        "Sessions cannot be added where an attendee's day already counts {count} starts.",
    ),
    "max_consecutive_minutes": (
        "Chained sessions, touching or overlapping, last {minutes} minutes at most per attendee.",
        "Unbroken session stretches are limited to {minutes} minutes.",
        "Session chains exceeding {minutes} minutes for any attendee are not allowed.",
        "Attendees never sit through more than {minutes} continuous minutes of sessions.",
        "Combined back-to-back session time stays under {minutes} minutes or equal to it.",
        "Sessions extending an attendee's chain beyond {minutes} minutes get moved.",
        "Continuous session load per attendee caps at {minutes} minutes.",
        "Runs of adjoining sessions may total {minutes} minutes, no more.",
    ),
}
# What a daily blackout is for (policies.blackout_label's four labels, in its order).
BLACKOUT_LABELS = ("the midday meal", "the morning deep-work block", "the afternoon deep-work block",
                   "deep-work time")
# A room need and a tie-break rule said in words (candidates._room_words, _requirement_message).
ROOM_WORDS = {"capacity": "seating {n} or more", "features": "equipped with {features}", "feature_joiner": " plus ",
              "building": "located in {building}", "any": "any space big enough for the group", "joiner": "; "}
TIE_BREAK_WORDS = {"capacity": "the tightest room that seats everyone", "room_id": "the room whose id sorts first"}
# What a rule counts (prose.RULE_NOTES), in the ood split's words: two phrasings for levels 2-3,
# eight more for level 4.
RULE_NOTES = {
    "working_hours": (
        "Sessions take place on working days only, namely {days}.",
        "Working days under this policy: {days}. Every other day is shut.",
    ),
    "buffer": (
        "Clearance is reckoned from calendar events alone (confirmed or tentative), and an exact fit passes: "
        "an event finishing at {edge} still permits a session at 12:00. Absences and blocked periods need no clearance.",
        "Precisely {minutes} minutes of clearance suffices, so an event concluding at {edge} is compatible with a "
        "12:00 session; only calendar events require clearance, never absences or blocked periods.",
    ),
    "max_meetings_per_day": (
        "Here every confirmed or tentative calendar block counts as a session, travel time, holds and personal "
        "blocks included.",
        "Session starts include any confirmed or tentative calendar block whatsoever, personal ones and holds too.",
    ),
    "max_consecutive_minutes": (
        "Here every confirmed or tentative calendar block counts as a session, travel time, holds and personal "
        "blocks included.",
        "Chains include any confirmed or tentative calendar block whatsoever, personal ones and holds too.",
    ),
}
RULE_NOTES_MORE = {
    "working_hours": (
        "The working week covers {days}; nothing is held outside it.",
        "Sessions are booked on {days} alone.",
        "Working days: {days}. Remaining days are closed to sessions.",
        "Outside {days} no working day exists under this policy.",
        "Only {days} qualify as working days.",
        "Session days are {days}; any other day stays shut.",
        "This policy operates {days}, with every other day closed.",
        "Days open for sessions: {days}; all others are closed.",
    ),
    "buffer": (
        "Clearance of exactly {minutes} minutes is acceptable (an event until {edge}, a session from 12:00); "
        "it concerns calendar events only, not absences or blocked periods.",
        "An attendee event ending at {edge} leaves a 12:00 session compliant; absences and blocked windows "
        "carry no clearance.",
        "Exact clearance passes: {edge} end, 12:00 start. Calendar events (confirmed or tentative) are the only "
        "thing measured.",
        "Clearance is checked against confirmed or tentative calendar events only, and an exact {minutes}-minute "
        "gap (say {edge} to 12:00) complies.",
        "A session at 12:00 after an event ending {edge} satisfies the clearance; absences and blocked periods "
        "are not counted.",
        "Exactly {minutes} minutes is enough clearance, e.g. {edge} then 12:00; blocked periods and absences "
        "need none.",
        "Only calendar events demand clearance, and reaching exactly {minutes} minutes (event ends {edge}, "
        "session at 12:00) is fine.",
        "Clearance may be exact: an event that concludes at {edge} permits a 12:00 session. Absence notices "
        "and blocked windows need none.",
    ),
    "max_meetings_per_day": (
        "Every confirmed or tentative calendar block is a session for this ceiling, travel time included.",
        "Holds, travel time and personal blocks count as sessions here when confirmed or tentative.",
        "The ceiling counts calendar blocks of every kind, if confirmed or tentative.",
        "A session, for this quota, is any confirmed or tentative calendar block.",
        "Count each confirmed or tentative calendar block that starts that day, whatever it is.",
        "Personal blocks and holds are sessions too for this ceiling, when confirmed or tentative.",
        "Confirmed or tentative calendar blocks of all kinds fill the quota.",
        "The quota includes every calendar block that is confirmed or tentative, travel time included.",
    ),
    "max_consecutive_minutes": (
        "Every confirmed or tentative calendar block is a session for this chain rule, travel time included.",
        "Holds, travel time and personal blocks count as sessions here when confirmed or tentative.",
        "Chains are made of calendar blocks of every kind, if confirmed or tentative.",
        "A session, for this chain rule, is any confirmed or tentative calendar block.",
        "Count each confirmed or tentative calendar block that touches or overlaps the chain, whatever it is.",
        "Personal blocks and holds are sessions too for this chain rule, when confirmed or tentative.",
        "Confirmed or tentative calendar blocks of all kinds form the chain.",
        "The chain includes every calendar block that is confirmed or tentative, travel time included.",
    ),
}
