-- Every (candidate, constraint) pair that removes a candidate, with the source the constraint
-- comes from and the source row that kills it: the working-hours frame for starts outside it,
-- every other constraint for starts inside it.
with violations as (
    select * from int_violations_working_hours
    union all
    select * from int_framed_violations
)

select
    v.instance_id,
    v.starts_at,
    v.constraint_kind,
    k.source,
    v.constraint_id,
    v.source_table,
    v.source_row_id
from violations as v
join constraint_kinds as k on k.constraint_kind = v.constraint_kind
