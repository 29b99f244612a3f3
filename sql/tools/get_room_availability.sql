-- name: get_room_availability
-- description: One room's bookings [start, end) that overlap the date range, earliest first; the
--   room is free at every other time.
-- levels: 3 4
-- source: rooms
-- render: json
-- items: booked
-- exists: rooms.room_id
-- not_found: No room has room_id {room_id}; list_rooms shows them.
-- param: room_id (string, required, maxLength=40) The room's id, e.g. N-204.
-- param: start_date (string, format=date, required) First day of the range.
-- param: end_date (string, format=date, required) Last day of the range (included),
--   at most 31 days after start_date.
select
    starts_at as "start",
    ends_at as "end",
    ['room_bookings:' || booking_id] as source_rows
from room_bookings
where world_id = $world_id
    and room_id = $room_id
    and starts_at < cast($end_date as date) + interval '1' day
    and ends_at > cast($start_date as date)
order by starts_at, ends_at  -- rows that tie print the same, so the output is deterministic
