-- Every candidate of every instance: 96 starts on the 15-minute grid of each day of the window
-- (both ends inclusive), each lasting the instance's duration.
with instances as (
    select instance_id, world_id, window_start, window_end, duration_minutes from stg_instances
),

instance_days as (
    select
        i.instance_id,
        i.world_id,
        i.duration_minutes,
        d.day_start
    from instances as i,
        unnest(generate_series(
            cast(i.window_start as timestamp), cast(i.window_end as timestamp), interval '1' day
        )) as d(day_start)
),

slots as (
    select
        instance_days.*,
        s.slot_index
    from instance_days, unnest(generate_series(0, 95)) as s(slot_index)
)

select
    instance_id,
    world_id,
    cast(day_start as date) as day,
    day_start,
    day_start + interval '15' minute * slot_index as starts_at,
    day_start + interval '15' minute * slot_index + interval '1' minute * duration_minutes as ends_at
from slots
