-- name: read_thread
-- description: One page of a discussion thread as a chat transcript, oldest message first:
--   time, author, message id and the text with any machine-readable tags
--   ([[type key=value ...]]). Pages hold 15 messages.
-- levels: 2 3
-- render: transcript
-- not_found: No thread has thread_id {thread_id}; list_threads shows a project's threads.
-- param: thread_id (string, required, maxLength=40) The thread's id, e.g. PRJ-00042-t1.
-- param: page (integer, default=1, minimum=1, maximum=1000) Which page, from 1.
with thread as (
    select t.thread_id, t.channel, t.title, t.project_id, p.name as project_name
    from threads as t
    join projects as p on p.world_id = t.world_id and p.project_id = t.project_id
    where t.world_id = $world_id and t.thread_id = $thread_id
),

posts as (
    select
        m.message_id,
        m.ts,
        coalesce(a.name, m.author_id) as author,
        m.text,
        m.position
    from messages as m
    left join people as a on a.world_id = m.world_id and a.person_id = m.author_id
    where m.world_id = $world_id and m.thread_id = $thread_id
),

listed as (
    select
        count(*) as total,
        list({'message_id': message_id, 'ts': ts, 'author': author, 'text': text}
             order by ts, position, message_id) as items
    from posts
)

select
    t.thread_id,
    t.channel,
    t.title,
    t.project_id,
    t.project_name,
    $page as page,
    cast(greatest(ceil(l.total / 15), 1) as integer) as pages,
    l.total,
    coalesce(list_slice(l.items, ($page - 1) * 15 + 1, $page * 15), []) as messages
from thread as t, listed as l
