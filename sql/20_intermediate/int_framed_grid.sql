-- The candidates inside the working hours of the instance's policy: on the policy's working days,
-- grid starts from the first quarter hour at or after the start of working hours to the last one
-- that still ends by their end, none before the request was sent (`now`). The frame stays in every
-- scenario of the necessity check, so the other constraints are only judged on these starts.
with slots as (
    select
        w.instance_id,
        w.world_id,
        w.duration_minutes,
        w.day_start,
        w.now,
        s.slot_index
    from int_window_days as w
    join stg_policy_rules as r
        on r.world_id = w.world_id and r.policy_id = w.policy_id and r.rule_type = 'working_hours'
        and list_contains(r.days, strftime(w.day_start, '%a')),
        unnest(generate_series(
            cast(ceil(r.start_minute / 15) as bigint),
            cast(floor((r.end_minute - w.duration_minutes) / 15) as bigint)
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
    and day_start + interval '15' minute * slot_index >= now
