-- Every feasible candidate of every instance, ranked earliest first (room_id breaks no tie:
-- a start takes one room, so starts are distinct).
-- column: instance_id  The instance (instances.instance_id).
-- column: rank  1 = the earliest feasible start of the instance.
-- column: starts_at  The start, local wall-clock time on the 15-minute grid.
-- column: ends_at  starts_at plus the meeting's duration.
-- column: room_id  The room the start takes at level 3; null at levels 1 and 2.
select
    c.instance_id,
    row_number() over (partition by c.instance_id order by c.starts_at) as rank,
    c.starts_at,
    c.ends_at,
    c.room_id
from int_candidates as c
