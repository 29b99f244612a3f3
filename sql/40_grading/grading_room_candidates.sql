-- The level-3 candidates the room checks look at (a clean candidate in the window that names a
-- room), with what the warehouse knows of its room: does it exist, does it fit the request
-- (capacity, features, building), and which room the tie-break rule takes at that start.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: starts_at  The candidate's start.
-- column: room_id  The submitted room.
-- column: problem_kinds  Always empty here (a clean candidate).
-- column: is_duplicate  Its key repeats an earlier candidate of the same answer.
-- column: level  Always 3.
-- column: world_id  The instance's world.
-- column: window_start  The first day of the instance's window.
-- column: window_end  The last day of the instance's window.
-- column: duration_minutes  The meeting's length.
-- column: tie_break  The rule that picks among free fitting rooms: room_id or capacity.
-- column: is_in_window  Always true here.
-- column: is_known_room  The room exists in the instance's world.
-- column: is_fitting_room  The room meets the capacity, features and building asked.
-- column: chosen_room_id  The room the oracle takes at this start (int_room_choice); null when
--   the start is feasible in no scenario.
select
    c.*,
    r.room_id is not null as is_known_room,
    fit.room_id is not null as is_fitting_room,
    choice.room_id as chosen_room_id
from grading_candidates as c
left join stg_rooms as r on r.world_id = c.world_id and r.room_id = c.room_id
left join int_room_static_fits as fit on fit.instance_id = c.instance_id and fit.room_id = c.room_id
left join int_room_choice as choice on choice.instance_id = c.instance_id and choice.starts_at = c.starts_at
where c.level >= 3 and c.is_in_window and len(c.problem_kinds) = 0 and c.room_id is not null
