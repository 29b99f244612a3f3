-- name: eval_gold
-- The gold candidates of the given instances, earliest first, with the level (which decides the
-- candidate key: the start at levels 1-2, the start and the room at level 3).
select
    a.instance_id,
    i.level,
    a.rank,
    a.starts_at,
    a.room_id
from oracle_answers as a
join stg_instances as i on i.instance_id = a.instance_id
where list_contains($instance_ids, a.instance_id)
order by a.instance_id, a.rank
