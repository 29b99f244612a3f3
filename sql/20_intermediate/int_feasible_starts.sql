-- The starts inside working hours that break no constraint: the full problem's feasible starts,
-- before rooms (int_candidates gives them theirs).
select
    g.instance_id,
    g.starts_at,
    g.ends_at
from int_framed_grid as g
anti join int_slot_violation_masks as m
    on m.instance_id = g.instance_id and m.starts_at = g.starts_at
