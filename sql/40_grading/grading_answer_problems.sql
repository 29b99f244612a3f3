-- Check: what the parser found wrong with a candidate (unreadable, utc_offset, off_grid,
-- room_missing, bad_candidate), one violation of the source 'answer' per problem.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: constraint_kind  The problem's kind.
-- column: source  Always 'answer'.
-- column: constraint_id  The problem's kind again.
-- column: source_table  Always 'answer'.
-- column: source_row_id  The candidate's position, as text.
select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    k.kind as constraint_kind,
    'answer' as source,
    k.kind as constraint_id,
    'answer' as source_table,
    cast(c.position as varchar) as source_row_id
from grading_candidates as c, unnest(c.problem_kinds) as k(kind)
