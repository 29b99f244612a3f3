-- name: slack_read_channel
-- description: Slack.read_channel - the messages of one channel, oldest first, replies included
--   (Slack.list_channels lists the channels).
-- render: json
-- items: messages
-- param: channel (string, required, maxLength=80) The channel's name (e.g. general).
-- param: limit (integer, default=30, minimum=1, maximum=50) Messages per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
select
    message_id,
    author,
    sent_at as ts,
    text,
    thread_id as reply_to,
    count(*) over () as total
from stg_legacy_slack_messages
where scenario_id = $scenario_id and lower(channel_name) = lower(ltrim($channel, '#'))
order by sent_at, message_id
limit $limit offset $cursor
