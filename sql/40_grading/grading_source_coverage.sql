-- Per answer: the sources its level requires (level_sources), every source the agent had read
-- by then (grading_source_reads), and the share of the required ones it read.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: sources_required  The sources the level requires, sorted.
-- column: sources_read  The sources read by this answer, sorted (directory included).
-- column: source_coverage  The share of the required sources read, 0 to 1.
with required as (
    select e.instance_id, e.trial, e.turn, ls.source
    from grading_episodes as e
    join level_sources as ls on ls.level = e.level
),

required_lists as (
    select instance_id, trial, turn, list_sort(list(source)) as sources_required
    from required
    group by all
),

read_lists as (
    select instance_id, trial, turn, list_sort(list(source)) as sources_read
    from grading_source_reads
    group by all
),

covered as (
    select q.instance_id, q.trial, q.turn, count(*) as n_covered
    from required as q
    join grading_source_reads as r
        on r.instance_id = q.instance_id and r.trial = q.trial and r.turn = q.turn and r.source = q.source
    group by all
)

select
    e.instance_id,
    e.trial,
    e.turn,
    coalesce(q.sources_required, cast([] as varchar[])) as sources_required,
    coalesce(r.sources_read, cast([] as varchar[])) as sources_read,
    coalesce(c.n_covered, 0) / greatest(len(q.sources_required), 1) as source_coverage
from grading_episodes as e
left join required_lists as q on q.instance_id = e.instance_id and q.trial = e.trial and q.turn = e.turn
left join read_lists as r on r.instance_id = e.instance_id and r.trial = e.trial and r.turn = e.turn
left join covered as c on c.instance_id = e.instance_id and c.trial = e.trial and c.turn = e.turn
order by e.instance_id, e.trial, e.turn
