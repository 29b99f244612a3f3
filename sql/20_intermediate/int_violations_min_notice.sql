-- A candidate that starts sooner than the required notice after the instance's "now".
select
    g.instance_id,
    g.starts_at,
    'min_notice' as constraint_kind,
    r.rule_id as constraint_id,
    'policy_rules' as source_table,
    r.rule_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_policy_rules as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'min_notice'
where g.starts_at < i.now + interval '1' hour * r.hours
