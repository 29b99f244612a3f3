-- A candidate that starts before or ends after the working hours of its day: every grid start
-- outside the frame (int_framed_grid).
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
where not exists (
    select 1 from int_framed_grid as f
    where f.instance_id = g.instance_id and f.starts_at = g.starts_at
)
