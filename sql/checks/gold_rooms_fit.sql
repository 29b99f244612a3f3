-- Every level-3 gold candidate has a room that exists, fits the request (capacity, features,
-- building) and has no booking overlapping the meeting; levels 1 and 2 have no room. Returns
-- the gold rows that break it, with the reason.
with gold as (
    select a.instance_id, a.rank, a.starts_at, a.ends_at, a.room_id, i.level, i.world_id
    from oracle_answers as a
    join stg_instances as i on i.instance_id = a.instance_id
),

problems as (
    select g.instance_id, g.rank, g.room_id, 'room at level 1-2' as problem
    from gold as g
    where g.level < 3 and g.room_id is not null
    union all
    select g.instance_id, g.rank, g.room_id, 'no room at level 3'
    from gold as g
    where g.level >= 3 and g.room_id is null
    union all
    select g.instance_id, g.rank, g.room_id, 'room does not fit'
    from gold as g
    where g.level >= 3
        and g.room_id is not null
        and not exists (
            select 1 from int_room_static_fits as f
            where f.instance_id = g.instance_id and f.room_id = g.room_id
        )
    union all
    select g.instance_id, g.rank, g.room_id, 'room booked: ' || b.booking_id
    from gold as g
    join stg_room_bookings as b
        on b.world_id = g.world_id
        and b.room_id = g.room_id
        and b.starts_at < g.ends_at
        and g.starts_at < b.ends_at
    where g.level >= 3
)

select instance_id, rank, room_id, problem
from problems
order by instance_id, rank, problem
