-- name: get_person
-- description: One person from the directory by id: name, email, team and title.
-- levels: 3 4
-- source: directory
-- render: json
-- not_found: No person has person_id {person_id}; search_people finds ids by name.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.
select
    person_id,
    name,
    email,
    team,
    title,
    ['people:' || person_id] as source_rows
from people
where world_id = $world_id and person_id = $person_id
