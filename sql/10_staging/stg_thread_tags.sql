-- Every tag in a thread message, with where it was said (project, thread, message time).
select
    t.world_id,
    t.tag_id,
    t.message_id,
    th.thread_id,
    th.project_id,
    m.ts,
    t.tag_type,
    t.params,
    t.position
from message_tags as t
join messages as m on m.world_id = t.world_id and m.message_id = t.message_id
join threads as th on th.world_id = m.world_id and th.thread_id = m.thread_id
