-- Each blocking event once per day it could touch a candidate: from the day before it starts to
-- the day after it ends. Candidates and buffers are shorter than a day, so joining a candidate's
-- start day to these days finds every event that can overlap it, and only a handful of others.
select
    e.world_id,
    e.event_id,
    e.person_id,
    e.starts_at,
    e.ends_at,
    cast(d.day_start as date) as day
from stg_blocking_events as e,
    unnest(generate_series(
        cast(cast(e.starts_at as date) as timestamp) - interval '1' day,
        cast(cast(e.ends_at as date) as timestamp) + interval '1' day,
        interval '1' day
    )) as d(day_start)
