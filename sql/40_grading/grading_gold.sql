-- The gold candidates of every instance, earliest first, with the level, which decides the
-- candidate key: the start at levels 1-2, the start and the room at level 3.
-- column: instance_id  The instance.
-- column: level  The instance's level, 1 to 3.
-- column: rank  The gold rank, 1 = the earliest start.
-- column: starts_at  The gold start.
-- column: room_id  The gold room at level 3; null at levels 1 and 2.
select
    a.instance_id,
    i.level,
    a.rank,
    a.starts_at,
    a.room_id
from oracle_answers as a
join stg_instances as i on i.instance_id = a.instance_id
order by a.instance_id, a.rank
