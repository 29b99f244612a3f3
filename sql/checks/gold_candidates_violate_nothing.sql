-- No feasible candidate (the gold answer included) breaks a constraint: no violation view has a
-- row at its start. Returns each violation found at a feasible start.
select
    c.instance_id,
    c.rank,
    c.starts_at,
    v.constraint_kind,
    v.constraint_id,
    v.source_table,
    v.source_row_id
from oracle_candidates as c
join int_violations as v on v.instance_id = c.instance_id and v.starts_at = c.starts_at
order by c.instance_id, c.rank, v.constraint_kind, v.constraint_id, v.source_row_id
