-- name: list_recurring_events
-- description: One person's recurring events as weekly series, not expanded: first occurrence
--   [start, end), every_days between occurrences, number of occurrences, status and exceptions
--   (an occurrence, by its original_start, cancelled or moved to a new [start, end)). Occurrence
--   k starts k * every_days days after the first.
-- levels: 4
-- source: calendar
-- render: json
-- items: series
-- exists: people.person_id
-- not_found: No person has person_id {person_id}.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.
with exceptions as (
    select
        world_id,
        series_id,
        list({'original_start': original_start, 'action': action, 'start': starts_at, 'end': ends_at}
            order by original_start) as exceptions,
        list('event_series_exceptions:' || series_id || '@' || cast(original_start as varchar)
            order by original_start) as exception_rows
    from event_series_exceptions
    where world_id = $world_id
    group by world_id, series_id
)

select
    s.series_id,
    s.title,
    s.starts_at as "start",
    s.ends_at as "end",
    s.every_days,
    s.occurrences,
    s.status,
    coalesce(x.exceptions, []) as exceptions,
    -- lineage: the series and its exceptions (event_series_exceptions:<series_id>@<original_start>)
    list_prepend('event_series:' || s.series_id, coalesce(x.exception_rows, [])) as source_rows
from event_series as s
left join exceptions as x on x.world_id = s.world_id and x.series_id = s.series_id
where s.world_id = $world_id and s.person_id = $person_id
order by s.starts_at, s.series_id
