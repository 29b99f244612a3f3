-- Feasible candidates in each scenario. At level 3 a start needs a room, except when the rooms
-- are the removed source.
select
    f.dropped_source,
    f.instance_id,
    f.starts_at,
    f.ends_at,
    case when f.dropped_source = 'rooms' then null else rc.room_id end as room_id
from int_scenario_feasible_starts as f
join stg_instances as i on i.instance_id = f.instance_id
left join int_room_choice as rc
    on rc.instance_id = f.instance_id and rc.starts_at = f.starts_at
where i.level < 3
    or f.dropped_source = 'rooms'
    or rc.room_id is not null
