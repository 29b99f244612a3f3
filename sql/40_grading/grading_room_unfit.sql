-- Check (level 3): the room exists but misses the capacity, a feature or the building asked.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  Always 'room_unfit'.
-- column: source  Always 'rooms'.
-- column: constraint_id  The submitted room id.
-- column: source_table  Always 'rooms'.
-- column: source_row_id  The submitted room id.
select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    'room_unfit' as constraint_kind,
    'rooms' as source,
    c.room_id as constraint_id,
    'rooms' as source_table,
    c.room_id as source_row_id
from grading_room_candidates as c
where c.is_known_room and not c.is_fitting_room
