-- Starts inside working hours that break no constraint kept in each scenario (see
-- int_kept_constraint_kinds; working hours are kept in every scenario).
with framed as (
    select
        g.instance_id,
        g.starts_at,
        g.ends_at,
        coalesce(m.violated_mask, 0) as violated_mask
    from int_framed_grid as g
    left join int_slot_violation_masks as m
        on m.instance_id = g.instance_id and m.starts_at = g.starts_at
)

select
    s.dropped_source,
    f.instance_id,
    f.starts_at,
    f.ends_at
from framed as f
cross join int_kept_constraint_kinds as s
where f.violated_mask & s.kept_mask = 0
