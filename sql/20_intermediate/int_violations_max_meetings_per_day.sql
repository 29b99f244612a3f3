-- A candidate on a day when a participant already has the policy's maximum number of meetings.
select
    g.instance_id,
    g.starts_at,
    'max_meetings_per_day' as constraint_kind,
    r.rule_id as constraint_id,
    'people' as source_table,
    p.person_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_policy_rules as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'max_meetings_per_day'
join stg_participants as p on p.instance_id = g.instance_id
join stg_daily_event_counts as c
    on c.world_id = g.world_id and c.person_id = p.person_id and c.day = g.day
where c.n_events >= r.max_count
