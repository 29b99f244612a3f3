-- For each level-3 start that is feasible in some scenario of the necessity check (the full
-- problem's and those a removed source adds), the room it takes: among the fitting rooms with no
-- overlapping booking, the least room_id, or (tie_break = capacity) the least capacity and then
-- the least room_id.
with feasible_somewhere as (
    select instance_id, starts_at from int_feasible_starts
    union
    select instance_id, starts_at from int_scenario_added_starts
),

starts as (
    select f.instance_id, i.world_id, i.duration_minutes, f.starts_at
    from feasible_somewhere as f
    join stg_instances as i on i.instance_id = f.instance_id
    where i.level >= 3
),

free_rooms as (
    select
        s.instance_id,
        s.starts_at,
        fit.room_id,
        fit.capacity,
        fit.tie_break
    from starts as s
    join int_room_static_fits as fit on fit.instance_id = s.instance_id
    where not exists (
        select 1 from int_blocked_starts as b
        where b.world_id = s.world_id
            and b.owner_kind = 'room'
            and b.owner_id = fit.room_id
            and b.duration_minutes = s.duration_minutes
            and b.starts_at = s.starts_at
    )
)

select
    instance_id,
    starts_at,
    arg_min(
        room_id,
        struct_pack(preference := case when tie_break = 'capacity' then capacity else 0 end, room_id := room_id)
    ) as room_id
from free_rooms
group by instance_id, starts_at
