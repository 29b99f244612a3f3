-- A candidate overlapping a participant's blocking event (a single event, or an occurrence of a
-- recurring series: source_table event_series).
select
    g.instance_id,
    g.starts_at,
    'busy' as constraint_kind,
    b.source_row_id as constraint_id,
    case when b.source_row_id like '%@%' then 'event_series' else 'events' end as source_table,
    b.source_row_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_participants as p on p.instance_id = g.instance_id
join int_blocked_starts as b
    on b.world_id = g.world_id
    and b.owner_kind = 'person'
    and b.owner_id = p.person_id
    and b.duration_minutes = i.duration_minutes
    and b.margin_minutes = 0
    and b.starts_at = g.starts_at
