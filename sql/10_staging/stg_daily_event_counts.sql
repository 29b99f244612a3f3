-- How many blocking events each person already has starting on each day.
select
    world_id,
    person_id,
    cast(starts_at as date) as day,
    count(*) as n_events
from stg_blocking_events
group by world_id, person_id, cast(starts_at as date)
