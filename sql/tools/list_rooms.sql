-- name: list_rooms
-- description: Meeting rooms as a table: id, name, building, floor, capacity (seats) and features.
-- levels: 3 4
-- source: rooms
-- render: markdown
-- empty: No room matches these filters.
-- param: building (string, maxLength=100) Only rooms in this building.
-- param: min_capacity (integer, minimum=0, maximum=10000) Only rooms with at least this many seats.
-- param: feature (string, maxLength=100) Only rooms with this feature, e.g. video.
select
    room_id,
    name,
    building,
    floor,
    capacity,
    features,
    ['rooms:' || room_id] as source_rows
from rooms
where world_id = $world_id
    and ($building is null or lower(building) = lower($building))
    and ($min_capacity is null or capacity >= $min_capacity)
    and ($feature is null or list_contains(features, lower($feature)))
order by room_id
