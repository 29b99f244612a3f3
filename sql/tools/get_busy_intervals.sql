-- name: get_busy_intervals
-- description: When one person is busy: the [start, end) of each calendar event that blocks their
--   time (confirmed or tentative; cancelled events are left out) and overlaps the date range,
--   earliest first.
-- (Level 1 only: from level 2 on, list_events gives every event with its status, and applying
-- the status rule is the agent's job.)
-- levels: 1
-- source: calendar
-- render: json
-- items: busy
-- exists: people.person_id
-- not_found: No person has person_id {person_id}.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.
-- param: start_date (string, format=date, required) First day of the range.
-- param: end_date (string, format=date, required) Last day of the range (included),
--   at most 31 days after start_date.
select
    starts_at as "start",
    ends_at as "end",
    -- lineage: the event, or a recurring occurrence's series (event_id '<series_id>@<k>')
    [case when contains(event_id, '@') then 'event_series:' || split_part(event_id, '@', 1)
          else 'events:' || event_id end] as source_rows
from stg_blocking_events
where world_id = $world_id
    and person_id = $person_id
    and starts_at < cast($end_date as date) + interval '1' day
    and ends_at > cast($start_date as date)
order by starts_at, ends_at  -- rows that tie print the same, so the output is deterministic
