-- For each source an instance's level requires: does removing it change the first N starts?
-- Removing a constraint only adds feasible starts, so the answers are equal exactly when they
-- have as many starts and every gold start is still among the first N without that source.
-- column: instance_id  The instance (instances.instance_id).
-- column: source  A source the instance's level requires (level_sources): calendar, policy,
--   threads or rooms.
-- column: is_needed  True when the answer without this source's constraints differs from the
--   gold answer (the build keeps only instances where every required source is needed).
with top_starts as (
    select
        c.dropped_source,
        c.instance_id,
        c.starts_at
    from int_scenario_candidates as c
    join stg_instances as i on i.instance_id = c.instance_id
    qualify row_number() over (partition by c.dropped_source, c.instance_id order by c.starts_at) <= i.n
),

answer_sizes as (
    select dropped_source, instance_id, count(*) as n_starts
    from top_starts
    group by dropped_source, instance_id
),

gold as (
    select instance_id, starts_at from top_starts where dropped_source = 'none'
),

required as (
    select i.instance_id, ls.source
    from stg_instances as i
    join level_sources as ls on ls.level = i.level
),

lost_gold_starts as (
    select
        r.instance_id,
        r.source,
        sum(case when g.starts_at is not null and kept.starts_at is null then 1 else 0 end) as n_lost
    from required as r
    left join gold as g on g.instance_id = r.instance_id
    left join top_starts as kept
        on kept.dropped_source = r.source
        and kept.instance_id = g.instance_id
        and kept.starts_at = g.starts_at
    group by r.instance_id, r.source
)

select
    l.instance_id,
    l.source,
    l.n_lost > 0
        or coalesce(full_size.n_starts, 0) <> coalesce(without_size.n_starts, 0) as is_needed
from lost_gold_starts as l
left join answer_sizes as full_size
    on full_size.instance_id = l.instance_id and full_size.dropped_source = 'none'
left join answer_sizes as without_size
    on without_size.instance_id = l.instance_id and without_size.dropped_source = l.source
