-- Each gold answer is ranked 1, 2, 3, ... with strictly increasing starts. Returns the rows whose
-- rank or start does not follow the row before.
with ordered as (
    select
        instance_id,
        rank,
        starts_at,
        lag(rank) over (partition by instance_id order by rank) as previous_rank,
        lag(starts_at) over (partition by instance_id order by rank) as previous_starts_at
    from oracle_answers
)

select instance_id, rank, starts_at, previous_rank, previous_starts_at
from ordered
where rank <> coalesce(previous_rank, 0) + 1
    or starts_at <= previous_starts_at
order by instance_id, rank
