"""Level 4's extra public phrasings (issue 32: at least ten per fact kind). Level 4 states its
facts in prose only, so it draws from the phrasings of prose.py and these; levels 2-3 keep
drawing from prose.py alone, so their builds do not change. The ood split's own phrasings are
in ood_prose.py; world/wording.py puts each family's public and ood pools side by side."""

from __future__ import annotations

BAN_TEXT_MORE = (
    "Leave {day} {start}–{end} alone: no meeting of ours may overlap it, the slot goes to {reason}. {tag}",
    "Nothing for this project may be booked on {day} between {start} and {end} ({reason}). {tag}",
    "Our meeting must avoid {start} to {end} on {day}: {reason}. {tag}",
    "Reminder that {day} from {start} until {end} is unavailable to us because of {reason}. {tag}",
)
OOO_TEXT_MORE = (
    "Heads up that {name} won't be around {when} ({reason}). {tag}",
    "{name} is unavailable {when}; {reason}. {tag}",
    "Please plan without {name} {when}: {reason}. {tag}",
    "Quick note: {name} is away {when} for {reason}. {tag}",
)
DEADLINE_TEXT_MORE = (
    "The meeting needs to finish no later than {end_by}; the summary is due right after. {tag}",
    "Please make sure we are done by {end_by}, otherwise the notes miss the cut-off. {tag}",
    "Everything has to wrap by {end_by} so the follow-up can go out on time. {tag}",
    "End time matters here: by {end_by} at the latest. {tag}",
)
REQUIREMENT_TEXT_MORE = {
    "participants": ("The invitees are {value}. {tag}", "Please include {value}, and only them. {tag}",
                     "Who should come: {value}. {tag}", "This one is for {value}. {tag}",
                     "Put {value} on the invite. {tag}"),
    "duration": ("We need {value} minutes for it. {tag}", "Make it {value} minutes long. {tag}",
                 "Reserve {value} minutes, that should do. {tag}", "A {value}-minute slot is what we need. {tag}",
                 "The session runs {value} minutes. {tag}"),
    "count": ("Offer {value} time options, please. {tag}", "Let's see {value} possible slots. {tag}",
              "Come back with {value} choices. {tag}", "Share {value} slots for people to vote on. {tag}",
              "Suggest {value} times, earliest first. {tag}"),
    "policy": ("The rules of policy {value} apply here. {tag}", "Follow policy {value} when booking. {tag}",
               "We are covered by policy {value}. {tag}", "Go by policy {value} for this one. {tag}",
               "Apply the {value} policy. {tag}"),
    "tie_break": ("If a few rooms are open, choose {value}. {tag}", "Rooms: when there's a choice, {value}. {tag}",
                  "With several rooms available, take {value}. {tag}",
                  "Should more than one room fit, book {value}. {tag}", "Preference for the room: {value}. {tag}"),
    "room": ("The room should be {value}. {tag}", "What we need from the room: {value}. {tag}",
             "Book a room {value}. {tag}", "Room requirements: {value}. {tag}",
             "Any room works if it is {value}. {tag}"),
}
OWNER_TEXT_MORE = (
    "{name} has the final say on scheduling for this project.",
    "Only {name} decides the meeting details here.",
    "This project belongs to {name}; scheduling calls are theirs.",
    "Meeting decisions for this project rest with {name}.",
    "{name} is the owner here, so their word on the meeting stands.",
)
RULE_PROSE_MORE = {
    "working_hours": (
        "Meetings may start at {start} at the earliest and must end by {end}.",
        "Only the span {start}–{end} is open for meetings; nothing may begin before it or end after it.",
        "Schedule within {start} to {end}: that is the whole meeting day under this policy.",
        "The meeting day starts at {start} and ends at {end}, and every meeting must fit inside it.",
        "No meeting before {start} and none running past {end}.",
    ),
    "blackout": (
        "{start} to {end} every day is set aside for {label}; meetings must not overlap it.",
        "Daily, the time between {start} and {end} is off-limits for meetings ({label}).",
        "A meeting may not overlap {start}–{end} on any day, which is kept for {label}.",
        "The block {start}–{end} each day belongs to {label}, so no meeting overlaps it.",
        "Keep every day's {start} to {end} free of meetings: it is {label}.",
    ),
    "buffer": (
        "Each attendee needs {minutes} free minutes before and after the meeting.",
        "There must be {minutes} minutes between this meeting and any other commitment of an attendee, on both sides.",
        "Nothing else in an attendee's calendar may sit within {minutes} minutes of the meeting.",
        "Surround every meeting with {minutes} minutes of free time for each attendee.",
        "A gap of at least {minutes} minutes separates a meeting from every attendee's other events.",
    ),
    "no_meeting_weekdays": (
        "Nobody books meetings on {weekdays_text}.",
        "On {weekdays_text} there are no meetings at all.",
        "Keep {weekdays_text} free of meetings.",
        "Meetings never happen on {weekdays_text} under this policy.",
        "The meeting-free days are {weekdays_text}.",
    ),
    "min_notice": (
        "Book every meeting at least {hours} hours ahead of its start.",
        "At least {hours} hours of notice are required before a meeting starts.",
        "No meeting may begin within {hours} hours of being scheduled.",
        "A meeting's start must be {hours} hours or more after the booking time.",
        "Notice period: {hours} hours between scheduling and the start.",
    ),
    "max_meetings_per_day": (
        "When an attendee already has {count} meetings starting that day, the day is full for them.",
        "The cap is {count} meetings a day per attendee; a day that reached it takes no new meeting.",
        "No attendee starts more than {count} meetings on one day, so a day with {count} already is out.",
        "If any attendee has {count} or more meetings beginning on a day, book a different day.",
        "At most {count} meetings per person per day: once a person has that many, the day is closed.",
    ),
    "max_consecutive_minutes": (
        "Back-to-back meetings, counted together, may not exceed {minutes} minutes for any attendee.",
        "A run of touching or overlapping meetings is limited to {minutes} minutes per attendee.",
        "Nobody should be in meetings for longer than {minutes} minutes without a break.",
        "Any attendee's unbroken stretch of meetings, this one included, stays within {minutes} minutes.",
        "Meetings joined end to end may last {minutes} minutes at most for each attendee.",
    ),
}
RULE_NOTES_MORE = {
    "working_hours": (
        "Meetings happen only on working days, which are {days}.",
        "The working week here runs {days}, and nothing is booked outside it.",
        "Only {days} count as working days under this policy.",
        "A day outside {days} is not a working day: no meetings then.",
        "We meet on working days only: {days}.",
        "The policy's working days: {days}. Any other day is off.",
        "Bookings fall on {days} only; the remaining days are closed.",
        "The team works {days}; other days stay meeting-free.",
    ),
    "buffer": (
        "An event may end exactly {minutes} minutes before the meeting starts (one ending at {edge} is fine for "
        "12:00); the gap applies to calendar events only, not to out-of-office time or banned periods.",
        "The margin is measured against confirmed or tentative calendar events alone, and touching its edge is "
        "allowed: with an event ending at {edge}, a 12:00 start is still possible.",
        "A gap of exactly {minutes} minutes is acceptable, e.g. an event ending at {edge} and a meeting at 12:00. "
        "Out-of-office periods and banned windows need no margin.",
        "Count the margin from calendar events only (confirmed or tentative): an event that ends at {edge} still "
        "permits a noon start; absences and banned times need none.",
        "If an attendee's event ends at {edge}, a 12:00 meeting keeps the required {minutes} minutes: exactly "
        "that much is enough. The margin does not apply to absences or banned periods.",
        "Exactly {minutes} minutes between an event and the meeting satisfies the rule (ending at {edge}, meeting "
        "at 12:00 is fine). Only calendar events count, not out-of-office notes or bans.",
        "The {minutes} minutes may be exact: an event finishing at {edge} allows a meeting from 12:00. Time off "
        "and banned periods are not calendar events and need no margin.",
        "Being exactly {minutes} minutes apart is allowed (an event until {edge}, then a meeting at 12:00); "
        "the rule concerns calendar events, not out-of-office periods or bans.",
    ),
    "max_meetings_per_day": (
        "Every calendar entry that is confirmed or tentative counts, whatever its title: holds, focus blocks, "
        "commutes and personal time included.",
        "Any confirmed or tentative entry in an attendee's calendar counts as a meeting for this cap.",
        "The count takes in every confirmed or tentative calendar entry, personal ones and holds too.",
        "Holds, focus time, commutes and personal blocks count toward the cap like any meeting, if they are "
        "confirmed or tentative.",
        "For the cap, count all of an attendee's confirmed or tentative calendar entries starting that day.",
        "A calendar entry counts toward this cap whatever it is for, as long as it is confirmed or tentative.",
        "The cap counts calendar entries of every kind (meetings, holds, personal blocks) that are confirmed "
        "or tentative.",
        "Personal entries, holds and focus blocks are counted too: any confirmed or tentative calendar entry is "
        "a meeting for this rule.",
    ),
    "max_consecutive_minutes": (
        "Every calendar entry that is confirmed or tentative is part of a run, whatever its title: holds, focus "
        "blocks, commutes and personal time included.",
        "Any confirmed or tentative entry in an attendee's calendar counts as meeting time for this limit.",
        "The run takes in every confirmed or tentative calendar entry, personal ones and holds too.",
        "Holds, focus time, commutes and personal blocks join a run like any meeting, if they are confirmed or "
        "tentative.",
        "For the limit, count all of an attendee's confirmed or tentative calendar entries that touch or overlap.",
        "A calendar entry is part of a run whatever it is for, as long as it is confirmed or tentative.",
        "Runs are made of calendar entries of every kind (meetings, holds, personal blocks) that are confirmed "
        "or tentative.",
        "Personal entries, holds and focus blocks count too: any confirmed or tentative calendar entry is "
        "meeting time for this rule.",
    ),
}
