-- name: list_projects
-- description: The projects that have discussion threads: id and name.
-- levels: 2 3 4
-- source: none
-- render: json
-- items: projects
-- param: query (string, maxLength=200) Only projects whose name or id contains this text
--   (case-insensitive).
-- param: limit (integer, default=20, minimum=1, maximum=50) Projects per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) The previous page's next_cursor.
select
    project_id,
    name,
    ['projects:' || project_id] as source_rows,
    count(*) over () as total
from projects
where world_id = $world_id
    and ($query is null
         or contains(lower(name), lower($query))
         or contains(lower(project_id), lower($query)))
order by position  -- the loader numbers rows: unique per world
limit $limit offset $cursor
