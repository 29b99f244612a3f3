-- name: instance_gold
-- The gold answer of one instance, earliest first.
select rank, starts_at, ends_at, room_id
from oracle_answers
where instance_id = $instance_id
order by rank
