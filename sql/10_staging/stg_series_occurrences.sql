-- Level 4: every occurrence of every recurring event series, expanded from the series row and
-- its exceptions: occurrence k starts k * every_days days after the first; a 'cancelled'
-- exception makes that occurrence cancelled, a 'moved' one gives it its new interval.
with series as (
    select * from event_series
),

exceptions as (
    select * from event_series_exceptions
),

occurrences as (
    select
        s.world_id,
        s.series_id,
        s.person_id,
        s.status,
        k.occurrence,
        s.starts_at + interval '1' day * (s.every_days * k.occurrence) as original_start,
        s.ends_at + interval '1' day * (s.every_days * k.occurrence) as original_end
    from series as s, unnest(generate_series(0, s.occurrences - 1)) as k(occurrence)
)

select
    o.world_id,
    o.series_id || '@' || cast(o.occurrence as varchar) as event_id,
    o.series_id,
    o.person_id,
    case when x.action = 'moved' then x.starts_at else o.original_start end as starts_at,
    case when x.action = 'moved' then x.ends_at else o.original_end end as ends_at,
    case when x.action = 'cancelled' then 'cancelled' else o.status end as status
from occurrences as o
left join exceptions as x
    on x.world_id = o.world_id
    and x.series_id = o.series_id
    and x.original_start = o.original_start
