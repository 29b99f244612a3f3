-- name: get_policy
-- description: One scheduling policy as JSON: its rules, each with a type and parameters.
--   Rule types: working_hours (start, end HH:MM: a meeting lies within them), blackout (start,
--   end HH:MM: a daily window no meeting may overlap), buffer (minutes free before and after,
--   against each attendee's other commitments), no_meeting_weekdays (weekdays), min_notice
--   (hours between now and the start), max_meetings_per_day (count: no attendee may already
--   have that many meetings starting that day).
-- levels: 1
-- render: json
-- items: rules
-- exists: policies.policy_id
-- not_found: No policy has policy_id {policy_id}; list_policies shows them all.
-- param: policy_id (string, required, maxLength=40) The policy's id, e.g. POL-ENG.
select
    rule_id,
    rule_type as type,
    cast(params as json) as params
from policy_rules
where world_id = $world_id and policy_id = $policy_id
order by position  -- the loader numbers rules: unique per policy
