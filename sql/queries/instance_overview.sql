-- name: instance_overview
-- The prompt, window and resolved requirements of one instance.
select
    i.instance_id,
    i.level,
    i.world_id,
    i.project_id,
    i.now,
    i.window_start,
    i.window_end,
    i.prompt,
    i.given,
    s.duration_minutes,
    s.n,
    s.policy_id,
    s.tie_break,
    s.room_min_capacity,
    s.room_features,
    s.room_building,
    (select list(person_id order by position) from requirement_participants as rp
     where rp.instance_id = i.instance_id) as participants,
    o.n_feasible
from instances as i
join stg_instances as s on s.instance_id = i.instance_id
join oracle_summary as o on o.instance_id = i.instance_id
where i.instance_id = $instance_id
