-- name: get_policy
-- description: One scheduling policy as JSON: its rules, each with a type and parameters.
--   Rule types: working_hours (start, end HH:MM: a meeting lies within them), blackout (start,
--   end HH:MM: a daily window no meeting may overlap), buffer (minutes free before and after,
--   against each attendee's other commitments), no_meeting_weekdays (weekdays), min_notice
--   (hours between now and the start), max_meetings_per_day (count: no attendee may already
--   have that many meetings starting that day).
-- levels: 1
-- render: json
-- not_found: No policy has policy_id {policy_id}; list_policies shows them all.
-- param: policy_id (string, required, maxLength=40) The policy's id, e.g. POL-ENG.
select
    p.policy_id,
    p.name,
    coalesce(
        (select list({'rule_id': r.rule_id, 'type': r.rule_type, 'params': cast(r.params as json)}
                     order by r.position, r.rule_id)
         from policy_rules as r
         where r.world_id = p.world_id and r.policy_id = p.policy_id),
        []
    ) as rules
from policies as p
where p.world_id = $world_id and p.policy_id = $policy_id
