-- name: list_events
-- description: Every calendar event of one person that overlaps the date range, with its
--   title and status (confirmed, tentative or cancelled), earliest first. Pages with limit
--   and cursor.
-- levels: 3
-- render: json
-- page: events
-- not_found: No person has person_id {person_id}.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-004.
-- param: start_date (string, format=date, required) First day of the range, YYYY-MM-DD.
-- param: end_date (string, format=date, required) Last day of the range (included),
--   YYYY-MM-DD; at most 31 days after start_date.
-- param: limit (integer, default=20, minimum=1, maximum=50) Events per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
with person as (
    select person_id
    from people
    where world_id = $world_id and person_id = $person_id
),

listed as (
    select
        count(*) as total,
        list({'event_id': event_id, 'title': title, 'start': starts_at, 'end': ends_at, 'status': status}
             order by starts_at, ends_at, event_id) as items
    from events
    where world_id = $world_id
        and person_id = $person_id
        and starts_at < cast($end_date as date) + interval '1' day
        and ends_at > cast($start_date as date)
)

select
    p.person_id,
    cast($start_date as date) as start_date,
    cast($end_date as date) as end_date,
    l.total,
    coalesce(list_slice(l.items, $cursor + 1, $cursor + $limit), []) as events
from person as p, listed as l
