-- name: start_ranks
-- The rank among the feasible starts of one instance (earliest first) of each given start that is
-- feasible, with the room it takes (level 3).
select
    c.starts_at,
    c.rank,
    c.room_id
from oracle_candidates as c
where c.instance_id = $instance_id
    and list_contains($starts, c.starts_at)
order by c.starts_at
