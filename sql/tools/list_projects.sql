-- name: list_projects
-- description: Projects that have discussion threads, with how many threads each has, in a
--   stable order. Pages with limit and cursor.
-- levels: 2 3
-- render: json
-- page: projects
-- param: query (string, maxLength=200) Only projects whose name or id contains this text
--   (case-insensitive).
-- param: limit (integer, default=20, minimum=1, maximum=50) Projects per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
with found as (
    select
        p.project_id,
        p.name,
        p.position,
        count(t.thread_id) as threads
    from projects as p
    left join threads as t on t.world_id = p.world_id and t.project_id = p.project_id
    where p.world_id = $world_id
        and ($query is null
             or contains(lower(p.name), lower($query))
             or contains(lower(p.project_id), lower($query)))
    group by p.project_id, p.name, p.position
),

listed as (
    select
        count(*) as total,
        list({'project_id': project_id, 'name': name, 'threads': threads} order by position, project_id) as items
    from found
)

select
    total,
    coalesce(list_slice(items, $cursor + 1, $cursor + $limit), []) as projects
from listed
