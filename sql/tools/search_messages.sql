-- name: search_messages
-- description: Find chat messages that contain a text (case-insensitive), newest first, in
--   every project or in one. Each match says its thread, channel, time and author.
-- levels: 2 3
-- render: json
-- page: matches
-- param: query (string, required, minLength=2, maxLength=200) Text to look for.
-- param: project_id (string, maxLength=40) Only messages in this project's threads.
-- param: limit (integer, default=20, minimum=1, maximum=50) Matches per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
with found as (
    select
        m.message_id,
        m.thread_id,
        t.project_id,
        t.channel,
        m.ts,
        coalesce(a.name, m.author_id) as author,
        m.text
    from messages as m
    join threads as t on t.world_id = m.world_id and t.thread_id = m.thread_id
    left join people as a on a.world_id = m.world_id and a.person_id = m.author_id
    where m.world_id = $world_id
        and contains(lower(m.text), lower($query))
        and ($project_id is null or t.project_id = $project_id)
),

listed as (
    select
        count(*) as total,
        list({'message_id': message_id, 'thread_id': thread_id, 'project_id': project_id,
              'channel': channel, 'ts': ts, 'author': author, 'text': text}
             order by ts desc, message_id desc) as items
    from found
)

select
    $query as query,
    total,
    coalesce(list_slice(items, $cursor + 1, $cursor + $limit), []) as matches
from listed
