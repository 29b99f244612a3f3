-- The candidates inside the working hours of the instance's policy. Working hours frame every
-- scenario of the necessity check, so the other constraints are only judged on these: a start
-- outside working hours is reported with that violation alone.
select g.*
from int_grid as g
where not exists (
    select 1 from int_violations_working_hours as w
    where w.instance_id = g.instance_id and w.starts_at = g.starts_at
)
