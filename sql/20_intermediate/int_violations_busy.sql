-- A candidate overlapping a participant's blocking event.
select
    g.instance_id,
    g.starts_at,
    'busy' as constraint_kind,
    e.event_id as constraint_id,
    'events' as source_table,
    e.event_id as source_row_id
from int_framed_grid as g
join stg_participants as p on p.instance_id = g.instance_id
join stg_blocking_event_days as e
    on e.world_id = g.world_id and e.person_id = p.person_id and e.day = g.day
where e.starts_at < g.ends_at and g.starts_at < e.ends_at
