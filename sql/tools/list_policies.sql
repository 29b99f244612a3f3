-- name: list_policies
-- description: Every scheduling policy of the organization: its id and name.
-- levels: 1 2 3
-- render: json
select
    coalesce(list({'policy_id': policy_id, 'name': name} order by position, policy_id), []) as policies
from policies
where world_id = $world_id
