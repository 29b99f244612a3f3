select world_id, booking_id, room_id, starts_at, ends_at from room_bookings
