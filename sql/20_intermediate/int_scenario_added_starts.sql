-- For the necessity check: the starts inside working hours that removing a source makes feasible.
-- They break something (so they are not in int_feasible_starts), but only constraint kinds that
-- the scenario drops (int_kept_constraint_kinds; working hours are kept in every scenario).
select
    s.dropped_source,
    m.instance_id,
    m.starts_at
from int_slot_violation_masks as m
join int_kept_constraint_kinds as s on m.violated_mask & s.kept_mask = 0
where s.dropped_source <> 'none'
