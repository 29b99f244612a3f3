-- For each level-3 start that is feasible in some scenario, the room it takes: among the fitting
-- rooms with no overlapping booking, the least room_id, or (tie_break = capacity) the least
-- capacity and then the least room_id.
with starts as (
    select distinct f.instance_id, f.starts_at, f.ends_at
    from int_scenario_feasible_starts as f
    join stg_instances as i on i.instance_id = f.instance_id
    where i.level = 3
),

fitting as (
    select
        s.instance_id,
        i.world_id,
        s.starts_at,
        s.ends_at,
        cast(s.starts_at as date) as day,
        fit.room_id,
        fit.capacity,
        fit.tie_break
    from starts as s
    join stg_instances as i on i.instance_id = s.instance_id
    join int_room_static_fits as fit on fit.instance_id = s.instance_id
),

booked as (
    select distinct f.instance_id, f.starts_at, f.room_id
    from fitting as f
    join stg_room_booking_days as b
        on b.world_id = f.world_id and b.room_id = f.room_id and b.day = f.day
    where b.starts_at < f.ends_at and f.starts_at < b.ends_at
)

select f.instance_id, f.starts_at, f.room_id
from fitting as f
where not exists (
    select 1 from booked as b
    where b.instance_id = f.instance_id and b.starts_at = f.starts_at and b.room_id = f.room_id
)
qualify row_number() over (
    partition by f.instance_id, f.starts_at
    order by case when f.tie_break = 'capacity' then f.capacity else 0 end, f.room_id
) = 1
