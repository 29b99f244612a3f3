-- Each room booking once per day it could touch a candidate (see stg_blocking_event_days).
select
    b.world_id,
    b.booking_id,
    b.room_id,
    b.starts_at,
    b.ends_at,
    cast(d.day_start as date) as day
from stg_room_bookings as b,
    unnest(generate_series(
        cast(cast(b.starts_at as date) as timestamp) - interval '1' day,
        cast(cast(b.ends_at as date) as timestamp) + interval '1' day,
        interval '1' day
    )) as d(day_start)
