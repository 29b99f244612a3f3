-- name: tag_binding_shares
-- Per level and thread-tag kind: the instances whose threads say it, and the share where it
-- changes the answer or rejects a start that breaks nothing else (oracle_tag_binding).
select
    level,
    constraint_kind,
    count(*) as instances_with_kind,
    round(avg(changes_answer::int), 3) as share_changing_answer,
    round(avg(rejects_feasible::int), 3) as share_rejecting_feasible
from oracle_tag_binding
group by level, constraint_kind
order by level, constraint_kind
