-- Check (level 3): the room fits and is free, but the tie-break rule takes another room at that
-- start.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  Always 'room_tie_break'.
-- column: source  Always 'rooms'.
-- column: constraint_id  The rule: 'tie_break=room_id' or 'tie_break=capacity'.
-- column: source_table  Always 'rooms'.
-- column: source_row_id  The room the rule takes.
select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    'room_tie_break' as constraint_kind,
    'rooms' as source,
    'tie_break=' || c.tie_break as constraint_id,
    'rooms' as source_table,
    c.chosen_room_id as source_row_id
from grading_room_candidates as c
where c.is_fitting_room
    and c.chosen_room_id is not null
    and c.chosen_room_id <> c.room_id
    and not exists (
        select 1 from grading_room_booked as b
        where b.instance_id = c.instance_id and b.trial = c.trial and b.turn = c.turn and b.position = c.position
    )
