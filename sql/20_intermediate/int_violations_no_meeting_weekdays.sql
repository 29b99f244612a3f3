-- A candidate on a weekday the policy keeps free of meetings.
with weekday_names as (
    select * from (values
        (1, 'Mon'), (2, 'Tue'), (3, 'Wed'), (4, 'Thu'), (5, 'Fri'), (6, 'Sat'), (7, 'Sun')
    ) as w(iso_weekday, weekday)
),

rule_weekdays as (
    select r.world_id, r.policy_id, r.rule_id, d.weekday
    from stg_policy_rules as r, unnest(r.weekdays) as d(weekday)
    where r.rule_type = 'no_meeting_weekdays'
)

select
    g.instance_id,
    g.starts_at,
    'no_meeting_weekdays' as constraint_kind,
    r.rule_id as constraint_id,
    'policy_rules' as source_table,
    r.rule_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join weekday_names as w on w.iso_weekday = extract(isodow from g.day)
join rule_weekdays as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.weekday = w.weekday
