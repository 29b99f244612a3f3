-- name: list_policies
-- description: Every scheduling policy of the organization: its id and name.
-- levels: 1 2 3 4
-- source: none
-- render: json
-- items: policies
select
    policy_id,
    name,
    ['policies:' || policy_id] as source_rows
from policies
where world_id = $world_id
order by position  -- the loader numbers rows: unique per world
