-- name: search_messages
-- description: The chat messages that contain a text (case-insensitive), newest first: message id,
--   thread id, time, author id and text.
-- levels: 2 3 4
-- source: threads
-- render: json
-- items: matches
-- param: query (string, required, minLength=2, maxLength=200) Text to look for.
-- param: project_id (string, maxLength=40) Only the threads of this project, e.g. PRJ-27b2f0.
-- param: limit (integer, default=20, minimum=1, maximum=50) Matches per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) The previous page's next_cursor.
select
    m.message_id,
    m.thread_id,
    m.ts,
    m.author_id,
    m.text,
    ['messages:' || m.message_id] as source_rows,
    count(*) over () as total
from messages as m
join threads as t on t.world_id = m.world_id and t.thread_id = m.thread_id
where m.world_id = $world_id and contains(lower(m.text), lower($query))
    and ($project_id is null or t.project_id = $project_id)
order by m.ts desc, m.message_id desc
limit $limit offset $cursor
