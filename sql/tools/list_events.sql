-- name: list_events
-- description: One person's calendar events that overlap the date range, earliest first: id, title,
--   [start, end) and status (confirmed, tentative or cancelled).
-- levels: 2 3 4
-- source: calendar
-- render: json
-- items: events
-- exists: people.person_id
-- not_found: No person has person_id {person_id}.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.
-- param: start_date (string, format=date, required) First day of the range.
-- param: end_date (string, format=date, required) Last day of the range (included),
--   at most 31 days after start_date.
-- param: limit (integer, default=20, minimum=1, maximum=50) Events per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) The previous page's next_cursor.
select
    event_id,
    title,
    starts_at as "start",
    ends_at as "end",
    status,
    ['events:' || event_id] as source_rows,
    count(*) over () as total
from events
where world_id = $world_id
    and person_id = $person_id
    and starts_at < cast($end_date as date) + interval '1' day
    and ends_at > cast($start_date as date)
order by starts_at, ends_at, event_id
limit $limit offset $cursor
