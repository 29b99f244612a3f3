-- Each instance's gold answer holds n candidates, or every feasible one when fewer are feasible.
-- Returns the instances whose answer has another size.
with sizes as (
    select instance_id, count(*) as n_gold
    from oracle_answers
    group by instance_id
)

select
    s.instance_id,
    s.n,
    s.n_feasible,
    coalesce(z.n_gold, 0) as n_gold
from oracle_summary as s
left join sizes as z on z.instance_id = s.instance_id
where coalesce(z.n_gold, 0) <> least(s.n, s.n_feasible)
order by s.instance_id
