-- Every instance has at least n feasible starts, except those `build_stats` reports as kept
-- with too few (only `mpcbench import` keeps such an instance; a build discards it). Returns the
-- levels whose count of instances with too few feasible starts differs from the reported one.
with too_few as (
    select level, count(*) filter (where not has_enough_feasible) as n_too_few
    from oracle_summary
    group by level
)

select
    t.level,
    t.n_too_few,
    coalesce(b.kept_too_few_feasible, 0) as reported
from too_few as t
left join build_stats as b on b.level = t.level
where t.n_too_few <> coalesce(b.kept_too_few_feasible, 0)
order by t.level
