-- For each source an instance's level requires: does removing it change the first N starts?
-- Removing a source only adds candidates (int_scenario_added_candidates), so the first N change
-- exactly when an added candidate comes before the N-th gold start, or, when there are fewer than
-- N gold starts, when any candidate is added.
-- column: instance_id  The instance (instances.instance_id).
-- column: source  A source the instance's level requires (level_sources): calendar, policy,
--   threads or rooms.
-- column: is_needed  True when the answer without this source's constraints differs from the
--   gold answer (the build keeps only instances where every required source is needed).
with last_gold_starts as (
    select
        s.instance_id,
        case when s.has_enough_feasible then max(a.starts_at) end as last_gold_start
    from oracle_summary as s
    left join oracle_answers as a on a.instance_id = s.instance_id
    group by s.instance_id, s.has_enough_feasible
),

first_added as (
    select dropped_source, instance_id, min(starts_at) as starts_at
    from int_scenario_added_candidates
    group by dropped_source, instance_id
)

select
    i.instance_id,
    ls.source,
    added.starts_at is not null
        and (g.last_gold_start is null or added.starts_at < g.last_gold_start) as is_needed
from stg_instances as i
join level_sources as ls on ls.level = i.level
join last_gold_starts as g on g.instance_id = i.instance_id
left join first_added as added
    on added.instance_id = i.instance_id and added.dropped_source = ls.source
