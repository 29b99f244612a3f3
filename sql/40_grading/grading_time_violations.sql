-- Check: every constraint the oracle's violation views (int_violations) find at a candidate's
-- start, with the source row behind it (calendar, policy and thread constraints).
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  The constraint it breaks (constraint_kinds).
-- column: source  The constraint's source: calendar, policy or threads.
-- column: constraint_id  The rule, tag or event that states the constraint.
-- column: source_table  The table of the row that kills the start.
-- column: source_row_id  That row's id.
select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    v.constraint_kind,
    v.source,
    v.constraint_id,
    v.source_table,
    v.source_row_id
from grading_candidates as c
join int_violations as v on v.instance_id = c.instance_id and v.starts_at = c.starts_at
