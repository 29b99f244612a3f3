-- A candidate widened by the buffer on both sides overlapping a participant's blocking event.
select
    g.instance_id,
    g.starts_at,
    'buffer' as constraint_kind,
    r.rule_id as constraint_id,
    'events' as source_table,
    e.event_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_policy_rules as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'buffer'
join stg_participants as p on p.instance_id = g.instance_id
join stg_blocking_event_days as e
    on e.world_id = g.world_id and e.person_id = p.person_id and e.day = g.day
where e.starts_at < g.ends_at + interval '1' minute * r.minutes
    and g.starts_at - interval '1' minute * r.minutes < e.ends_at
