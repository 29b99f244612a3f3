-- Level-3 instances and the rooms that meet their capacity, features and building, before
-- bookings are looked at. Capacity must hold every participant and the asked minimum.
with instances as (
    select * from stg_instances where level >= 3
),

required_features as (
    select i.instance_id, i.world_id, f.feature
    from instances as i, unnest(i.room_features) as f(feature)
),

room_features as (
    select r.world_id, r.room_id, f.feature
    from stg_rooms as r, unnest(r.features) as f(feature)
),

missing_features as (
    select distinct rf.instance_id, r.room_id
    from required_features as rf
    join stg_rooms as r on r.world_id = rf.world_id
    where not exists (
        select 1 from room_features as have
        where have.world_id = r.world_id and have.room_id = r.room_id and have.feature = rf.feature
    )
)

select
    i.instance_id,
    i.tie_break,
    r.room_id,
    r.capacity
from instances as i
join stg_rooms as r on r.world_id = i.world_id
where r.capacity >= greatest(i.n_participants, i.room_min_capacity)
    and (i.room_building is null or r.building = i.room_building)
    and not exists (
        select 1 from missing_features as m
        where m.instance_id = i.instance_id and m.room_id = r.room_id
    )
