-- name: get_working_hours
-- description: One person's name, home time zone and working hours (HH:MM on their own clock; the
--   policy says which days are working days).
-- levels: 4
-- source: calendar
-- render: json
-- not_found: No working hours for person_id {person_id}; search_people finds ids by name.
-- param: person_id (string, required, maxLength=40) The person's id, e.g. p-3fa9c2.
select
    p.person_id,
    p.name,
    h.timezone,
    h.work_start as working_hours_start,
    h.work_end as working_hours_end,
    ['person_hours:' || h.person_id, 'people:' || p.person_id] as source_rows
from person_hours as h
join people as p on p.world_id = h.world_id and p.person_id = h.person_id
where h.world_id = $world_id and h.person_id = $person_id
