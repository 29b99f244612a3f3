-- name: search_people
-- description: Search the people directory by name or email (case-insensitive, any part of
--   it); several people may share a first name. Returns ids, names, emails, teams and titles.
-- levels: 3
-- render: json
-- page: people
-- param: query (string, required, minLength=1, maxLength=200) A name, part of a name or an email.
-- param: limit (integer, default=20, minimum=1, maximum=50) People per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
with found as (
    select person_id, name, email, team, title
    from people
    where world_id = $world_id
        and (contains(lower(name), lower($query)) or contains(lower(email), lower($query)))
),

listed as (
    select
        count(*) as total,
        list({'person_id': person_id, 'name': name, 'email': email, 'team': team, 'title': title}
             order by name, person_id) as items
    from found
)

select
    $query as query,
    total,
    coalesce(list_slice(items, $cursor + 1, $cursor + $limit), []) as people
from listed
