-- The primary failure cause of each answer that is not an exact match: a parse failure if there
-- is one; else the (cause, source, constraint kind, stage) of grading_failures that explains the
-- most wrong candidates, preferring acquisition over integration, then the source order
-- calendar, policy, threads, rooms, answer; too few candidates only when nothing else is wrong.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: cause  As in grading_failures.
-- column: source  The violated constraint's source (violation only).
-- column: constraint_kind  The violated constraint (violation only).
-- column: stage  acquisition, integration or null, as in grading_failures.
-- column: n_candidates  How many wrong candidates the cause explains.
-- column: constraint_ids  The rules, tags, events or rooms behind it, sorted.
with failures as (
    select * from grading_failures
),

per_candidate as (
    select
        f.instance_id, f.trial, f.turn, f.cause, f.source, f.constraint_kind, f.stage, f.constraint_id,
        p.position
    from failures as f, unnest(f.positions) as p(position)
),

candidate_groups as (
    select
        instance_id, trial, turn, cause, source, constraint_kind, stage,
        count(distinct position) as n_candidates,
        list_sort(list(distinct constraint_id) filter (where constraint_id is not null)) as constraint_ids
    from per_candidate
    group by all
),

episode_groups as (
    select
        instance_id, trial, turn, cause, source, constraint_kind, stage,
        0 as n_candidates,
        cast([] as varchar[]) as constraint_ids
    from failures
    where len(positions) = 0
),

source_order as (
    select * from (values ('calendar', 1), ('policy', 2), ('threads', 3), ('rooms', 4), ('answer', 5))
        as o(source, source_rank)
),

ranked as (
    select
        g.*,
        row_number() over (
            partition by g.instance_id, g.trial, g.turn
            order by
                case when g.cause = 'parse_failure' then 0 else 1 end,
                g.n_candidates desc,
                case g.stage when 'acquisition' then 0 when 'integration' then 1 else 2 end,
                coalesce(o.source_rank, 9),
                g.cause,
                g.constraint_kind
        ) as preference
    from (select * from candidate_groups union all by name select * from episode_groups) as g
    left join source_order as o on o.source = g.source
)

select
    instance_id,
    trial,
    turn,
    cause,
    source,
    constraint_kind,
    stage,
    n_candidates,
    constraint_ids
from ranked
where preference = 1
order by instance_id, trial, turn
