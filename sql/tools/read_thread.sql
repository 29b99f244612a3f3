-- name: read_thread
-- description: One page (15 messages) of a discussion thread, oldest first: each message's time,
--   author, id and text, with any tags.
-- levels: 2 3 4
-- source: threads
-- render: transcript
-- page_size: 15
-- exists: threads.thread_id
-- not_found: No thread has thread_id {thread_id}; list_threads shows a project's threads.
-- param: thread_id (string, required, maxLength=40) The thread's id, e.g. PRJ-27b2f0-t5d.
-- param: page (integer, default=1, minimum=1, maximum=1000) Which page, from 1.
select
    m.message_id,
    m.ts,
    coalesce(a.name, m.author_id) as author,
    m.text,
    -- lineage: the message, and its author's directory row where the name comes from it
    case when a.person_id is null then ['messages:' || m.message_id]
         else ['messages:' || m.message_id, 'people:' || a.person_id] end as source_rows,
    count(*) over () as total
from messages as m
left join people as a on a.world_id = m.world_id and a.person_id = m.author_id
where m.world_id = $world_id and m.thread_id = $thread_id
order by m.ts, m.position  -- position: unique in the thread
limit $page_size offset ($page - 1) * $page_size
