-- Every constraint a submitted candidate breaks, one row per constraint and source row: the
-- answer's own problems, the oracle's constraint views at its start, and the level-3 room checks.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  The constraint it breaks.
-- column: source  Where the constraint comes from: answer, calendar, policy, threads or rooms.
-- column: constraint_id  The rule, tag, event or room that states it.
-- column: source_table  The table of the row behind it.
-- column: source_row_id  That row's id.
select * from grading_answer_problems
union all
select * from grading_out_of_window
union all
select * from grading_time_violations
union all
select * from grading_unknown_room
union all
select * from grading_room_unfit
union all
select * from grading_room_booked
union all
select * from grading_room_tie_break
