-- Every submitted candidate (grading_predictions) with what its instance asks: level, world,
-- window, duration, tie-break rule, and whether its start falls on a day of the window.
-- column: instance_id  The instance.
-- column: trial  The episode's trial, 1 to k.
-- column: turn  The answer's turn, 1 = the first answer.
-- column: position  The candidate's place in the answer, 1 = first.
-- column: starts_at  The start, null when the parser could not read one.
-- column: room_id  The submitted room (level 3).
-- column: problem_kinds  What the parser found wrong (unreadable, utc_offset, off_grid,
--   room_missing, bad_candidate); empty for a clean candidate.
-- column: is_duplicate  Its key repeats an earlier candidate of the same answer.
-- column: level  The instance's level.
-- column: world_id  The instance's world.
-- column: window_start  The first day of the instance's window.
-- column: window_end  The last day of the instance's window.
-- column: duration_minutes  The meeting's length.
-- column: tie_break  The rule that picks among free fitting rooms: room_id or capacity.
-- column: is_in_window  The start is readable and on a day of the window.
select
    p.instance_id,
    p.trial,
    p.turn,
    p.position,
    p.starts_at,
    p.room_id,
    p.problem_kinds,
    p.is_duplicate,
    i.level,
    i.world_id,
    i.window_start,
    i.window_end,
    i.duration_minutes,
    i.tie_break,
    p.starts_at is not null
        and cast(p.starts_at as date) between i.window_start and i.window_end as is_in_window
from grading_predictions as p
join stg_instances as i on i.instance_id = p.instance_id
