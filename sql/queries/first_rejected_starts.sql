-- name: first_rejected_starts
-- The earliest starts inside working hours that are not feasible (what the gold answer skipped),
-- at most $limit of them (all when $limit is null), with how many there are in all.
select
    f.starts_at,
    count(*) over () as n_rejected
from int_framed_grid as f
where f.instance_id = $instance_id
    and not exists (
        select 1 from oracle_candidates as c
        where c.instance_id = f.instance_id and c.starts_at = f.starts_at
    )
order by f.starts_at
limit $limit
