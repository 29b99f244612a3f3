-- Per instance: how many candidates were asked for and how many are feasible.
-- column: instance_id  The instance (instances.instance_id).
-- column: level  The instance's level, 1 to 3.
-- column: n  How many candidates the request asks for.
-- column: n_feasible  How many candidates are feasible (rows of oracle_candidates).
-- column: has_enough_feasible  n_feasible >= n (the build discards an instance without).
with feasible_counts as (
    select instance_id, count(*) as n_feasible
    from oracle_candidates
    group by instance_id
)

select
    i.instance_id,
    i.level,
    i.n,
    coalesce(f.n_feasible, 0) as n_feasible,
    coalesce(f.n_feasible, 0) >= i.n as has_enough_feasible
from stg_instances as i
left join feasible_counts as f on f.instance_id = i.instance_id
