-- Check: a readable start on a day outside the instance's window (kind out_of_window, source
-- 'answer').
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  Always 'out_of_window'.
-- column: source  Always 'answer'.
-- column: constraint_id  Always 'out_of_window'.
-- column: source_table  Always 'instances'.
-- column: source_row_id  The instance, whose window the start misses.
select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    'out_of_window' as constraint_kind,
    'answer' as source,
    'out_of_window' as constraint_id,
    'instances' as source_table,
    c.instance_id as source_row_id
from grading_candidates as c
where c.starts_at is not null and not c.is_in_window
