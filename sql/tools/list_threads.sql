-- name: list_threads
-- description: The discussion threads of one project: id, channel and title. Read one with
--   read_thread.
-- levels: 2 3 4
-- source: none
-- render: json
-- items: threads
-- exists: projects.project_id
-- not_found: No project has project_id {project_id}; list_projects shows them.
-- param: project_id (string, required, maxLength=40) The project's id, e.g. PRJ-27b2f0.
-- param: limit (integer, default=20, minimum=1, maximum=50) Threads per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
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
