-- The grid starts that each busy interval (a person's blocking event, a room booking) rules out,
-- for each meeting length and margin in use. A meeting [t, t + d) widened by m on both sides
-- overlaps an interval [s, e) exactly when s - m - d < t < e + m; the 15-minute grid points in
-- that open range are enumerated from the midnight before s - m - d (grid points are whole
-- quarter hours after midnight).
with busy as (
    select world_id, 'person' as owner_kind, person_id as owner_id, event_id as source_row_id,
           starts_at, ends_at
    from stg_blocking_events
    union all
    select world_id, 'room', room_id, booking_id, starts_at, ends_at
    from stg_room_bookings
),

bounds as (
    select
        b.world_id,
        b.owner_kind,
        b.owner_id,
        b.source_row_id,
        m.duration_minutes,
        m.margin_minutes,
        b.starts_at - interval '1' minute * (m.margin_minutes + m.duration_minutes) as lower_bound,
        b.ends_at + interval '1' minute * m.margin_minutes as upper_bound
    from busy as b
    join int_blocked_margins as m on m.world_id = b.world_id and m.owner_kind = b.owner_kind
),

anchored as (
    select
        bounds.*,
        cast(cast(lower_bound as date) as timestamp) as anchor
    from bounds
)

select
    a.world_id,
    a.owner_kind,
    a.owner_id,
    a.source_row_id,
    a.duration_minutes,
    a.margin_minutes,
    a.anchor + interval '15' minute * k.slot_index as starts_at
from anchored as a,
    unnest(generate_series(
        cast(floor(date_diff('minute', a.anchor, a.lower_bound) / 15) as bigint) + 1,
        cast(ceil(date_diff('minute', a.anchor, a.upper_bound) / 15) as bigint) - 1
    )) as k(slot_index)
