-- The gold answer: the first N feasible candidates of each instance.
-- column: instance_id  The instance (instances.instance_id).
-- column: rank  1 = the earliest start; ranks run 1 to the instance's n.
-- column: starts_at  The meeting's start, local wall-clock time on the 15-minute grid.
-- column: ends_at  starts_at plus the meeting's duration.
-- column: room_id  The room the start takes at level 3 (the tie-break rule's choice among the
--   fitting free rooms); null at levels 1 and 2.
select
    c.instance_id,
    c.rank,
    c.starts_at,
    c.ends_at,
    c.room_id
from oracle_candidates as c
join stg_instances as i on i.instance_id = c.instance_id
where c.rank <= i.n
