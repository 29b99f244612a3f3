-- name: search_messages
-- description: The chat messages of every project's threads that contain a text (case-insensitive),
--   newest first: message id, thread id, time, author id and text.
-- levels: 2 3 4
-- source: threads
-- render: json
-- items: matches
-- param: query (string, required, minLength=2, maxLength=200) Text to look for.
-- param: limit (integer, default=20, minimum=1, maximum=50) Matches per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) The previous page's next_cursor.
select
    message_id,
    thread_id,
    ts,
    author_id,
    text,
    ['messages:' || message_id] as source_rows,
    count(*) over () as total
from messages
where world_id = $world_id and contains(lower(text), lower($query))
order by ts desc, message_id desc
limit $limit offset $cursor
