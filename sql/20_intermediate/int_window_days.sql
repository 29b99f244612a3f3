-- Each day of each instance's window (both ends inclusive), as the timestamp of its midnight, with
-- the moment the request was sent (`now`).
select
    i.instance_id,
    i.world_id,
    i.policy_id,
    i.duration_minutes,
    i.now,
    d.day_start
from stg_instances as i,
    unnest(generate_series(
        cast(i.window_start as timestamp), cast(i.window_end as timestamp), interval '1' day
    )) as d(day_start)
