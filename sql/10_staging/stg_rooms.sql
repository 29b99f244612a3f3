select world_id, room_id, building, capacity, features from rooms
