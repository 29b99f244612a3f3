-- For each source an instance's level requires: does removing it change the first N starts?
-- Removing a constraint only adds feasible starts, so the answers are equal exactly when every
-- gold start is still among the first N starts without that source.
with top_starts as (
    select
        c.dropped_source,
        c.instance_id,
        c.starts_at
    from int_scenario_candidates as c
    join stg_instances as i on i.instance_id = c.instance_id
    qualify row_number() over (partition by c.dropped_source, c.instance_id order by c.starts_at) <= i.n
),

required as (
    select i.instance_id, ls.source
    from stg_instances as i
    join level_sources as ls on ls.level = i.level
)

select
    r.instance_id,
    r.source,
    exists (
        select 1
        from top_starts as gold
        where gold.dropped_source = 'none'
            and gold.instance_id = r.instance_id
            and not exists (
                select 1 from top_starts as without
                where without.dropped_source = r.source
                    and without.instance_id = r.instance_id
                    and without.starts_at = gold.starts_at
            )
    ) as is_needed
from required as r
