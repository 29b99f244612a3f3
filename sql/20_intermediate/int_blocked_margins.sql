-- The (owner kind, meeting length, margin) triples for which busy intervals must be turned into
-- blocked starts: people's events with margin 0 (the calendar) and with the buffer minutes of an
-- instance's policy; level-3 room bookings with margin 0.
with instances as (
    select world_id, level, policy_id, duration_minutes from stg_instances
)

select distinct world_id, 'person' as owner_kind, duration_minutes, 0 as margin_minutes
from instances
union
select i.world_id, 'person', i.duration_minutes, r.minutes
from instances as i
join stg_policy_rules as r
    on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'buffer'
union
select world_id, 'room', duration_minutes, 0
from instances
where level >= 3
