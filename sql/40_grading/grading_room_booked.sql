-- Check (level 3): a booking of the submitted room overlaps the meeting; one row per booking.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  Always 'room_booked'.
-- column: source  Always 'rooms'.
-- column: constraint_id  The submitted room id.
-- column: source_table  Always 'room_bookings'.
-- column: source_row_id  The overlapping booking.
select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    'room_booked' as constraint_kind,
    'rooms' as source,
    c.room_id as constraint_id,
    'room_bookings' as source_table,
    b.booking_id as source_row_id
from grading_room_candidates as c
join stg_room_bookings as b
    on b.world_id = c.world_id
    and b.room_id = c.room_id
    and b.starts_at < c.starts_at + interval '1' minute * c.duration_minutes
    and c.starts_at < b.ends_at
