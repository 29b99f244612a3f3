-- A candidate overlapping the daily blackout window of its start day.
select
    g.instance_id,
    g.starts_at,
    'blackout' as constraint_kind,
    r.rule_id as constraint_id,
    'policy_rules' as source_table,
    r.rule_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_policy_rules as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'blackout'
where g.starts_at < g.day_start + interval '1' minute * r.end_minute
    and g.day_start + interval '1' minute * r.start_minute < g.ends_at
