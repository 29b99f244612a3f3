-- name: list_threads
-- description: One project's discussion threads: id, channel and title.
-- levels: 2 3 4
-- source: none
-- render: json
-- items: threads
-- exists: projects.project_id
-- not_found: No project has project_id {project_id}; list_projects shows them.
-- param: project_id (string, required, maxLength=40) The project's id, e.g. PRJ-27b2f0.
-- param: limit (integer, default=20, minimum=1, maximum=50) Threads per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) The previous page's next_cursor.
select
    thread_id,
    channel,
    title,
    ['threads:' || thread_id] as source_rows,
    count(*) over () as total
from threads
where world_id = $world_id and project_id = $project_id
order by position  -- the loader numbers rows: unique per world
limit $limit offset $cursor
