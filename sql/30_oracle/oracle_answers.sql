-- The gold answer: the first N feasible candidates of each instance.
select
    c.instance_id,
    c.rank,
    c.starts_at,
    c.ends_at,
    c.room_id
from oracle_candidates as c
join stg_instances as i on i.instance_id = c.instance_id
where c.rank <= i.n
