-- For the necessity check: the candidates that removing a source adds to the full problem's
-- (int_candidates). Without calendar, policy or threads: the starts the scenario makes feasible
-- (int_scenario_added_starts), at level 3 only those with a free fitting room; without rooms:
-- the level-3 feasible starts that have no room.
select
    a.dropped_source,
    a.instance_id,
    a.starts_at,
    rc.room_id
from int_scenario_added_starts as a
join stg_instances as i on i.instance_id = a.instance_id
left join int_room_choice as rc
    on rc.instance_id = a.instance_id and rc.starts_at = a.starts_at
where i.level < 3
    or rc.room_id is not null

union all

select
    'rooms' as dropped_source,
    f.instance_id,
    f.starts_at,
    null as room_id
from int_feasible_starts as f
join stg_instances as i on i.instance_id = f.instance_id
anti join int_room_choice as rc
    on rc.instance_id = f.instance_id and rc.starts_at = f.starts_at
where i.level >= 3
