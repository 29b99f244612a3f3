-- name: slack_search_messages
-- description: Slack.search_messages - find Slack messages that contain a text (case-insensitive),
--   newest first, optionally in one channel. Each match gives the message id, channel, author,
--   time, text and, for a reply, the id of the message it answers.
-- render: json
-- items: messages
-- param: query (string, required, minLength=2, maxLength=200) Text to look for.
-- param: channel (string, maxLength=80) Only this channel, by name (e.g. general).
-- param: limit (integer, default=20, minimum=1, maximum=50) Matches per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
select
    message_id,
    channel_name as channel,
    author,
    sent_at as ts,
    text,
    thread_id as reply_to,
    count(*) over () as total
from stg_legacy_slack_messages
where scenario_id = $scenario_id
    and contains(lower(text), lower($query))
    and ($channel is null or lower(channel_name) = lower(ltrim($channel, '#')))
order by sent_at desc, message_id desc
limit $limit offset $cursor
