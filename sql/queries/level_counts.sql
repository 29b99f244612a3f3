-- name: level_counts
-- Per level: instances, the world's size, and the oracle's labels.
select
    w.level,
    w.world_id,
    (select count(*) from instances as i where i.world_id = w.world_id) as instances,
    (select count(*) from people as p where p.world_id = w.world_id) as people,
    (select count(*) from events as e where e.world_id = w.world_id) as events,
    (select count(*) from policy_rules as r where r.world_id = w.world_id) as policy_rules,
    (select count(*) from threads as t where t.world_id = w.world_id) as threads,
    (select count(*) from messages as m where m.world_id = w.world_id) as messages,
    (select count(*) from rooms as r where r.world_id = w.world_id) as rooms,
    (select count(*) from oracle_summary as s join instances as i using (instance_id)
     where i.world_id = w.world_id and not s.has_enough_feasible) as too_few_feasible
from worlds as w
order by w.level
