-- Why an answer is not an exact match, one row per cause. Causes: violation (a wrong candidate
-- breaks this constraint; one row per constraint and source row, with the candidates it hits;
-- stage 'acquisition' when the constraint's source was never read, else 'integration', none for
-- the answer's own problems); ranking (a wrong candidate is feasible but not among the first N;
-- integration); unexplained (a wrong candidate breaks nothing and is not feasible: a grader
-- bug); too_few_candidates (fewer distinct candidates than the N asked for); parse_failure (no
-- readable answer).
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: cause  violation, ranking, unexplained, too_few_candidates or parse_failure.
-- column: source  The violated constraint's source (violation only).
-- column: constraint_kind  The violated constraint (violation only).
-- column: constraint_id  The rule, tag, event or room that states it (violation only).
-- column: source_table  The table of the row behind it (violation only).
-- column: source_row_id  That row's id (violation only).
-- column: stage  acquisition (the source was never read), integration (read, still wrong), or
--   null (the answer's own problems, unexplained, too_few_candidates, parse_failure).
-- column: n_candidates  How many wrong candidates the cause explains (0 for an answer-wide one).
-- column: positions  Their places in the answer, sorted.
with episodes as (
    select * from grading_episodes
),

wrong as (
    select * from grading_candidate_checks where not in_gold and not is_duplicate
),

violations as (
    select
        w.instance_id,
        w.trial,
        w.turn,
        w.position,
        v.constraint_kind,
        v.source,
        v.constraint_id,
        v.source_table,
        v.source_row_id
    from wrong as w, unnest(w.violations) as u(v)
),

violation_causes as (
    select
        v.instance_id,
        v.trial,
        v.turn,
        'violation' as cause,
        v.source,
        v.constraint_kind,
        v.constraint_id,
        v.source_table,
        v.source_row_id,
        case
            when v.source = 'answer' then null
            when r.source is null then 'acquisition'
            else 'integration'
        end as stage,
        list_sort(list(distinct v.position)) as positions
    from violations as v
    left join grading_source_reads as r
        on r.instance_id = v.instance_id and r.trial = v.trial and r.turn = v.turn and r.source = v.source
    group by all
),

candidate_causes as (
    select
        instance_id,
        trial,
        turn,
        case when feasible then 'ranking' else 'unexplained' end as cause,
        list_sort(list(position)) as positions
    from wrong
    where feasible or len(violations) = 0
    group by all
),

episode_causes as (
    select
        instance_id,
        trial,
        turn,
        case when parse_ok then 'too_few_candidates' else 'parse_failure' end as cause
    from episodes
    where not parse_ok or n_distinct_pred < n_gold
),

causes as (
    select * from violation_causes
    union all by name
    select
        instance_id, trial, turn, cause,
        case when cause = 'ranking' then 'integration' end as stage,
        positions
    from candidate_causes
    union all by name
    select instance_id, trial, turn, cause, cast([] as integer[]) as positions
    from episode_causes
)

select
    instance_id,
    trial,
    turn,
    cause,
    source,
    constraint_kind,
    constraint_id,
    source_table,
    source_row_id,
    stage,
    len(positions) as n_candidates,
    positions
from causes
order by instance_id, trial, turn, cause, source, constraint_kind, constraint_id, source_row_id
