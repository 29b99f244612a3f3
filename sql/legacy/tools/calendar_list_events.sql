-- name: calendar_list_events
-- description: Calendar.list_events - calendar events that overlap a range of days, earliest
--   first, cancelled ones included (see status), optionally only those whose title,
--   description or location contains a text, or that a person attends.
-- render: json
-- items: events
-- param: start_date (string, required, format=date) First day, YYYY-MM-DD.
-- param: end_date (string, required, format=date) Last day (included), YYYY-MM-DD.
-- param: query (string, maxLength=200) Only events whose title, description or location contains this text.
-- param: attendee (string, maxLength=120) Only events this person attends (part of a name or email).
select
    event_id,
    title,
    starts_at as start,
    ends_at as "end",
    status,
    organizer,
    attendees,
    location,
    description
from stg_legacy_calendar_events
where scenario_id = $scenario_id
    and starts_at < cast($end_date as date) + interval 1 day
    and ends_at > cast($start_date as date)
    and ($query is null
        or contains(lower(title), lower($query))
        or contains(lower(coalesce(description, '')), lower($query))
        or contains(lower(coalesce(location, '')), lower($query)))
    and ($attendee is null
        or contains(lower(array_to_string(attendees, ' ')), lower($attendee))
        or contains(lower(organizer), lower($attendee)))
order by starts_at, event_id
