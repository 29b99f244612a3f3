-- name: search_people
-- description: People whose name has a word starting with the query or whose email starts with it
--   (case-insensitive; "ana li" finds Ana Lima; first names can repeat): id, name, email, team and
--   title.
-- levels: 3 4
-- source: directory
-- render: json
-- items: people
-- param: query (string, required, minLength=1, maxLength=200) A name, part of a name or an email.
-- param: limit (integer, default=20, minimum=1, maximum=50) People per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) The previous page's next_cursor.
select
    person_id,
    name,
    email,
    team,
    title,
    ['people:' || person_id] as source_rows,
    count(*) over () as total
from people
where world_id = $world_id
    and (starts_with(lower(name), lower($query))
         or contains(lower(name), ' ' || lower($query))
         or starts_with(lower(email), lower($query)))
order by name, person_id
limit $limit offset $cursor
