-- name: search_people
-- description: Search the people directory by name or email: matches names with a word that
--   starts with the query (case-insensitive; "ana" finds Ana Lima and Ana Chen, "ana li" finds
--   Ana Lima) and emails that start with it. Several people may share a first name. Returns
--   ids, names, emails, teams and titles.
-- levels: 3 4
-- source: directory
-- render: json
-- items: people
-- param: query (string, required, minLength=1, maxLength=200) A name, part of a name or an email.
-- param: limit (integer, default=20, minimum=1, maximum=50) People per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
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
