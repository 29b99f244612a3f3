-- A candidate on a day that is not one of the policy's working days, that starts before or ends
-- after the working hours of its day, or that starts before the request was sent (`now`): every
-- grid start outside the frame (int_framed_grid).
select
    g.instance_id,
    g.starts_at,
    'working_hours' as constraint_kind,
    r.rule_id as constraint_id,
    'policy_rules' as source_table,
    r.rule_id as source_row_id
from int_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_policy_rules as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'working_hours'
-- (the frame test is int_framed_grid's own, on the start's minute of the day: cheaper than
-- looking each start up in that view, with the same rows)
where not exists (
    select 1 from stg_policy_rules as f
    where f.world_id = i.world_id and f.policy_id = i.policy_id and f.rule_type = 'working_hours'
        and list_contains(f.days, strftime(g.day_start, '%a'))
        and g.starts_at >= i.now
        and date_diff('minute', g.day_start, g.starts_at)
            between 15 * ceil(f.start_minute / 15) and 15 * floor((f.end_minute - i.duration_minutes) / 15)
)
