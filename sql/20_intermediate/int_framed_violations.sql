-- Every (candidate, constraint) pair that removes a candidate inside working hours, with the
-- source the constraint comes from and the source row that kills it. Rooms are judged later, on
-- feasible starts only.
with violations as (
    select * from int_violations_busy
    union all select * from int_violations_blackout
    union all select * from int_violations_buffer
    union all select * from int_violations_no_meeting_weekdays
    union all select * from int_violations_min_notice
    union all select * from int_violations_max_meetings_per_day
    union all select * from int_violations_deadline
    union all select * from int_violations_ban
    union all select * from int_violations_ooo
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
