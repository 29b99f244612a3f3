-- The candidates inside the working hours of the instance's policy: grid starts from the first
-- quarter hour at or after the start of working hours to the last one that still ends by their
-- end. Working hours frame every scenario of the necessity check, so the other constraints are
-- only judged on these starts.
with instance_days as (
    select
        i.instance_id,
        i.world_id,
        i.duration_minutes,
        r.start_minute,
        r.end_minute,
        d.day_start
    from stg_instances as i
    join stg_policy_rules as r
        on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'working_hours',
        unnest(generate_series(
            cast(i.window_start as timestamp), cast(i.window_end as timestamp), interval '1' day
        )) as d(day_start)
),

slots as (
    select
        instance_days.*,
        s.slot_index
    from instance_days,
        unnest(generate_series(
            cast(ceil(start_minute / 15) as bigint),
            cast(floor((end_minute - duration_minutes) / 15) as bigint)
        )) as s(slot_index)
)

select
    instance_id,
    world_id,
    cast(day_start as date) as day,
    day_start,
    day_start + interval '15' minute * slot_index as starts_at,
    day_start + interval '15' minute * slot_index + interval '1' minute * duration_minutes as ends_at
from slots
where slot_index between 0 and 95
