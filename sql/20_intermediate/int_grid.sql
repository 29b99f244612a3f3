-- Every candidate of every instance: 96 starts on the 15-minute grid of each day of the window,
-- each lasting the instance's duration.
with slots as (
    select
        w.instance_id,
        w.world_id,
        w.duration_minutes,
        w.day_start,
        s.slot_index
    from int_window_days as w, unnest(generate_series(0, 95)) as s(slot_index)
)

select
    instance_id,
    world_id,
    cast(day_start as date) as day,
    day_start,
    day_start + interval '15' minute * slot_index as starts_at,
    day_start + interval '15' minute * slot_index + interval '1' minute * duration_minutes as ends_at
from slots
