-- The full problem's candidates: the feasible starts, at level 3 each with the room it takes (a
-- start with no free fitting room is no candidate there).
select
    f.instance_id,
    f.starts_at,
    f.ends_at,
    rc.room_id
from int_feasible_starts as f
join stg_instances as i on i.instance_id = f.instance_id
left join int_room_choice as rc
    on rc.instance_id = f.instance_id and rc.starts_at = f.starts_at
where i.level < 3
    or rc.room_id is not null
