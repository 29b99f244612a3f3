-- Slack messages with their channel's name, the author's name and a typed time.
with messages as (
    select * from legacy_slack_messages
),
channels as (
    select scenario_id, channel_id, name as channel_name from legacy_slack_channels
),
users as (
    select scenario_id, user_id, name as author from legacy_slack_users
)
select
    m.scenario_id,
    m.message_id,
    m.channel_id,
    c.channel_name,
    m.user_id,
    coalesce(u.author, m.user_id) as author,
    cast(m.ts as timestamp) as sent_at,
    m.text,
    m.thread_id
from messages as m
left join channels as c on c.scenario_id = m.scenario_id and c.channel_id = m.channel_id
left join users as u on u.scenario_id = m.scenario_id and u.user_id = m.user_id
