-- Level 4: a candidate outside a participant's own working hours. The meeting is read on the
-- participant's wall clock (the organiser's time plus their offset_minutes): it must start at or
-- after their start of work and end by their end of work of that local day.
with shifted as (
    select
        g.instance_id,
        g.starts_at,
        h.person_id,
        h.start_minute,
        h.end_minute,
        g.starts_at + interval '1' minute * h.offset_minutes as local_start,
        g.ends_at + interval '1' minute * h.offset_minutes as local_end
    from int_framed_grid as g
    join stg_participants as p on p.instance_id = g.instance_id
    join stg_person_hours as h on h.world_id = p.world_id and h.person_id = p.person_id
),

local_days as (
    select
        shifted.*,
        cast(cast(local_start as date) as timestamp) as local_midnight
    from shifted
)

select
    instance_id,
    starts_at,
    'participant_hours' as constraint_kind,
    person_id as constraint_id,
    'person_hours' as source_table,
    person_id as source_row_id
from local_days
where local_start < local_midnight + interval '1' minute * start_minute
    or local_end > local_midnight + interval '1' minute * end_minute
