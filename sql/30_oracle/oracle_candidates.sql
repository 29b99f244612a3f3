-- Every feasible candidate of every instance, ranked earliest first (room_id breaks no tie:
-- a start takes one room, so starts are distinct).
select
    c.instance_id,
    row_number() over (partition by c.instance_id order by c.starts_at) as rank,
    c.starts_at,
    c.ends_at,
    c.room_id
from int_scenario_candidates as c
where c.dropped_source = 'none'
