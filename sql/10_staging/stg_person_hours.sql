-- Level 4: each person's working hours in their own zone, as minutes after their midnight, and
-- the offset of their wall clock from the world's (organiser's) zone.
select
    world_id,
    person_id,
    timezone,
    offset_minutes,
    cast(split_part(work_start, ':', 1) as integer) * 60
        + cast(split_part(work_start, ':', 2) as integer) as start_minute,
    cast(split_part(work_end, ':', 1) as integer) * 60
        + cast(split_part(work_end, ':', 2) as integer) as end_minute
from person_hours
