-- name: list_events
-- description: Every calendar event of one person that overlaps the date range, with its
--   title and status (confirmed, tentative or cancelled), earliest first. Intervals are
--   half-open [start, end), local time YYYY-MM-DDTHH:MM. Pages with limit and cursor.
-- levels: 2 3 4
-- source: calendar
-- render: json
-- items: events
-- exists: people.person_id
-- not_found: No person has person_id {person_id}.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.
-- param: start_date (string, format=date, required) First day of the range, YYYY-MM-DD.
-- param: end_date (string, format=date, required) Last day of the range (included),
--   YYYY-MM-DD; at most 31 days after start_date.
-- param: limit (integer, default=20, minimum=1, maximum=50) Events per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
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
