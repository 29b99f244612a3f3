-- name: start_violations
-- Every constraint that removes the given starts of one instance, with the source row behind it.
select
    v.starts_at,
    v.constraint_kind,
    v.source,
    v.constraint_id,
    v.source_table,
    v.source_row_id
from int_violations as v
where v.instance_id = $instance_id
    and list_contains($starts, v.starts_at)
order by v.starts_at, v.source, v.constraint_kind, v.constraint_id, v.source_row_id
