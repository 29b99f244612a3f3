-- name: list_threads
-- description: The discussion threads of one project: id, channel, title, how many messages
--   and when the first and last were posted. Read one with read_thread.
-- levels: 2 3
-- render: json
-- page: threads
-- not_found: No project has project_id {project_id}; list_projects shows them.
-- param: project_id (string, required, maxLength=40) The project's id, e.g. PRJ-00042.
-- param: limit (integer, default=20, minimum=1, maximum=50) Threads per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
with project as (
    select project_id, name
    from projects
    where world_id = $world_id and project_id = $project_id
),

found as (
    select
        t.thread_id,
        t.channel,
        t.title,
        t.position,
        count(m.message_id) as messages,
        min(m.ts) as first_message_at,
        max(m.ts) as last_message_at
    from threads as t
    left join messages as m on m.world_id = t.world_id and m.thread_id = t.thread_id
    where t.world_id = $world_id and t.project_id = $project_id
    group by t.thread_id, t.channel, t.title, t.position
),

listed as (
    select
        count(*) as total,
        list({'thread_id': thread_id, 'channel': channel, 'title': title, 'messages': messages,
              'first_message_at': first_message_at, 'last_message_at': last_message_at}
             order by position, thread_id) as items
    from found
)

select
    p.project_id,
    p.name as project_name,
    l.total,
    coalesce(list_slice(l.items, $cursor + 1, $cursor + $limit), []) as threads
from project as p, listed as l
