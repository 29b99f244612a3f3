-- Every submitted candidate checked against the oracle: is its key in the gold answer, is it
-- feasible at all, and every constraint it breaks (grading_violations), in the source order
-- answer, calendar, policy, threads, rooms. A candidate the parser flagged is never in the gold
-- answer, whatever its digits say.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: position  The candidate's place in the answer.
-- column: is_duplicate  Its key repeats an earlier candidate of the same answer.
-- column: in_gold  Its key is one of the gold answer's keys.
-- column: gold_rank  Its gold rank when in_gold, else null.
-- column: feasible  It is a feasible candidate (oracle_candidates), gold or not.
-- column: violations  The constraints it breaks: a list of structs (constraint_kind, source,
--   constraint_id, source_table, source_row_id); empty for a feasible one.
with source_order as (
    select * from (values ('answer', 0), ('calendar', 1), ('policy', 2), ('threads', 3), ('rooms', 4))
        as o(source, source_rank)
),

violation_lists as (
    select
        v.instance_id,
        v.trial,
        v.turn,
        v.position,
        list(
            struct_pack(
                constraint_kind := v.constraint_kind,
                source := v.source,
                constraint_id := v.constraint_id,
                source_table := v.source_table,
                source_row_id := v.source_row_id
            )
            order by coalesce(o.source_rank, 9), v.constraint_kind, v.constraint_id, v.source_row_id
        ) as violations
    from grading_violations as v
    left join source_order as o on o.source = v.source
    group by v.instance_id, v.trial, v.turn, v.position
)

select
    c.instance_id,
    c.trial,
    c.turn,
    c.position,
    c.is_duplicate,
    len(c.problem_kinds) = 0 and g.rank is not null as in_gold,
    case when len(c.problem_kinds) = 0 then g.rank end as gold_rank,
    len(c.problem_kinds) = 0 and f.starts_at is not null as feasible,
    coalesce(v.violations, []) as violations
from grading_candidates as c
left join oracle_answers as g
    on g.instance_id = c.instance_id
    and g.starts_at = c.starts_at
    and (c.level < 3 or g.room_id = c.room_id)
-- oracle_candidates' rows without its rank (a window over each instance's candidates, a tenth of
-- a call's time): only whether the start is among them matters here
left join int_candidates as f
    on f.instance_id = c.instance_id
    and f.starts_at = c.starts_at
    and (c.level < 3 or f.room_id = c.room_id)
left join violation_lists as v
    on v.instance_id = c.instance_id and v.trial = c.trial and v.turn = c.turn and v.position = c.position
order by c.instance_id, c.trial, c.turn, c.position
