-- Every (candidate, constraint) pair that removes a candidate: the working-hours frame for starts
-- outside it, every other constraint for starts inside it.
select
    v.instance_id,
    v.starts_at,
    v.constraint_kind,
    k.source,
    v.constraint_id,
    v.source_table,
    v.source_row_id
from int_violations_working_hours as v
join constraint_kinds as k on k.constraint_kind = v.constraint_kind
union all
select * from int_framed_violations
