-- name: get_policy
-- description: One scheduling policy as JSON: its rules, each with a type and parameters.
--   Rule types: {policy_rule_types}.
-- levels: 1
-- source: policy
-- render: json
-- items: rules
-- exists: policies.policy_id
-- not_found: No policy has policy_id {policy_id}; list_policies shows them all.
-- param: policy_id (string, required, maxLength=40) The policy's id, e.g. POL-ENG.
select
    rule_id,
    rule_type as type,
    cast(params as json) as params,
    ['policy_rules:' || rule_id] as source_rows
from policy_rules
where world_id = $world_id and policy_id = $policy_id
order by position  -- the loader numbers rules: unique per policy
