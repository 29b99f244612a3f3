-- name: slack_list_channels
-- description: Slack.list_channels - every Slack channel with its topic, member count and
--   message count.
-- render: json
-- items: channels
select
    c.name,
    c.topic,
    len(c.members) as members,
    count(m.message_id) as messages
from legacy_slack_channels as c
left join legacy_slack_messages as m on m.scenario_id = c.scenario_id and m.channel_id = c.channel_id
where c.scenario_id = $scenario_id
group by c.name, c.topic, c.members
order by c.name
